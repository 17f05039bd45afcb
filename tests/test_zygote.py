"""Workers forked from the zygote: they run jobs, their deaths are reported with the signal, the
zygote imports what the run's routes declare behind the first workers' forks, and it refuses to
fork once anything has started a second thread in it."""

from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import threading
import time
import warnings
from dataclasses import replace
from multiprocessing.connection import Connection
from pathlib import Path

import pytest
from fake_adapters import Segfaulter, Slicer

from conformance.engine import settings
from conformance.engine.pool import Pool, Starter, declared_imports
from conformance.engine.slot import Start, slot_of, stop_worker
from conformance.engine.worker import Job
from conformance.engine.zygote import Forked, Zygote
from conformance.plugin import AdapterInfo, Target, Task
from conformance.results.result import Result
from conformance.run.planning import RunConfig, plan

CASES = """\
defaults: {source: zygote tests, data: {dtype: float32}, ops: [numpy.array_split]}
cases:
""" + "".join(
    f"  - {{id: {name}-{n}, title: t, data: {{shape: [{6 + n}, 3]}}, axis: 0, indices: [1, 3]}}\n"
    for name in ("good", "bad")
    for n in range(3)
)

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="the zygote forks on Linux only")


def _jobs(tmp_path: Path, adapter: str, **options: str) -> list[Job]:
    (tmp_path / "cases").mkdir(exist_ok=True)
    (tmp_path / "cases" / "few.yaml").write_text(CASES, encoding="utf-8")
    config = RunConfig(
        case_paths=(str(tmp_path / "cases"),), adapters=(adapter,), options={adapter: options}, repeat=1
    )
    return plan(config).jobs


def _forks_and_stays_usable(zygote: Zygote) -> None:
    """The zygote forks a child, which ends when told, and can fork again afterwards."""
    forked = zygote.fork((99, None, ()))
    assert forked is not None, zygote.reason
    forked[1].send(None)
    forked[0].join(timeout=10)
    zygote.poll()
    assert zygote.usable is True, zygote.reason


def _until_decided(zygote: Zygote, preload: tuple[str, ...] = ()) -> bool:
    """Whether the zygote, asked to import ``preload``, can fork (True) or refused to (False)."""
    assert zygote.forkable(60), zygote.reason
    if not preload:
        return True
    zygote.preload(preload)
    assert _imported_all(zygote), "the zygote never said it had done what it was asked to import"
    return bool(zygote.usable)


def _answer(connection: Connection) -> tuple[int, str, int, int | None]:
    """The worker's answer to its job, past the note that it has loaded the job's adapter first
    (the pool starts the item's time there: see conformance.engine.slot.Slot.ready)."""
    while (said := connection.recv())[0] == -1:
        pass
    return said  # type: ignore[no-any-return]


def _ready_worker(zygote: Zygote) -> None:
    """Have ``zygote`` fork a worker, wait until the worker says it is ready, and let it go."""
    forked = zygote.fork((1, None, ()))
    assert forked is not None, zygote.reason
    process, connection = forked
    assert connection.recv()[0] == -1
    connection.send(None)
    process.join(timeout=10)
    connection.close()


def _one_job_on_a_fork(tmp_path: Path, adapter: str, preload: tuple[str, ...] = ()) -> str:
    """What a worker forked from a zygote (asked to import ``preload`` first) printed running one
    passing job of ``adapter``."""
    job = _jobs(tmp_path, adapter)[0]
    log = tmp_path / "worker.log"
    zygote = Zygote(1, str(tmp_path / "zygote.log"))
    try:
        assert _until_decided(zygote, preload), zygote.reason
        forked = zygote.fork((1, str(log), ()))  # forked once what it imports is in
        assert forked is not None
        process, connection = forked
        assert connection.recv()[0] == -1
        connection.send(job)
        assert Result.from_json(json.loads(_answer(connection)[1])).status == "pass"
        connection.send(None)
        process.join(timeout=10)
        connection.close()
    finally:
        zygote.close()
    return log.read_text(encoding="utf-8")


def _pid(process: Forked) -> int:
    """The worker's pid, once the zygote has said it (it says so right after the fork)."""
    deadline = time.monotonic() + 10
    while process.pid is None:
        assert time.monotonic() < deadline, "the zygote never said it forked the worker"
        time.sleep(0.01)
    return process.pid


