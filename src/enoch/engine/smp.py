"""Lazy SMP: helper processes that search the same position as the main search and share its
transposition table, so that the main search finds more of its tree already searched.

Python threads would share one interpreter lock, so the helpers are processes (``spawn``: safe
beside the UCI reader thread, and the same on every platform; as with any ``spawn`` process, a
script that starts a parallel search at import time needs the ``if __name__ == "__main__":``
guard). The table is a ``multiprocessing`` shared buffer of 64-bit words; its slots are written
without locks and checked on reading (see ``Searcher._store``). Each helper runs the ordinary
iterative deepening one ply deeper than the main search, so the two do not walk the same tree
in step. The main search keeps the clock; when it stops, a helper that completed a deeper
iteration than it did supplies the move. A helper that dies costs speed, never a move.

Protocol, one helper: the main process sets the shared ``go`` word and sends the position; the
helper searches until the word is cleared, then sends one acknowledgement. The main search
waits for the acknowledgements before it returns, so no helper writes into the table of the
next search (or of a cleared table), and what the helpers report is final when it is read.

This module imports :mod:`enoch.engine.search`, never the other way round: a
:class:`~enoch.engine.search.Searcher` is given :class:`HelperPool` as its factory of helpers
by whoever chooses the number of threads (:func:`parallel_searcher`, used by the JSON agent
and the UCI engine).
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import multiprocessing.sharedctypes
import signal
import weakref
from multiprocessing.connection import Connection
from typing import Any

from enoch.engine.search import Limits, SearchAbort, Searcher, SearchResult, progress
from enoch.errors import InputError

# Words of the control block: [0] 1 while helpers may search; then per helper k, at
# 1 + WORDS * k: nodes searched, depth of its last completed iteration, its move and score,
# and the root move that beat that move in the iteration it did not finish (or 0).
GO = 0
WORDS = 5


def parallel_searcher(hash_mb: float = 16, threads: int = 1) -> Searcher:
    """A :class:`Searcher` that searches with ``threads`` processes (this one and
    ``threads - 1`` helpers sharing its table); ``set_threads`` may change the number later."""
    return Searcher(hash_mb, threads, helpers=HelperPool)


class HelperPool:
    """``count`` helper processes sharing a table of ``slots`` entries with the caller."""

    def __init__(self, count: int, slots: int) -> None:
        if multiprocessing.current_process().daemon:
            raise InputError(
                "threads: a daemonic process cannot start helper processes; use one thread here"
            )
        ctx = multiprocessing.get_context("spawn")
        self.table_raw: Any = multiprocessing.sharedctypes.RawArray(ctypes.c_uint64, slots * 2)
        self.table = memoryview(self.table_raw).cast("B").cast("Q")
        self.control: Any = multiprocessing.sharedctypes.RawArray(ctypes.c_int64, 1 + WORDS * count)
        self.conns: list[Connection] = []
        self.procs: list[Any] = []
        for k in range(count):
            parent, child = ctx.Pipe()
            proc = ctx.Process(
                target=_helper_main,
                args=(self.table_raw, self.control, k, child),
                name=f"enoch-helper-{k}",
                daemon=True,
            )
            proc.start()
            child.close()
            self.conns.append(parent)
            self.procs.append(proc)
        self.running = False
        self._finalizer = weakref.finalize(
            self, _shutdown, self.control, list(self.conns), list(self.procs)
        )

    def start(self, pos: Any) -> None:
        """Set the helpers searching ``pos`` (a copy: the main search moves its own)."""
        control = self.control
        for i in range(1, len(control)):
            control[i] = 0
        control[GO] = 1
        live = []
        for conn in self.conns:
            try:
                conn.send(pos)
                live.append(conn)
            except (OSError, EOFError):
                pass  # a dead helper: search on without it
        self.conns = live
        self.running = True

    def stop(self) -> int:
        """Stop the helpers, wait until each has, and return the nodes they searched."""
        if not self.running:
            return 0
        self.control[GO] = 0
        live = []
        for conn in self.conns:
            try:
                conn.recv()
                live.append(conn)
            except (OSError, EOFError):
                pass
        self.conns = live
        self.running = False
        return self.nodes()

    def nodes(self) -> int:
        control = self.control
        return sum(control[1 + WORDS * k] for k in range(len(self.procs)))

    def deepest(self) -> tuple[int, int, int, int]:
        """(depth, move, score, unfinished) of the helper that got furthest: the deepest
        completed iteration, then a better move proved in the next (depth 0: no helper
        completed one). Read after ``stop``: the helpers have stopped writing."""
        control = self.control
        best = (0, 0, 0, 0)
        for k in range(len(self.procs)):
            base = 1 + WORDS * k
            depth, unfinished = control[base + 1], control[base + 4]
            if depth and progress(depth, unfinished) > progress(best[0], best[3]):
                best = (depth, control[base + 2], control[base + 3], unfinished)
        return best

    def close(self) -> None:
        self.stop()
        self._finalizer()
        self.conns = []
        self.procs = []


def _shutdown(control: Any, conns: list[Connection], procs: list[Any]) -> None:
    """End the helpers: on ``close``, or when the pool is collected without one."""
    control[GO] = 0
    for conn in conns:
        try:
            conn.send(None)
            conn.close()
        except (OSError, EOFError):
            pass
    for proc in procs:
        proc.join(timeout=2)
        if proc.is_alive():
            proc.terminate()


def _helper_main(table_raw: Any, control: Any, k: int, conn: Connection) -> None:
    """A helper's life: search each position it is sent until told to stop."""
    # Ctrl-C belongs to the main process, which stops its helpers when it ends.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    searcher = Searcher(0, table=memoryview(table_raw).cast("B").cast("Q"))
    slot = 1 + WORDS * k

    def poll() -> None:
        control[slot] = searcher.nodes
        if not control[GO]:
            raise SearchAbort

    def info(r: SearchResult) -> None:
        control[slot + 2] = r.move
        control[slot + 3] = r.score
        control[slot + 1] = r.depth

    searcher._poll = poll  # type: ignore[method-assign]
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if msg is None:
            return
        pos = msg
        # A helper must always answer, whatever its search did: its search is only advice.
        with contextlib.suppress(Exception):
            if control[GO]:
                searcher.think(pos, Limits(infinite=True), depth_offset=(k + 1) & 1, on_info=info)
        control[slot] = searcher.nodes
        try:
            conn.send(True)
        except (OSError, EOFError):
            return
