"""The zygote: one process that imports the harness and the backends' modules once, then forks
each new worker from itself (a spawned worker imports everything again: 0.4 s for the harness,
3 s for torch, and a full run starts dozens).

What it imports is fixed when it starts: the harness, then the modules the run's routes declare
(``Route.imports``), in the order the run's targets first come, a top-level package at a time,
serving the forks asked meanwhile between two packages. A fork names the modules its worker's
first targets declare, and the zygote imports those first: the worker would import them itself
otherwise, on the cores the zygote shares with it. A worker that meets a later target before the
zygote has its modules imports them itself.

Why it is safe: ``fork`` copies only the calling thread, so a child of a process with other
threads may wait forever for a lock one of them held. The zygote is spawned, sets the thread
variables before anything loads (OpenBLAS with one thread), imports the backends as a CI job
does (ONNX Runtime and OpenVINO start a telemetry thread otherwise), and counts its threads after
each import and before every fork: with more than one it forks no more, and the pool spawns
workers.
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
import traceback
import warnings
from collections import deque
from collections.abc import Iterable
from multiprocessing import reduction
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, NoReturn

from conformance import plugin
from conformance.engine import lifeline, worker
from conformance.engine.variables import TEST_RUN, backend_variables, environment

#: What every worker imports, whatever its targets.
HARNESS = (
    "conformance.engine.worker",
    "conformance.loading.registry",
    "conformance.engine.item",
)

_CONTEXT = multiprocessing.get_context("spawn")


class Forked:
    """A worker forked by the zygote, with a spawned process's surface for the pool. Its sentinel is
    a pipe the zygote (which reaps it) writes the exit code to: it reads as ended when the worker
    has exited, even if a process the worker started still holds its descriptors, and when the
    zygote goes away or refuses to fork it (a forked worker is then killed, not left unwatched)."""

    def __init__(self, zygote: Zygote, sentinel: int) -> None:
        self._zygote = zygote
        self._pid: int | None = None
        self.sentinel = sentinel
        self.exitcode: int | None = None
        self._ended = False
        #: stopped before the zygote forked it: killed as soon as the zygote says it has
        self._doomed = False

    @property
    def pid(self) -> int | None:
        if self._pid is None:
            self._zygote.poll()
        return self._pid

    def _ended_now(self) -> None:
        data = os.read(self.sentinel, 4)
        if len(data) == 4:
            self.exitcode = int.from_bytes(data, "little", signed=True)
        else:  # the zygote went away: nobody reaps or reports this worker any more
            self.kill()
        self._ended = True

    def is_alive(self) -> bool:
        self.join(timeout=0)
        return not self._ended

    def join(self, timeout: float | None = None) -> None:
        if not self._ended and wait([self.sentinel], timeout=timeout):
            self._ended_now()

    def kill(self) -> None:
        """Kill it and its process group if it was forked and not reaped (its pid may be another
        process's by then); one not forked yet is killed once the zygote says it forked it."""
        if self._ended:
            return
        if self.pid is None:
            self._doomed = True
            return
        for kill in (os.killpg, os.kill):  # the group first: the worker leads it
            with contextlib.suppress(ProcessLookupError, PermissionError):
                kill(self.pid, signal.SIGKILL)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.sentinel)


