"""The architecture as tests: the import rule between the pipeline's stages, module size, and a
project that stands alone.

The import rule itself is import-linter's (its contracts are in pyproject.toml, and
``nox -s lint`` runs them too); here it is run on the real package, and on a copy with one
deliberately wrong import, to show that a wrong arrow is caught and named.
"""

from __future__ import annotations

import graphlib
import shutil
import subprocess
import sys
from collections import defaultdict
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "conformance"
#: The size above which a module is doing more than one thing.
MAX_MODULE_LINES = 650
#: Modules at the package's top, beside its stages' packages: the vocabulary, the vendor-facing
#: modules and the front doors. Past this the top stops showing the pipeline.
MAX_TOP_LEVEL_MODULES = 10
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

needs_import_linter = pytest.mark.skipif(
    not LINT_IMPORTS.exists(), reason="import-linter is not installed: pip install -e '.[test]'"
)


def lint_imports(root: Path, config: Path) -> subprocess.CompletedProcess[str]:
    """import-linter's verdict on the package found first under ``root``."""
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(config), "--no-cache"],
        cwd=root,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root), "HOME": str(root)},
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


@needs_import_linter
def test_the_package_keeps_its_import_contracts() -> None:
    done = lint_imports(ROOT, ROOT / "pyproject.toml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 3 kept, 0 broken." in done.stdout


def test_every_module_at_the_top_sits_in_a_layer() -> None:
    """A module or package left out of the layers is free to import anything (options.py was,
    and imported the run stage); so each one at the package's top is named in a layer."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (pipeline,) = [contract for contract in config["contracts"] if contract["id"] == "pipeline"]
    layered = {name.strip() for layer in pipeline["layers"] for name in layer.split("|")}
    top = {
        f"conformance.{path.stem}"
        for path in PACKAGE.iterdir()
        if (path.suffix == ".py" and path.name != "__init__.py") or (path / "__init__.py").is_file()
    }
    assert top - layered == set()


@needs_import_linter
@pytest.mark.parametrize(
    ("module", "wrong_import", "arrow"),
    [
        # the corpus reaching for the HTML report: two stages upstream
        (
            "corpus/case.py",
            "from conformance.report import page",
            "conformance.corpus.case -> conformance.report",
        ),
        # the engine writing the report again (what the runner used to do)
        ("run/runner.py", "from conformance import report", "conformance.run.runner -> conformance.report"),
        # certification and the report are siblings: neither may import the other
        ("certify/certificate.py", "from conformance.report import markup", "conformance.certify"),
        # the engine reaching for the verdict policy, which stands on it
        (
            "engine/item.py",
            "from conformance.verdict import known_issues",
            "conformance.engine.item -> conformance.verdict",
        ),
        # the adapter interface reaching into the oracle
        ("plugin.py", "from conformance.oracle import judging", "conformance.plugin -> conformance.oracle"),
    ],
)
@pytest.mark.slow
def test_a_wrong_arrow_is_caught_and_named(
    tmp_path: Path, module: str, wrong_import: str, arrow: str
) -> None:
    copy = tmp_path / "conformance"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{wrong_import}  # noqa\n", encoding="utf-8")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    done = lint_imports(tmp_path, tmp_path / "pyproject.toml")
    assert done.returncode != 0, done.stdout
    assert "BROKEN" in done.stdout and arrow in done.stdout, done.stdout


@needs_import_linter
def test_no_modules_import_each_other_in_a_circle() -> None:
    """Layers order the stages, not the modules inside one: two modules that import each other
    (models/onnx_graphs and sequence_consumers did, through a function-level import) cannot be
    read, tested or loaded one before the other. grimp, import-linter's graph, sees every import,
    in a function or under TYPE_CHECKING too."""
    import grimp

    graph = grimp.build_graph("conformance", cache_dir=None)
    order = graphlib.TopologicalSorter(
        {module: graph.find_modules_directly_imported_by(module) for module in graph.modules}
    )
    try:
        order.prepare()
    except graphlib.CycleError as error:
        pytest.fail(f"an import cycle: {' -> '.join(error.args[1])}")


def test_no_two_modules_share_a_name() -> None:
    """A name says one thing: two modules of one name (there were two plugin.py, two summary.py,
    a report/verdict.py beside the verdict/ package) read alike in imports, tracebacks and docs."""
    where: dict[str, list[str]] = defaultdict(list)
    for path in PACKAGE.rglob("*.py"):
        module = path.parent if path.name == "__init__.py" else path.with_suffix("")
        if module != PACKAGE:
            where[module.name].append(str(module.relative_to(ROOT)))
    assert where, "no module found"
    assert {name: paths for name, paths in where.items() if len(paths) > 1} == {}


def test_no_module_is_over_the_size_limit() -> None:
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    assert sizes, "no module found"
    assert {name: lines for name, lines in sizes.items() if lines > MAX_MODULE_LINES} == {}


def test_the_package_top_holds_few_modules() -> None:
    modules = sorted(path.name for path in PACKAGE.glob("*.py") if path.name != "__init__.py")
    assert len(modules) <= MAX_TOP_LEVEL_MODULES, modules


def test_the_stages_are_packages_named_for_the_pipeline() -> None:
    stages = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").is_file()}
    pipeline = {"corpus", "oracle", "results", "loading", "engine", "verdict", "storage", "run"}
    assert pipeline | {"certify", "report"} <= stages


def tracked_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.split("\0")
    return [ROOT / name for name in listed if name and (ROOT / name).is_file()]


def test_no_file_points_outside_the_repository() -> None:
    """A clone has nothing beside it: no file may cite the reading material next to the repository."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    outside = "../" + "shared"  # spelled apart so that this file does not match itself
    material = "shared" + "/"
    found = []
    for path in tracked_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if outside in line or material in line:
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    assert found == []
