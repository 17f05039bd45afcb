"""The zygote: one process that imports the harness and the backends' thread-free modules once,
then forks each new worker from itself.

Why: a worker started afresh ("spawn") imports everything again: about 0.4 s for the harness,
1.5 s for torch, 1.5 s more for ``torch._dynamo``. A full run starts dozens of workers (each
backend crash costs one, and the next worker meets the same backend), so on two cores those
imports were most of the harness's share of the wall time. A forked worker has them already.

Why it is safe: ``fork`` copies only the calling thread, so a process with other threads may
be forked while one of them holds a lock that the child then waits for forever (a hang that
would be reported as the backend's timeout). The zygote is started afresh, sets the thread
variables before anything loads (NumPy's OpenBLAS then starts no thread pool), imports only the
modules routes list in :attr:`conformance.plugin.Route.imports` (those that start no thread),
and loads NumPy's OpenBLAS with one thread whatever the workers' share (the suite's NumPy work
uses no BLAS; torch and OpenVINO size their pools from the variables later, in each worker),
and counts its threads before every fork: with more than one it refuses, and the pool spawns
workers as before. Backends that start threads when imported (ONNX Runtime) load in each
worker, after the fork; OpenVINO's adapter imports it without the one thread it would start
(``conformance_openvino.preload``). The zygote runs no backend code; it never touches a case.

Why not the standard library's forkserver with ``set_forkserver_preload``, which forks from a
preloaded server too: it is as fast (measured here with torch preloaded: 9.0 ms median per worker
start over 8 starts, against 0.96 s for spawn; this zygote is ready in 0.93 s, torch included,
and then forks in milliseconds), but it cannot give the guarantees above. It is one server per
process, started once with one preload list, so a second run in the same process (the pytest
plugin, ``explore``, the tests) with other routes cannot add its modules; it ignores a preload
that fails to import, and never looks at its own threads before forking, so a module that starts
a thread would give the deadlocks this zygote refuses to risk; and it inherits the parent's
environment when it starts, so the thread variables would have to be set in the parent's own.

The pool sees a forked worker as a :class:`Forked`: the same surface as a spawned
``multiprocessing`` process (a sentinel to wait on, ``exitcode``, ``kill``, ``join``, ``close``).
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import multiprocessing
import os
import signal
import socket
import sys
import time
import traceback
from collections.abc import Iterable, Sequence
from multiprocessing import reduction
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, NoReturn

from conformance import plugin
from conformance.run import lifeline, worker

#: What every worker imports, whatever its targets.
HARNESS = (
    "conformance.run.worker",
    "conformance.run.registry",
    "conformance.run.item",
    "conformance.run.input_cache",
)

_CONTEXT = multiprocessing.get_context("spawn")


class Forked:
    """A worker forked by the zygote, as the pool handles its workers.

    Its sentinel is a pipe the zygote (the worker's parent, which reaps it) writes the exit code
    to: it reads as ended when the worker has exited, even if a process the worker started
    still holds every descriptor the worker had. If the zygote itself goes away, it reads as
    ended too, and the worker is killed rather than left unwatched.
    """

    def __init__(self, pid: int, sentinel: int) -> None:
        self.pid = pid
        self.sentinel = sentinel
        self.exitcode: int | None = None
        self._ended = False

    def _ended_now(self) -> None:
        self._ended = True
        data = os.read(self.sentinel, 4)
        if len(data) == 4:
            self.exitcode = int.from_bytes(data, "little", signed=True)
        else:  # the zygote went away: nobody reaps or reports this worker any more
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def is_alive(self) -> bool:
        if not self._ended and wait([self.sentinel], timeout=0):
            self._ended_now()
        return not self._ended

    def join(self, timeout: float | None = None) -> None:
        if not self._ended and wait([self.sentinel], timeout=timeout):
            self._ended_now()

    def kill(self) -> None:
        if not self._ended:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.sentinel)


class Zygote:
    """The parent's handle on the zygote process."""

    def __init__(
        self,
        threads: int,
        imports: Sequence[str],
        log_path: str | None,
        *,
        stages: Sequence[Sequence[str]] | None = None,
    ) -> None:
        """``imports`` in one stage, or ``stages``: the modules in the order the run needs them.
        After each stage but the last the zygote waits: the pool forks the workers whose next
        jobs need no more, then lets it go on (:meth:`resume`)."""
        self.threads = threads
        self.stages = tuple(tuple(stage) for stage in stages) if stages else (tuple(imports),)
        self._connection, child = _CONTEXT.Pipe(duplex=True)  # a socket pair: it carries descriptors
        self.process: BaseProcess = _CONTEXT.Process(
            target=main,
            args=(child, threads, self.stages, log_path),
            daemon=True,
            name="conformance-zygote",
        )
        with worker.thread_environment(threads, blas=1):
            self.process.start()
        child.close()
        #: None while the zygote imports; True once every stage is in, or False for good
        self.usable: bool | None = None
        #: why the zygote cannot fork (said once in its log and in the run's)
        self.reason = ""
        #: the last stage whose modules the zygote has imported (-1: none yet)
        self.stage = -1
        #: whether it waits between two stages, for forks or :meth:`resume`, and since when it
        #: has been importing its current stage
        self.paused = False
        self._since = time.monotonic()

    @property
    def connection(self) -> Connection:
        """Readable when the zygote has finished a stage, has forked a worker asked for (see
        :meth:`ask`), or has gone: the pool waits on it."""
        return self._connection

    @property
    def importing(self) -> bool:
        """Whether stages are still to come (a stage may be waiting for :meth:`resume`)."""
        return self.usable is None

    def _read(self, wait: float) -> bool:
        """Read one message within ``wait`` seconds (the stage finished, or why it cannot fork)."""
        if self.usable is not None or self.paused or not self._connection.poll(wait):
            return False
        try:
            said, detail = self._connection.recv()
        except (EOFError, OSError):
            said, detail = "gone", "the zygote exited"
        if said == "stage":
            self.stage, self._since = int(detail), time.monotonic()
            self.usable = True if self.stage == len(self.stages) - 1 else None
            self.paused = self.usable is None
        else:
            self.usable, self.reason = False, str(detail)
        return True

    def stalled(self, limit_s: float) -> bool:
        """Whether the zygote has been importing one stage for more than ``limit_s`` seconds."""
        return self.importing and not self.paused and time.monotonic() - self._since > limit_s

    def give_up(self, reason: str) -> None:
        """Fork nothing more from it (it took too long): the pool spawns workers from now on, and
        the workers forked before import what they need themselves."""
        if self.usable is not False:
            self.usable, self.reason, self.paused = False, reason, False

    def poll(self) -> None:
        """Take in what the zygote has said, without waiting."""
        while self._read(0.0):
            pass

    def resume(self) -> None:
        """Let a zygote waiting between stages import the next one."""
        if self.paused:
            self.paused, self._since = False, time.monotonic()
            with contextlib.suppress(OSError):
                self._connection.send("continue")

    def ready(self, wait: float = 0.0) -> bool:
        """Whether every stage is imported (workers fork with all of them), after waiting up to
        ``wait`` seconds for it, letting the zygote go on past each stage."""
        deadline = time.monotonic() + wait
        while True:
            self.resume()
            if not self._read(max(0.0, deadline - time.monotonic())):
                return bool(self.usable)

    def forkable(self, wait: float = 0.0) -> bool:
        """Whether a worker can be forked now: the zygote waits between stages or has them all
        (after waiting up to ``wait`` seconds for either)."""
        self._read(wait)
        return self.usable is True or (self.usable is None and self.paused)

    def fork(self, args: tuple[Any, ...]) -> tuple[Forked, Connection] | None:
        """A new worker running ``worker.main(connection, *args)``, with the modules of the stages
        imported so far (:attr:`stage`); None when the zygote cannot fork now."""
        return self.forked() if self.forkable() and self._send(args) else None

    def ask(self, args: tuple[Any, ...]) -> bool:
        """Ask for a worker (see :meth:`fork`) without waiting for it: :meth:`forked` receives it,
        once :attr:`connection` is readable or when it is needed. Only once every stage is in
        (False otherwise, or when the zygote has gone): between stages the connection also says
        when a stage is done. A fork takes the zygote 20 ms on average while two workers keep the
        cores busy (100 forks of a full -j 2 run took 2.0 s); waited for, the pool served no
        worker meanwhile, and a worker of 14 ms items has 5 ms of work waiting in its pipe."""
        return self.usable is True and self._send(args)

    def _send(self, args: tuple[Any, ...]) -> bool:
        """Send a fork request; False (and no forks from now on) if the zygote has gone."""
        try:
            self._connection.send(args)
        except OSError as error:
            self.usable, self.reason = False, f"the zygote went away ({error})"
            return False
        return True

    def forked(self) -> tuple[Forked, Connection] | None:
        """The worker asked for first and not received yet (waiting for it); None if the zygote
        refused or went away (the pool spawns from then on)."""
        try:
            said, pid = self._connection.recv()
            if said != "forked":
                self.usable, self.reason = False, str(pid)
                return None
            with socket.socket(fileno=os.dup(self._connection.fileno())) as carrier:
                worker_end, exit_pipe = reduction.recvfds(carrier, 2)
        except (EOFError, OSError) as error:  # the zygote died: spawn from now on
            self.usable, self.reason = False, f"the zygote went away ({error})"
            return None
        return Forked(pid, exit_pipe), Connection(worker_end)

    def close(self, at_once: bool = False) -> None:
        """Ask the zygote to exit (its workers are the pool's to stop), then make sure it has; one
        still importing (a run stopped early) reads no request, and is killed at once, as it is
        ``at_once`` (a run interrupted)."""
        with contextlib.suppress(OSError):
            self._connection.send(None)
        self.poll()  # reads whether it finished importing, if it has said so
        self.process.join(timeout=5 if (self.usable or self.paused) and not at_once else 0)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=5)
        self._connection.close()


