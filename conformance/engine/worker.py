"""The worker process: runs jobs one at a time, each through :func:`item.run_item`. Backends run
here, never in the parent, so a segfault, an abort or a hang costs one worker and one result, not
the run. Workers are never forked from the parent (it may hold threads: forking it is unsafe),
only from the single-threaded zygote, or started afresh where it cannot fork.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import resource
import sys
import time
import traceback
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

from conformance import ids
from conformance.corpus.case import Case
from conformance.engine import lifeline, memory, phase
from conformance.engine.variables import backend_variables
from conformance.errors import PluginError
from conformance.plugin import Target
from conformance.results.records import WorkerRecord
from conformance.results.result import Result
from conformance.statuses import Defect, Judged
from conformance.storage import journal, scratch

if TYPE_CHECKING:  # the registry loads backends: imported in the worker, once its threads are set
    from conformance.loading.registry import LoadedAdapter

#: an adapter as a worker loads it: its name and options
AdapterKey = tuple[str, tuple[tuple[str, str], ...]]
#: the adapters a worker has loaded
Loaded = dict[AdapterKey, "LoadedAdapter"]


@dataclass(frozen=True)
class Job:
    """One item on one target, as the pool hands it to a worker."""

    index: int  # position in the run's deterministic order
    adapter: str  # the spec the adapter was loaded by (entry-point name or module:attr)
    target: Target
    case: Case
    op: str
    repeat: int
    options: dict[str, str] = field(default_factory=dict)
    #: what the target's route is judged on (see conformance.plugin.Route)
    judged: Judged = "values"
    #: the route runs in workers of its own (see Route.own_worker)
    own_worker: bool = False
    #: the modules its zygote imports for it (see Route.imports)
    imports: tuple[str, ...] = ()

    @functools.cached_property
    def key(self) -> str:
        return ids.result_key(ids.item_id(self.case.id, self.op), self.target.id)

    @property
    def option_key(self) -> tuple[tuple[str, str], ...]:
        return tuple(sorted(self.options.items()))

    @functools.cached_property
    def large(self) -> bool:
        """Whether the item needs gigabytes (see :mod:`.memory`): the pool gives such items to one
        worker. Cached: the pool and the progress line ask seven times a job."""
        return memory.is_large(self.case)

    @property
    def preload(self) -> Preload:
        return Preload(self.adapter, self.option_key, self.target)

    @property
    def group(self) -> str | None:
        """The jobs a worker may run together: any (None), or only its own route's."""
        return f"{self.adapter}/{self.target.route}" if self.own_worker else None


def peak_rss_kib() -> int:
    """This process's peak resident memory (Linux reports KiB)."""
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def resident_kib() -> int | None:
    """This process's resident memory now (not its peak), or None without /proc. Asked after every
    item, so the file stays open and is read again from its start."""
    global _statm
    for _ in range(2):  # a descriptor an item closed (or reused for another file) is opened afresh
        try:
            if _statm is None or _statm[0] != os.getpid():  # opened here, not in a process it forked from
                _statm = (os.getpid(), os.open("/proc/self/statm", os.O_RDONLY))
            pages = int(os.pread(_statm[1], 128, 0).split()[1])
        except (OSError, ValueError, IndexError):
            _statm = None
            continue
        return pages * (os.sysconf("SC_PAGE_SIZE") // 1024)
    return None


#: the pid that opened /proc/self/statm (a fork inherits the descriptor) and the descriptor
_statm: tuple[int, int] | None = None


#: The soft core-file limit a worker sets: 1 byte means no core file (smaller than a page), and the
#: kernel skips a core_pattern pipe to a crash reporter for a limit of exactly 1.
NO_CORE = 1


def forgo_core_dumps() -> None:
    """Let a crash of this worker write no core dump: under ``ulimit -c unlimited`` each of a run's
    dozens of crashes wrote hundreds of MB as ``core`` into the user's folder and took ten times as
    long to die. A crash's evidence is its result, the worker's log and its reproducer."""
    with contextlib.suppress(ValueError, OSError):
        hard = resource.getrlimit(resource.RLIMIT_CORE)[1]  # RLIM_INFINITY is -1 here: no min()
        soft = NO_CORE if hard == resource.RLIM_INFINITY else min(NO_CORE, hard)
        resource.setrlimit(resource.RLIMIT_CORE, (soft, hard))


def redirect_output(log_path: str | None) -> None:
    """Send this process's stdout and stderr (descriptors, so native code's too) to its log file."""
    if log_path is None:
        return
    descriptor = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o644)
    for stream in (1, 2):
        os.dup2(descriptor, stream)
    os.close(descriptor)


