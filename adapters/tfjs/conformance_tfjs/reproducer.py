"""The tfjs reproducer: a Node.js script that uses only TF.js, inside the Python snippet the suite
attaches to a finding. The snippet writes the script into ``$TFJS_FOLDER`` (default: the current
folder), which must hold TF.js 4.22.0's packages (``npm install @tensorflow/tfjs-core@4.22.0
@tensorflow/tfjs-backend-cpu@4.22.0 @tensorflow/tfjs-backend-wasm@4.22.0``), and runs ``node`` there;
the script alone can also be copied out and run with ``node``.
"""

from __future__ import annotations

import base64
import json

import numpy as np

from conformance import reproducers
from conformance.plugin import Target, Task

#: How the script makes the case's tensor from its bytes, by TF.js type.
_TENSOR = {
    "float32": "tf.tensor(new Float32Array(bytes.buffer), shape, 'float32')",
    "int32": "tf.tensor(new Int32Array(bytes.buffer), shape, 'int32')",
    "bool": "tf.tensor(new Uint8Array(bytes.buffer), shape, 'bool')",
    "complex64": (
        "(() => { const pairs = new Float32Array(bytes.buffer);\n"
        "  return tf.complex(tf.tensor(pairs.filter((_, i) => i % 2 === 0), shape),"
        " tf.tensor(pairs.filter((_, i) => i % 2 === 1), shape)); })()"
    ),
}


def script(task: Task, backend: str) -> str:
    """The Node.js script: every run of the case split on ``backend``, printing the pieces' shapes
    and values, or what TF.js threw."""
    body = "".join(_run(run) for run in task.every_run)
    return (
        "import * as tf from '@tensorflow/tfjs-core';\n"
        "import '@tensorflow/tfjs-backend-cpu';\n"
        "import '@tensorflow/tfjs-backend-wasm';\n\n"
        f"await tf.setBackend({backend!r});\n"
        "function show(pieces) {\n"
        "  pieces.forEach((p) => console.log(JSON.stringify(p.shape), p.arraySync()));\n}\n"
        f"{body}"
    )


def _run(task: Task) -> str:
    heading = reproducers.run_heading(task).replace("#", "//")
    axis, form = task.request.axis, task.request.form
    axis_argument = "" if axis is None else f", {axis}"
    split = json.dumps(list(form.values) if form.kind == "lengths" else int(form.values[0]))
    if task.dtype == "string":
        values = json.dumps([str(value) for value in task.data.reshape(-1)])
        make = f"tf.tensor({values}, shape, 'string')"
        data = ""
    else:
        carried = np.uint8 if task.dtype == "bool" else task.data.dtype
        encoded = base64.b64encode(np.ascontiguousarray(task.data, dtype=carried).tobytes()).decode("ascii")
        data = f"  const bytes = new Uint8Array(Buffer.from('{encoded}', 'base64'));\n"
        make = _TENSOR[task.dtype]
    return (
        f"{heading}{{\n  const shape = {json.dumps(list(task.data.shape))};\n{data}"
        f"  const x = {make};\n"
        f"  try {{ show(tf.split(x, {split}{axis_argument})); }}\n"
        "  catch (error) { console.log(`${error.name}: ${error.message}`); }\n}\n"
    )


def snippet(task: Task, target: Target) -> str:
    """The Python snippet the suite attaches: it writes :func:`script` and runs it with ``node``."""
    return (
        "import os\nimport subprocess\n\n"
        f"SCRIPT = {script(task, target.device)!r}\n"
        "folder = os.environ.get('TFJS_FOLDER', '.')\n"
        "with open(os.path.join(folder, 'tfjs_split_repro.mjs'), 'w', encoding='utf-8') as file:\n"
        "    file.write(SCRIPT)\n"
        "subprocess.run(['node', 'tfjs_split_repro.mjs'], cwd=folder, check=True)\n"
    )
