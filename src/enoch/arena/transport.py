"""Transports to untrusted agents: a state dict goes out, the raw answer text comes back.

Nothing here knows chess. The FIDE referee and the Enochian referee both hand a JSON-able dict
to :meth:`Transport.request` and get text back (or a :class:`TransportError` that says which
forfeit applies: ``crash``, ``timeout`` or ``oversize``). Judging the text is the referee's job.

External agents are other people's programs, so every process is started in its own session
(and so its own process group) with a memory limit, is read through ``select`` with a deadline
and a byte cap (a hung or chatty agent cannot stall or flood the referee), has its stderr kept
(bounded) for the log, and is killed *as a group* on timeout, on error and at the end of the
game.

A process group is not a cage: a grandchild that calls ``setsid`` leaves it, and killing a
group is asynchronous (the referee reaps only the leader). So where the machine allows it
(as root; as an ordinary user inside a user namespace of its own, ``--user``, where the kernel
allows unprivileged ones) the agent also runs in a PID namespace of its own,
through util-linux ``unshare --pid --fork --kill-child``: the agent is process 1 there, and when
process 1 dies the kernel kills everything else in the namespace, ``setsid`` or not, before
``unshare`` can collect its exit status. Reaping ``unshare`` therefore means the namespace is
empty: no race, no survivor. ``unshare`` was chosen over bubblewrap because it is in every
Debian base system (util-linux is essential) and costs one extra exec (about a millisecond; see
``bench/bench_transport.py``). ``Limits.network=False`` adds an empty network
namespace (``--net``): the agent sees only a loopback device that is down. Whether this works
is probed once per process; where it does not, enoch says so once on stderr and runs agents as
before (a refused ``--no-network`` is an error instead: it was asked for explicitly). The
filesystem is *not* isolated: an agent can read and write whatever its user can.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import select
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from enoch.errors import AgentError, InputError

# Defaults chosen for chess agents: an answer is ~60 bytes, a state a few kB.
MAX_ANSWER_BYTES = 64 * 1024
MAX_STDERR_BYTES = 16 * 1024
MEMORY_LIMIT_MB = 2048
_READ_CHUNK = 65536
# The sandbox: util-linux's unshare, looked up on PATH (a test points it elsewhere to see the
# "cannot sandbox" path). --kill-child: if unshare itself dies, so does the agent (and with
# it, the namespace). The probe runs unshare inside the namespace, a program known to exist.
UNSHARE = "unshare"
PID_NAMESPACE = ("--pid", "--fork", "--kill-child")
NET_NAMESPACE = ("--net",)
# Tried in turn when the namespaces are refused (an ordinary user): a user namespace with the
# user mapped to itself (util-linux 2.38+), then an unmapped one (older util-linux).
USER_NAMESPACE = (("--user", "--map-current-user"), ("--user",))
PROBE_TIMEOUT = 5.0
KILL_WAIT = 5.0  # seconds kill() waits for a killed namespace to empty (the kernel is quick)


class TransportError(AgentError):
    """An agent failed to deliver an answer; ``kind`` names the forfeit it causes."""

    kind = "crash"

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr


class AgentCrash(TransportError):
    kind = "crash"


class AgentTimeout(TransportError):
    kind = "timeout"


class AgentOversize(TransportError):
    kind = "oversize"


class AgentOutOfStep(TransportError):
    """A line-based agent wrote more than one answer line: its answer is invalid."""

    kind = "invalid_answer"


@dataclass(frozen=True)
class Limits:
    """What an external agent may use. ``memory_mb=None`` sets no address-space limit;
    ``sandbox`` runs it in a PID namespace of its own where the machine allows it (else it
    runs without, after one warning); ``network=False`` gives it an empty network namespace
    (and is refused where that is impossible)."""

    max_answer_bytes: int = MAX_ANSWER_BYTES
    max_stderr_bytes: int = MAX_STDERR_BYTES
    memory_mb: int | None = MEMORY_LIMIT_MB
    #: ``llm:`` agents may send their API key over plain HTTP to a host that is not loopback
    allow_insecure: bool = False
    sandbox: bool = True
    network: bool = True


def _parent_death_signal() -> Callable[[], None] | None:
    """Linux's PR_SET_PDEATHSIG, resolved in the parent (nothing is loaded after fork): the
    agent is killed when the worker that started it dies, even by SIGKILL, when no ``finally``
    runs (a Dask worker killed under a game)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def apply() -> None:
        prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the parent died before the line above
            os._exit(1)

    return apply