def _settle_output(log_path: str | None) -> int:
    """Flush this worker's output and say where the log ends; streams or descriptors an adapter
    closed are opened again on the log, so that the next item neither fails nor loses output."""
    for number, name in ((1, "stdout"), (2, "stderr")):
        stream = getattr(sys, name)
        try:
            os.fstat(number)
        except OSError:  # the descriptor itself was closed: onto the log (or nowhere) again
            flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW  # never a link's target
            target = os.open(log_path or os.devnull, flags, 0o644)
            os.dup2(target, number)
            os.close(target)
        if stream is None or stream.closed:
            setattr(sys, name, open(number, "w", encoding="utf-8", errors="replace", closefd=False))  # noqa: SIM115
        with contextlib.suppress(OSError, ValueError):
            getattr(sys, name).flush()
    try:
        return os.fstat(1).st_size if log_path is not None else 0
    except OSError:
        return 0


@dataclass(frozen=True)
class Preload:
    """A target a new worker prepares before its first job (see ``Route.prepare``)."""

    adapter: str
    options: tuple[tuple[str, str], ...]
    target: Target


def main(
    connection: Connection,
    threads: int,
    log_path: str | None = None,
    preload: tuple[Preload, ...] = (),
    memory_budget: int | None = None,
    scratch_folder: str | None = None,
    prepares: bool = True,
) -> None:
    """Prepare the ``preload`` targets, then serve jobs until the parent sends None or goes away.
    ``memory_budget``: the bytes an item may need (see :func:`.memory.confine`); ``prepares``:
    whether it prepares each further target it meets (not once a prepare() was found broken)."""
    redirect_output(log_path)
    forgo_core_dumps()
    scratch.enter(scratch_folder)
    phase.open_marker(log_path)
    os.environ.update(backend_variables(threads))
    memory.confine(memory_budget)
    # its own process group, so that whatever a backend starts is killed with it (slot.stop_worker)
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    lifeline.tie_forks()
    loaded = _prepared(preload)
    # the adapters' modules and backends live as long as the worker: its collections skip them
    _freeze()
    # prepared: a death from here on is an item's, and the first job's own time starts now
    connection.send((-1, preload, 0, None))
    ready = set(preload)
    _serve(connection, log_path, loaded, ready if prepares else None)


def spawned_main(connection: Connection, *args: Any) -> None:
    """:func:`main` in a worker started afresh, tied first to the process that started it."""
    lifeline.tie_to_spawner()
    main(connection, *args)