def _parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        return int(stat.read().rpartition(")")[2].split()[1])


@pytest.mark.parametrize("threads", [1, 2])
def test_a_forked_worker_runs_jobs_and_its_death_is_reported(tmp_path: Path, threads: int) -> None:
    # with 2 threads per worker (-j 1 on two cores), NumPy's BLAS must still load single-threaded
    job = _jobs(tmp_path, "fake_adapters:Slicer")[0]
    zygote = Zygote(threads, str(tmp_path / "zygote.log"))
    try:
        assert _until_decided(zygote), zygote.reason
        forked = zygote.fork((threads, None, ()))
        assert forked is not None
        process, connection = forked
        assert connection.recv()[0] == -1  # prepared (nothing to prepare here)
        assert _parent_of(_pid(process)) == zygote.process.pid != os.getpid()
        connection.send(job)
        index, line, _, _ = _answer(connection)  # the result as its journal line
        assert index == job.index and Result.from_json(json.loads(line)).status == "pass"
        assert process.is_alive()
        process.kill()
        process.join(timeout=10)
        assert not process.is_alive() and process.exitcode == -signal.SIGKILL
        process.close()
        connection.close()
    finally:
        zygote.close()
    assert not zygote.process.is_alive()


def test_a_workers_first_item_of_a_target_says_how_long_loading_its_adapter_took(tmp_path: Path) -> None:
    # the benchmark counts that time as the backend's (its imports), not as the harness's
    first, second = _jobs(tmp_path, "fake_adapters:SlowLoader")[:2]
    zygote = Zygote(1, None)
    try:
        assert _until_decided(zygote), zygote.reason
        forked = zygote.fork((1, None, ()))  # nothing preloaded: the first job loads the adapter
        assert forked is not None
        process, connection = forked
        assert connection.recv()[0] == -1
        workers = []
        for job in (first, second):
            connection.send(job)
            if job is first:  # it says when it has loaded the adapter: the item's own time starts then
                assert connection.recv()[:3] == (-1, (job.preload,), 0)
            workers.append(Result.from_json(json.loads(connection.recv()[1])).worker)
        connection.send(None)
        process.join(timeout=10)
        connection.close()
    finally:
        zygote.close()
    loaded, then = workers
    assert loaded is not None and then is not None
    assert 200 <= loaded["load_ms"] <= loaded["elapsed_ms"]
    assert "load_ms" not in then  # loaded once per worker


def test_a_workers_collections_leave_what_it_and_the_zygote_loaded_alone(tmp_path: Path) -> None:
    # a worker's full collection walked every object the zygote had imported (half a million with
    # the backends) and copied the memory it shared with the zygote: the worker freezes them and
    # what it loads itself before its first item (the zygote's own freeze: the test above)
    said = _one_job_on_a_fork(tmp_path, "fake_adapters:GcReporter")
    frozen = int(said.split("frozen objects: ")[1].split()[0])
    assert frozen > 10_000  # the harness, NumPy and the adapter's module


@pytest.mark.slow  # seconds: subprocesses or imported backends
def test_the_zygote_freezes_what_it_imported_before_it_forks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # what the harness imported is frozen before the next import: the workers' collections never walk it
    probe = tmp_path / "frozen"
    monkeypatch.setenv("FREEZE_PROBE_FILE", str(probe))
    zygote = Zygote(1, str(tmp_path / "zygote.log"))
    try:
        assert _until_decided(zygote, ("freeze_probe",)), zygote.reason
        _ready_worker(zygote)  # forked once the import is done: the probe is in
        assert probe.exists()
    finally:
        zygote.close()
    assert int(probe.read_text(encoding="utf-8")) > 10_000  # the harness and NumPy, frozen


def test_a_package_that_starts_a_thread_stops_the_forks(tmp_path: Path) -> None:
    """The zygote takes a top-level package's declared modules together, wherever they stand in
    the list, and checks its threads after them: one that started a thread ends its forking (the
    pool spawns workers from then on), and the next package is never imported."""
    zygote = Zygote(1, str(tmp_path / "zygote.log"))
    try:
        assert not _until_decided(zygote, ("thread_package.route", "json", "thread_package"))
        assert "after importing thread_package.route: workers are spawned" in zygote.reason
        assert zygote.fork((1, None, ())) is None
    finally:
        zygote.close()