class Zygote:
    """The parent's handle on the zygote process."""

    def __init__(self, threads: int, log_path: str | None) -> None:
        """Start the zygote; it imports the harness, then what :meth:`preload` passes it."""
        self._connection, child = _CONTEXT.Pipe(duplex=True)  # a socket pair: it carries descriptors
        self.process: BaseProcess = _CONTEXT.Process(
            target=main, args=(child, threads, log_path), daemon=True, name="conformance-zygote"
        )
        with environment(backend_variables(threads, blas=1)):
            self.process.start()
        child.close()
        #: None while it imports the harness; True once it can fork, False for good
        self.usable: bool | None = None
        #: why it cannot fork (said once in its log and in the run's)
        self.reason = ""
        #: the workers asked for and not yet said forked (or refused), in the order asked
        self._asked: deque[Forked] = deque()
        #: whether it has modules to import that it has not said are done (see :meth:`preload`):
        #: the workers share the cores with it meanwhile
        self.importing = False

    def _read(self, wait_s: float) -> bool:
        """Read one message within ``wait_s``: ready, forked (or refused), or why it cannot fork."""
        try:
            if not self._connection.poll(wait_s):
                return False
            said, detail = self._connection.recv()
        except (EOFError, OSError):
            said, detail = "gone", "the zygote exited"
        if said == "forked":
            forked = self._asked.popleft()
            forked._pid = int(detail)
            if forked._doomed:  # stopped while the zygote imported: it must not load its targets
                forked.kill()
        elif said == "ready":
            self.usable = True
        elif said == "imported":
            self.importing = False
        else:  # a refused worker's pipes were closed: it reads as ended, and the pool starts another
            if said == "refused":
                self._asked.popleft()
            if self.usable is not False:
                self.usable, self.reason = False, str(detail)
            self.importing = self.importing and said == "refused"
        return bool(said != "gone")

    def poll(self) -> None:
        """Take in what the zygote has said, without waiting."""
        while self._read(0.0):
            pass

    def forkable(self, wait_s: float = 0.0) -> bool:
        """Whether a worker can be forked (after waiting up to ``wait_s`` for the harness)."""
        if self.usable is None:
            self._read(wait_s)
        return self.usable is True

    def fork(self, args: tuple[Any, ...], needs: Iterable[str] = ()) -> tuple[Forked, Connection] | None:
        """A new worker running ``worker.main(connection, *args)``, forked once the zygote has
        imported ``needs`` (the modules its first targets declare); None when the zygote cannot fork.
        The request goes with the worker's ends of its pipes and is not waited for: the zygote forks
        after its harness and between two packages (seconds, for TensorFlow) while the parent serves
        the other workers."""
        self.poll()  # the answers to earlier requests, and whether it can fork at all
        if self.usable is False:
            return None
        worker_end, child_end = socket.socketpair()
        exit_read, exit_write = os.pipe()  # the zygote writes the worker's exit code here
        try:
            self._connection.send(("fork", (args, tuple(needs))))
            with socket.socket(fileno=os.dup(self._connection.fileno())) as carrier:
                reduction.sendfds(carrier, [child_end.fileno(), exit_write])
        except OSError as error:  # the zygote died: spawn from now on
            self.usable, self.reason = False, f"the zygote went away ({error})"
            worker_end.close()
            os.close(exit_read)
            return None
        finally:
            child_end.close()
            os.close(exit_write)
        forked = Forked(self, exit_read)
        self._asked.append(forked)
        return forked, Connection(worker_end.detach())

    def preload(self, modules: Iterable[str]) -> None:
        """Have the zygote import ``modules``, after the forks asked so far (a long run's first
        workers do not wait for the backends) and a top-level package at a time (see :func:`main`)."""
        names = tuple(modules)
        if names and self.usable is not False:
            with contextlib.suppress(OSError):
                self._connection.send(("import", names))
                self.importing = True

    def close(self, at_once: bool = False) -> None:
        """Ask the zygote to exit (its workers are the pool's to stop); one still importing is
        killed after a moment, or at once when ``at_once`` (a run interrupted)."""
        with contextlib.suppress(OSError):
            self._connection.send(None)
        self.process.join(timeout=0 if at_once else 1)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=5)
        self._connection.close()


def load_harness() -> None:
    """Import the harness and read the distributions' index adapters' ``info()`` asks for."""
    _import(HARNESS)
    try:
        plugin.distributions_by_package()
    except Exception:  # unreadable metadata: each worker meets it when an adapter asks, and says so
        traceback.print_exc()


def _import(names: Iterable[str]) -> None:
    """Import ``names``, keeping the interpreter-wide settings an import may change (onnx2tf
    raises the recursion limit and silences warnings): every worker forked afterwards inherits
    the zygote, and another adapter's items must not run under one backend's settings."""
    for name in names:
        limit, filters = sys.getrecursionlimit(), warnings.filters[:]
        try:
            importlib.import_module(name)
        except Exception as error:  # not importable by name: a worker that needs it imports it
            print(f"zygote: not imported {name}: {type(error).__name__}: {error}", file=sys.stderr)
        finally:
            sys.setrecursionlimit(limit)
            warnings.filters[:] = filters  # type: ignore[index]  # typeshed: a Sequence


def main(connection: Connection, threads: int, log_path: str | None) -> None:
    """Import the harness, fork workers on request, and import the modules the pool passes (see
    :meth:`Zygote.preload`) a package at a time between two forks, until told to stop."""
    lifeline.tie_to_spawner()
    worker.redirect_output(log_path)
    worker.forgo_core_dumps()  # it imports backends: a crash there dumps no core either
    # Ctrl-C reaches the whole process group: the parent handles it and closes the zygote.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ.update(backend_variables(threads, blas=1))
    server = _Server(connection)
    load_harness()
    # what it imported is never collected, in the zygote or a worker: a worker's collections
    # would walk (and, writing to each object's header, copy) the memory it shares with it
    gc.freeze()
    if server.single_threaded("the harness"):
        connection.send(("ready", None))
    importing = False
    while server.serve(block=not server.pending):
        importing = importing or bool(server.pending)
        if server.pending:
            server.load(_package(server.pending))
        if importing and not server.pending:
            connection.send(("imported", None))
            importing = False
    _leave()


