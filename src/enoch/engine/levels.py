"""Strength levels: the engine played weaker on purpose, from a beginner to full strength.

``builtin:engine?elo=N`` and ``setoption name UCI_LimitStrength value true`` with ``UCI_Elo``
in ``enoch uci`` choose a level. Why these means, and not less thinking time: an engine that
only thinks less still plays like an engine (it never leaves a piece hanging one move deep,
and its mistakes are deep ones no person would make), and its strength would depend on the
machine. A person at a given level sees some moves and misjudges others. So a level

- scores every legal move by a shallow full-width search of fixed ``depth`` (1 ply and
  quiescence for the lowest levels: captures are seen, quiet threats are not), and
- chooses among them with a seeded generator, each move with probability proportional to
  ``exp(score / temperature)``: at a high temperature moves that lose a little are played
  often and moves that lose a piece now and then (a beginner), at a low one almost only the
  best (a club player). The mistakes are chosen, plausible ones: a move that loses a queen at
  once is chosen with a probability of ``exp(-900 / T)``;
- above :data:`SOFTMAX_TOP` the level plays the engine's best move from a search bounded by a
  node count instead (no chosen mistakes: strong players err by not seeing deep enough), up to
  :data:`ELO_MAX`, where there is no bound at all.

Every bound is a count (plies, nodes), not a time, so a level plays the same on a fast or a
slow machine and under any clock (the clock still cuts a search that would overrun it), and
with the same seed it plays the same moves. The Elo labels are what the ladder measured
(``bench/ladder.py``, ``enoch/ratings/ladder.json``) on Stockfish 15.1's ``UCI_Elo`` scale at
10+0.1, rounded to 50, each with its interval: the shipped ladder, not the label, is the figure
to quote. Labels between the measured points are interpolated.
"""

from __future__ import annotations

import itertools
import math
import random
import time
from dataclasses import dataclass

from enoch.engine.search import MATE_BOUND, Limits, Searcher, time_budget
from enoch.errors import InputError
from enoch.rules.position import Position

ELO_MIN = 0
ELO_MAX = 2000
# (elo, depth, temperature in centipawns): the chosen-mistake levels whose strength the ladder
# measured against Stockfish's levels at 10+0.1 (bench/ladder.md: 9,821 games, every interval
# within +-61), each labelled with its measured rating rounded to 50 (1100 measured 1068, 1050
# being taken by 1031). A label between two points gets a temperature interpolated
# geometrically when both points search the same depth, and the nearer point's parameters
# where the depth changes. The temperature counts as much as the depth: one ply at 20 plays as
# well as two at 45, and two plies at 100 measured as one at 60 (658 against 674), so that
# point is not a level. 0 (temperature 400) was not measured: it plays about as the random
# agent does.
SOFTMAX_POINTS = (
    (0, 1, 400.0),
    (250, 1, 150.0),
    (650, 1, 60.0),
    (1050, 1, 20.0),
    (1100, 2, 45.0),
    (1250, 2, 25.0),
    (1350, 3, 25.0),
    (1500, 3, 12.0),
)
SOFTMAX_TOP = SOFTMAX_POINTS[-1][0]  # the last chosen-mistake level
# Node-bounded levels above SOFTMAX_TOP: the measured point (label, nodes), the count doubling
# every NODES_DOUBLING points from it; ELO_MAX is the engine unbounded.
NODES_POINT = (1700, 2000)
NODES_DOUBLING = 75
# Scores beyond this (mates) are clipped before the softmax, so that exp() stays finite and
# a mate is simply "much better".
CLIP = 3000


@dataclass(frozen=True)
class Level:
    elo: int
    depth: int | None  # plies of the root scores (chosen-mistake levels)
    temperature: float  # centipawns; 0: the best move
    nodes: int | None  # node bound of a plain search (None with ``depth``, or full strength)

    @property
    def full(self) -> bool:
        return self.depth is None and self.nodes is None


def level_for(elo: int) -> Level:
    """The level called ``elo`` (clamped to ``ELO_MIN .. ELO_MAX``)."""
    elo = max(ELO_MIN, min(ELO_MAX, int(elo)))
    if elo >= ELO_MAX:
        return Level(elo, None, 0.0, None)
    if elo > SOFTMAX_TOP:
        nodes = round(NODES_POINT[1] * 2 ** ((elo - NODES_POINT[0]) / NODES_DOUBLING))
        return Level(elo, None, 0.0, nodes)
    for (e0, d0, t0), (e1, d1, t1) in itertools.pairwise(SOFTMAX_POINTS):
        if e0 <= elo <= e1:
            if elo == e1:
                return Level(elo, d1, t1, None)
            if d0 == d1:
                return Level(elo, d0, t0 * (t1 / t0) ** ((elo - e0) / (e1 - e0)), None)
            near_lower = elo - e0 < e1 - elo
            return Level(elo, d0 if near_lower else d1, t0 if near_lower else t1, None)
    raise AssertionError("unreachable: the points cover ELO_MIN .. SOFTMAX_TOP")


def parse_elo(value: str, where: str) -> int:
    try:
        elo = int(value)
    except ValueError:
        raise InputError(f"{where}: elo must be an integer, got {value[:20]!r}") from None
    if not ELO_MIN <= elo <= ELO_MAX:
        raise InputError(f"{where}: elo must be {ELO_MIN} .. {ELO_MAX}, got {elo}")
    return elo


class Weakened:
    """Chooses the moves of one level with its own seeded generator."""

    def __init__(self, elo: int, seed: int | None = 0) -> None:
        self.level = level_for(elo)
        self.rng = random.Random(seed)

    def choose(
        self, searcher: Searcher, pos: Position, limits: Limits, overhead: float
    ) -> tuple[int, int]:
        """(move, its score) for ``pos``, within ``limits``' time if it has any."""
        level = self.level
        if level.depth is None:
            bounded = Limits(
                depth=limits.depth,
                nodes=min(level.nodes, limits.nodes or level.nodes) if level.nodes else None,
                movetime=limits.movetime,
                wtime=limits.wtime,
                btime=limits.btime,
                winc=limits.winc,
                binc=limits.binc,
                movestogo=limits.movestogo,
                infinite=limits.infinite and not level.nodes,
            )
            result = searcher.think(pos, bounded, overhead=overhead)
            return result.move, result.score
        budget = time_budget(limits, pos.turn, overhead)
        deadline = time.perf_counter() + budget[1] if budget is not None else math.inf
        scores = searcher.root_scores(pos, level.depth, deadline)
        return self.pick(scores)

    def pick(self, scores: list[tuple[int, int]]) -> tuple[int, int]:
        """A move by the softmax of its score at this level's temperature. A forced mate the
        level's shallow search sees is always played (a mate found is not given away)."""
        best = max(s for _, s in scores)
        if best > MATE_BOUND:
            return next((m, s) for m, s in scores if s == best)
        t = self.level.temperature
        top = max(-CLIP, min(CLIP, best))  # every move mated: all clipped alike, all equal
        weights = [math.exp((max(-CLIP, min(CLIP, s)) - top) / t) for _, s in scores]
        x = self.rng.random() * sum(weights)
        for (m, s), w in zip(scores, weights, strict=True):
            x -= w
            if x < 0:
                return m, s
        return scores[-1]


__all__ = [
    "ELO_MAX",
    "ELO_MIN",
    "NODES_POINT",
    "SOFTMAX_POINTS",
    "Level",
    "Weakened",
    "level_for",
    "parse_elo",
]
