"""A seeded mutator over the corpus, and a harness that validates each mutant in a child process.

A tester's attack on ``conformance validate``: each mutant is one corpus file changed the way a
careless edit or a hostile file would (a number made huge or negative, a value of the wrong type,
a YAML alias bomb, deep nesting, ragged values, a torn or non-UTF-8 file ...). Each mutant is
loaded and audited exactly as ``validate`` does, in a child process with an address-space limit;
the only acceptable endings are a clean result or the suite's own errors (ConformanceError, which
name the file and line). A Python traceback of any other kind, a process that dies, or one that
takes longer than the limit, is a defect of the suite.

    python benchmarks/mutation.py --count 3000 --seed 0     # prints the figures, lists the defects

The tests run a few hundred mutants of the same kind (tests/test_hostile_corpus.py).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import select
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "cases"
#: The address space a child may use (the issue's bound on every process: 2 GiB).
MEMORY_LIMIT = 2 << 30

HUGE = [10**7, 2**31, 2**32 + 1, 2**62, 2**63 - 1, 2**63, 2**64, -(2**63), -(2**31), 10**30, 0, -1]


def _numbers(text: str) -> list[tuple[int, int]]:
    spans = []
    start = None
    for index, char in enumerate(text + " "):
        if (
            char.isdigit()
            and start is None
            and (index == 0 or not (text[index - 1].isalnum() or text[index - 1] == "_"))
        ):
            start = index
        elif not char.isdigit() and start is not None:
            if not (char.isalpha() or char == "_"):
                spans.append((start, index))
            start = None
    return spans


def _text_mutations(rng: random.Random, text: str) -> str | bytes:
    choice = rng.randrange(9)
    if choice == 0 and (spans := _numbers(text)):  # a number made huge, zero or negative
        start, end = rng.choice(spans)
        return text[:start] + str(rng.choice(HUGE)) + text[end:]
    if choice == 1:  # a torn file
        return text[: rng.randrange(max(1, len(text)))]
    if choice == 2:  # a line removed or repeated
        lines = text.splitlines(keepends=True)
        at = rng.randrange(len(lines))
        return "".join(lines[:at] + ([] if rng.random() < 0.5 else [lines[at], lines[at]]) + lines[at + 1 :])
    if choice == 3:  # a billion-laughs alias bomb, in a note or as a file of its own
        levels = rng.randrange(5, 10)
        bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
            f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]\n" for n in range(1, levels)
        )
        return bomb + text
    if choice == 4:  # a merge-key bomb
        merges = "m0: &m0 {k0: 1}\n" + "".join(
            f"m{n}: &m{n} {{<<: [*m{n - 1}, *m{n - 1}], k{n}: {n}}}\n" for n in range(1, 25)
        )
        return merges + text
    if choice == 5:  # deep nesting in flow style
        depth = rng.choice([50, 200, 1000, 5000, 20000])
        return (
            text.replace("[", "[" * depth, 1).replace("]", "]" * depth, 1)
            if "[" in text
            else "[" * depth + "]" * depth
        )
    if choice == 6:  # bytes that are not UTF-8, or a NUL
        at = rng.randrange(len(text) + 1)
        raw = text.encode()
        return raw[:at] + rng.choice([b"\xff\xfe", b"\xc3", b"\x00", b"\xed\xa0\x80"]) + raw[at:]
    if choice == 7:  # a recursive alias
        return (
            text.replace("cases:", "loop: &loop [*loop]\ncases:", 1)
            if rng.random() < 0.5
            else "x: &x\n  y: *x\n" + text
        )
    return text.replace("\n", "\n" + " " * rng.randrange(1, 4), rng.randrange(1, 5))  # indentation broken


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))


def _nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


def _replacement(rng: random.Random, old: Any) -> Any:
    options: list[Callable[[], Any]] = [
        lambda: rng.choice(HUGE),
        lambda: [rng.choice(HUGE) for _ in range(rng.randrange(1, 6))],
        lambda: rng.choice([None, True, "", "x" * 10_000, "🙂\u202e<script>", 1.5, float("nan"), {}, []]),
        lambda: {"nested": old},
        lambda: [old] * rng.randrange(2, 4),
        lambda: [[1, 2, 3], [4, 5], [6]],  # ragged
        lambda: _nested(rng.choice([20, 100, 400])),
        lambda: 1_000_000 if isinstance(old, int) else old,
        lambda: [10**7] if isinstance(old, list) else [10**7, 0],
        lambda: -old if isinstance(old, int) and not isinstance(old, bool) else old,
    ]
    return rng.choice(options)()


def _data_mutations(rng: random.Random, text: str) -> str:
    data = yaml.safe_load(text)
    paths = [path for path in _paths(data) if path]
    for _ in range(rng.randrange(1, 4)):
        if not paths:
            break
        path = rng.choice(paths)
        parent = data
        try:
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = _replacement(rng, parent[path[-1]])
        except (KeyError, IndexError, TypeError):
            continue
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=10**6)


def _single_cases(corpus: Path) -> list[str]:
    """Every corpus case as a file of its own (the file's defaults kept): mutants of small files
    are checked in milliseconds, so a run covers thousands of them."""
    singles = []
    for path in sorted(corpus.glob("*.yaml")):
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        for case in document.get("cases", []):
            single = {key: value for key, value in document.items() if key != "cases"}
            single["cases"] = [case]
            singles.append(yaml.safe_dump(single, sort_keys=False, allow_unicode=True, width=10**6))
    return singles


def mutants(seed: int, count: int, corpus: Path = CORPUS) -> Iterator[tuple[str, bytes]]:
    """``count`` (name, content) mutants of the corpus's cases, the same for the same seed."""
    rng = random.Random(seed)
    singles = _single_cases(corpus)
    for number in range(count):
        text = rng.choice(singles)
        mutant: str | bytes
        try:
            mutant = _data_mutations(rng, text) if rng.random() < 0.6 else _text_mutations(rng, text)
        except (yaml.YAMLError, RecursionError, ValueError, OverflowError):
            mutant = _text_mutations(rng, text)
        yield f"mutant-{number:05d}.yaml", mutant if isinstance(mutant, bytes) else mutant.encode("utf-8")


@dataclass(frozen=True)
class Outcome:
    name: str
    kind: str  # ok | defects | error (the suite's own) | traceback | died | hang
    seconds: float
    detail: str


#: What the child runs per file: validate's two steps, with the suite's errors as clean endings.
_CHILD = """
import json, sys, time, traceback
from conformance.corpus.loader import load_paths
from conformance.errors import ConformanceError
from conformance.oracle.corpus_check import check_corpus
for line in sys.stdin:
    path = line.strip()
    started = time.perf_counter()
    try:
        defects = check_corpus(load_paths([path]).cases)
        kind, detail = ("defects", str(defects[0])) if defects else ("ok", "")
    except ConformanceError as error:
        kind, detail = "error", str(error)[:300]
    except BaseException as error:
        kind, detail = "traceback", "".join(traceback.format_exception(error))[-1500:]
    seconds = time.perf_counter() - started
    print(json.dumps({"path": path, "kind": kind, "seconds": seconds, "detail": detail}), flush=True)
"""


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _child() -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        preexec_fn=_limit_memory,
        cwd=ROOT,
    )


