"""A seeded mutator over the suite's inputs, and a harness that runs the CLI on each mutant in a
child process.

A tester's attack: each mutant is one file changed the way a careless edit or a hostile file
would (a number made huge or negative, a value of the wrong type, a key removed, a YAML alias
bomb, deep nesting, ragged values, a torn or non-UTF-8 file ...). ``--kind cases`` mutates each
corpus case as a file of its own and runs ``conformance validate`` on it; ``--kind outputs``
mutates a real results file and a real certificate and runs ``report``, ``diff``, ``merge`` and
``certify --verify`` on them. Each command runs in a child process with an address-space limit;
the only acceptable endings are an exit status of 0 or 1 or the suite's own usage error (2, with
a message naming the file). A Python traceback, a process that dies, or one that takes longer
than the limit, is a defect of the suite.

    python benchmarks/mutation.py --count 3000 --seed 0            # case files
    python benchmarks/mutation.py --kind outputs --count 300        # results files, certificates

The tests run a few hundred of each (tests/test_hostile_corpus.py, tests/test_hostile_outputs.py).
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


def _mutate(rng: random.Random, data: Any) -> Any:
    """One to three values somewhere in ``data`` replaced, or keys removed (in place)."""
    paths = [path for path in _paths(data) if path]
    for _ in range(rng.randrange(1, 4)):
        if not paths:
            break
        path = rng.choice(paths)
        parent = data
        try:
            for key in path[:-1]:
                parent = parent[key]
            if isinstance(parent, dict) and rng.random() < 0.2:
                del parent[path[-1]]
            else:
                parent[path[-1]] = _replacement(rng, parent[path[-1]])
        except (KeyError, IndexError, TypeError):
            continue
    return data


def _data_mutations(rng: random.Random, text: str) -> str:
    data = _mutate(rng, yaml.safe_load(text))
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


#: What the child runs: one command of the CLI per line (a JSON list of arguments), its output
#: kept; exit 0 or 1 and the suite's usage errors (exit 2) are clean endings, anything raised is not.
_CHILD = """
import contextlib, io, json, sys, time, traceback
from conformance.cli import main
for line in sys.stdin:
    argv = json.loads(line)
    started = time.perf_counter()
    said = io.StringIO()
    try:
        with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
            code = main(argv)
        kind = {0: "ok", 1: "defects", 2: "error"}.get(code, f"exit {code}")
        detail = said.getvalue()[-300:]
    except SystemExit as stop:
        kind, detail = ("error" if stop.code == 2 else f"exit {stop.code}"), said.getvalue()[-300:]
    except BaseException as error:
        kind, detail = "traceback", "".join(traceback.format_exception(error))[-1500:]
    seconds = time.perf_counter() - started
    print(json.dumps({"kind": kind, "seconds": seconds, "detail": detail}), file=sys.__stdout__, flush=True)
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


def run_commands(commands: list[tuple[str, list[str]]], timeout_s: float) -> list[Outcome]:
    """Run each (name, CLI arguments) in a memory-limited child, restarted after a death or a hang."""
    outcomes: list[Outcome] = []
    child = _child()
    for name, argv in commands:
        started = time.monotonic()
        try:
            assert child.stdin is not None
            child.stdin.write(json.dumps(argv) + "\n")
            child.stdin.flush()
        except (BrokenPipeError, AssertionError):
            child = _child()
            assert child.stdin is not None
            child.stdin.write(json.dumps(argv) + "\n")
            child.stdin.flush()
        assert child.stdout is not None
        ready, _, _ = select.select([child.stdout], [], [], timeout_s)
        line = child.stdout.readline() if ready else ""
        if line:
            said = json.loads(line)
            outcomes.append(Outcome(name, said["kind"], said["seconds"], said["detail"]))
            continue
        child.kill()
        child.wait()
        kind = "hang" if not ready else "died"
        outcomes.append(Outcome(name, kind, time.monotonic() - started, f"exit {child.returncode}"))
        child = _child()
    if child.stdin is not None:
        child.stdin.close()
    child.wait(timeout=30)
    return outcomes


def check(seed: int, count: int, timeout_s: float = 20.0, folder: Path | None = None) -> list[Outcome]:
    """``conformance validate`` on ``count`` mutants of the corpus's cases; each one's ending."""
    with tempfile.TemporaryDirectory() as scratch:
        where = folder or Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        commands = []
        for name, content in mutants(seed, count):
            (where / name).write_bytes(content)
            commands.append((name, ["validate", "--cases", str(where / name)]))
        return run_commands(commands, timeout_s)


