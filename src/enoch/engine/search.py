"""Alpha-beta search: iterative deepening, principal-variation search with aspiration windows,
a transposition table, quiescence with MVV-LVA and SEE, killer/history ordering, null-move
pruning, late-move reductions, check extensions, futility pruning, and draw detection
(repetition against the game's history and the fifty-move rule) inside the tree.

Scores are centipawns from the side to move's point of view; a mate in ``n`` plies scores
``MATE - n``. The search runs on the caller's :class:`Position` with make/unmake and always
leaves it as it found it, even when stopped mid-iteration.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Protocol

import enoch.engine.evaluate as _ev
from enoch.engine.evaluate import PSQ, SEE_VALUE, evaluate, psq_score
from enoch.engine.see import captures, see, see_ge
from enoch.rules.position import Position, move_uci
from enoch.rules.tables import (
    DIAG_ATTACKS,
    DIAG_MASKS,
    FILE_ATTACKS,
    FILE_MASKS,
    KNIGHT_ATTACKS,
    PAWN_ATTACKS,
    RANK_ATTACKS,
    RANK_MASKS,
)

MATE = 32000
MATE_BOUND = MATE - 1000
INF = 32767
MAX_PLY = 96
# Processes of one parallel search (the UCI option's maximum).
MAX_THREADS = 64
EXACT, LOWER, UPPER = 0, 1, 2
# Entries of the static-evaluation cache before it is emptied (about 100 bytes each).
ECACHE_SIZE = 1 << 18

# One table entry: two unsigned 64-bit words in a flat buffer, ``key ^ data`` and ``data``,
# where ``data`` packs move (bits 0-16), depth (17-23), bound (24-25) and score + 32768
# (26-41). A reader accepts an entry only when the two words give back its key, so an entry
# torn by two writers (the processes of a parallel search share the buffer) reads as empty.
TT_ENTRY_BYTES = 16

_LMR = [[0] * 64 for _ in range(64)]
for _d in range(1, 64):
    for _n in range(1, 64):
        _LMR[_d][_n] = int(0.6 + math.log(_d) * math.log(_n) / 2.2)
# Late-move (move-count) pruning of quiet moves at shallow depth, non-PV nodes.
_LMP = (0, 6, 10, 16, 24)
_FUTILITY = (0, 150, 300, 450)


def progress(depth: int, unfinished: int) -> int:
    """How far a search got: its last completed iteration, half a step more when a better move
    was proved in the next one (``unfinished`` is that move, or 0)."""
    return 2 * depth + (1 if unfinished else 0)


class Helpers(Protocol):
    """Helper processes of a parallel search, sharing ``table`` with the main search.

    :class:`enoch.engine.smp.HelperPool` is the implementation; this module never imports it
    (``smp`` imports this one), so a :class:`Searcher` that may use more than one thread is
    given a factory of helpers: ``Searcher(hash_mb, threads, helpers=HelperPool)``, as
    :func:`enoch.engine.smp.parallel_searcher` does.
    """

    table: memoryview

    def start(self, pos: Position) -> None: ...

    def stop(self) -> int: ...

    def nodes(self) -> int: ...

    def deepest(self) -> tuple[int, int, int, int]: ...

    def close(self) -> None: ...


# ``(count, slots) -> helpers``: ``count`` helper processes sharing a table of ``slots`` entries.
HelperFactory = Callable[[int, int], Helpers]


class SearchAbort(Exception):
    """Raised inside the tree when time, nodes or a stop request end the search."""


class Limits:
    """What bounds one search. Times are in seconds."""

    __slots__ = (
        "binc",
        "btime",
        "depth",
        "infinite",
        "movestogo",
        "movetime",
        "nodes",
        "winc",
        "wtime",
    )

    def __init__(
        self,
        *,
        depth: int | None = None,
        nodes: int | None = None,
        movetime: float | None = None,
        wtime: float | None = None,
        btime: float | None = None,
        winc: float = 0.0,
        binc: float = 0.0,
        movestogo: int | None = None,
        infinite: bool = False,
    ) -> None:
        self.depth = depth
        self.nodes = nodes
        self.movetime = movetime
        self.wtime = wtime
        self.btime = btime
        self.winc = winc
        self.binc = binc
        self.movestogo = movestogo
        self.infinite = infinite


def time_budget(limits: Limits, turn: int, overhead: float) -> tuple[float, float] | None:
    """(soft, hard) seconds for this move, or None when time does not bound the search.

    ``hard`` is never exceeded (the search polls the clock every 64 nodes, a few milliseconds
    in Python); ``soft`` is when no new iteration is started. ``overhead`` is kept in reserve
    for the time the answer takes to reach the opponent."""
    if limits.infinite:
        return None
    if limits.movetime is not None:
        hard = max(0.002, limits.movetime - overhead)
        return hard, hard
    left = limits.wtime if turn == 0 else limits.btime
    if left is None:
        return None
    inc = limits.winc if turn == 0 else limits.binc
    mtg = limits.movestogo or 30
    mtg = max(1, min(mtg, 40))
    usable = max(0.002, left - overhead)
    soft = left / mtg + 0.75 * inc
    hard = min(usable * (0.8 if mtg == 1 else 0.4), soft * 4)
    soft = min(soft, hard)
    return max(0.002, soft), max(0.002, hard)


def iteration_scale(instability: float, fall: int) -> float:
    """How much of the soft budget to use before not starting another iteration, relative to
    the plain rule (0.6 of it).

    A best move that has held for several iterations will very likely survive one more, so
    time is saved for later moves; one that keeps changing, or a score that is falling, means
    the position is not understood yet, and the next iteration is worth its price.
    ``instability`` counts recent best-move changes, halved each iteration; ``fall`` is how
    many centipawns the score dropped in the last iteration (<= 0 when it rose)."""
    scale = 0.7 + 0.6 * instability
    if fall > 0:
        scale *= 1.0 + min(fall, 100) / 200
    return min(scale, 2.0)


class SearchResult:
    __slots__ = ("depth", "move", "nodes", "pv", "score", "seldepth", "time")

    def __init__(
        self, move: int, score: int, depth: int, seldepth: int, nodes: int, t: float, pv: list[int]
    ) -> None:
        self.move = move
        self.score = score
        self.depth = depth
        self.seldepth = seldepth
        self.nodes = nodes
        self.time = t
        self.pv = pv


InfoCallback = Callable[[SearchResult], None]


def _root_delta(board: list[int], m: int, us: int) -> int:
    """The packed-score change of a move at the root (the inner searches inline this)."""
    fr = m & 63
    to = (m >> 6) & 63
    piece = board[fr]
    d = PSQ[piece][to] - PSQ[piece][fr] - PSQ[board[to]][to]
    if m >= 4096:
        d += _special_delta(m, piece, us)
    return d


def _special_delta(m: int, piece: int, us: int) -> int:
    """The packed-score change of a move's promotion, en passant or castling part."""
    to = (m >> 6) & 63
    d = 0
    promo = (m >> 12) & 7
    if promo:
        d += PSQ[us << 3 | promo][to] - PSQ[piece][to]
    special = m >> 15
    if special == 1:
        cap = to - 8 if us == 0 else to + 8
        d -= PSQ[(us ^ 1) << 3 | 1][cap]
    elif special == 2:
        rook = us << 3 | 4
        if to == 6:
            d += PSQ[rook][5] - PSQ[rook][7]
        elif to == 2:
            d += PSQ[rook][3] - PSQ[rook][0]
        elif to == 62:
            d += PSQ[rook][61] - PSQ[rook][63]
        else:
            d += PSQ[rook][59] - PSQ[rook][56]
    return d


