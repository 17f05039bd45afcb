#!/usr/bin/env bash
# The GPU check of docs/gpu.md: the suite's CUDA targets beside their CPU twins on one NVIDIA GPU,
# compared item by item. Run from the repository root on the GPU machine:
#
#     OUT=/some/folder bash benchmarks/gpu_check.sh
#
# It installs the suite and the torch, jax, cupy and onnxruntime adapters into the running Python
# (editable, without dependencies: the frameworks are the machine's; jsonschema and what it needs,
# and onnx for ONNX Runtime's route, come as wheels from .gpu-wheels/, for a machine without network),
# then runs, each step under its own time limit:
#   torch   torch/eager and torch/export on cpu and cuda
#   jax     jax/eager and jax/jit on cpu, cpu-x64, gpu and gpu-x64
#   cupy    cupy/cupy/cuda
#   ort-*   onnxruntime/default with the CPU provider, then with CUDAExecutionProvider (device label
#           cuda), where this onnxruntime has that provider
# and writes OUT/summary.txt (benchmarks/gpu_summary.py): each target's status counts, the results
# that are no pass, each step's seconds, and the devices of each backend compared item by item.
# Everything it writes goes under OUT; it stops nothing it did not start.
#
# Environment: PYTHON (default python3), JOBS (default 12), SLICE (a -k expression every run takes,
# default: all items), BUDGET_S (default 450: the seconds the whole check may take; each step gets
# what is left, at most its own limit, and one with less than 20 s left is skipped and said so),
# GPU_CHECK_CPU_ONLY=1 (a dry run on a machine without a GPU: the CPU devices alone and no install,
# to try the script and its summary; cupy's items are then unsupported).
set -u
OUT=${OUT:?set OUT to the folder the check writes to}
PY=${PYTHON:-python3}
JOBS=${JOBS:-12}
SLICE=${SLICE:-}
CPU_ONLY=${GPU_CHECK_CPU_ONLY:-}
cd "$(dirname "$0")/.."
mkdir -p "$OUT"
: > "$OUT/steps.txt"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
# CuPy's compiled kernels go under OUT (removed at the end), not into the home folder
export CUPY_CACHE_DIR="$OUT/cupy-cache"

now_ms() { date +%s%3N; }
BEGIN_MS=$(now_ms)
BUDGET_S=${BUDGET_S:-450}

# step NAME LIMIT_S COMMAND...: the command's output in OUT/NAME.log, its status and seconds in steps.txt
step() {
    local name=$1 limit=$2 start rc left
    shift 2
    left=$(( BUDGET_S - ($(now_ms) - BEGIN_MS) / 1000 ))
    if [ "$left" -lt 20 ]; then
        echo "$name: skipped, $left s left of the check's $BUDGET_S s" | tee -a "$OUT/steps.txt"
        return
    fi
    [ "$left" -lt "$limit" ] && limit=$left
    start=$(now_ms)
    timeout --signal=TERM --kill-after=10 "$limit" "$@" > "$OUT/$name.log" 2>&1
    rc=$?
    local spent=$(( $(now_ms) - start ))
    echo "$name: exit $rc in $(( spent / 1000 )).$(( spent % 1000 / 100 )) s (limit $limit s)" | tee -a "$OUT/steps.txt"
}

# run NAME LIMIT_S ARGS...: one `conformance run` into OUT/NAME
run() {
    local name=$1 limit=$2
    shift 2
    local keyword=()
    [ -n "$SLICE" ] && keyword=(-k "$SLICE")
    step "$name" "$limit" "$PY" -m conformance.cli run "$@" "${keyword[@]}" -j "$JOBS" --no-junit --out "$OUT/$name"
}

# jsonschema and onnx with what they need from the wheels, then the suite and four adapters,
# editable; with setuptools and wheel from .gpu-wheels where the machine's cannot build them.
install() {
    local editable=(-e . -e adapters/torch -e adapters/jax -e adapters/cupy -e adapters/onnxruntime)
    # what the machine has (numpy, typing_extensions ...) is kept: only what is missing comes from the wheels
    "$PY" -m pip install --no-index --find-links .gpu-wheels jsonschema || return 1
    "$PY" -m pip install --no-index --find-links .gpu-wheels "onnx==1.23.2" ||
        echo "no onnx: ONNX Runtime's route cannot run"
    "$PY" -m pip install --no-index --no-deps --no-build-isolation "${editable[@]}" && return 0
    echo "editable install failed: again with setuptools and wheel from .gpu-wheels"
    "$PY" -m pip install --no-index --no-deps .gpu-wheels/setuptools-*.whl .gpu-wheels/wheel-*.whl &&
        "$PY" -m pip install --no-index --no-deps --no-build-isolation "${editable[@]}"
}