def _package(pending: deque[str]) -> list[str]:
    """The first pending module and every pending one of its top-level package, taken out, less
    those imported already."""
    top = pending[0].partition(".")[0]
    package = [name for name in pending if name.partition(".")[0] == top]
    for name in package:
        pending.remove(name)
    return [name for name in package if name not in sys.modules]


def _leave() -> NoReturn:
    """End the zygote without the interpreter's teardown: tearing down the backends it imported
    takes seconds the pool would wait for at the end of every run."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


class _Server:
    """Forks workers on request and reaps them, reporting each one's exit code. Set up before the
    first import: a worker that ends while the zygote imports is reaped by the signal handler."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.wake_read, wake_write = os.pipe()
        os.set_blocking(wake_write, False)
        signal.set_wakeup_fd(wake_write)
        self.children: dict[int, int] = {}  # pid -> the write end of its exit-code pipe
        zygote = os.getpid()
        # only in the zygote: a worker before its own handler holds its siblings' exit pipes
        signal.signal(signal.SIGCHLD, lambda *_: _reap(self.children) if os.getpid() == zygote else None)
        self.own = [connection.fileno(), self.wake_read, wake_write]
        #: the modules it was asked to import and has not taken yet
        self.pending: deque[str] = deque()
        #: whether it may fork: no longer once an import left a second thread
        self.safe = True

    def single_threaded(self, imported: str) -> bool:
        """Whether the zygote still has one thread after importing ``imported``; if not, it says why
        and forks no more (it goes on reaping its workers: leaving would read as their end)."""
        if not self.safe or worker.thread_count() == 1:
            return self.safe
        names = ", ".join(sorted(worker.thread_names()))
        reason = f"{worker.thread_count()} threads ({names}) after importing {imported}: workers are spawned"
        print(f"zygote: {reason}", file=sys.stderr, flush=True)
        self.connection.send(("unsafe", reason))
        self.safe = False
        self.pending.clear()
        return False

    def load(self, package: list[str]) -> None:
        """Import one package's modules as a CI job would (TEST_RUN: the backends' import-time
        choices), then check the zygote is still single-threaded."""
        if package and self.safe:
            with environment(TEST_RUN):
                _import(package)
            if self.single_threaded(package[0]):
                gc.freeze()  # see main

    def load_first(self, needs: tuple[str, ...]) -> None:
        """Import the packages of ``needs`` (a worker's first targets' modules) ahead of the rest."""
        wanted = [name for name in needs if name not in sys.modules]
        self.pending.extendleft(reversed(wanted))
        while self.safe and any(name in self.pending for name in wanted):
            self.load(_package(self.pending))

    def serve(self, *, block: bool) -> bool:
        """Fork on request until told to stop (False), to import modules (True, added to
        :attr:`pending`) or, unless ``block``, until no request is waiting (True)."""
        while True:
            ready = wait([self.connection, self.wake_read], None if block else 0)
            if self.wake_read in ready:
                os.read(self.wake_read, 512)
            # the handler reaps too: not during this call, or a worker just waited for reads as 0
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
            try:
                _reap(self.children)
            finally:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
            if self.connection not in ready:
                if block:
                    continue
                return True
            try:
                request = self.connection.recv()
            except (EOFError, OSError):
                return False
            if request is None:
                return False
            kind, detail = request
            if kind == "import":
                self.pending.extend(detail)
                return True
            with socket.socket(fileno=os.dup(self.connection.fileno())) as carrier:
                ends = reduction.recvfds(carrier, 2)  # the worker's end of its pipe, its exit pipe
            args, needs = detail
            self.load_first(needs)
            if not self.safe or worker.thread_count() != 1:  # never fork with a second thread
                self.connection.send(("refused", f"{worker.thread_count()} threads in the zygote"))
                for end in ends:
                    os.close(end)
                continue
            _fork(self.connection, args, ends, self.children, self.own)


def _fork(
    connection: Connection, args: tuple[Any, ...], ends: list[int], children: dict[int, int], own: list[int]
) -> None:
    worker_end, exit_write = ends  # made by the parent, which holds their other ends
    zygote = os.getpid()
    pid = os.fork()
    if pid == 0:  # the worker: keep only its own end of its pipe, and never return into the loop
        code = 1
        try:
            lifeline.tie(zygote)  # first: a zygote that ends leaves no worker behind
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            for descriptor in [*own, *children.values(), exit_write]:
                with contextlib.suppress(OSError):
                    os.close(descriptor)
            worker.main(Connection(worker_end), *args)
            code = 0
        except BaseException:  # a worker's own end; the pool reports its exit code
            with contextlib.suppress(Exception):
                traceback.print_exc()
        finally:
            os._exit(code)
    os.close(worker_end)
    children[pid] = exit_write
    connection.send(("forked", pid))


def _reap(children: dict[int, int]) -> None:
    """Write the exit code of every ended worker to its pipe and close it."""
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
