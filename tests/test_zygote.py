"""Workers forked from the zygote: they run jobs, their deaths are reported with the signal, and
the zygote refuses to fork once anything has started a second thread in it."""

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
from types import SimpleNamespace

import pytest
from fake_adapters import Segfaulter, Slicer

from conformance.engine import settings
from conformance.engine.pool import Pool, Starter
from conformance.engine.slot import Readiness, Start, slot_of, stop_worker
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


def _until_decided(zygote: Zygote, learn: tuple[str, ...] = ()) -> bool:
    """Whether the zygote, told to learn ``learn``, can fork (True) or refused to (False)."""
    assert zygote.forkable(60), zygote.reason
    if not learn:
        return True
    zygote.learn(learn)
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


def _one_job_on_a_fork(tmp_path: Path, adapter: str, learn: tuple[str, ...] = ()) -> str:
    """What a worker forked from a zygote (told to learn ``learn`` first) printed running one
    passing job of ``adapter``."""
    job = _jobs(tmp_path, adapter)[0]
    log = tmp_path / "worker.log"
    zygote = Zygote(1, str(tmp_path / "zygote.log"))
    try:
        assert _until_decided(zygote, learn), zygote.reason
        forked = zygote.fork((1, str(log), ()))  # forked once what it learned is in
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


@pytest.mark.slow  # seconds: subprocesses or imported backends
def test_a_module_that_starts_a_thread_is_tried_in_a_child_and_not_imported(tmp_path: Path) -> None:
    zygote = Zygote(1, str(tmp_path / "zygote.log"))
    try:
        assert _until_decided(zygote, ("thread_at_import",)), zygote.reason
        _ready_worker(zygote)  # forked once the zygote has tried it
        zygote.poll()
        assert zygote.usable, zygote.reason
    finally:
        zygote.close()
    assert "not importing thread_at_import: it starts a thread" in (tmp_path / "zygote.log").read_text(
        encoding="utf-8"
    )


@pytest.mark.parametrize("thread_free", [True, False], ids=["found-thread-free", "not-found-so"])
def test_a_module_a_worker_found_thread_free_is_imported_without_a_trial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, thread_free: bool
) -> None:
    """A trial import in a forked child costs what the import costs (TensorFlow: seconds of a core
    the workers share): a module a worker imported without starting a thread is imported by the
    zygote at once; any other is tried in a child first (which imports it too)."""
    imported = tmp_path / "imported-by"
    (tmp_path / "gate").touch()
    monkeypatch.setenv("GATED_IMPORT_GATE", str(tmp_path / "gate"))
    monkeypatch.setenv("GATED_IMPORT_LOG", str(imported))
    zygote = Zygote(1, str(tmp_path / "zygote.log"))
    try:
        assert _until_decided(zygote), zygote.reason
        zygote.learn(("gated_import",), thread_free)
        _ready_worker(zygote)  # forked after the zygote took what it was told to learn
        importers = imported.read_text(encoding="utf-8").split()
    finally:
        zygote.close()
    trials = [pid for pid in importers if pid != str(zygote.process.pid)]
    assert str(zygote.process.pid) in importers and len(trials) == (0 if thread_free else 1), importers


def test_a_module_of_a_package_that_started_a_thread_is_not_imported(tmp_path: Path) -> None:
    """A worker that had a package's threads already (OpenVINO's, from its first route) finds the
    package's next module thread-free; importing that module imports the package, so the zygote
    refuses it untried, as the package was refused, and still forks."""
    zygote = Zygote(1, str(tmp_path / "zygote.log"))
    try:
        assert _until_decided(zygote, ("thread_package",)), zygote.reason  # tried, refused
        zygote.learn(("thread_package.route",), thread_free=True)
        _ready_worker(zygote)  # forked after the zygote took the module in
        assert zygote.forkable(), zygote.reason
    finally:
        zygote.close()
    said = (tmp_path / "zygote.log").read_text(encoding="utf-8")
    assert "not importing thread_package.route" in said, said


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
        assert _until_decided(pool.starter.zygotes.get(None))
    pool.process(jobs)
    assert {r.case: r.status for r in results} == {
        **{f"good-{n}": "pass" for n in range(3)},
        **{f"bad-{n}": "crash" for n in range(3)},
    }
    assert all("SIGSEGV" in r.message for r in results if r.status == "crash")
    # the replacements after the crashes: forked, or spawned where the pool does not fork
    assert kinds[-3:] == ([Forked.__name__] * 3 if forking else ["SpawnProcess"] * 3), kinds