def test_a_fork_is_served_once_the_modules_its_first_targets_declare_are_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fork names what its worker's first targets declare: the zygote imports that first, so the
    worker finds it imported instead of importing it on the cores the zygote shares with it."""
    gate, imported = tmp_path / "gate", tmp_path / "imported-by"
    monkeypatch.setenv("GATED_IMPORT_GATE", str(gate))
    monkeypatch.setenv("GATED_IMPORT_LOG", str(imported))
    zygote = Zygote(1, str(tmp_path / "zygote.log"))
    try:
        assert _until_decided(zygote), zygote.reason
        forked = zygote.fork((1, None, ()), needs=("gated_import",))
        assert forked is not None
        process, connection = forked
        assert process.pid is None and not connection.poll(0.5)  # the import waits for the gate
        gate.touch()
        assert connection.recv()[0] == -1
        connection.send(None)
        process.join(timeout=10)
        connection.close()
        assert imported.read_text(encoding="utf-8").split() == [str(zygote.process.pid)]
    finally:
        zygote.close()


@pytest.mark.slow
@pytest.mark.parametrize("forking", [True, False], ids=["forked", "spawned"])
def test_crashes_are_reported_with_their_signal_whoever_started_the_worker(
    tmp_path: Path, forking: bool
) -> None:
    jobs = _jobs(tmp_path, "fake_adapters:Segfaulter", on="bad-*")
    results: list[Result] = []
    kinds: list[str] = []
    pool = Pool(1, 60, results.append, log_dir=tmp_path / "workers", forking=forking)

    def record(result: Result) -> None:
        results.append(result)
        kinds.append(type(pool.slots[0].process).__name__ if pool.slots else "")

    pool.on_result = record
    if forking:  # the pool starts its zygote at the first replacement; started here, it is ready then
        pool.starter.zygotes[None] = Zygote(1, str(tmp_path / "zygote.log"))
        assert _until_decided(pool.starter.zygote)
    pool.process(jobs)
    assert {r.case: r.status for r in results} == {
        **{f"good-{n}": "pass" for n in range(3)},
        **{f"bad-{n}": "crash" for n in range(3)},
    }
    assert all("SIGSEGV" in r.message for r in results if r.status == "crash")
    # the replacements after the crashes: forked, or spawned where the pool does not fork
    assert kinds[-3:] == ([Forked.__name__] * 3 if forking else ["SpawnProcess"] * 3), kinds


@pytest.mark.parametrize("jobs", [5, 6])
def test_a_long_run_starts_the_zygote_with_its_first_workers(
    tmp_path: Path, jobs: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run of ``eager_zygote`` jobs or more (6 here) starts the zygote at once and forks its first
    workers from it; a shorter one without a crash never starts it (its workers are spawned)."""
    monkeypatch.setattr(settings, "ENGINE", replace(settings.ENGINE, eager_zygote=6))
    finished: list[Result] = []
    logs = tmp_path / "workers"
    pool = Pool(2, 60, finished.append, log_dir=logs)
    try:
        pool.add(_jobs(tmp_path, "fake_adapters:Slicer")[:jobs])
        assert {type(slot.process) is Forked for slot in pool.slots} == {jobs == 6}
        pool.serve_until(lambda: False)
    finally:
        pool.close()
    assert [result.status for result in finished] == ["pass"] * jobs
    assert (logs / "zygote.log").exists() == (jobs == 6)


@pytest.mark.slow  # seconds: subprocesses or imported backends
def test_the_zygote_ends_without_tearing_down_what_it_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the interpreter's teardown of TensorFlow, torch and OpenVINO kept every run's end waiting
    # 1.4 s: the zygote leaves at once, so an exit handler of a module it imported never runs
    marker = tmp_path / "torn-down"
    monkeypatch.setenv("TEARDOWN_PROBE_FILE", str(marker))
    zygote = Zygote(1, str(tmp_path / "zygote.log"))
    try:
        assert _until_decided(zygote, ("teardown_probe",)), zygote.reason
        _ready_worker(zygote)  # forked once the import is done: the probe is in
    finally:
        zygote.close()
    assert not zygote.process.is_alive() and zygote.process.exitcode == 0
    assert not marker.exists()