def _serve(connection: Connection, log_path: str | None, loaded: Loaded, ready: set[Preload] | None) -> None:
    """Run jobs until the parent sends None or goes away. ``ready``: the targets prepared so far,
    each further one prepared when its first job comes (None: none is)."""
    # Imported here, after the thread variables are set: backends read them when they load.
    from conformance.engine.item import LargeInput, run_item
    from conformance.loading import registry

    kept = LargeInput()
    while True:
        phase.mark("between items")
        try:
            job: Job | None = connection.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if job is None:
            return
        key = (job.adapter, job.option_key)
        kept.keep_only(job.case.data if job.large else None)
        started = time.perf_counter()
        load_ms = 0.0
        try:
            fresh = key not in loaded or (ready is not None and job.preload not in ready)
            if fresh:
                phase.mark("loading the adapter")
                if key not in loaded:
                    loaded[key] = registry.load(job.adapter, job.options)
                if ready is not None:
                    ready.add(job.preload)
                    _prepare(loaded[key], job.target)
                _freeze()
                load_ms = (time.perf_counter() - started) * 1000
                # loaded and prepared: the item's own time starts now
                connection.send((-1, (job.preload,), 0, None))
            hooks = loaded[key].hooks
            result = run_item(hooks, job.target, job.case, job.op, job.repeat, judged=job.judged, kept=kept)
        except Exception as error:  # reported on this item as no verdict on the backend; the worker lives on
            result = _defect_result(job, error)
        # the whole item: data, reference, backend and judging
        elapsed_ms = (time.perf_counter() - started) * 1000
        phase.mark("reporting")
        line = _journal_line(result, elapsed_ms, load_ms)
        # where the next job's output starts in the log, which the parent quotes if it dies
        log_end = _settle_output(log_path)
        # the memory the pool bounds: what the worker accumulates, not the input it keeps on purpose
        resident = resident_kib()
        accumulated = None if resident is None else resident - kept.held(job.case.data) // 1024
        connection.send((job.index, line, log_end, accumulated))


def _journal_line(result: Result, elapsed_ms: float, load_ms: float) -> str:
    """The result with this worker's record as the journal's JSON line, encoded here so that the
    parent, which serves every worker, need not. ``load_ms``: loading the adapter, if it did."""
    usage: WorkerRecord = {
        "pid": os.getpid(),
        "peak_rss_kib": peak_rss_kib(),
        "elapsed_ms": round(elapsed_ms, 3),
    }
    if load_ms:  # one the worker had not prepared before its first job
        usage["load_ms"] = round(load_ms, 3)
    body = result.to_json()
    body["worker"] = usage  # into the encoded body: a dataclasses.replace per item costs more
    return journal.encoded(body)


def _freeze() -> None:
    """Keep what the worker holds now out of its collections for good, collected first (earlier
    items' cycles would otherwise be kept for the worker's life)."""
    gc.collect()
    gc.freeze()


def thread_count() -> int:
    """Threads in this process (Linux); 1 where /proc cannot say, as fork is then never chosen."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


def thread_names() -> list[str]:
    """The threads' names as the system knows them (for the message when there are several)."""
    names = []
    for task in os.listdir("/proc/self/task"):
        with contextlib.suppress(OSError), open(f"/proc/self/task/{task}/comm", encoding="utf-8") as comm:
            names.append(comm.read().strip())
    return names


def _prepared(preload: tuple[Preload, ...]) -> Loaded:
    """The ``preload`` targets' adapters, loaded and prepared (failures are printed)."""
    from conformance.loading import registry

    loaded: Loaded = {}
    phase.mark("prepare")
    for entry in preload:
        try:
            key = (entry.adapter, entry.options)
            if key not in loaded:
                loaded[key] = registry.load(entry.adapter, dict(entry.options))
            _prepare(loaded[key], entry.target)
        except Exception:
            traceback.print_exc()
    return loaded


def _prepare(adapter: LoadedAdapter, target: Target) -> None:
    """The route's optional ``prepare(target)``; what fails is printed: the items report it."""
    try:
        adapter.hooks.prepare(target)
    except Exception:
        traceback.print_exc()


def _defect_result(job: Job, error: Exception) -> Result:
    """The item's result when the suite or the adapter failed around it: the adapter's defect when
    it could not be loaded, the harness's failure otherwise (the reference, the fills, judging)."""
    from conformance.engine.item import bare_result, pending_result

    text = "".join(traceback.format_exception(error)).strip()
    defect: Defect = "adapter" if isinstance(error, PluginError) else "harness"
    who = "the adapter could not be loaded" if defect == "adapter" else "the harness failed on this item"
    message = f"{who} ({type(error).__name__}: {error})\n{text}"
    try:
        return pending_result(job.case, job.op, job.target, judged=job.judged).with_defect(defect, message)
    except Exception as again:  # the reference itself fails on this case: report it bare
        failed_too = f"{message}\nand the reference failed too: {type(again).__name__}: {again}"
        return bare_result(job.case, job.op, job.target, failed_too).with_defect(defect, failed_too)
