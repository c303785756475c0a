"""Where a match's games run: here, in local worker processes, in local threads, or on Dask.

A match is a queue of units of work (a game pair: one start, seats swapped) and one driver
that hands units out and records what comes back. What differs between running them here, in
a process pool, in a thread pool (games that wait on the network) or on a cluster is only how a
unit is started, how its end is seen and what "the worker died" looks like, so a backend is
that and nothing more: :meth:`Backend.submit` gives back a :class:`concurrent.futures.Future`,
:meth:`Backend.lost` says whether a failure means the worker was lost (the driver then plays
the unit again from its start: the seeds make that idempotent), :meth:`Backend.cancel` drops
queued work. The driver (:func:`enoch.arena.match.run_schedule`) is the same for all of them
and alone writes the records.

Dask is not a scheduler of our own: it runs on a laptop, on SSH hosts, on Kubernetes and on
SLURM/PBS (dask-jobqueue), and its scheduler already moves a task off a worker that died. It
is imported only when asked for (the ``enoch[dask]`` extra). Without ``--address`` a
``LocalCluster`` is started on 127.0.0.1 with one single-threaded worker process per slot (the
referee is CPU-bound Python) and no dashboard; with it, the driver joins a running scheduler.
The workers are checked before the first game: the same enoch version as the driver, and every
agent command present. A unit's attempt number is counted on the scheduler (an event per
start), because Dask itself replays a task whose worker died and tells the client nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import multiprocessing
import os
import shutil
import signal
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import BrokenExecutor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

from enoch.errors import InputError

# Units in flight per slot: one playing, one queued, so that a worker never idles while the
# driver records a result and submits the next unit (with one in flight, 2 workers gave only
# 1.5x on short games).
IN_FLIGHT_PER_SLOT = 2
# How many times a unit is handed out again after its worker died before the match fails:
# a unit that kills every worker it meets is the unit's fault, not bad luck.
MAX_ATTEMPTS = 4
# Seconds to wait for a running scheduler to answer, and for its first worker.
CONNECT_TIMEOUT = 30.0
# Scheduler event topic prefix for unit starts (the attempt count).
START_TOPIC = "enoch-start-"
BACKENDS = ("local", "dask")


class WorkerLost(RuntimeError):
    """A unit's worker died under it (the unit is played again)."""


class Backend:
    """Runs units of work; ``slots`` of them at once."""

    name = "inline"
    slots = 1
    cancels_running = False  # cancel() drops running units too (their results never come)

    def submit(self, fn: Callable[..., Any], unit: str, attempt: int, *args: Any) -> Future[Any]:
        """Start ``fn(*args, attempt=N)``; ``unit`` names the unit across its attempts."""
        raise NotImplementedError

    def lost(self, exc: BaseException) -> bool:
        """Whether ``exc`` (a unit's failure) means its worker was lost, not that it failed."""
        return isinstance(exc, WorkerLost)

    def cancel(self, futures: Iterable[Future[Any]], run: str) -> None:
        """Drop queued units (the match stopped)."""
        for fut in futures:
            fut.cancel()

    def check(self, commands: Sequence[str], version: str) -> None:
        """Refuse (InputError) workers that cannot play: another enoch, a missing command."""

    def close(self) -> None:
        pass

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Inline(Backend):
    """In this process, one unit at a time (agents given as Python objects need this)."""

    def submit(self, fn: Callable[..., Any], unit: str, attempt: int, *args: Any) -> Future[Any]:
        fut: Future[Any] = Future()
        fut.set_running_or_notify_cancel()
        try:
            fut.set_result(fn(*args, attempt=attempt))
        except Exception as exc:
            fut.set_exception(exc)
        return fut


class LocalThreads(Backend):
    """A thread pool: for games that wait on the network, not on this machine's cores."""

    name = "threads"

    def __init__(self, workers: int) -> None:
        self.slots = workers
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="enoch-game")

    def submit(self, fn: Callable[..., Any], unit: str, attempt: int, *args: Any) -> Future[Any]:
        return self._pool.submit(fn, *args, attempt=attempt)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class LocalProcesses(Backend):
    """A pool of worker processes on this machine (``--backend local``, the default).

    A worker killed under a game breaks the whole pool (every unit in it fails with
    ``BrokenProcessPool``): the pool is replaced and the lost units are played again."""

    name = "local"

    def __init__(self, workers: int) -> None:
        self.slots = workers
        self._pool: ProcessPoolExecutor | None = None

    def _get(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.slots,
                mp_context=multiprocessing.get_context("spawn"),  # no fork of a threaded parent
                initializer=worker_init,
                initargs=(os.getpid(),),
            )
        return self._pool

    def submit(self, fn: Callable[..., Any], unit: str, attempt: int, *args: Any) -> Future[Any]:
        try:
            return self._get().submit(fn, *args, attempt=attempt)
        except BrokenExecutor:
            self._replace()
            return self._get().submit(fn, *args, attempt=attempt)

    def lost(self, exc: BaseException) -> bool:
        if isinstance(exc, BrokenExecutor):
            self._replace()
            return True
        return super().lost(exc)

    def _replace(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)