class ImportingSlicer(Slicer):
    """Imports the module named by its ``module`` option when it prepares a target (as backends'
    adapters do: the run's own process constructs adapters too, for their routes)."""

    def _prepare(self, target: Target) -> None:
        importlib.import_module(self.options["module"])


class DeclaringSlicer(ImportingSlicer):
    """ImportingSlicer whose route declares the module it imports (Route.imports), as torch's does."""

    name = "declaring"

    def info(self) -> AdapterInfo:
        info = super().info()
        declared = (self.options["module"],)
        return replace(info, routes=tuple(replace(route, imports=declared) for route in info.routes))


class Declaring(DeclaringSlicer):
    """DeclaringSlicer whose workers do not import the module themselves."""

    def _prepare(self, target: Target) -> None:
        pass


def test_workers_forked_once_the_zygote_imported_a_declared_module_never_import_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The zygote imports what routes declare: the workers forked after it did (here one per two
    jobs) find it imported, and no worker imports it again."""
    gate, imported = tmp_path / "gate", tmp_path / "imported-by"
    gate.touch()
    monkeypatch.setenv("GATED_IMPORT_GATE", str(gate))
    monkeypatch.setenv("GATED_IMPORT_LOG", str(imported))
    jobs = _jobs(tmp_path, "test_zygote:DeclaringSlicer", module="gated_import")
    assert jobs[0].imports == ("gated_import",)
    finished: list[Result] = []
    pool = Pool(1, 60, finished.append, recycle_after=2, log_dir=tmp_path / "workers")
    try:
        pool.starter.start_zygote(wait_s=60)
        zygote = pool.starter.zygote
        assert zygote is not None and _until_decided(zygote, declared_imports(jobs)), zygote.reason
        pool.serve(jobs)
        zygote_pid = str(zygote.process.pid)
    finally:
        pool.close()
    assert [result.status for result in finished] == ["pass"] * len(jobs)
    importers = imported.read_text(encoding="utf-8").split()
    assert importers == [zygote_pid]
    assert len({result.worker["pid"] for result in finished if result.worker}) == 3


@pytest.mark.parametrize("route", ["shared", "own_worker"])
def test_the_zygote_imports_only_what_routes_sharing_their_workers_declare_in_their_order(
    tmp_path: Path, route: str
) -> None:
    """What the zygote imports is the routes' declarations, in the order their targets first
    come; a route with workers of its own (and a zygote of its own) adds nothing to it."""
    first = _jobs(tmp_path, "test_zygote:Declaring", module="json")
    later = _jobs(tmp_path, "test_zygote:Declaring", module="colorsys")
    if route == "own_worker":
        later = [replace(job, own_worker=True) for job in later]
    expected = ("json", "colorsys") if route == "shared" else ("json",)
    assert declared_imports([*first, *later, *first]) == expected


def test_a_declared_module_that_starts_a_thread_leaves_the_run_to_spawned_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A backend that starts a thread when imported even in CI: the zygote, having imported it, forks
    no more (a fork could deadlock); the pool spawns workers, and every job still passes."""
    monkeypatch.setattr(settings, "ENGINE", replace(settings.ENGINE, eager_zygote=6))
    jobs = _jobs(tmp_path, "test_zygote:DeclaringSlicer", module="thread_at_import")
    finished: list[Result] = []
    pool = Pool(1, 60, finished.append, recycle_after=2, log_dir=tmp_path / "workers")
    try:
        pool.serve(jobs)
        zygote = pool.starter.zygote
        assert zygote is not None and zygote.usable is False, zygote and zygote.usable
    finally:
        pool.close()
    assert [result.status for result in finished] == ["pass"] * len(jobs)
    said = (tmp_path / "workers" / "zygote.log").read_text(encoding="utf-8")
    assert "after importing thread_at_import: workers are spawned" in said, said


class SettingsReporter(Segfaulter):
    """Prints the interpreter-wide settings its worker runs the item with."""

    def misbehave(self, task: Task) -> None:
        silenced = any(
            entry[0] == "ignore" and entry[2] is Warning and entry[1] is None for entry in warnings.filters
        )
        print(f"recursion limit {sys.getrecursionlimit()}, every warning ignored: {silenced}", flush=True)


@pytest.mark.slow  # seconds: subprocesses or imported backends
def test_an_import_of_the_zygote_leaves_the_interpreters_settings_to_the_workers(tmp_path: Path) -> None:
    said = _one_job_on_a_fork(tmp_path, "test_zygote:SettingsReporter", preload=("recursion_probe",))
    assert "recursion limit" in said and "recursion limit 123456" not in said, said
    assert "every warning ignored: False" in said, said