def test_after_a_death_a_spare_worker_waits_to_take_the_next_ones_place(tmp_path: Path) -> None:
    """Deaths come in runs (a backend aborting on a family of items): after one, a spare worker
    starts while the others run, and the next death's place goes to it rather than to a worker
    started only then. The spare ends with the pool."""
    jobs = _jobs(tmp_path, "fake_adapters:Segfaulter", on="bad-*")
    # status, the slot's worker, the spare: the processes, as a spare's pid is known only once the
    # zygote has forked it, which on a busy machine may come after the result is reported
    seen: list[tuple[str, object, object | None]] = []
    pool = Pool(1, 60, lambda result: None, log_dir=tmp_path / "workers")

    def record(result: Result) -> None:
        spare = pool.starter.spare
        seen.append((result.status, pool.slots[0].process, spare.process if spare else None))

    pool.on_result = record
    pool.process(jobs)
    crashes = [(worker, spare) for status, worker, spare in seen if status == "crash"]
    assert len(crashes) == 3 and all(spare is not None for _, spare in crashes[:-1]), seen
    # each death after the first is replaced by the spare the one before it started
    assert [worker for worker, _ in crashes[1:]] == [spare for _, spare in crashes[:-1]], seen  # by identity
    assert pool.starter.spare is None


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


class LearningSegfaulter(Segfaulter):
    """Imports the module named by its ``module`` option when it prepares a target."""

    def _prepare(self, target: Target) -> None:
        importlib.import_module(self.options["module"])


class SettingLearningSegfaulter(LearningSegfaulter):
    """The same, after setting a variable the module could read at import (as Keras's adapter sets
    KERAS_BACKEND before importing Keras)."""

    def _prepare(self, target: Target) -> None:
        os.environ["SETTING_READ_AT_IMPORT"] = target.route
        super()._prepare(target)


class LoneLearningSegfaulter(LearningSegfaulter):
    """The same, on a route with workers of its own (Route.own_worker)."""

    def info(self) -> AdapterInfo:
        shared = super().info()
        return replace(shared, routes=tuple(replace(route, own_worker="test") for route in shared.routes))


@pytest.mark.parametrize("adapter", ["LearningSegfaulter", "LoneLearningSegfaulter"])
def test_what_a_worker_imports_thread_free_the_zygote_learns_for_the_workers_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, adapter: str
) -> None:
    """The first worker imports the module itself in prepare() and passes it on; the zygote
    imports it, and the workers forked after (replacing crashed ones) never import it again. A
    route with workers of its own has a zygote of its own, which learns from its workers alone."""
    gate, imported = tmp_path / "gate", tmp_path / "imported-by"
    gate.touch()
    monkeypatch.setenv("GATED_IMPORT_GATE", str(gate))
    monkeypatch.setenv("GATED_IMPORT_LOG", str(imported))
    jobs = _jobs(tmp_path, f"test_zygote:{adapter}", on="bad-*", module="gated_import")
    group = jobs[0].group
    assert (group is None) == (adapter == "LearningSegfaulter")
    finished: list[Result] = []
    pids: list[int] = []
    pool = Pool(1, 60, finished.append, log_dir=tmp_path / "workers")

    def record(result: Result) -> None:
        finished.append(result)
        if pool.slots and pool.slots[0].process.pid is not None:
            pids.append(pool.slots[0].process.pid)

    pool.on_result = record
    try:
        pool.serve(jobs)
        assert group in pool.starter.zygotes
        zygote = str(pool.starter.zygotes[group].process.pid)
        deadline = time.monotonic() + 60  # the zygote takes the learned packages one at a time
        while zygote not in imported.read_text(encoding="utf-8").split():
            assert time.monotonic() < deadline, "the zygote never imported what the worker learned"
            time.sleep(0.1)
        before = len(pids)
        pool.serve([job for job in jobs if job.case.id.startswith("bad")])  # three more replacements
    finally:
        pool.close()
    assert [result.status for result in finished] == ["pass"] * 3 + ["crash"] * 6
    importers = imported.read_text(encoding="utf-8").split()
    assert "gated_import" in pool.starter.learned[group]
    # forked from a zygote that has it, the replacements of the second round import nothing
    assert not set(map(str, pids[before:])) & set(importers), (pids, importers)


class ImportingSlicer(Slicer):
    """Imports the module named by its ``module`` option when it prepares a target (as backends'
    adapters do: the run's own process constructs adapters too, for their routes)."""

    def _prepare(self, target: Target) -> None:
        importlib.import_module(self.options["module"])


