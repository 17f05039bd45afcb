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
import importlib
import multiprocessing
import os
import signal
import socket
import sys
import traceback
from collections.abc import Iterable, Sequence
from multiprocessing import reduction
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, NoReturn

from conformance import plugin
from conformance.run import worker

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

    def __init__(self, threads: int, imports: Sequence[str], log_path: str | None) -> None:
        self.threads = threads
        self._connection, child = _CONTEXT.Pipe(duplex=True)  # a socket pair: it carries descriptors
        self.process: BaseProcess = _CONTEXT.Process(
            target=main,
            args=(child, threads, tuple(imports), log_path),
            daemon=True,
            name="conformance-zygote",
        )
        with worker.thread_environment(threads, blas=1):
            self.process.start()
        child.close()
        #: None until the zygote has said whether it can fork; then True, or False for good
        self.usable: bool | None = None
        #: why the zygote cannot fork (said once in its log and in the run's)
        self.reason = ""

    def ready(self, wait: float = 0.0) -> bool:
        """Whether workers can be forked now; False while the zygote is still importing (after
        waiting up to ``wait`` seconds for it to finish)."""
        if self.usable is None and self._connection.poll(wait):
            try:
                said, detail = self._connection.recv()
            except (EOFError, OSError):
                said, detail = "gone", "the zygote exited"
            self.usable = said == "ready"
            self.reason = "" if self.usable else str(detail)
        return bool(self.usable)

    def fork(self, args: tuple[Any, ...]) -> tuple[Forked, Connection] | None:
        """A new worker running ``worker.main(connection, *args)``; None when the zygote cannot."""
        if not self.ready():
            return None
        try:
            self._connection.send(args)
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

    def close(self) -> None:
        """Ask the zygote to exit (its workers are the pool's to stop), then make sure it has; one
        still importing (a run stopped early) reads no request, and is killed at once."""
        with contextlib.suppress(OSError):
            self._connection.send(None)
        self.ready()  # reads whether it finished importing, if it has said so
        self.process.join(timeout=0 if self.usable is None else 5)
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
    for name in (*HARNESS, *imports):
        try:
            importlib.import_module(name)
        except Exception:  # not installed or broken: the worker meets it and reports it on an item
            traceback.print_exc()
    try:
        plugin.distributions_by_package()
    except Exception:  # unreadable metadata: each worker meets it when an adapter asks, and says so
        traceback.print_exc()


def main(connection: Connection, threads: int, imports: tuple[str, ...], log_path: str | None) -> None:
    """Import, check that this process is single-threaded, then fork workers on request."""
    worker.redirect_output(log_path)
    # Ctrl-C reaches the whole process group: the parent handles it and closes the zygote.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    worker.set_thread_variables(threads, blas=1)
    preload(imports)
    running = thread_count()
    if running != 1:
        names = sorted(_thread_names())
        imported = ", ".join(imports) or "the harness"
        reason = f"{running} threads ({', '.join(names)}) after importing {imported}: workers are spawned"
        print(f"zygote: {reason}", file=sys.stderr, flush=True)
        connection.send(("unsafe", reason))
        _leave()
    connection.send(("ready", os.getpid()))
    _serve(connection)
    _leave()


def _leave() -> NoReturn:
    """End the zygote without the interpreter's teardown: it holds no state worth saving, and
    tearing down the backends it imported (TensorFlow, torch, OpenVINO) took 1.4 s that the
    pool waits for at the end of every run that started it."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


def _serve(connection: Connection) -> None:
    """Fork a worker per request; reap the workers and report each one's exit code."""
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so the wake-up descriptor is written
    children: dict[int, int] = {}  # pid -> the write end of its exit-code pipe
    own = [connection.fileno(), wake_read, wake_write]
    try:
        while True:
            ready = wait([connection, wake_read])
            if wake_read in ready:
                os.read(wake_read, 512)
            _reap(children)
            if connection not in ready:
                continue
            try:
                request = connection.recv()
            except (EOFError, OSError):
                return
            if request is None:
                return
            if thread_count() != 1:  # defensive: nothing here starts a thread, but never fork with one
                connection.send(("unsafe", f"{thread_count()} threads in the zygote"))
                continue
            _fork(connection, request, children, own)
    finally:
        signal.set_wakeup_fd(-1)


def _fork(connection: Connection, args: tuple[Any, ...], children: dict[int, int], own: list[int]) -> None:
    worker_end, child_end = socket.socketpair()
    exit_read, exit_write = os.pipe()  # the zygote writes the worker's exit code here
    pid = os.fork()
    if pid == 0:  # the worker: keep only its own end of its pipe, and never return into the loop
        code = 1
        try:
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
    """Write the exit code of every ended worker to its pipe and close it."""
    for pid in list(children):
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done, status = pid, 0
        if done == 0:
            continue
        write = children.pop(pid)
        with contextlib.suppress(OSError):
            os.write(write, os.waitstatus_to_exitcode(status).to_bytes(4, "little", signed=True))
        os.close(write)