def test_the_zygote_imports_a_package_s_modules_in_the_order_declared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A module may set up how a later one loads (a backend imported with its thread turned off
    first): the zygote imports a package's modules in the order declared, so it imports the
    backend thread-free and goes on forking. Sorted by name, the route module came first, and
    the backend started its thread."""
    importers = tmp_path / "imported-by"
    importers.touch()
    monkeypatch.setenv("THREAD_UNLESS_QUIET_LOG", str(importers))
    zygote = Zygote(1, str(tmp_path / "zygote.log"))
    try:
        assert _until_decided(zygote, ("quiet_package.zz_quiet", "quiet_package.route")), zygote.reason
        assert str(zygote.process.pid) in importers.read_text(encoding="utf-8").split()
        _forks_and_stays_usable(zygote)
    finally:
        zygote.close()


def test_the_zygote_imports_declared_backends_as_a_ci_job_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A backend that starts a telemetry thread when imported outside CI (ONNX Runtime, OpenVINO)
    is imported by the zygote with ``CI=true`` for the import only: it loads thread-free there and
    the zygote goes on forking, with no workaround in the adapter."""
    monkeypatch.delenv("CI", raising=False)
    importers = tmp_path / "imported-by"
    importers.touch()
    monkeypatch.setenv("THREAD_UNLESS_QUIET_LOG", str(importers))
    zygote = Zygote(1, str(tmp_path / "zygote.log"))
    try:
        assert _until_decided(zygote, ("thread_outside_ci",)), zygote.reason
        assert str(zygote.process.pid) in importers.read_text(encoding="utf-8").split()
        _forks_and_stays_usable(zygote)
    finally:
        zygote.close()


def _core_limit(pid: int) -> str:
    """The soft core-file limit /proc shows for process ``pid``."""
    line = next(row for row in Path(f"/proc/{pid}/limits").read_text().splitlines() if "core" in row)
    return line.split()[-3]  # "Max core file size  <soft> <hard> bytes"


def test_neither_the_zygote_nor_its_workers_would_write_a_core_dump(tmp_path: Path) -> None:
    """The zygote imports every backend and its workers run them: a crash in either writes no core
    into the folder the run started in (see conformance.engine.worker.forgo_core_dumps)."""
    zygote = Zygote(1, str(tmp_path / "zygote.log"))
    try:
        assert _until_decided(zygote), zygote.reason
        forked = zygote.fork((1, None, ()))
        assert forked is not None
        process, connection = forked
        assert connection.recv()[0] == -1  # prepared: past the worker's own limits
        assert _core_limit(zygote.process.pid) == _core_limit(_pid(process)) == "1"
        process.kill()
        process.join(timeout=10)
        process.close()
        connection.close()
    finally:
        zygote.close()