class WaitingSlicer(Slicer):
    """Its worker's first item waits (at most 60 s) until the file its ``until`` option names
    exists: the time a long run's first targets give the zygote, as long as the test needs."""

    waited = False

    def misbehave(self, task: Task) -> None:
        if self.waited:
            return
        self.waited = True
        gate, deadline = Path(self.options["until"]), time.monotonic() + 60
        while not gate.exists():
            assert time.monotonic() < deadline, "the test never let the first item end"
            time.sleep(0.05)


class AwaitingSlicer(Slicer):
    """Its items named by ``on`` wait (at most 30 s) until the file its ``log`` option names lists
    two processes, then a second more: they keep a worker busy while another worker and the
    zygote import a module."""

    def misbehave(self, task: Task) -> None:
        if not self.chosen(task):
            return
        log, deadline = Path(self.options["log"]), time.monotonic() + 30
        while not log.exists() or len(log.read_text(encoding="utf-8").split()) < 2:
            assert time.monotonic() < deadline, "the module was not imported by a worker and the zygote"
            time.sleep(0.05)
        time.sleep(1)


class Importer(ImportingSlicer):
    """ImportingSlicer with a target of its own (a backend other than AwaitingSlicer's)."""

    name = "importer"


class Front(ImportingSlicer):
    """Another adapter whose route is named for Importer (as keras/tensorflow runs on TensorFlow)."""

    name = "front"

    def info(self) -> AdapterInfo:
        info = super().info()
        return replace(info, routes=tuple(replace(route, name="importer") for route in info.routes))


@pytest.mark.parametrize("second", ["Importer", "Front"])
def test_a_backend_two_workers_meet_at_once_is_imported_by_one_and_the_zygote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, second: str
) -> None:
    """Two workers on two cores meet a backend at once: one imports it, the other
    runs the jobs of a target it has loaded meanwhile, and is re-forked once the zygote holds the
    backend. Without the jobs set aside, both would wait at the gate and import it; ``second``:
    the adapter of the later jobs of that backend, the same or one that names it in its route."""
    monkeypatch.setattr(settings, "ENGINE", replace(settings.ENGINE, eager_zygote=6))
    gate, imported = tmp_path / "gate", tmp_path / "imported-by"
    monkeypatch.setenv("GATED_IMPORT_GATE", str(gate))
    monkeypatch.setenv("GATED_IMPORT_LOG", str(imported))
    loaded = _jobs(tmp_path, "test_zygote:AwaitingSlicer", on="bad-*", log=str(imported))
    importing = _jobs(tmp_path, "test_zygote:Importer", module="gated_import")
    importing[3:] = _jobs(tmp_path, f"test_zygote:{second}", module="gated_import")[3:]
    finished: list[Result] = []
    pool = Pool(2, 60, finished.append, log_dir=tmp_path / "workers")
    met: list[float] = []

    def open_gate() -> bool:  # a second after a worker met the module: it waits at the gate
        if not met and any(
            job.target.id.startswith("importer") for slot in pool.slots for job in slot.inflight
        ):
            met.append(time.monotonic())
        if met and time.monotonic() > met[0] + 1:
            gate.touch()
        return False

    try:
        pool.add([*loaded[:3], *importing, *loaded[3:]])
        pool.serve_until(open_gate)
        zygote = pool.starter.zygotes.get(None)
        assert zygote is not None
        zygote_pid = str(zygote.process.pid)
    finally:
        pool.close()
    assert sorted(result.status for result in finished) == ["pass"] * 12, [
        (r.target_id, r.status, r.message[:300]) for r in finished if r.status != "pass"
    ]
    importers = imported.read_text(encoding="utf-8").split()
    assert len(importers) == 2 and zygote_pid in importers, importers


class DeclaringSlicer(ImportingSlicer):
    """ImportingSlicer whose route declares the module it imports (Route.imports), as torch's does."""

    name = "declaring"

    def info(self) -> AdapterInfo:
        info = super().info()
        declared = (self.options["module"],)
        return replace(info, routes=tuple(replace(route, imports=declared) for route in info.routes))