def _check_squares(pos: Position, us: int) -> list[int]:
    """Per piece type of the side to move, the squares from which that man would attack the
    enemy king (current occupancy): a quiet move landing there gives a direct check."""
    ksq = pos.kings[us ^ 1]
    occ = pos.occ[0] | pos.occ[1]
    diag = DIAG_ATTACKS[ksq][occ & DIAG_MASKS[ksq]]
    orth = FILE_ATTACKS[ksq][occ & FILE_MASKS[ksq]] | RANK_ATTACKS[ksq][occ & RANK_MASKS[ksq]]
    return [0, PAWN_ATTACKS[us ^ 1][ksq], KNIGHT_ATTACKS[ksq], diag, orth, diag | orth, 0, 0]


class Searcher:
    """One engine instance: its transposition table, move-ordering tables and counters."""

    def __init__(
        self,
        hash_mb: float = 16,
        threads: int = 1,
        *,
        table: memoryview | None = None,
        helpers: HelperFactory | None = None,
    ) -> None:
        self.pool: Helpers | None = None
        self.helpers = helpers
        self.threads = self._checked_threads(threads)
        self.hash_mb = hash_mb
        if table is not None:  # a helper of a parallel search: the main search's table
            self.tt = table
            self.tt_mask = len(table) // 2 - 1
        else:
            self.set_hash(hash_mb)
        self.hist = [0] * (16 * 64)
        self.killers = [[0, 0] for _ in range(MAX_PLY + 4)]
        self.nodes = 0
        self.seldepth = 0
        self.stop_flag = False
        self.deadline = math.inf
        self.node_limit = 1 << 62
        self.pos = Position.start()
        self.root_moves: list[int] = []
        self.pending_best = 0
        # The root move that beat the best of the last completed iteration in the unfinished
        # one (0: none, or the last iteration finished).
        self.unfinished_best = 0
        # The nominal depth of the iteration under way (bounds the mate-threat extension).
        self.root_depth = 1
        # Static evaluations by position key (side to move included), emptied when full.
        self.ecache: dict[int, int] = {}
        self.eval_version = _ev.VERSION

    # ------------------------------------------------------------------ table

    def set_hash(self, hash_mb: float) -> None:
        """Allocate the transposition table in (about) ``hash_mb`` MiB: a power-of-two number
        of slots, each holding at most one entry."""
        self.close()
        self.hash_mb = hash_mb
        want = max(1024, int(hash_mb * 1024 * 1024 / TT_ENTRY_BYTES))
        size = 1 << (want.bit_length() - 1)
        if self.threads > 1:
            assert self.helpers is not None  # _checked_threads saw to it
            self.pool = self.helpers(self.threads - 1, size)
            self.tt = self.pool.table
        else:
            self.tt = memoryview(bytearray(size * TT_ENTRY_BYTES)).cast("Q")
        self.tt_mask = size - 1

    def set_threads(self, threads: int) -> None:
        """Search with ``threads`` processes: this one and ``threads - 1`` helpers (lazy SMP)
        sharing the table. The table is allocated anew (it must be shared memory), so what it
        held is forgotten."""
        threads = self._checked_threads(threads)
        if threads != self.threads:
            self.threads = threads
            self.set_hash(self.hash_mb)

    def _checked_threads(self, threads: int) -> int:
        threads = max(1, min(MAX_THREADS, threads))
        if threads > 1 and self.helpers is None:
            raise ValueError(
                "a search with more than one thread needs helpers: "
                "Searcher(..., helpers=HelperPool) or enoch.engine.smp.parallel_searcher"
            )
        return threads

    def close(self) -> None:
        """End the helper processes, if any (they are daemons: they also end with us)."""
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    def clear(self) -> None:
        """Forget everything learnt (a new game)."""
        self.tt.cast("B")[:] = bytes(len(self.tt) * 8)
        self.ecache = {}
        self.hist = [0] * (16 * 64)
        self.killers = [[0, 0] for _ in range(MAX_PLY + 4)]

    def tt_entries(self) -> int:
        """How many slots of the table hold an entry."""
        tt = self.tt
        return sum(1 for i in range(1, len(tt), 2) if tt[i])

    def _store(self, key: int, depth: int, flag: int, score: int, move: int, ply: int) -> None:
        if score > MATE_BOUND:
            score += ply
        elif score < -MATE_BOUND:
            score -= ply
        tt = self.tt
        i = (key & self.tt_mask) << 1
        old = tt[i | 1]
        if tt[i] ^ old == key:
            if (old >> 17) & 127 > depth and flag != EXACT:
                return
            if not move:
                move = old & 0x1FFFF
        data = move | depth << 17 | flag << 24 | (score + 32768) << 26
        tt[i] = key ^ data
        tt[i | 1] = data

    def _probe_move(self, key: int) -> int:
        """The move stored for ``key``, or 0."""
        tt = self.tt
        i = (key & self.tt_mask) << 1
        data = tt[i | 1]
        return data & 0x1FFFF if tt[i] ^ data == key else 0

    # ------------------------------------------------------------------ driver

    def think(
        self,
        pos: Position,
        limits: Limits,
        *,
        overhead: float = 0.03,
        on_info: InfoCallback | None = None,
        depth_offset: int = 0,
    ) -> SearchResult:
        """Search ``pos`` within ``limits``; ``pos`` is restored before returning.

        ``depth_offset`` deepens every iteration (the helpers of a parallel search use it)."""
        start = time.perf_counter()
        self.pos = pos
        self.nodes = 0
        self.stop_flag = False
        if self.eval_version != _ev.VERSION:  # the weights changed (tuning): forget scores
            self.ecache = {}
            self.eval_version = _ev.VERSION
        budget = time_budget(limits, pos.turn, overhead)
        soft = math.inf
        self.deadline = math.inf
        if budget is not None:
            soft = start + budget[0]
            self.deadline = start + budget[1]
        self.node_limit = limits.nodes if limits.nodes else 1 << 62
        max_depth = min(limits.depth or MAX_PLY - 4, MAX_PLY - 4)
        for k in self.killers:
            k[0] = k[1] = 0
        hist = self.hist
        for i in range(len(hist)):
            hist[i] >>= 2

        legal = pos.legal_moves()
        if not legal:
            raise ValueError("no legal move: the game is over")
        psq = psq_score(pos)
        tt_move = self._probe_move(pos.key)
        self.root_moves = self._order(legal, (tt_move,) if tt_move in legal else (), 0)
        if tt_move in legal:
            self.root_moves.insert(0, tt_move)
        best_move = self.root_moves[0]
        best_score = evaluate(pos, psq)
        result = SearchResult(best_move, best_score, 0, 0, 0, 0.0, [best_move])
        if len(legal) == 1 and budget is not None and not limits.depth:
            return result  # only one move: answer at once
        if self.threads > 1 and self.pool is None:  # helpers ended by close(): start anew
            self.set_hash(self.hash_mb)
        pool = self.pool
        if pool is not None:
            pool.start(pos.copy())
        helper_nodes = 0
        try:
            result = self._iterate(
                pos, limits, result, start, soft, budget, max_depth, psq, on_info, depth_offset
            )
        finally:
            if pool is not None:
                helper_nodes = pool.stop()
        result.nodes += helper_nodes
        if pool is not None:
            # A helper that got further than we did knows the better move: further is a
            # deeper completed iteration, or as deep with a new best move proved in the next.
            depth, move, score, unfinished = pool.deepest()
            if progress(depth, unfinished) > progress(result.depth, self.unfinished_best):
                best = unfinished or move
                if best in legal:
                    result.move = best
                    result.score = score
                    result.depth = depth
                    result.pv = self._pv(pos, best, depth)
        return result

    def root_scores(
        self, pos: Position, depth: int, deadline: float = math.inf
    ) -> list[tuple[int, int]]:
        """Every legal move of ``pos`` with its score (centipawns, the mover's view) from a
        full-window search of ``depth`` plies (1: the move and quiescence). The weakened levels
        (``engine/levels.py``) choose among them; a plain search proves only the best move's
        score. Moves not reached by ``deadline`` (a ``time.perf_counter()`` value) are left
        out, but the first move is always scored. ``pos`` is restored before returning."""
        legal = pos.legal_moves()
        self.pos = pos
        self.nodes = 0
        self.stop_flag = False
        self.deadline = math.inf
        self.node_limit = 1 << 62
        self.root_depth = max(1, depth)
        for k in self.killers:
            k[0] = k[1] = 0
        psq = psq_score(pos)
        board = pos.board
        us = pos.turn
        stack_len = len(pos.stack)
        out: list[tuple[int, int]] = []
        for m in self._order(legal, (), 0):
            if out:
                self.deadline = deadline
            d = _root_delta(board, m, us)
            pos.make(m)
            gc = pos.is_check()
            try:
                s = -self._search(depth - 1 + gc, -INF, INF, 1, psq + d, gc, True)
            except SearchAbort:
                while len(pos.stack) > stack_len:
                    if pos.stack[-1][0]:
                        pos.unmake()
                    else:
                        pos.unmake_null()
                break
            pos.unmake()
            out.append((m, s))
        self.deadline = math.inf
        return out

    def _iterate(
        self,
        pos: Position,
        limits: Limits,
        result: SearchResult,
        start: float,
        soft: float,
        budget: tuple[float, float] | None,
        max_depth: int,
        psq: int,
        on_info: InfoCallback | None,
        depth_offset: int,
    ) -> SearchResult:
        stack_len = len(pos.stack)
        score = result.score
        pool = self.pool
        self.unfinished_best = 0
        instability = 0.0
        last_move = 0
        for depth in range(1 + depth_offset, max_depth + 1):
            self.seldepth = 0
            self.pending_best = 0
            self.root_depth = depth
            try:
                if depth >= 4 and abs(score) < MATE_BOUND:
                    delta = 30
                    alpha = max(score - delta, -INF)
                    beta = min(score + delta, INF)
                    while True:
                        s = self._root(depth, alpha, beta, psq)
                        if s <= alpha:
                            alpha = max(s - delta, -INF)
                            beta = (alpha + beta) // 2 if beta < INF else beta
                        elif s >= beta:
                            beta = min(s + delta, INF)
                        else:
                            break
                        delta *= 2
                        if delta > 600:
                            alpha, beta = -INF, INF
                else:
                    s = self._root(depth, -INF, INF, psq)
            except SearchAbort:
                self.unfinished_best = self.pending_best
                while len(pos.stack) > stack_len:
                    if pos.stack[-1][0]:
                        pos.unmake()
                    else:
                        pos.unmake_null()
                if self.pending_best:
                    result.move = self.pending_best
                    result.pv = [self.pending_best]
                break
            fall = score - s if depth > 1 + depth_offset else 0
            score = s
            instability *= 0.5
            if self.root_moves[0] != last_move and last_move:
                instability += 1.0
            last_move = self.root_moves[0]
            elapsed = time.perf_counter() - start
            result = SearchResult(
                self.root_moves[0],
                s,
                depth,
                max(self.seldepth, depth),
                self.nodes + (pool.nodes() if pool is not None else 0),
                elapsed,
                self._pv(pos, self.root_moves[0], depth),
            )
            if on_info is not None:
                on_info(result)
            # Under a clock, an iteration that would probably not finish is not started: the
            # time saved is spent on later moves; less is spent when the best move is stable,
            # more when it keeps changing or the score falls. A fixed ``movetime`` cannot be
            # saved, so the search goes on to the deadline (an unfinished iteration still
            # changes the move when a new best move has been proved at the root).
            now = time.perf_counter()
            if (
                budget is not None
                and limits.movetime is None
                and now - start >= 0.6 * (soft - start) * iteration_scale(instability, fall)
            ):
                break
            if abs(s) > MATE_BOUND and depth >= MATE - abs(s) + 2 and not limits.infinite:
                break
            if self.nodes >= self.node_limit:
                break
        result.nodes = self.nodes
        result.time = time.perf_counter() - start
        return result

    def _pv(self, pos: Position, first: int, depth: int) -> list[int]:
        pv = [first]
        made = 0
        pos.make(first)
        made += 1
        seen = {pos.key}
        while len(pv) < depth + 8:
            m = self._probe_move(pos.key)
            if not m or m not in pos.legal_moves():
                break
            pos.make(m)
            made += 1
            pv.append(m)
            if pos.key in seen:
                break
            seen.add(pos.key)
        for _ in range(made):
            pos.unmake()
        return pv

    def _poll(self) -> None:
        if self.stop_flag or self.nodes >= self.node_limit or time.perf_counter() >= self.deadline:
            raise SearchAbort

    # ------------------------------------------------------------------ ordering

    def _good_captures(self, skip: int) -> list[int]:
        """Stage 1 of the main search: pseudo-legal captures and queen promotions that do not
        lose material (by SEE), most valuable victim first; ``skip`` (the TT move) left out."""
        pos = self.pos
        board = pos.board
        out: list[int] = []
        for m in captures(pos):
            if m == skip:
                continue
            v = SEE_VALUE[board[(m >> 6) & 63] & 7]
            if SEE_VALUE[board[m & 63] & 7] <= v or see_ge(pos, m):
                out.append(m)
        return out

    def _order(self, moves: list[int], skip: tuple[int, ...] | list[int], ply: int) -> list[int]:
        """``moves`` best first, without those in ``skip`` (already tried)."""
        pos = self.pos
        board = pos.board
        hist = self.hist
        k1, k2 = self.killers[ply]
        keys: list[int] = []
        append = keys.append
        for m in moves:
            if m in skip:
                continue
            to = (m >> 6) & 63
            victim = board[to]
            if victim or m >> 15 == 1:
                v = SEE_VALUE[victim & 7] if victim else 100
                a = SEE_VALUE[board[m & 63] & 7]
                if a <= v or see_ge(pos, m):
                    sc = 3_000_000 + v * 16 - (a >> 4)
                else:
                    sc = 10_000 + v
                if (m >> 12) & 7 == 5:
                    sc += 1000
            elif m & 0x7000:
                sc = 2_900_000 if (m >> 12) & 7 == 5 else 1
            elif m == k1:
                sc = 2_000_001
            elif m == k2:
                sc = 2_000_000
            else:
                sc = 1_000_000 + hist[board[m & 63] << 6 | to]
            append(sc << 17 | m)
        keys.sort(reverse=True)
        return [k & 0x1FFFF for k in keys]

    # ------------------------------------------------------------------ tree

    def _root(self, depth: int, alpha: int, beta: int, psq: int) -> int:
        pos = self.pos
        board = pos.board
        us = pos.turn
        best = -INF
        moves = self.root_moves
        for i, m in enumerate(moves):
            d = _root_delta(board, m, us)
            pos.make(m)
            gc = pos.is_check()
            nd = depth - 1 + gc
            try:
                if i == 0:
                    s = -self._search(nd, -beta, -alpha, 1, psq + d, gc, True)
                else:
                    s = -self._search(nd, -alpha - 1, -alpha, 1, psq + d, gc, False)
                    if alpha < s < beta:
                        s = -self._search(nd, -beta, -alpha, 1, psq + d, gc, True)
            finally:
                pos.unmake()
            if s > best:
                best = s
            if s > alpha:
                alpha = s
                if i:
                    moves.insert(0, moves.pop(i))
                    self.pending_best = m
                if s >= beta:
                    break
        self._store(pos.key, depth, EXACT if best < beta else LOWER, best, moves[0], 0)
        return best

    def _search(
        self,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
        psq: int,
        in_check: bool,
        pv: bool,
    ) -> int:
        if depth <= 0:
            return self._qsearch(alpha, beta, ply, psq, in_check)
        pos = self.pos
        self.nodes += 1
        if not self.nodes & 63:
            self._poll()
        key = pos.key
        hm = pos.halfmove
        if hm >= 4:
            if hm >= 100 and (not in_check or pos.count_legal()):
                return 0
            hist = pos.history
            if key in hist[len(hist) - hm :]:
                return 0
        if ply >= MAX_PLY:
            return evaluate(pos, psq)
        # Mate-distance pruning.
        if alpha < -MATE + ply:
            alpha = -MATE + ply
            if alpha >= beta:
                return alpha
        if beta > MATE - ply - 1:
            beta = MATE - ply - 1
            if alpha >= beta:
                return beta

        tt = self.tt
        i = (key & self.tt_mask) << 1
        data = tt[i | 1]
        tt_move = 0
        if tt[i] ^ data == key:
            tt_move = data & 0x1FFFF
            if (data >> 17) & 127 >= depth and not pv:
                s = (data >> 26) - 32768
                if s > MATE_BOUND:
                    s -= ply
                elif s < -MATE_BOUND:
                    s += ply
                f = (data >> 24) & 3
                if f == EXACT or (f == LOWER and s >= beta) or (f == UPPER and s <= alpha):
                    return s

        us = pos.turn
        bb = pos.bb
        ecache = self.ecache
        if in_check:
            static = -INF
        else:
            cached = ecache.get(key)
            if cached is None:
                cached = ecache[key] = evaluate(pos, psq)
            static = cached
            if not pv and abs(beta) < MATE_BOUND:
                # Reverse futility: far above beta at shallow depth.
                if depth <= 3 and static - 90 * depth >= beta:
                    return static
                # Null move: pass, and if a reduced search still holds beta, so would a move.
                if (
                    depth >= 3
                    and static >= beta
                    and pos.stack
                    and pos.stack[-1][0]
                    and pos.occ[us] & ~(bb[us << 3 | 1] | bb[us << 3 | 6])
                ):
                    r = 3 + depth // 6
                    pos.make_null()
                    try:
                        s = -self._search(
                            depth - 1 - r, -beta, -beta + 1, ply + 1, psq, False, False
                        )
                    finally:
                        pos.unmake_null()
                    if s >= beta:
                        return beta if s > MATE_BOUND else s
                    if s < -MATE_BOUND and ply < 2 * self.root_depth:
                        # Passing gets us mated: the opponent threatens mate, and the moves
                        # that meet it deserve a ply more (bounded, so that threats found
                        # again deeper down cannot extend without end).
                        depth += 1
            elif pv and not tt_move and depth >= 5:
                # Internal iterative deepening: find a move to try first.
                self._search(depth - 2, alpha, beta, ply, psq, in_check, pv)
                tt_move = self._probe_move(key)

        prune = not pv and not in_check and depth <= 3
        futile = prune and depth <= 3 and static + _FUTILITY[depth] <= alpha
        lmp = _LMP[depth] if prune else 1000
        board = pos.board
        killers = self.killers[ply]
        hist = self.hist
        best = -INF
        best_move = 0
        orig_alpha = alpha
        searched = 0
        quiets: list[int] = []
        chk: list[int] | None = None

        if tt_move:
            fr = tt_move & 63
            p = board[fr]
            t = board[(tt_move >> 6) & 63]
            if not p or p >> 3 != us or (t and t >> 3 == us):
                tt_move = 0
        # Stages: the TT move (before any generation), then good captures (pseudo-legal,
        # legality tested after ``make``; not when in check), then every other legal move.
        tried: list[int] = [tt_move] if tt_move else []
        for stage in (0, 1, 2):
            if stage == 0:
                mlist = tried
            elif stage == 1:
                if in_check:
                    continue
                mlist = self._good_captures(tt_move)
            else:
                legal = pos.legal_moves()
                if not legal:
                    return -MATE + ply if in_check else 0
                if futile and searched:
                    # Futility will skip every quiet move but killers and direct checks: drop
                    # the others before ordering them (the loop below would skip them anyway).
                    chk = _check_squares(pos, us)
                    legal = [
                        m
                        for m in legal
                        if board[(m >> 6) & 63]
                        or m & 0x7000
                        or m >> 15 == 1
                        or m in killers
                        or chk[board[m & 63] & 7] >> ((m >> 6) & 63) & 1
                    ]
                mlist = self._order(legal, tried, ply)
            for m in mlist:
                fr = m & 63
                to = (m >> 6) & 63
                piece = board[fr]
                cap = board[to]
                d = PSQ[piece][to] - PSQ[piece][fr] - PSQ[cap][to]
                quiet = not cap
                if m >= 4096:
                    d += _special_delta(m, piece, us)
                    if m & 0x7000 or m >> 15 == 1:
                        quiet = False
                if (
                    quiet
                    and searched
                    and (futile or len(quiets) >= lmp)
                    and m != killers[0]
                    and m != killers[1]
                ):
                    # Pruned unless it gives a direct check, decided before ``make``
                    # (discovered checks are not looked for: they are pruned too).
                    if chk is None:
                        chk = _check_squares(pos, us)
                    if not chk[piece & 7] & (1 << to):
                        continue
                if (
                    cap
                    and stage == 2
                    and prune
                    and searched
                    and SEE_VALUE[piece & 7] > SEE_VALUE[cap & 7]
                    and see(pos, m) < -100 * depth
                ):
                    # A capture that loses more than a pawn per remaining ply (by SEE) at a
                    # shallow non-PV node: too expensive to disprove, rarely the refutation.
                    continue
                pos.make(m)
                if stage == 1:
                    tried.append(m)
                    if pos.attackers(us ^ 1, pos.kings[us], pos.occ[0] | pos.occ[1]):
                        pos.unmake()
                        continue
                gc = pos.is_check()
                nd = depth - 1 + gc
                try:
                    if not searched:
                        s = -self._search(nd, -beta, -alpha, ply + 1, psq + d, gc, pv)
                    else:
                        r = 0
                        if depth >= 3 and quiet and not in_check and not gc and searched >= 2:
                            r = _LMR[depth if depth < 64 else 63][searched if searched < 64 else 63]
                            if pv and r:
                                r -= 1
                            if m == killers[0] or m == killers[1]:
                                r = r - 1 if r else 0
                            if r > nd - 1:
                                r = nd - 1 if nd > 1 else 0
                        s = -self._search(nd - r, -alpha - 1, -alpha, ply + 1, psq + d, gc, False)
                        if s > alpha and r:
                            s = -self._search(nd, -alpha - 1, -alpha, ply + 1, psq + d, gc, False)
                        if pv and alpha < s < beta:
                            s = -self._search(nd, -beta, -alpha, ply + 1, psq + d, gc, True)
                finally:
                    pos.unmake()
                searched += 1
                if s > best:
                    best = s
                    best_move = m
                    if s > alpha:
                        alpha = s
                        if s >= beta:
                            if quiet:
                                if killers[0] != m:
                                    killers[1] = killers[0]
                                    killers[0] = m
                                bonus = depth * depth
                                hist[piece << 6 | to] += bonus
                                for q in quiets:
                                    hist[q] -= bonus
                                if hist[piece << 6 | to] > 400_000:
                                    for i in range(len(hist)):
                                        hist[i] >>= 1
                            self._store(key, depth, LOWER, s, m, ply)
                            return s
                if quiet:
                    quiets.append(piece << 6 | to)
        if not searched:
            # Every move was pruned (cannot happen: the first move is always searched).
            return alpha
        self._store(key, depth, EXACT if best > orig_alpha else UPPER, best, best_move, ply)
        return best

    def _qsearch(self, alpha: int, beta: int, ply: int, psq: int, in_check: bool) -> int:
        pos = self.pos
        self.nodes += 1
        if not self.nodes & 63:
            self._poll()
        if ply > self.seldepth:
            self.seldepth = ply
        if ply >= MAX_PLY:
            return evaluate(pos, psq)
        board = pos.board
        us = pos.turn
        if in_check:
            legal = pos.legal_moves()
            if not legal:
                return -MATE + ply
            best = -INF
            for m in self._order(legal, (), ply if ply < MAX_PLY else MAX_PLY):
                fr = m & 63
                to = (m >> 6) & 63
                piece = board[fr]
                d = PSQ[piece][to] - PSQ[piece][fr] - PSQ[board[to]][to]
                if m >= 4096:
                    d += _special_delta(m, piece, us)
                pos.make(m)
                try:
                    s = -self._qsearch(-beta, -alpha, ply + 1, psq + d, False)
                finally:
                    pos.unmake()
                if s > best:
                    best = s
                    if s > alpha:
                        alpha = s
                        if s >= beta:
                            return s
            return best
        key = pos.key
        # A main-search entry of this position (any depth beats quiescence's) may decide it.
        tt = self.tt
        i = (key & self.tt_mask) << 1
        data = tt[i | 1]
        if tt[i] ^ data == key:
            s = (data >> 26) - 32768
            if s > MATE_BOUND:
                s -= ply
            elif s < -MATE_BOUND:
                s += ply
            f = (data >> 24) & 3
            if f == EXACT or (f == LOWER and s >= beta) or (f == UPPER and s <= alpha):
                return s
        ecache = self.ecache
        cached = ecache.get(key)
        if cached is None:
            if len(ecache) >= ECACHE_SIZE:
                ecache.clear()
            cached = ecache[key] = evaluate(pos, psq)
        stand = cached
        if stand >= beta:
            return stand
        if stand > alpha:
            alpha = stand
        best = stand
        them = us ^ 1
        kings = pos.kings
        for m in captures(pos, alpha - stand - 199):
            fr = m & 63
            to = (m >> 6) & 63
            piece = board[fr]
            victim = board[to]
            vv = SEE_VALUE[victim & 7]
            if m & 0x7000:
                vv += 800
            elif stand + vv + 200 <= alpha:
                continue  # delta pruning: even winning the man cannot reach alpha
            if SEE_VALUE[piece & 7] > vv and not see_ge(pos, m):
                continue
            d = PSQ[piece][to] - PSQ[piece][fr] - PSQ[victim][to]
            if m >= 4096:
                d += _special_delta(m, piece, us)
            pos.make(m)
            # Tested for every capture: a quiescence node does not know whether it is in
            # check (the capture that led to it may have given check).
            if pos.attackers(them, kings[us], pos.occ[0] | pos.occ[1]):
                pos.unmake()
                continue
            try:
                s = -self._qsearch(-beta, -alpha, ply + 1, psq + d, False)
            finally:
                pos.unmake()
            if s > best:
                best = s
                if s > alpha:
                    alpha = s
                    if s >= beta:
                        return s
        return best


def format_score(score: int) -> str:
    """UCI score text: ``cp N`` or ``mate N`` (moves, negative when being mated)."""
    if score > MATE_BOUND:
        return f"mate {(MATE - score + 1) // 2}"
    if score < -MATE_BOUND:
        return f"mate {-((MATE + score) // 2)}"
    return f"cp {score}"


def pv_text(pv: list[int]) -> str:
    return " ".join(move_uci(m) for m in pv)