class DaskBackend(Backend):
    """Units as Dask tasks: on a ``LocalCluster`` bound to 127.0.0.1, or on the scheduler at
    ``address``."""

    name = "dask"
    cancels_running = True

    def __init__(self, workers: int, address: str | None = None, dashboard: bool = False) -> None:
        try:
            distributed: Any = importlib.import_module("distributed")  # untyped: used as Any
        except ImportError:
            raise InputError(
                "--backend dask needs Dask: pip install 'enoch[dask]' (dask[distributed])"
            ) from None
        self.cluster: Any = None
        try:
            if address is None:
                self.cluster = distributed.LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,  # the referee is CPU-bound Python
                    processes=True,
                    host="127.0.0.1",
                    scheduler_port=0,
                    dashboard_address="127.0.0.1:0" if dashboard else None,
                    silence_logs=40,  # logging.ERROR: a match prints its table, not Dask's log
                )
                self.client = distributed.Client(self.cluster)
            else:
                self.client = distributed.Client(address, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            if self.cluster is not None:
                self.cluster.close()
            where = address or "a local cluster"
            raise InputError(f"cannot reach the Dask scheduler at {where}: {exc}") from None
        if address is not None:
            try:
                self.client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError):
                self.close()
                raise InputError(
                    f"the Dask scheduler at {address} has no workers "
                    f"(waited {CONNECT_TIMEOUT:g} s for one)"
                ) from None
        self.slots = max(1, sum(self.client.nthreads().values()))
        if self.cluster is not None and dashboard:
            sys.stderr.write(f"Dask dashboard: {self.client.dashboard_link}\n")

    @property
    def address(self) -> str:
        return str(self.client.scheduler_info()["address"])

    def submit(self, fn: Callable[..., Any], unit: str, attempt: int, *args: Any) -> Future[Any]:
        dfut = self.client.submit(
            _dask_run, fn, unit, *args, key=f"{unit}-{attempt}", pure=False, retries=0
        )
        fut: Future[Any] = Future()
        fut.set_running_or_notify_cancel()

        def done(d: Any) -> None:
            if fut.done():
                return
            try:
                fut.set_result(d.result())
            except BaseException as exc:
                fut.set_exception(_translate(exc))

        fut.dask = dfut  # type: ignore[attr-defined]
        dfut.add_done_callback(done)
        return fut

    def cancel(self, futures: Iterable[Future[Any]], run: str) -> None:
        """Queued units are dropped; running ones stop at their next move (a flag on every
        worker), their results ignored."""
        dfuts = [getattr(f, "dask", None) for f in futures]
        with contextlib.suppress(Exception):
            self.client.run(stop_run, run)
        with contextlib.suppress(Exception):
            self.client.cancel([d for d in dfuts if d is not None], force=True)

    def check(self, commands: Sequence[str], version: str) -> None:
        answers = self.client.run(check_worker, list(commands), version)
        if not answers:
            raise InputError("the Dask scheduler has no workers")
        for worker, problem in sorted(answers.items()):
            if problem:
                raise InputError(f"Dask worker {worker}: {problem}")

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close()
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.close()


def _translate(exc: BaseException) -> BaseException:
    killed: Any = importlib.import_module("distributed.scheduler").KilledWorker
    if isinstance(exc, killed):
        return WorkerLost(str(exc))
    return exc


def _dask_run(fn: Callable[..., Any], unit: str, *args: Any) -> Any:
    """On a worker: count this start on the scheduler (so a unit Dask replays after its worker
    died gets its true attempt number), then play the unit."""
    distributed: Any = importlib.import_module("distributed")
    topic = START_TOPIC + unit
    attempt = 1
    with contextlib.suppress(Exception):
        attempt = 1 + len(distributed.get_client().get_events(topic))
    with contextlib.suppress(Exception):
        distributed.get_worker().log_event(topic, {"attempt": attempt})
    return fn(*args, attempt=attempt)