def thread_count() -> int:
    """Threads in this process (Linux); 1 where /proc cannot say, as fork is then never chosen."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


def _thread_names() -> list[str]:
    """The threads' names as the system knows them (for the message when there are several)."""
    names = []
    for task in os.listdir("/proc/self/task"):
        with contextlib.suppress(OSError), open(f"/proc/self/task/{task}/comm", encoding="utf-8") as comm:
            names.append(comm.read().strip())
    return names


def preload(imports: Iterable[str]) -> None:
    """Import the harness and ``imports``, as the zygote does before it checks its threads (a test
    imports each adapter's route imports this way and counts the threads), and read the installed
    distributions' index, which adapters' ``info()`` asks for their backends' versions
    (:func:`conformance.plugin.distributions_by_package`): each forked worker then has both."""
    _import((*HARNESS, *imports))
    try:
        plugin.distributions_by_package()
    except Exception:  # unreadable metadata: each worker meets it when an adapter asks, and says so
        traceback.print_exc()


def _import(names: Iterable[str]) -> None:
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # not installed or broken: the worker meets it and reports it on an item
            traceback.print_exc()


def main(
    connection: Connection, threads: int, stages: tuple[tuple[str, ...], ...], log_path: str | None
) -> None:
    """Import stage by stage, checking after each that this process is single-threaded, then
    fork workers on request: between stages until told to go on, after the last until told to
    stop. It ends with the run (see :mod:`conformance.run.lifeline`), and its workers with it."""
    lifeline.tie_to_spawner()
    worker.redirect_output(log_path)
    worker.forgo_core_dumps()  # it imports every backend: a crash there dumps no core either
    # Ctrl-C reaches the whole process group: the parent handles it and closes the zygote.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    worker.set_thread_variables(threads, blas=1)
    server = _Server(connection)
    for number, modules in enumerate(stages):
        if number:
            _import(modules)
        else:
            preload(modules)
        running = thread_count()
        if running != 1:
            names = sorted(_thread_names())
            imported = (
                ", ".join(module for stage in stages[: number + 1] for module in stage) or "the harness"
            )
            reason = f"{running} threads ({', '.join(names)}) after importing {imported}: workers are spawned"
            print(f"zygote: {reason}", file=sys.stderr, flush=True)
            connection.send(("unsafe", reason))
            # no more forks, but the workers forked before go on: their exit codes are still
            # this process's to report (leaving now would read as its end, and kill them)
            server.serve(last=True)
            _leave()
        # what the stage imported is never collected, in the zygote or a worker: a worker's full
        # collection walked the zygote's half a million objects (260 ms) and, writing to each
        # one's header, copied 118 MiB of the memory it shared with the zygote
        gc.freeze()
        connection.send(("stage", number))
        if not server.serve(last=number == len(stages) - 1):
            break
    _leave()