def _json_mutants(rng: random.Random, source: Path, count: int) -> Iterator[bytes]:
    text = source.read_text(encoding="utf-8")
    for _ in range(count):
        if rng.random() < 0.8:
            yield json.dumps(_mutate(rng, json.loads(text))).encode("utf-8")
        else:
            mutant = _text_mutations(rng, text)
            yield mutant if isinstance(mutant, bytes) else mutant.encode("utf-8")


def check_outputs(
    seed: int, count: int, timeout_s: float = 20.0, journals: int | None = None
) -> list[Outcome]:
    """Mutants of a real results file and a real certificate through ``report``, ``diff``,
    ``merge`` and ``certify --verify``, and of its journal through ``run --resume`` (``journals``
    of them, ``count`` by default: each resume runs the run's missing items); each command's ending."""
    journals = count if journals is None else journals
    from conformance.cli import main
    from conformance.storage import out_folder

    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as scratch:
        where = Path(scratch)
        quiet = ["--adapter", "numpy", "--op", "numpy.split", "-k", "not large", "--repeat", "0"]
        assert main(["run", *quiet, "--cases", str(CORPUS), "--out", str(where / "run")]) == 0
        certified = ["--adapter", "numpy", "--profile", "numpy-split", "--cases", str(CORPUS)]
        assert main(["certify", *certified, "--out", str(where / "cert")]) == 0
        results, certificate = where / "run" / "results.json", where / "cert" / "certificate.json"
        commands: list[tuple[str, list[str]]] = []
        for number, content in enumerate(_json_mutants(rng, results, count)):
            path = where / f"results-{number:04d}.json"
            path.write_bytes(content)
            commands += [
                (f"report {path.name}", ["report", str(path), "-o", str(where / "report.html")]),
                (f"diff {path.name}", ["diff", str(results), str(path)]),
                (f"merge {path.name}", ["merge", str(results), str(path), "-o", str(where / "merged.json")]),
            ]
        for number, content in enumerate(_json_mutants(rng, certificate, count)):
            path = where / f"certificate-{number:04d}.json"
            path.write_bytes(content)
            commands.append(
                (f"verify {path.name}", ["certify", "--verify", str(path), "--results", str(results)])
            )
        for number, content in enumerate(_journal_mutants(rng, results, journals)):
            out = where / f"journal-{number:04d}"
            out_folder.mark(out)  # a run's folder, as an interrupted run leaves it
            (out / "journal.jsonl").write_bytes(content)
            resume = ["run", "--resume", *quiet, "--cases", str(CORPUS), "--out", str(out), "--no-junit"]
            commands.append((f"resume {out.name}", resume))
        return run_commands(commands, timeout_s)


def _journal_mutants(rng: random.Random, results: Path, count: int) -> Iterator[bytes]:
    """Journals of the run that wrote ``results`` (its header, then a sample of its results as
    lines), each with one line mutated, lines torn, or bytes broken."""
    document = json.loads(results.read_text(encoding="utf-8"))
    run = document["run"]
    header = {
        "schema": "conformance.journal/1",
        "digest": document["suite"]["digest"],
        "selection": run["selection"],
        "targets": sorted({f"{r['adapter']}/{r['route']}/{r['device']}" for r in document["results"]}),
        "command": run["command"],
    }
    for _ in range(count):
        lines = [json.dumps(header)] + [json.dumps(r) for r in rng.sample(document["results"], 20)]
        at = rng.randrange(len(lines))
        if rng.random() < 0.7:
            lines[at] = json.dumps(_mutate(rng, json.loads(lines[at])))
            yield ("\n".join(lines) + "\n").encode("utf-8")
        else:
            mutant = _text_mutations(rng, "\n".join(lines) + "\n")
            yield mutant if isinstance(mutant, bytes) else mutant.encode("utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--keep", metavar="DIR", help="keep the case-file mutants in DIR")
    parser.add_argument(
        "--kind",
        choices=("cases", "outputs"),
        default="cases",
        help="mutate case files (validate), or a results file and a certificate "
        "(report, diff, merge, certify --verify)",
    )
    args = parser.parse_args()
    started = time.monotonic()
    if args.kind == "outputs":
        outcomes = check_outputs(args.seed, args.count, args.timeout)
    else:
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
