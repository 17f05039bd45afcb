"""The wheel carries the suite's corpus: ``cases/`` (profiles included) is copied into the
package as ``conformance/corpus/builtin/`` when the package is built, so an installed suite can
run and certify from any directory (see conformance/corpus/builtin.py). Everything else about
the distribution is in pyproject.toml."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

CORPUS = Path(__file__).resolve().parent / "cases"


class BuildWithCorpus(build_py):
    """build_py, then the corpus's YAML files into the built package."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "conformance" / "corpus" / "builtin"
        if CORPUS.is_dir():
            shutil.copytree(
                CORPUS, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.pyc", "__pycache__")
            )


setup(cmdclass={"build_py": BuildWithCorpus})