def check(seed: int, count: int, timeout_s: float = 20.0, folder: Path | None = None) -> list[Outcome]:
    """Validate ``count`` mutants, one at a time in a child process (restarted after a death or a
    hang); each mutant's ending."""
    with tempfile.TemporaryDirectory() as scratch:
        where = folder or Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        files = []
        for name, content in mutants(seed, count):
            path = where / name
            path.write_bytes(content)
            files.append(path)
        outcomes: list[Outcome] = []
        child = _child()
        for path in files:
            assert child.stdin is not None and child.stdout is not None
            started = time.monotonic()
            try:
                child.stdin.write(f"{path}\n")
                child.stdin.flush()
            except BrokenPipeError:
                child = _child()
                child.stdin.write(f"{path}\n")  # type: ignore[union-attr]
                child.stdin.flush()  # type: ignore[union-attr]
            ready, _, _ = select.select([child.stdout], [], [], timeout_s)
            line = child.stdout.readline() if ready else ""  # type: ignore[union-attr]
            if line:
                said = json.loads(line)
                outcomes.append(Outcome(path.name, said["kind"], said["seconds"], said["detail"]))
                continue
            kind = "hang" if not ready else "died"
            child.kill()
            child.wait()
            outcomes.append(Outcome(path.name, kind, time.monotonic() - started, f"exit {child.returncode}"))
            child = _child()
        if child.stdin is not None:
            child.stdin.close()
        child.wait(timeout=30)
        return outcomes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--keep", metavar="DIR", help="keep the mutants in DIR")
    args = parser.parse_args()
    started = time.monotonic()
    outcomes = check(args.seed, args.count, args.timeout, Path(args.keep) if args.keep else None)
    kinds = Counter(outcome.kind for outcome in outcomes)
    print(
        f"{len(outcomes)} mutants (seed {args.seed}) in {time.monotonic() - started:.0f} s: "
        + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
    )
    slowest = max(outcomes, key=lambda outcome: outcome.seconds)
    print(f"slowest: {slowest.name} {slowest.seconds:.2f} s ({slowest.kind})")
    for outcome in outcomes:
        if outcome.kind in ("traceback", "died", "hang"):
            print(f"\n== {outcome.kind}: {outcome.name} ({outcome.seconds:.1f} s)\n{outcome.detail}")
    return 1 if any(outcome.kind in ("traceback", "died", "hang") for outcome in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