def test_a_declared_module_is_imported_by_the_zygote_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The zygote imports the module a route declares at the run's start (after a forked child
    found it starts no thread: a declaration says what the backend is, not that), and the worker,
    busy meanwhile, is re-forked with it for the route's jobs. Learned from the workers alone, the
    worker would import it (and its first item, waiting for an importer, would fail)."""
    monkeypatch.setattr(settings, "ENGINE", replace(settings.ENGINE, eager_zygote=6))
    gate, imported = tmp_path / "gate", tmp_path / "imported-by"
    gate.touch()
    monkeypatch.setenv("GATED_IMPORT_GATE", str(gate))
    monkeypatch.setenv("GATED_IMPORT_LOG", str(imported))
    imported_by_zygote = tmp_path / "imported-by-zygote"
    first = _jobs(tmp_path, "test_zygote:WaitingSlicer", until=str(imported_by_zygote))
    later = _jobs(tmp_path, "test_zygote:DeclaringSlicer", module="gated_import")
    assert later[0].imports == ("gated_import",)
    finished: list[Result] = []
    pool = Pool(1, 60, finished.append, log_dir=tmp_path / "workers")

    def release() -> bool:
        # the worker's first item ends once the zygote has imported the module and what the worker
        # taught it (the pool has read what the worker loaded): while the zygote imports, the pool
        # forks no worker (the fork would wait) and a worker with nothing else to run imports the
        # module itself, which a loaded machine made the rule
        zygote = pool.starter.zygotes.get(None)
        if zygote is not None and pool.slots and pool.slots[0].readiness.prepared:
            zygote.poll()
            if zygote.imports and not zygote.importing:
                imported_by_zygote.touch()
        return False

    try:
        pool.add(first + later)
        pool.serve_until(release)
        zygote = pool.starter.zygotes.get(None)
        assert zygote is not None
        zygote_pid = str(zygote.process.pid)
    finally:
        pool.close()
    assert [result.status for result in finished].count("pass") == 12
    importers = imported.read_text(encoding="utf-8").split()
    workers = {str(result.worker["pid"]) for result in finished if result.worker}
    # the zygote's trial child, then the zygote; a worker only when a loaded machine made its job
    # come before the zygote was done, which costs time, not a result
    assert len(importers) >= 2 and zygote_pid in importers, importers
    assert len(importers) - 2 <= len(workers & set(importers)), importers


def test_a_declared_module_that_starts_a_thread_is_not_imported_and_the_zygote_forks_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ONNX Runtime and OpenVINO start a thread when imported, and their routes declare them: the
    zygote tries a declared package in a forked child, leaves it to the workers, and still forks."""
    monkeypatch.setattr(settings, "ENGINE", replace(settings.ENGINE, eager_zygote=6))
    jobs = _jobs(tmp_path, "test_zygote:DeclaringSlicer", module="thread_at_import")
    finished: list[Result] = []
    pool = Pool(1, 60, finished.append, log_dir=tmp_path / "workers")
    try:
        pool.serve(jobs)
        zygote = pool.starter.zygotes.get(None)
        assert zygote is not None and zygote.forkable(60), zygote.reason
        _forks_and_stays_usable(zygote)  # asked after the import: answered after its trial
    finally:
        pool.close()
    assert [result.status for result in finished] == ["pass"] * len(jobs)
    said = (tmp_path / "workers" / "zygote.log").read_text(encoding="utf-8")
    assert "not importing thread_at_import: it starts a thread" in said, said


class SettingsReporter(Segfaulter):
    """Prints the interpreter-wide settings its worker runs the item with."""

    def misbehave(self, task: Task) -> None:
        silenced = any(
            entry[0] == "ignore" and entry[2] is Warning and entry[1] is None for entry in warnings.filters
        )
        print(f"recursion limit {sys.getrecursionlimit()}, every warning ignored: {silenced}", flush=True)


@pytest.mark.slow  # seconds: subprocesses or imported backends
def test_a_learned_import_leaves_the_interpreters_settings_to_the_workers(tmp_path: Path) -> None:
    said = _one_job_on_a_fork(tmp_path, "test_zygote:SettingsReporter", learn=("recursion_probe",))
    assert "recursion limit" in said and "recursion limit 123456" not in said, said
    assert "every warning ignored: False" in said, said


