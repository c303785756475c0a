"""Search and evaluation for Enochian chess: alpha-beta by team.

Teams alternate every turn (Air/Fire, Water/Earth), but a skipped turn (a frozen or
stalemated army) makes the same team move twice, so the search does not flip a sign per ply:
each node asks which team acts and maximises or minimises for the root team. The evaluation is
material by team (see ``docs/enochian.md``): live men at full value, frozen men at a quarter
(a prisoner exchange can thaw them), a captured king worth a large bonus to the captor's team,
and a small bonus for pieces (not pawns) near the centre.
"""

from __future__ import annotations

import time

from enoch.enochian.geometry import KING, NKINDS, QUEEN, ROOK, squares
from enoch.enochian.state import State, move_to

# Zalewski's relative values, rounded: the rook is the strongest man, the queen a weak leaper.
VALUES = (0, 300, 350, 300, 500, 100, 100, 100, 100)
KING_LOST = 3000
FROZEN_WEIGHT = 0.25
WIN = 100_000
INF = float(WIN * 10)
CENTRE = [3 - max(abs(2 * (s % 8) - 7), abs(2 * (s // 8) - 7)) // 2 for s in range(64)]


def evaluate(st: State, team: int) -> float:
    """Score of the position for ``team`` (0 actives, 1 passives), in centipawns."""
    if st.outcome is not None:
        if st.outcome.winner is None:
            return 0.0
        return WIN if st.outcome.winner == team else -WIN
    score = 0.0
    bb = st.bb
    for a in range(4):
        base = a * NKINDS
        sign = 1 if a % 2 == team else -1
        weight = FROZEN_WEIGHT if st.frozen >> a & 1 else 1.0
        v = 0.0
        for k in range(1, NKINDS):
            men = bb[base + k]
            if men:
                v += VALUES[k] * men.bit_count()
                if k in (QUEEN, ROOK, 2, 3):
                    for s in squares(men):
                        v += 4 * CENTRE[s]
        if not bb[base + KING]:
            v -= KING_LOST
        score += sign * weight * v
    return score


class TimeUp(Exception):
    """Raised inside the search when the time budget is spent."""


class Searcher:
    """Iterative-deepening alpha-beta over :class:`State` (make/undo on one state)."""

    def __init__(self, movetime: float = 1.0, max_depth: int = 64) -> None:
        self.movetime = movetime
        self.max_depth = max_depth
        self.nodes = 0
        self.deadline = 0.0
        self.depth_reached = 0

    def _ordered(self, st: State, moves: list[int]) -> list[int]:
        board = st.board

        def score(m: int) -> int:
            v = board[move_to(m)]
            return -(VALUES[v % NKINDS] + (5000 if v % NKINDS == KING else 0)) if v >= 0 else 0

        return sorted(moves, key=score)

    def _ab(self, st: State, depth: int, alpha: float, beta: float, team: int) -> float:
        self.nodes += 1
        if self.nodes & 255 == 0 and time.perf_counter() > self.deadline:
            raise TimeUp
        if depth == 0 or st.outcome is not None:
            return evaluate(st, team)
        moves = st.legal_moves()
        if not moves:  # an offer pends: judge the position as it stands
            return evaluate(st, team)
        maximise = st.army_to_move % 2 == team
        best = -INF if maximise else INF
        for m in self._ordered(st, moves):
            st.make(m)
            v = self._ab(st, depth - 1, alpha, beta, team)
            st.undo()
            if maximise:
                if v > best:
                    best = v
                alpha = max(alpha, v)
            else:
                if v < best:
                    best = v
                beta = min(beta, v)
            if alpha >= beta:
                break
        return best

    def best_move(self, st: State) -> tuple[int, float]:
        """The best move found within the time budget, and its score for the mover's team."""
        moves = st.legal_moves()
        if not moves:
            raise ValueError("no legal move")
        team = st.army_to_move % 2
        self.deadline = time.perf_counter() + self.movetime
        self.nodes = 0
        best, best_v = self._ordered(st, moves)[0], -INF
        order = self._ordered(st, moves)
        root = len(st._stack)
        for depth in range(1, self.max_depth + 1):
            try:
                cur, cur_v = order[0], -INF
                alpha = -INF
                for m in order:
                    st.make(m)
                    v = self._ab(st, depth - 1, alpha, INF, team)
                    st.undo()
                    if v > cur_v:
                        cur, cur_v = m, v
                    alpha = max(alpha, v)
            except TimeUp:
                while len(st._stack) > root:  # unwind the moves the search was inside
                    st.undo()
                break
            best, best_v = cur, cur_v
            self.depth_reached = depth
            order = [best] + [m for m in order if m != best]
            if abs(best_v) >= WIN:
                break
        return best, best_v
