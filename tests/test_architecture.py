"""The architecture as tests: the import rule between the pipeline's stages, module size, and a
project that stands alone.

The import rule itself is import-linter's (its contracts are in pyproject.toml, and
``nox -s lint`` runs them too); here it is run on the real package, and on a copy with one
deliberately wrong import, to show that a wrong arrow is caught and named.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "conformance"
#: The size above which a module is doing more than one thing.
MAX_MODULE_LINES = 650
#: The state above which a class is doing more than one thing.
MAX_INSTANCE_ATTRIBUTES = 15
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


def test_no_module_is_over_the_size_limit() -> None:
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    assert sizes, "no module found"
    assert {name: lines for name, lines in sizes.items() if lines > MAX_MODULE_LINES} == {}


def _frozen(node: ast.ClassDef) -> bool:
    """Whether ``node`` is a frozen dataclass: a value, set once, whose fields mirror a record of a
    file format (a result, a known issue) or the option table (a run's configuration)."""
    return any(
        isinstance(decorator, ast.Call)
        and ast.unparse(decorator.func).endswith("dataclass")
        and any(k.arg == "frozen" and ast.unparse(k.value) == "True" for k in decorator.keywords)
        for decorator in node.decorator_list
    )


def instance_attributes(node: ast.ClassDef) -> set[str]:
    """The instance attributes of a class: each ``self.X`` its methods assign, and the fields it
    declares in its body (a dataclass's); none for a frozen dataclass, a TypedDict or a Protocol,
    which hold no changing state."""
    bases = {ast.unparse(base).split("[")[0] for base in node.bases}
    if _frozen(node) or bases & {"TypedDict", "Protocol", "NamedTuple", "Enum"}:
        return set()
    names = {
        statement.target.id
        for statement in node.body
        if isinstance(statement, ast.AnnAssign)
        and isinstance(statement.target, ast.Name)
        and "ClassVar" not in ast.unparse(statement.annotation)
    }
    for method in node.body:
        if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for inner in ast.walk(method):
            if isinstance(inner, ast.Assign):
                targets = inner.targets
            elif isinstance(inner, ast.AnnAssign | ast.AugAssign):
                targets = [inner.target]
            else:
                continue
            parts = [part for target in targets for part in ast.walk(target)]
            names.update(
                part.attr
                for part in parts
                if isinstance(part, ast.Attribute)
                and isinstance(part.ctx, ast.Store)
                and ast.unparse(part.value) == "self"
            )
    return names


def attribute_counts(package: Path) -> dict[str, int]:
    """``module:Class`` -> its instance attributes, for every class of the package."""
    counts = {}
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                counts[f"{path.relative_to(package.parent)}:{node.name}"] = len(instance_attributes(node))
    return counts


def test_no_class_holds_more_than_its_share_of_state() -> None:
    counts = attribute_counts(PACKAGE)
    assert counts, "no class found"
    assert {name: count for name, count in counts.items() if count > MAX_INSTANCE_ATTRIBUTES} == {}


def test_the_attribute_count_sees_fields_and_assignments(tmp_path: Path) -> None:
    """The count the limit rests on: a dataclass's fields and what ``__init__`` or any other method
    assigns to ``self`` count, once each; a frozen dataclass (a value) and class variables do not."""
    package = tmp_path / "package"
    package.mkdir()
    (package / "classes.py").write_text(
        "from dataclasses import dataclass, field\n"
        "from typing import ClassVar\n"
        "@dataclass\n"
        "class Held:\n"
        "    a: int\n"
        "    b: list[int] = field(default_factory=list)\n"
        "    limit: ClassVar[int] = 3\n"
        "    def grow(self) -> None:\n"
        "        self.c = self.a = 1\n"
        "        self.d += 1\n"
        "class Plain:\n"
        "    def __init__(self) -> None:\n"
        "        self.x, self.y = 1, 2\n"
        "@dataclass(frozen=True)\n"
        "class Value:\n"
        "    a: int\n",
        encoding="utf-8",
    )
    assert attribute_counts(package) == {
        "package/classes.py:Held": 4,
        "package/classes.py:Plain": 2,
        "package/classes.py:Value": 0,
    }


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