# Where pip cannot install (a venv made without pip): the wheels unpacked and each distribution's
# metadata and entry points written into OUT/site, the packages put on PYTHONPATH from the checkout.
unpack() {
    "$PY" - "$OUT/site" <<'EOF'
import pathlib, sys, tomllib, zipfile
site = pathlib.Path(sys.argv[1])
site.mkdir(parents=True, exist_ok=True)
from importlib import metadata
for wheel in sorted(pathlib.Path(".gpu-wheels").glob("*.whl")):
    name = wheel.name.split("-")[0]
    try:
        metadata.version(name)  # the machine has it: keep the machine's
    except metadata.PackageNotFoundError:
        if name not in ("setuptools", "wheel"):
            zipfile.ZipFile(wheel).extractall(site)
for project in (".", "adapters/torch", "adapters/jax", "adapters/cupy", "adapters/onnxruntime"):
    meta = tomllib.loads(pathlib.Path(project, "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = site / f"{meta['name'].replace('-', '_')}-{meta['version']}.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {meta['name']}\nVersion: {meta['version']}\n")
    points = meta.get("entry-points", {}).get("conformance.adapters", {})
    lines = "".join(f"{name} = {value}\n" for name, value in points.items())
    (info / "entry_points.txt").write_text(f"[conformance.adapters]\n{lines}")
    print(f"unpacked: {info.name} ({', '.join(points) or 'the suite'})")
EOF
}

if [ -z "$CPU_ONLY" ]; then
    start=$(now_ms)
    export -f install
    export PY
    if ! timeout 200 bash -c install > "$OUT/install.log" 2>&1; then
        unpack >> "$OUT/install.log" 2>&1
        for package in "$PWD"/adapters/{torch,jax,cupy,onnxruntime} "$OUT/site"; do
            PYTHONPATH="$PYTHONPATH:$package"
        done
        echo "install: pip failed (install.log): the wheels unpacked into OUT/site instead" \
            | tee -a "$OUT/steps.txt"
    fi
    echo "install: done in $(( ($(now_ms) - start) / 1000 )) s" | tee -a "$OUT/steps.txt"
fi

{
    echo "host: $(hostname), $(nproc) cores; python: $("$PY" -c 'import sys; print(sys.version.split()[0])')"
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
    "$PY" - <<'EOF' 2>&1
import importlib
for name in ("torch", "jax", "jaxlib", "cupy", "onnxruntime", "numpy"):
    try:
        module = importlib.import_module(name)
        print(f"{name}: {getattr(module, '__version__', '?')}")
    except Exception as error:
        print(f"{name}: not importable ({type(error).__name__}: {error})")
try:
    import onnxruntime
    print("onnxruntime providers:", ", ".join(onnxruntime.get_available_providers()))
except Exception:
    pass
EOF
} > "$OUT/env.txt"
cat "$OUT/env.txt"

step adapters 60 "$PY" -m conformance.cli adapters

if [ -n "$CPU_ONLY" ]; then
    TORCH_DEVICES=cpu JAX_DEVICES=cpu,cpu-x64
else
    TORCH_DEVICES=cpu,cuda JAX_DEVICES=cpu,cpu-x64,gpu,gpu-x64
fi
run torch 120 --adapter torch --option "torch.device=$TORCH_DEVICES" --target 'torch/eager/*' --target 'torch/export/*'
run jax 200 --adapter jax --option "jax.device=$JAX_DEVICES" --target 'jax/*'
run cupy 70 --adapter cupy --target 'cupy/*'
if grep -q "CUDAExecutionProvider" "$OUT/env.txt"; then
    run ort-cpu 45 --adapter onnxruntime --target 'onnxruntime/default/*'
    run ort-cuda 60 --adapter onnxruntime --target 'onnxruntime/default/*' \
        --option onnxruntime.providers=CUDAExecutionProvider,CPUExecutionProvider --option onnxruntime.device=cuda
else
    echo "ort: skipped, no CUDAExecutionProvider in this onnxruntime" | tee -a "$OUT/steps.txt"
fi

"$PY" benchmarks/gpu_summary.py "$OUT" > /dev/null
rm -rf "$OUT/site" "$OUT/cupy-cache"  # the unpacked wheels, if any, and CuPy's kernels: not figures
tail -n 40 "$OUT/summary.txt"