def _leave() -> NoReturn:
    """End the zygote without the interpreter's teardown: it holds no state worth saving, and
    tearing down the backends it imported (TensorFlow, torch, OpenVINO) took 1.4 s that the
    pool waits for at the end of every run that started it."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


class _Server:
    """Forks workers on request and reaps them, reporting each one's exit code. Set up before the
    first import: a worker that ends while the zygote imports a later stage (seconds, for
    TensorFlow) is reaped by the signal handler at once, so the pool learns how it ended without
    waiting for the stage."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.wake_read, wake_write = os.pipe()
        os.set_blocking(wake_write, False)
        signal.set_wakeup_fd(wake_write)
        self.children: dict[int, int] = {}  # pid -> the write end of its exit-code pipe
        zygote = os.getpid()
        # only in the zygote: a worker between its fork and its own handler must not reap
        # (it holds copies of its siblings' exit pipes)
        signal.signal(signal.SIGCHLD, lambda *_: _reap(self.children) if os.getpid() == zygote else None)
        self.own = [connection.fileno(), self.wake_read, wake_write]

    def serve(self, *, last: bool) -> bool:
        """Fork on request until told to go on to the next stage (True; never when ``last``) or
        to stop (False)."""
        while True:
            ready = wait([self.connection, self.wake_read])
            if self.wake_read in ready:
                os.read(self.wake_read, 512)
            # the handler reaps too: never in the middle of this call (it would report a worker
            # this call has just waited for as ended with 0)
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
            try:
                _reap(self.children)
            finally:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
            if self.connection not in ready:
                continue
            try:
                request = self.connection.recv()
            except (EOFError, OSError):
                return False
            if request is None:
                return False
            if request == "continue":
                if not last:
                    return True
                continue
            if thread_count() != 1:  # defensive: nothing here starts a thread, but never fork with one
                self.connection.send(("unsafe", f"{thread_count()} threads in the zygote"))
                continue
            _fork(self.connection, request, self.children, self.own)