def test_a_module_that_starts_a_thread_is_not_learned(tmp_path: Path) -> None:
    """The worker passes the module on; the zygote tries it in a child, finds the thread, does
    not import it, and stays usable: it still forks workers (the replacements after each crash
    are forked once its harness is in, which on a loaded machine may be after the last)."""
    jobs = _jobs(tmp_path, "test_zygote:LearningSegfaulter", on="bad-*", module="thread_at_import")
    finished: list[Result] = []
    pool = Pool(1, 60, finished.append, log_dir=tmp_path / "workers")
    try:
        pool.serve(jobs)
        zygote = pool.starter.zygotes.get(None)
        assert zygote is not None
        assert "thread_at_import" in pool.starter.learned[None]
        assert zygote.forkable(60), zygote.reason
        forked = zygote.fork((99, None, ()))  # it still forks
        assert forked is not None, zygote.reason
        forked[1].send(None)
        forked[0].join(timeout=10)
        # the worker saw the thread start, so the zygote tries the module in a child, not in
        # itself (it takes the spawned worker's hundreds of packages one at a time)
        log, deadline, said = tmp_path / "workers" / "zygote.log", time.monotonic() + 60, ""
        while "thread_at_import" not in said and time.monotonic() < deadline:
            time.sleep(0.1)
            said = log.read_text(encoding="utf-8")
    finally:
        pool.close()
    assert [result.status for result in finished] == ["pass"] * 3 + ["crash"] * 3
    assert "not importing thread_at_import: it starts a thread" in said, said


def test_what_a_worker_imports_after_an_adapter_changed_its_environment_is_not_learned(
    tmp_path: Path,
) -> None:
    """The zygote imports by name, in its own environment: a module imported under a setting an
    adapter made would be another module there. Keras's NumPy-backend modules, imported so by the
    zygote's TensorFlow-backend Keras, broke keras.ops in every worker forked after."""
    jobs = _jobs(tmp_path, "test_zygote:SettingLearningSegfaulter", on="bad-*", module="recursion_probe")
    finished: list[Result] = []
    pool = Pool(1, 60, finished.append, log_dir=tmp_path / "workers")
    try:
        pool.serve(jobs)
        assert pool.starter.zygotes.get(None) is not None  # there was one to teach
        assert "recursion_probe" not in pool.starter.learned.get(None, {})
    finally:
        pool.close()
    assert [result.status for result in finished] == ["pass"] * 3 + ["crash"] * 3


def test_the_zygote_imports_a_package_s_modules_in_the_order_its_worker_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A module may set up how a later one loads (the adapters' telemetry_off modules import their
    backend with its thread turned off): the zygote imports them in the worker's order, so it
    imports the backend thread-free and goes on forking. Sorted by name, the route module came
    first and the zygote, having found a thread, spawned every worker after."""
    importers = tmp_path / "imported-by"
    importers.touch()
    monkeypatch.setenv("THREAD_UNLESS_QUIET_LOG", str(importers))
    jobs = _jobs(tmp_path, "test_zygote:LearningSegfaulter", on="bad-*", module="quiet_package.setup")
    pool = Pool(1, 60, lambda result: None, log_dir=tmp_path / "workers")
    try:
        pool.serve(jobs)
        zygote = pool.starter.zygotes.get(None)
        assert zygote is not None and zygote.forkable(60), zygote and zygote.reason
        assert pool.starter.learned[None].get("thread_unless_quiet") is True  # thread-free in the worker
        pid, deadline = str(zygote.process.pid), time.monotonic() + 60
        while pid not in importers.read_text(encoding="utf-8").split():
            assert time.monotonic() < deadline, "the zygote never imported what the worker learned"
            time.sleep(0.1)
        _forks_and_stays_usable(zygote)
    finally:
        pool.close()


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
    zygote = Zygote(1, str(tmp_path / "zygote.log"))
    try:
        assert _until_decided(zygote), zygote.reason
        zygote.learn(("gated_import",))  # its import waits for the gate
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


def test_a_worker_is_re_forked_for_new_modules_and_not_while_its_zygote_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The zygote says when it has done what it was asked to import, and whether that imported
    anything new: a worker about to load an adapter is re-forked (Pool._behind) only for new
    modules, and not while the zygote imports, as the fork would wait for it."""
    gate = tmp_path / "gate"
    monkeypatch.setenv("GATED_IMPORT_GATE", str(gate))
    monkeypatch.setenv("GATED_IMPORT_LOG", str(tmp_path / "imported-by"))
    job = _jobs(tmp_path, "fake_adapters:Segfaulter")[0]
    worker = SimpleNamespace(readiness=Readiness(prepared=True))  # forked before any import
    pool = Pool(1, 60, lambda result: None)
    zygote = pool.starter.zygotes[None] = Zygote(1, str(tmp_path / "zygote.log"))
    try:
        assert _until_decided(zygote), zygote.reason
        assert not pool._behind(worker, job)  # nothing imported since the fork
        zygote.learn(("recursion_probe",))
        assert _imported_all(zygote) and zygote.imports == 1 and pool._behind(worker, job)
        zygote.learn(("gated_import",))  # its import waits for the gate
        time.sleep(0.5)
        assert zygote.importing and not pool._behind(worker, job)
        gate.touch()
        assert _imported_all(zygote) and zygote.imports == 2 and pool._behind(worker, job)
        worker.readiness.zygote_imports = 2  # a fork after those
        zygote.learn(("gated_import",))  # held already: done, and nothing new
        assert _imported_all(zygote) and zygote.imports == 2 and not pool._behind(worker, job)
    finally:
        pool.close()


