"""Search and evaluation for Enochian chess: alpha-beta by team.

Teams alternate every turn (Air/Fire, Water/Earth), but a skipped turn (a frozen or
stalemated army) makes the same team move twice, so the search does not flip a sign per ply:
every score is from the actives' side (team 0) and each node maximises or minimises according
to the team that acts. Around that: iterative deepening under a deadline that is checked every
few nodes (the search never runs past it: the unfinished iteration is thrown away), a
transposition table on the Zobrist key (depth, bound, best move), move ordering (the table's
move, captures by MVV-LVA with kings first, two killer moves per ply, the history heuristic),
and a quiescence search on captures at the horizon. The evaluation is explained in
``docs/enochian.md``.
"""

from __future__ import annotations

import time

from enoch.enochian.geometry import KING, NKINDS, QUEEN, ROOK
from enoch.enochian.state import State

# Zalewski's relative values, rounded: the rook is the strongest man, the queen a weak leaper.
VALUES = (0, 300, 350, 300, 500, 100, 100, 100, 100)
KING_LOST = 3000
FROZEN_WEIGHT = 0.25
WIN = 100_000
INF = float(WIN * 10)
CENTRE = [3 - max(abs(2 * (s % 8) - 7), abs(2 * (s // 8) - 7)) // 2 for s in range(64)]
# the centre bonus by popcount: RINGS[r] holds the squares with CENTRE == r (r = 1, 2, 3)
RINGS = [sum(1 << s for s in range(64) if CENTRE[s] == r) for r in range(4)]
R1, R2, R3 = RINGS[1], RINGS[2], RINGS[3]
PIECES = (QUEEN, 2, 3, ROOK)  # queen, bishop, knight, rook: the men the centre bonus counts
# capture order: the victim's value first (a king above everything), then the cheaper attacker
VICTIM = tuple(VALUES[k] * 16 + (100_000 if k == KING else 0) for k in range(NKINDS))
EXACT, LOWER, UPPER = 0, 1, 2
QDEPTH = 6  # captures searched past the horizon, at most
TT_SIZE = 1 << 20  # entries kept before the table is cleared
CHECK_EVERY = 63  # nodes between two looks at the clock (mask)


def evaluate(st: State, team: int) -> float:
    """Score of the position for ``team`` (0 actives, 1 passives), in centipawns."""
    if st.outcome is not None:
        if st.outcome.winner is None:
            return 0.0
        return WIN if st.outcome.winner == team else -WIN
    score = 0.0
    bb = st.bb
    frozen = st.frozen
    for a in range(4):
        base = a * NKINDS
        v = 0.0
        for k in range(1, NKINDS):
            men = bb[base + k]
            if men:
                v += VALUES[k] * men.bit_count()
                if k <= ROOK:  # a piece: 4 per ring towards the centre
                    v += 4 * (
                        (men & R1).bit_count()
                        + 2 * (men & R2).bit_count()
                        + 3 * (men & R3).bit_count()
                    )
        if not bb[base + KING]:
            v -= KING_LOST
        if frozen >> a & 1:
            v *= FROZEN_WEIGHT
        score += v if a % 2 == team else -v
    return score


class TimeUp(Exception):
    """Raised inside the search when the time budget is spent."""


class Searcher:
    """Iterative-deepening alpha-beta over :class:`State` (make/undo on one state).

    The transposition table persists between moves (it is keyed by the full Zobrist key, and
    scores are from the actives' side, so it stays valid whoever searches next).
    """

    def __init__(
        self,
        movetime: float = 1.0,
        max_depth: int = 64,
        *,
        tt: bool = True,
        quiescence: bool = True,
    ) -> None:
        self.movetime = movetime
        self.max_depth = max_depth
        self.use_tt = tt
        self.use_q = quiescence
        self.nodes = 0
        self.deadline = 0.0
        self.depth_reached = 0
        self.tt: dict[int, tuple[int, int, float, int]] = {}  # key -> depth, bound, value, move
        self.killers: list[list[int]] = []
        self.history: dict[int, int] = {}

    # ---------------------------------------------------------------- ordering
    def _ordered(self, st: State, moves: list[int], ply: int, first: int = -1) -> list[int]:
        board = st.board
        killers = self.killers[ply] if ply < len(self.killers) else ()
        history = self.history

        def score(m: int) -> int:
            if m == first:
                return -10_000_000
            v = board[m >> 6 & 63]
            if v >= 0:  # a capture: most valuable victim, then least valuable attacker
                return -(1_000_000 + VICTIM[v % NKINDS] - VALUES[m >> 12 & 15] // 10)
            if m in killers:
                return -500_000
            return -history.get(m, 0)

        return sorted(moves, key=score)

    def _captures(self, st: State, moves: list[int]) -> list[int]:
        board = st.board
        caps = [m for m in moves if board[m >> 6 & 63] >= 0]
        caps.sort(key=lambda m: -(VICTIM[board[m >> 6 & 63] % NKINDS] - VALUES[m >> 12 & 15] // 10))
        return caps

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes & CHECK_EVERY == 0 and time.perf_counter() > self.deadline:
            raise TimeUp

    # ---------------------------------------------------------------- search
    def _quiesce(self, st: State, alpha: float, beta: float, qdepth: int) -> float:
        self._tick()
        stand = evaluate(st, 0)
        if st.outcome is not None or qdepth == 0:
            return stand
        moves = st.legal_moves()
        if not moves:
            return stand
        maximise = st.army_to_move % 2 == 0
        if maximise:
            if stand >= beta:
                return stand
            alpha = max(alpha, stand)
        else:
            if stand <= alpha:
                return stand
            beta = min(beta, stand)
        best = stand
        for m in self._captures(st, moves):
            st.make(m)
            v = self._quiesce(st, alpha, beta, qdepth - 1)
            st.undo()
            if maximise:
                if v > best:
                    best = v
                    alpha = max(alpha, v)
            elif v < best:
                best = v
                beta = min(beta, v)
            if alpha >= beta:
                break
        return best

    def _ab(self, st: State, depth: int, alpha: float, beta: float, ply: int) -> float:
        if st.outcome is not None:
            self._tick()
            return evaluate(st, 0)
        if depth <= 0:
            if self.use_q:
                return self._quiesce(st, alpha, beta, QDEPTH)
            self._tick()
            return evaluate(st, 0)
        self._tick()
        moves = st.legal_moves()
        if not moves:  # an offer pends: judge the position as it stands
            return evaluate(st, 0)
        key = st.key() if self.use_tt else 0
        first = -1
        if self.use_tt:
            hit = self.tt.get(key)
            if hit is not None:
                d, bound, val, mv = hit
                if d >= depth:
                    if bound == EXACT:
                        return val
                    if bound == LOWER and val >= beta:
                        return val
                    if bound == UPPER and val <= alpha:
                        return val
                if mv in moves:
                    first = mv
        a0, b0 = alpha, beta
        maximise = st.army_to_move % 2 == 0
        best = -INF if maximise else INF
        best_move = moves[0]
        for m in self._ordered(st, moves, ply, first):
            st.make(m)
            v = self._ab(st, depth - 1, alpha, beta, ply + 1)
            st.undo()
            if maximise:
                if v > best:
                    best, best_move = v, m
                    alpha = max(alpha, v)
            elif v < best:
                best, best_move = v, m
                beta = min(beta, v)
            if alpha >= beta:
                if st.board[m >> 6 & 63] < 0:  # a quiet move refuted the line: remember it
                    self._killer(ply, m)
                    self.history[m] = self.history.get(m, 0) + depth * depth
                break
        if self.use_tt:
            bound = EXACT
            if best <= a0:
                bound = UPPER
            elif best >= b0:
                bound = LOWER
            if len(self.tt) >= TT_SIZE:
                self.tt.clear()
            self.tt[key] = (depth, bound, best, best_move)
        return best

    def _killer(self, ply: int, m: int) -> None:
        while len(self.killers) <= ply:
            self.killers.append([])
        k = self.killers[ply]
        if m not in k:
            k.insert(0, m)
            del k[2:]

    def best_move(
        self, st: State, movetime: float | None = None, deadline: float | None = None
    ) -> tuple[int, float]:
        """The best move found within the time budget, and its score for the mover's team.

        The budget is ``deadline`` (a ``time.perf_counter()`` value) if given, else
        ``movetime`` (default: the searcher's) from now. An iteration that the deadline
        interrupts is discarded; if even depth 1 is cut off, the first move of the ordering
        (the best capture, if any) is played.
        """
        moves = st.legal_moves()
        if not moves:
            raise ValueError("no legal move")
        team = st.army_to_move % 2
        sign = 1 if team == 0 else -1
        self.deadline = (
            deadline
            if deadline is not None
            else time.perf_counter() + (self.movetime if movetime is None else movetime)
        )
        self.nodes = 0
        self.depth_reached = 0
        self.killers = []
        self.history = {}
        root = len(st._stack)
        order = self._ordered(st, moves, 0)
        best, best_v = order[0], -INF
        if len(moves) == 1:
            return best, sign * evaluate(st, 0)
        for depth in range(1, self.max_depth + 1):
            cur, cur_v = order[0], -INF
            try:
                alpha, beta = -INF, INF
                scored: list[tuple[float, int]] = []
                for m in order:
                    st.make(m)
                    v = sign * self._ab(st, depth - 1, alpha, beta, 1)  # the mover's side
                    st.undo()
                    scored.append((v, m))
                    if v > cur_v:
                        cur, cur_v = m, v
                    if team == 0:
                        alpha = max(alpha, v)
                    else:
                        beta = min(beta, -v)
            except TimeUp:
                while len(st._stack) > root:  # unwind the moves the search was inside
                    st.undo()
                break
            best, best_v = cur, cur_v
            self.depth_reached = depth
            scored.sort(key=lambda x: -x[0])
            order = [m for _, m in scored]
            if abs(best_v) >= WIN:
                break
        return best, best_v