# ---------------------------------------------------------------------------- the sandbox

_probed: dict[tuple[str, ...], str | None] = {}
_warned: list[str] = []


def _probe(flags: tuple[str, ...]) -> str | None:
    """Why ``unshare FLAGS`` cannot run a program here, or None when it can (cached: probed
    once per process and flag set, a few milliseconds; a real namespace is made, not guessed
    at). The program run inside is unshare itself, the one binary known to be there."""
    key = (UNSHARE, *flags)
    if key in _probed:
        return _probed[key]
    exe = shutil.which(UNSHARE)
    problem: str | None = None
    if exe is None:
        problem = f"{UNSHARE!r} (util-linux) is not installed"
    else:
        try:
            done = subprocess.run(
                [exe, *flags, "--", exe, "--version"],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=PROBE_TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            problem = f"unshare failed: {exc}"
        else:
            if done.returncode != 0:
                lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
                problem = lines[-1][:200] if lines else f"unshare exit status {done.returncode}"
    _probed[key] = problem
    return problem


def namespace_flags(wanted: Sequence[str]) -> tuple[tuple[str, ...] | None, str | None]:
    """The unshare flags that give ``wanted`` here, or None and why not.

    Root (or CAP_SYS_ADMIN) gets the namespaces as they are; an ordinary user gets them inside
    a user namespace of its own (``--user``, the user mapped to itself), which is what a Linux
    with unprivileged user namespaces allows."""
    first: str | None = None
    for base in ((), *USER_NAMESPACE):
        flags = (*base, *wanted)
        problem = _probe(flags)
        if problem is None:
            return flags, None
        first = first or problem
    return None, first


def sandbox_problem(wanted: Sequence[str] = PID_NAMESPACE) -> str | None:
    """Why agents cannot get the namespaces ``wanted`` here, or None when they can."""
    return namespace_flags(wanted)[1]


def warn_once(message: str) -> None:
    """One line on stderr per process, however many agents are started."""
    if message in _warned:
        return
    _warned.append(message)
    sys.stderr.write(f"enoch: {message}\n")
    sys.stderr.flush()


def _wanted(limits: Limits) -> tuple[str, ...]:
    return (*(PID_NAMESPACE if limits.sandbox else ()), *(() if limits.network else NET_NAMESPACE))


def resolve_sandbox(limits: Limits) -> Limits:
    """``limits`` as they will really apply here: the sandbox dropped (with one warning) where
    the machine cannot make a PID namespace. Raises :class:`InputError` when ``network=False``
    cannot be honoured: an agent asked to run offline must not quietly get the network."""
    pid_problem = sandbox_problem(PID_NAMESPACE) if limits.sandbox else None
    if pid_problem is not None:
        limits = replace(limits, sandbox=False)
    if not limits.network:  # refused before any warning: an error is one line
        problem = sandbox_problem(_wanted(limits))
        if problem is not None:
            raise InputError(f"--no-network needs a network namespace, and here: {problem}")
    if pid_problem is not None:
        warn_once(
            f"agents run without a sandbox (no PID namespace: {pid_problem}); what they start "
            "with setsid can outlive the game (--no-sandbox silences this)"
        )
    return limits


def sandbox_prefix(limits: Limits) -> list[str]:
    """The ``unshare ... --`` words that go before an agent's command (none: no wrapper)."""
    limits = resolve_sandbox(limits)
    wanted = _wanted(limits)
    if not wanted:
        return []
    flags, _ = namespace_flags(wanted)
    assert flags is not None  # resolve_sandbox dropped or refused what cannot be had
    return [_unshare_path(), *flags, "--"]


_paths: dict[str, str] = {}


def _unshare_path() -> str:
    """unshare's full path, looked up once (not a PATH walk per move)."""
    if UNSHARE not in _paths:
        _paths[UNSHARE] = shutil.which(UNSHARE) or UNSHARE
    return _paths[UNSHARE]


def _executable(argv0: str, cwd: str | None) -> str | None:
    """Why ``argv0`` cannot be executed, or None: checked here because inside the wrapper
    a missing program is only unshare's exit status 1."""
    if "/" in argv0:
        path = os.path.join(cwd, argv0) if cwd else argv0
        if os.path.isdir(path):
            return "Is a directory"
        if not os.path.exists(path):
            return "No such file or directory"
        return None if os.access(path, os.X_OK) else "Permission denied"
    found = shutil.which(argv0)
    return None if found is not None else "No such file or directory"


def _limit_child(memory_mb: int | None) -> Callable[[], None]:
    on_parent_death = _parent_death_signal()

    def apply() -> None:  # runs in the child between fork and exec
        import resource

        if on_parent_death is not None:
            on_parent_death()
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if memory_mb is not None:
            limit = memory_mb * 1024 * 1024
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


def split_command(cmd: str | Sequence[str]) -> list[str]:
    """A command line as argv (shell words, no shell: no globbing, no pipes, no injection)."""
    argv = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
    if not argv:
        raise AgentError("empty agent command")
    return argv


class AgentProcess:
    """One external process in its own process group, read with deadlines and caps.

    ``stdout`` bytes are buffered here; :meth:`read_until` returns when a predicate over the
    buffer holds, on EOF, or raises on deadline/cap. stderr is drained on every wait (so the
    child never blocks on a full pipe) and its tail is kept for the log.
    """

    def __init__(
        self,
        cmd: str | Sequence[str],
        limits: Limits = Limits(),
        *,
        cwd: str | None = None,
    ) -> None:
        self.argv = split_command(cmd)
        self.limits = limits
        prefix = sandbox_prefix(limits)
        #: in a PID namespace: ``proc`` is unshare, the agent its only child (process 1 there)
        self.sandboxed = PID_NAMESPACE[0] in prefix
        if prefix:
            why = _executable(self.argv[0], cwd)
            if why is not None:
                raise AgentCrash(f"cannot start {self.argv[0]!r}: {why}")
        try:
            self.proc = subprocess.Popen(
                [*prefix, *self.argv],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                preexec_fn=_limit_child(limits.memory_mb),
                cwd=cwd,
                close_fds=True,
            )
        except OSError as exc:
            raise AgentCrash(f"cannot start {self.argv[0]!r}: {exc.strerror or exc}") from None
        self.pgid = self.proc.pid  # start_new_session: the child leads its own group
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        self._err = self.proc.stderr.fileno()
        for fd in (self._in, self._out, self._err):
            os.set_blocking(fd, False)
        self.buffer = bytearray()
        self.eof = False
        self._stderr = bytearray()
        self._stderr_eof = False
        self._pending = b""
        self._pidfd: int | None = None
        with contextlib.suppress(AttributeError, OSError):
            self._pidfd = os.pidfd_open(self.proc.pid)
        self.closed = False

    # ---------------------------------------------------------------- stderr
    def stderr_tail(self, clear: bool = True) -> str:
        text = self._stderr.decode("utf-8", "replace")
        if clear:
            self._stderr.clear()
        return text

    def _keep_stderr(self, data: bytes) -> None:
        self._stderr += data
        cap = self.limits.max_stderr_bytes
        if len(self._stderr) > cap:
            del self._stderr[: len(self._stderr) - cap]

    # ---------------------------------------------------------------- I/O
    def send(self, data: bytes) -> None:
        """Queue bytes for stdin; they are written while waiting in :meth:`read_until`."""
        self._pending += data

    def close_stdin(self) -> None:
        self._close_stdin_after = True
        if not self._pending:
            self._really_close_stdin()

    _close_stdin_after = False

    def _really_close_stdin(self) -> None:
        assert self.proc.stdin
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        self._close_stdin_after = False
        self._in = -1

    def exited(self) -> bool:
        return self.proc.poll() is not None

    def wait_exit(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the process to exit. On the pidfd when there is
        one: ``Popen.wait`` polls with growing sleeps, which costs milliseconds per answer
        (an ``exec:`` agent in its namespace closes stdout a moment before unshare exits)."""
        if self._pidfd is not None:
            select.select([self._pidfd], [], [], timeout)
        else:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=timeout)
            return
        self.proc.poll()

    def read_until(
        self,
        done: Callable[[bytearray], bool],
        deadline: float | None,
        *,
        stop_on_exit: bool = False,
        cap: int | None = None,
    ) -> None:
        """Pump stdin/stdout/stderr until ``done(buffer)``, EOF on stdout, or (with
        ``stop_on_exit``) the process exits. Raises :class:`AgentTimeout` at the deadline and
        :class:`AgentOversize` when stdout holds more than ``cap`` bytes."""
        cap = self.limits.max_answer_bytes if cap is None else cap
        sel = selectors.DefaultSelector()
        try:
            while True:
                if done(self.buffer) or self.eof:
                    return
                if len(self.buffer) > cap:
                    raise AgentOversize(
                        f"answer exceeds the size limit of {cap} bytes", self.stderr_tail(False)
                    )
                if stop_on_exit and self.exited():
                    self._drain()
                    return
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    raise AgentTimeout("no answer before the time limit", self.stderr_tail(False))
                wait = None if deadline is None else deadline - now
                self._register(sel, stop_on_exit)
                if self._pidfd is None and stop_on_exit:
                    wait = 0.005 if wait is None else min(wait, 0.005)
                for key, _ in sel.select(wait):
                    self._service(key.fd)
        finally:
            sel.close()

    def read_line(self, deadline: float | None, cap: int | None = None) -> str:
        """The next line of stdout, stripped (a UCI engine's dialogue), at most ``cap`` bytes
        long. Raises :class:`AgentCrash` when stdout closes first."""
        self.read_until(lambda b: b"\n" in b, deadline, cap=cap)
        nl = self.buffer.find(b"\n")
        if nl < 0:
            raise AgentCrash(f"engine closed its output ({self.exit_description()})")
        line = bytes(self.buffer[:nl]).decode("utf-8", "replace").strip()
        del self.buffer[: nl + 1]
        return line

    def _register(self, sel: selectors.BaseSelector, watch_exit: bool) -> None:
        wanted: dict[int, int] = {}
        if not self.eof:
            wanted[self._out] = selectors.EVENT_READ
        if not self._stderr_eof:
            wanted[self._err] = selectors.EVENT_READ
        if self._pending and self._in >= 0:
            wanted[self._in] = selectors.EVENT_WRITE
        if watch_exit and self._pidfd is not None:
            wanted[self._pidfd] = selectors.EVENT_READ
        current = sel.get_map()
        for fd in list(current):
            if fd not in wanted:
                sel.unregister(fd)
        for fd, ev in wanted.items():
            if fd in current:
                if current[fd].events != ev:
                    sel.modify(fd, ev)
            else:
                sel.register(fd, ev)

    def _service(self, fd: int) -> None:
        if fd == self._out:
            try:
                data = os.read(fd, _READ_CHUNK)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if data:
                self.buffer += data
            else:
                self.eof = True
        elif fd == self._err:
            try:
                data = os.read(fd, _READ_CHUNK)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if data:
                self._keep_stderr(data)
            else:
                self._stderr_eof = True
        elif fd == self._in:
            try:
                n = os.write(fd, self._pending)
            except BlockingIOError:
                return
            except OSError as exc:  # EPIPE: the agent stopped reading; its answer decides
                if exc.errno not in (errno.EPIPE, errno.EINVAL):
                    raise
                self._pending = b""
                self._really_close_stdin()
                return
            self._pending = self._pending[n:]
            if not self._pending and self._close_stdin_after:
                self._really_close_stdin()
        # the pidfd becoming readable needs no service: the loop checks ``exited()``

    def _drain(self) -> None:
        """Read whatever the (exited) process left in its pipes, without waiting."""
        for fd in (self._out, self._err):
            while True:
                try:
                    data = os.read(fd, _READ_CHUNK)
                except (BlockingIOError, OSError):
                    break
                if not data:
                    if fd == self._out:
                        self.eof = True
                    break
                if fd == self._out:
                    self.buffer += data
                    if len(self.buffer) > self.limits.max_answer_bytes:
                        break
                else:
                    self._keep_stderr(data)

    # ---------------------------------------------------------------- ending
    def _namespace_init(self) -> int | None:
        """A pidfd of the agent (process 1 of the namespace, unshare's only child), if it is
        still there. Found by its parent in /proc (this kernel may not list children): only
        needed when an agent is killed while running, so the scan is off the hot path."""
        parent = str(self.proc.pid)
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    ppid = f.read().rsplit(b")", 1)[1].split()[1]
            except (OSError, IndexError):
                continue
            if ppid.decode() != parent:
                continue
            try:
                fd = os.pidfd_open(int(entry))
            except OSError:
                return None
            # still unshare's child once the pidfd pins it (not a reused pid): then it is ours
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    ours = f.read().rsplit(b")", 1)[1].split()[1].decode() == parent
            except (OSError, IndexError):
                ours = False
            if ours:
                return fd
            os.close(fd)
            return None
        return None

    def _kill_namespace(self) -> None:
        """SIGKILL process 1 of the agent's namespace, then wait for unshare: its wait returns
        only when the kernel has killed and reaped everything in the namespace."""
        fd = self._namespace_init()
        if fd is None:
            return
        try:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(fd, signal.SIGKILL)
            self.wait_exit(KILL_WAIT)
        finally:
            os.close(fd)

    def kill(self) -> None:
        """Kill the agent and everything it started, reap it, close the pipes; idempotent.

        In a PID namespace, everything means everything (see the module docstring); without
        one, it is the agent's process group."""
        if self.closed:
            return
        self.closed = True
        if self.sandboxed and self.proc.poll() is None:
            self._kill_namespace()
        if not (self.sandboxed and self.proc.returncode is not None):
            # (a reaped unshare means an empty group: its id may not be signalled again)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pgid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if f is not None:
                with contextlib.suppress(OSError):
                    f.close()
        if self._pidfd is not None:
            with contextlib.suppress(OSError):
                os.close(self._pidfd)
            self._pidfd = None

    def finish(self, grace: float = 0.2) -> None:
        """Close stdin, give the agent ``grace`` seconds to exit by itself, then kill the group
        (grandchildren included) anyway."""
        if self.closed:
            return
        if self._in >= 0:
            self._pending = b""
            self._really_close_stdin()
        self.wait_exit(grace)
        self.kill()

    def exit_description(self) -> str:
        code = self.proc.returncode
        if code is None:
            return "still running"
        if code < 0:
            try:
                return f"killed by signal {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit status {code}"


class Transport:
    """Base of the transports: ``request(state, timeout) -> raw answer text``."""

    name = "transport"
    #: process groups this transport started (tests assert they are all gone)
    pgids: list[int]

    def __init__(self) -> None:
        self.pgids = []
        self.last_stderr = ""

    def start(self) -> None:
        """Start what can be started before the first request (a long-lived process)."""

    def request(self, state: dict[str, Any], timeout: float | None) -> str:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self) -> Transport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _encode(state: dict[str, Any]) -> bytes:
    return json.dumps(state, separators=(",", ":")).encode()


def _deadline(timeout: float | None) -> float | None:
    return None if timeout is None else time.monotonic() + timeout


def _crash_message(proc: AgentProcess, what: str) -> str:
    tail = proc.stderr_tail(False).strip().splitlines()
    last = f"; stderr: {tail[-1][:200]}" if tail else ""
    return f"{what} ({proc.exit_description()}){last}"


class ExecTransport(Transport):
    """``exec:CMD``: one process per answer; the state on stdin, the answer on stdout.

    The answer is complete when stdout reaches EOF or the process exits, whichever comes first
    (a grandchild that inherited stdout and keeps it open cannot stall the game). A non-zero
    exit status is a crash even if something was printed: the program said it failed.
    """

    name = "exec"

    def __init__(
        self,
        cmd: str | Sequence[str],
        limits: Limits = Limits(),
        cwd: str | None = None,
    ) -> None:
        super().__init__()
        self.cmd = cmd
        self.limits = limits
        self.cwd = cwd
        self._current: AgentProcess | None = None

    def request(self, state: dict[str, Any], timeout: float | None) -> str:
        proc = AgentProcess(self.cmd, self.limits, cwd=self.cwd)
        self._current = proc
        self.pgids.append(proc.pgid)
        try:
            proc.send(_encode(state))
            proc.close_stdin()
            proc.read_until(lambda b: False, _deadline(timeout), stop_on_exit=True)
            if len(proc.buffer) > self.limits.max_answer_bytes:
                raise AgentOversize(
                    f"answer exceeds the size limit of {self.limits.max_answer_bytes} bytes",
                    proc.stderr_tail(False),
                )
            if proc.eof and not proc.exited():
                # stdout closed first: allow a moment for the exit status, then stop waiting.
                proc.wait_exit(0.2)
            code = proc.proc.poll()
            if code is not None and code != 0:
                raise AgentCrash(_crash_message(proc, "agent failed"), proc.stderr_tail(False))
            return proc.buffer.decode("utf-8", "replace")
        finally:
            self.last_stderr = proc.stderr_tail()
            proc.kill()
            self._current = None

    def close(self) -> None:
        if self._current is not None:
            self._current.kill()


class JsonlTransport(Transport):
    """``jsonl:CMD``: one long-lived process; one state per line in, one answer line out.

    Output the agent writes beyond its one line (a second line, or stray text before the next
    request) is kept and makes the *next* answer invalid: the stream is out of step.
    """

    name = "jsonl"

    def __init__(
        self,
        cmd: str | Sequence[str],
        limits: Limits = Limits(),
        cwd: str | None = None,
    ) -> None:
        super().__init__()
        self.cmd = cmd
        self.limits = limits
        self.cwd = cwd
        self.proc: AgentProcess | None = None

    def _process(self) -> AgentProcess:
        if self.proc is None:
            self.proc = AgentProcess(self.cmd, self.limits, cwd=self.cwd)
            self.pgids.append(self.proc.pgid)
        return self.proc

    def start(self) -> None:
        with contextlib.suppress(TransportError):
            self._process()

    def request(self, state: dict[str, Any], timeout: float | None) -> str:
        proc = self._process()
        if proc.closed:
            raise AgentCrash("agent process was already stopped")
        deadline = _deadline(timeout)
        try:
            if proc.exited():
                proc._drain()
                raise AgentCrash(_crash_message(proc, "agent process has exited"))
            proc._drain()  # output written since the last answer means the stream is out of step
            if proc.buffer.strip():
                stray = bytes(proc.buffer[:80]).decode("utf-8", "replace")
                proc.buffer.clear()
                raise AgentOutOfStep(f"agent wrote output nobody asked for: {stray!r}")
            proc.buffer.clear()
            proc.send(_encode(state) + b"\n")
            proc.read_until(lambda b: b"\n" in b, deadline)
        except TransportError as exc:
            exc.stderr = exc.stderr or proc.stderr_tail(False)
            self.last_stderr = proc.stderr_tail()
            proc.kill()
            raise
        self.last_stderr = proc.stderr_tail()
        buf = proc.buffer
        nl = buf.find(b"\n")
        if nl < 0:  # EOF without a newline
            proc._drain()
            text = bytes(buf).decode("utf-8", "replace")
            proc.kill()
            if text.strip():
                return text  # the last answer before exit: judge it, the exit follows
            raise AgentCrash(_crash_message(proc, "agent closed its output without answering"))
        if nl > self.limits.max_answer_bytes:
            proc.kill()
            raise AgentOversize(
                f"answer exceeds the size limit of {self.limits.max_answer_bytes} bytes"
            )
        line = bytes(buf[:nl])
        del buf[: nl + 1]
        if buf.strip():
            stray = bytes(buf[:80]).decode("utf-8", "replace")
            buf.clear()
            raise AgentOutOfStep(f"agent wrote more than one line for one state: {stray!r}")
        return line.decode("utf-8", "replace")

    def pending_output(self) -> bytes:
        """Output the agent wrote that no request asked for (non-empty means out of step)."""
        if self.proc is None:
            return b""
        return bytes(self.proc.buffer)

    def close(self) -> None:
        if self.proc is not None:
            self.proc.finish()


class HttpTransport(Transport):
    """``http(s)://URL``: POST the state as ``application/json``; the reply body is the answer.

    A non-2xx status or a refused connection is a crash; the body is read in chunks against
    the deadline and the size cap, so a slow or endless body cannot hold the referee.
    """

    name = "http"

    def __init__(self, url: str, limits: Limits = Limits()) -> None:
        super().__init__()
        self.url = url
        self.limits = limits

    def request(self, state: dict[str, Any], timeout: float | None) -> str:
        """One POST under a hard deadline: a watchdog shuts the socket down when the time is
        up, so neither a slow status line, slow headers nor a dripping body can stretch the
        limit (a per-read socket timeout alone would restart with every byte)."""
        import http.client
        import socket
        import threading
        from urllib.parse import urlsplit

        deadline = _deadline(timeout)
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise AgentCrash(f"not an http(s) URL: {self.url}")
        conn_cls = (
            http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        )
        budget = None if deadline is None else max(deadline - time.monotonic(), 0.001)
        conn = conn_cls(parts.hostname, parts.port, timeout=budget)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        cap = self.limits.max_answer_bytes
        expired = threading.Event()
        holder: list[socket.socket] = []

        def shut() -> None:
            expired.set()
            for sock in holder:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

        watchdog = threading.Timer(budget, shut) if budget is not None else None
        try:
            if watchdog is not None:
                watchdog.daemon = True
                watchdog.start()
            # Connect first and keep the socket itself: for an HTTP/1.0 reply, getresponse()
            # hands the socket to the response and clears ``conn.sock``.
            conn.connect()
            if conn.sock is not None:
                holder.append(conn.sock)
                if expired.is_set():
                    shut()
            conn.request(
                "POST",
                path,
                body=_encode(state),
                headers={"Content-Type": "application/json", "Accept": "application/json"},
            )
            resp = conn.getresponse()
            if not 200 <= resp.status < 300:
                raise AgentCrash(f"HTTP {resp.status} {resp.reason}")
            body = bytearray()
            while True:
                chunk = resp.read1(_READ_CHUNK)
                if not chunk:
                    break
                body += chunk
                if len(body) > cap:
                    raise AgentOversize(f"answer exceeds the size limit of {cap} bytes")
            if expired.is_set():
                raise AgentTimeout("no answer before the time limit")
        except TimeoutError:
            raise AgentTimeout("no answer before the time limit") from None
        except (http.client.HTTPException, ConnectionError, OSError) as exc:
            if expired.is_set():
                raise AgentTimeout("no answer before the time limit") from None
            raise AgentCrash(f"HTTP request failed: {exc}") from None
        finally:
            if watchdog is not None:
                watchdog.cancel()
            conn.close()
        return body.decode("utf-8", "replace")


def make_transport(spec: str, limits: Limits = Limits()) -> Transport:
    """``exec:CMD``, ``jsonl:CMD`` or ``http(s)://URL`` as a transport."""
    if spec.startswith("exec:"):
        return ExecTransport(spec[5:], limits)
    if spec.startswith("jsonl:"):
        return JsonlTransport(spec[6:], limits)
    if spec.startswith(("http://", "https://")):
        return HttpTransport(spec, limits)
    raise AgentError(f"not a transport name: {spec!r} (exec:CMD, jsonl:CMD, http(s)://URL)")


__all__ = [
    "AgentCrash",
    "AgentOutOfStep",
    "AgentOversize",
    "AgentProcess",
    "AgentTimeout",
    "ExecTransport",
    "HttpTransport",
    "JsonlTransport",
    "Limits",
    "Transport",
    "TransportError",
    "make_transport",
    "namespace_flags",
    "resolve_sandbox",
    "sandbox_prefix",
    "sandbox_problem",
]