def test_a_worker_stopped_before_the_zygote_forked_it_is_not_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker asked of the zygote just before an import began (a spare, stopped when a route
    with workers of its own begins) is forked only after that import (seconds), and waiting for
    it would idle every worker. It is killed once forked, before it loads and prepares its targets."""
    gate, marker = tmp_path / "gate", tmp_path / "prepared"
    monkeypatch.setenv("GATED_IMPORT_GATE", str(gate))
    monkeypatch.setenv("GATED_IMPORT_LOG", str(tmp_path / "imported-by"))
    monkeypatch.setattr(settings, "ENGINE", replace(settings.ENGINE, stop_s=120.0))
    job = _jobs(tmp_path, "fake_adapters:PrepareMarker", load="1", marker=str(marker))[0]
    starter = Starter(1, tmp_path / "workers", None, True, print)
    try:
        starter.start_zygote(wait_s=60)
        zygote = starter.zygotes[None]
        assert zygote.forkable(), zygote.reason
        zygote.learn(("gated_import",))  # its import waits for the gate
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


def test_a_worker_started_while_the_zygote_imports_declared_modules_is_spawned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fork asked while the zygote imports waits for the import: for a declared one (TensorFlow's
    took 4 s at a main job's start, the time a worker replacing one that died there lost) such a
    worker is spawned, runs its job at once, and counts as forked before every import (see
    Pool._behind). Behind a module a worker taught (milliseconds) it waits (the tests above)."""
    gate = tmp_path / "gate"
    monkeypatch.setenv("GATED_IMPORT_GATE", str(gate))
    monkeypatch.setenv("GATED_IMPORT_LOG", str(tmp_path / "imported-by"))
    job = _jobs(tmp_path, "fake_adapters:Slicer")[0]
    starter = Starter(1, tmp_path / "workers", None, True, print)
    try:
        starter.start_zygote(wait_s=60)
        zygote = starter.zygotes[None]
        assert zygote.forkable(), zygote.reason
        forked = starter.start((job.preload,), None)
        assert isinstance(forked.process, Forked) and forked.readiness.zygote_imports == 0
        zygote.learn(("gated_import",), True, declared=True)  # its import waits for the gate
        slot = starter.start((job.preload,), None)
        assert not isinstance(slot.process, Forked) and slot.process.pid is not None
        slot.connection.send(job)
        assert slot.connection.poll(60), "the spawned worker did not answer while the zygote imported"
        assert not gate.exists() and zygote.importing
        for started in (forked, slot):
            stop_worker(started, kill=True)
    finally:
        gate.touch()
        starter.close(at_once=False)


def test_a_target_taught_behind_declared_imports_is_not_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Jobs of a target the zygote imports for are set aside (Pool._take). A target a worker
    teaches while the declared imports run (seconds, at a long run's start) would wait for them:
    in the main job nearly every target was set aside for its first 15 s, and some stayed behind
    until the run's end. It is not waited for; a declared one is, and after them a taught one."""
    gate = tmp_path / "gate"
    monkeypatch.setenv("GATED_IMPORT_GATE", str(gate))
    monkeypatch.setenv("GATED_IMPORT_LOG", str(tmp_path / "imported-by"))
    declared, taught = Target("slow", "route", "cpu"), Target("quick", "route", "cpu")
    zygote = Zygote(1, str(tmp_path / "zygote.log"))
    try:
        assert _until_decided(zygote), zygote.reason
        zygote.learn(("gated_import",), True, declared, declared=True)  # waits for the gate
        zygote.learn(("recursion_probe",), True, taught)
        assert zygote.learning == {declared}
        gate.touch()
        assert _imported_all(zygote) and not zygote.learning
        zygote.learn(("json",), True, taught)  # behind nothing declared: waited for
        assert taught in zygote.learning
    finally:
        gate.touch()
        zygote.close()