# ---------------------------------------------------------------- on the worker side

_STOPPED: set[str] = set()


def stop_run(run: str) -> None:
    """Mark a run stopped on this worker: its games end at their next move."""
    _STOPPED.add(run)


def stopped(run: str) -> bool:
    return run in _STOPPED


def agent_commands(specs: Iterable[Any]) -> list[str]:
    """The programs that agents named by command run (``exec:``, ``jsonl:``, ``uci:``)."""
    from enoch.arena.transport import split_command

    out = []
    for spec in specs:
        if not isinstance(spec, str):
            continue
        prefix, sep, body = spec.strip().partition(":")
        if not sep or prefix not in ("exec", "jsonl", "uci"):
            continue
        if prefix == "uci":
            body = body.partition("?")[0]
        with contextlib.suppress(Exception):
            out.append(split_command(body)[0])
    return out


def check_worker(commands: list[str], version: str) -> str | None:
    """On a worker: what stops it from playing this match, or None."""
    import enoch

    if enoch.__version__ != version:
        return f"runs enoch {enoch.__version__}, the driver {version}: install the same version"
    for cmd in commands:
        if shutil.which(cmd) is None:
            return (
                f"agent command {cmd[:200]!r} not found "
                "(agents named by command must exist on every worker)"
            )
    return None


class _Terminated(BaseException):
    """Raised in a worker process by SIGTERM, so that the game's ``finally`` blocks stop its
    agents."""


_IN_GAME = False


def _on_sigterm(signum: int, frame: Any) -> None:
    if _IN_GAME:
        raise _Terminated
    os._exit(128 + signum)


def worker_init(parent: int) -> None:
    """Local worker processes must not outlive the match.

    Killing only the parent (``kill PID``, a CI step timing out) would otherwise leave each
    worker playing its game to the end, with its engines, on the cores the next benchmark
    wants. On Linux the kernel sends the worker SIGTERM when the parent dies; SIGTERM ends the
    game through its cleanup (the agents' process groups are killed) and then the worker."""
    signal.signal(signal.SIGTERM, _on_sigterm)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(128 + int(signal.SIGTERM))


@contextlib.contextmanager
def game_guard() -> Iterator[None]:
    """Around one game in a local worker process: SIGTERM unwinds the game (its agents are
    stopped) and then ends the worker. Elsewhere (the driver, a thread, a Dask worker) no
    handler is installed and this does nothing."""
    global _IN_GAME
    _IN_GAME = True
    terminated = False
    try:
        yield
    except _Terminated:
        terminated = True
    finally:
        _IN_GAME = False
    if terminated:
        os._exit(128 + int(signal.SIGTERM))


def make_backend(
    name: str,
    concurrency: int | None,
    *,
    address: str | None = None,
    dashboard: bool = False,
    in_process: bool = False,
    threads: bool = False,
) -> Backend:
    """The backend a match asked for. ``concurrency`` is the number of local workers (default:
    one game at a time here for ``local``, one worker per core for a local Dask cluster).
    ``threads``: the games wait on the network (language models), so ``local`` runs them in
    threads of this process, which also share one ``rpm`` limit per endpoint."""
    if name not in BACKENDS:
        raise InputError(f"unknown --backend {name[:40]!r} (expected local or dask)")
    if concurrency is not None and concurrency < 1:
        raise InputError("--concurrency must be at least 1")
    if address is not None and name != "dask":
        raise InputError("--address needs --backend dask")
    if name == "dask":
        if in_process:
            raise InputError("agents given as Python objects cannot run on Dask workers")
        if address is not None and not address.startswith(("tcp://", "tls://", "ws://", "wss://")):
            raise InputError(f"--address {address[:100]!r}: expected tcp://HOST:PORT")
        return DaskBackend(concurrency or os.cpu_count() or 1, address, dashboard)
    if in_process or (concurrency or 1) == 1:
        return Inline()
    if threads:
        return LocalThreads(concurrency or 1)
    return LocalProcesses(concurrency or 1)


__all__ = [
    "BACKENDS",
    "Backend",
    "DaskBackend",
    "Inline",
    "LocalProcesses",
    "LocalThreads",
    "WorkerLost",
    "make_backend",
]