def test_a_fork_asked_while_the_zygote_imports_does_not_hold_up_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The zygote forks between imports (TensorFlow's takes seconds); the parent, which serves
    every other worker, hands it the request and goes on: the worker is forked, and its pid
    known, once the import is done."""
    gate = tmp_path / "gate"
    monkeypatch.setenv("GATED_IMPORT_GATE", str(gate))
    monkeypatch.setenv("GATED_IMPORT_LOG", str(tmp_path / "imported-by"))
    monkeypatch.setenv("GATED_IMPORT_BEGUN", str(tmp_path / "begun"))
    zygote = Zygote(1, str(tmp_path / "zygote.log"))
    try:
        assert _until_decided(zygote), zygote.reason
        zygote.preload(("gated_import",))  # its import waits for the gate
        _importing(tmp_path / "begun")
        began = time.monotonic()
        forked = zygote.fork((1, None, ()))
        # the gate holds the import for 60 s (tests/gated_import.py): a fork that waited for it
        # would return after that, far past this margin for a loaded machine
        assert forked is not None and time.monotonic() - began < 30
        process, connection = forked
        assert process.pid is None and process.is_alive() and not connection.poll(0.5)
        gate.touch()
        assert connection.recv()[0] == -1  # forked once the import ended: ready
        assert _parent_of(_pid(process)) == zygote.process.pid
        connection.send(None)
        process.join(timeout=10)
        assert process.exitcode == 0
        connection.close()
    finally:
        zygote.close()


def _imported_all(zygote: Zygote) -> bool:
    """Whether the zygote says it has done every import asked of it, or has stopped forking (a
    thread it found), waiting up to 60 s: generous, as what it imports here takes milliseconds."""
    deadline = time.monotonic() + 60
    while zygote.importing and zygote.usable is not False and time.monotonic() < deadline:
        zygote._read(0.1)
    return not zygote.importing or zygote.usable is False


def _importing(begun: Path) -> None:
    """Wait until the zygote imports tests/gated_import.py (which makes ``begun`` as it begins)."""
    deadline = time.monotonic() + 60
    while not begun.exists():
        assert time.monotonic() < deadline, "the zygote never began its import"
        time.sleep(0.02)


def test_a_worker_stopped_before_the_zygote_forked_it_is_not_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker asked of the zygote while it imports (a route with workers of its own begins) is
    forked only after that package (seconds), and waiting for it would idle every worker. It is
    killed once forked, before it loads and prepares its targets."""
    gate, marker = tmp_path / "gate", tmp_path / "prepared"
    monkeypatch.setenv("GATED_IMPORT_GATE", str(gate))
    monkeypatch.setenv("GATED_IMPORT_LOG", str(tmp_path / "imported-by"))
    monkeypatch.setenv("GATED_IMPORT_BEGUN", str(tmp_path / "begun"))
    monkeypatch.setattr(settings, "ENGINE", replace(settings.ENGINE, stop_s=120.0))
    job = _jobs(tmp_path, "fake_adapters:PrepareMarker", load="1", marker=str(marker))[0]
    starter = Starter(1, tmp_path / "workers", None, True)
    try:
        starter.start_zygote(wait_s=60)
        zygote = starter.zygote
        assert zygote is not None and zygote.forkable(), zygote and zygote.reason
        zygote.preload(("gated_import",))  # its import waits for the gate
        _importing(tmp_path / "begun")
        start = Start(1, tmp_path / "worker-1.log", (job.preload,), tmp_path / "scratch", 1, None)
        slot = slot_of(start, zygote.fork(start.args))  # asked behind the import
        assert slot.process.pid is None
        opened = threading.Timer(20, gate.touch)  # a stop that waits for the fork ends after this
        opened.start()
        stop_worker(slot, kill=True)
        assert not gate.exists(), "stopping the worker waited for the zygote to fork it"
        opened.cancel()
        gate.touch()
        pid = _pid(slot.process)  # forked once the import has ended, and killed when said
        deadline = time.monotonic() + 30
        while os.path.exists(f"/proc/{pid}"):  # reaped by the zygote once it exits
            assert time.monotonic() < deadline, "the worker forked after its stop did not exit"
            time.sleep(0.05)
        assert not marker.exists(), "the worker forked after its stop prepared its target"
    finally:
        starter.close(at_once=False)


def test_a_long_runs_first_workers_fork_before_the_zygote_imports_what_later_routes_declare(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first workers wait for what their own first targets declare only: they run their jobs
    while the zygote imports what later targets declare (TensorFlow's import takes seconds)."""
    monkeypatch.setattr(settings, "ENGINE", replace(settings.ENGINE, eager_zygote=6))
    gate = tmp_path / "gate"
    monkeypatch.setenv("GATED_IMPORT_GATE", str(gate))
    monkeypatch.setenv("GATED_IMPORT_LOG", str(tmp_path / "imported-by"))
    monkeypatch.setenv("GATED_IMPORT_BEGUN", str(tmp_path / "begun"))
    first = _jobs(tmp_path, "test_zygote:Declaring", module="json")
    later = _jobs(tmp_path, "test_zygote:Declaring", module="gated_import")
    finished: list[Result] = []
    pool = Pool(2, 60, finished.append, log_dir=tmp_path / "workers")
    try:
        pool.add([*first, *later])
        assert [type(slot.process) for slot in pool.slots] == [Forked, Forked]
        pool.serve_until(lambda: len(finished) >= len(first))
        assert pool.importing_declared and not gate.exists()
        gate.touch()
        pool.serve_until(lambda: False)
    finally:
        gate.touch()
        pool.close()
    assert [result.status for result in finished] == ["pass"] * 12