def _fork(connection: Connection, args: tuple[Any, ...], children: dict[int, int], own: list[int]) -> None:
    worker_end, child_end = socket.socketpair()
    exit_read, exit_write = os.pipe()  # the zygote writes the worker's exit code here
    zygote = os.getpid()
    pid = os.fork()
    if pid == 0:  # the worker: keep only its own end of its pipe, and never return into the loop
        code = 1
        try:
            lifeline.tie(zygote)  # first: a zygote that ends leaves no worker behind
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            inherited = [*own, *children.values(), exit_read, exit_write, worker_end.detach()]
            for descriptor in inherited:
                with contextlib.suppress(OSError):
                    os.close(descriptor)
            worker.main(Connection(child_end.detach()), *args)
            code = 0
        except BaseException:  # a worker's own end; the pool reports its exit code
            with contextlib.suppress(Exception):
                traceback.print_exc()
        finally:
            os._exit(code)
    child_end.close()
    children[pid] = exit_write
    connection.send(("forked", pid))
    with socket.socket(fileno=os.dup(connection.fileno())) as carrier:
        reduction.sendfds(carrier, [worker_end.fileno(), exit_read])
    worker_end.close()
    os.close(exit_read)


def _reap(children: dict[int, int]) -> None:
    """Write the exit code of every ended worker to its pipe and close it (from the serving loop,
    and from the signal handler while the zygote imports)."""
    for pid in list(children):
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # not waitable: reported as ended (once, see below)
            done, status = pid, 0
        if done == 0:
            continue
        write = children.pop(pid, None)
        if write is None:  # reported already
            continue
        with contextlib.suppress(OSError):
            os.write(write, os.waitstatus_to_exitcode(status).to_bytes(4, "little", signed=True))
        os.close(write)
