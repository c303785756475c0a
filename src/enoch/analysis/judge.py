"""How good a move was, as lichess judges it: winning chances, move classes and accuracy.

Everything here follows lichess (lila, ``modules/analyse``: ``WinPercent.scala``,
``Advice.scala``, ``AccuracyPercent.scala``, and ``Maths.scala`` of lichess-org/scalalib),
so that a number enoch prints means what a chess player already knows it to mean:

- **Win%** of a centipawn score ``cp`` (clamped to ±1000, lichess's ceiling; a mate counts as
  the ceiling with its sign) is ``50 + 50·(2/(1 + exp(-0.00368208·cp)) - 1)``; the constant is
  lichess's fit of game outcomes to Stockfish's evaluations.
- **Classes** come from the drop in winning chances (Win%/50 - 1, in [-1, 1]) over the mover's
  move: 0.3 or more is a blunder, 0.2 a mistake, 0.1 an inaccuracy. When a mate score is
  involved lichess judges the mate instead: a move that walks into a forced mate (or one that
  lets a forced mate slip) is a blunder, softened to a mistake or an inaccuracy when the side
  was already losing (winning) by more than 7 (10) pawns. lichess names no "good" or "best":
  enoch calls a move **best** when it is the engine's own choice and **good** when it is
  neither that nor judged.
- **Accuracy of a move** is ``103.1668·exp(-0.04354·d) - 3.1669 + 1`` for a Win% drop ``d``
  (100 when the mover's Win% did not fall), clamped to 0..100.
- **Accuracy of a side** over a game is the mean of a volatility-weighted mean and the
  harmonic mean of its moves' accuracies; each move is weighted by the standard deviation of
  the Win% in a window of positions around it (window ``plies/10`` clamped to 2..8, weight
  clamped to 0.5..12), so that moves in sharp positions count more.
- **Centipawn loss** of a move is the fall of the mover's evaluation, scores clamped to ±1000
  (mates as ±1000), never negative; ACPL is its mean over the side's moves.

One difference: lichess assumes +0.15 for the position before the first move (it only
analyses games from the standard start); enoch uses the engine's evaluation of the game's own
first position, since games here may start from any FEN.

Scores here are centipawns from White's side; a mate is ``±(MATE_SCORE - plies)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

# A mate in n plies scores MATE_SCORE - n (the results and --json format).
MATE_SCORE = 100_000
# Scores beyond this are mates.
MATE_BOUND = MATE_SCORE - 1_000
# lichess: evaluations are clamped to ±1000 centipawns before any judgement.
CP_CEILING = 1_000
# lichess's winning-chances slope (lila pull request 11148).
WIN_SLOPE = 0.00368208
# Thresholds on the drop in winning chances (in [-1, 1]), worst first.
JUDGEMENTS = ((0.3, "blunder"), (0.2, "mistake"), (0.1, "inaccuracy"))
CLASSES = ("best", "good", "inaccuracy", "mistake", "blunder")
# lichess's accuracy curve, fitted to (Win% drop, accuracy) points, and its bonus for the
# imprecision of the analysis.
ACC_A = 103.1668100711649
ACC_K = 0.04354415386753951
ACC_B = -3.166924740191411
ACC_BONUS = 1.0


def is_mate(score: int) -> bool:
    return abs(score) > MATE_BOUND


def mate_plies(score: int) -> int:
    """Plies to mate of a mate score (the sign is the score's)."""
    return MATE_SCORE - abs(score)


def ceiled(score: int) -> int:
    """The score clamped to ±1000, mates at the ceiling (lichess's ``ceiled``/``forceAsCp``)."""
    return max(-CP_CEILING, min(CP_CEILING, score))


def winning_chances(score: int) -> float:
    """White's winning chances in [-1, 1]."""
    return 2.0 / (1.0 + math.exp(-WIN_SLOPE * ceiled(score))) - 1.0


def win_percent(score: int) -> float:
    """White's Win% in [0, 100]."""
    return 50.0 + 50.0 * winning_chances(score)


def move_accuracy(before: float, after: float) -> float:
    """Accuracy of one move from the mover's Win% before and after it."""
    if after >= before:
        return 100.0
    raw = ACC_A * math.exp(-ACC_K * (before - after)) + ACC_B + ACC_BONUS
    return min(100.0, max(0.0, raw))


def centipawn_loss(before: int, after: int, white: bool) -> int:
    """How many centipawns the mover's move lost (scores from White's side), clamped."""
    drop = ceiled(before) - ceiled(after)
    return max(0, drop if white else -drop)


def judgement(before: int, after: int, white: bool) -> str | None:
    """lichess's judgement of a move (``blunder``, ``mistake``, ``inaccuracy``) or None."""
    sign = 1 if white else -1
    pov_before, pov_after = sign * before, sign * after
    if not is_mate(before) and not is_mate(after):
        delta = winning_chances(pov_before) - winning_chances(pov_after)
        for threshold, name in JUDGEMENTS:
            if delta >= threshold:
                return name
        return None
    # Mate advice: mate created against the mover, or a forced mate of the mover's lost.
    mated_after = is_mate(after) and pov_after < 0
    if not is_mate(before) and mated_after:
        if pov_before < -999:
            return "inaccuracy"
        if pov_before < -700:
            return "mistake"
        return "blunder"
    mating_before = is_mate(before) and pov_before > 0
    if mating_before and (not is_mate(after) or mated_after):
        cp_after = 0 if is_mate(after) else pov_after
        if cp_after > 999:
            return "inaccuracy"
        if cp_after > 700:
            return "mistake"
        return "blunder"
    return None


def mate_words(before: int, after: int, white: bool) -> str | None:
    """lichess's words for a move judged by a mate: ``Checkmate is now unavoidable`` (the
    mover walked into one) or ``Lost forced checkmate sequence``; None otherwise."""
    sign = 1 if white else -1
    pov_before, pov_after = sign * before, sign * after
    mated_after = is_mate(after) and pov_after < 0
    if not is_mate(before) and mated_after:
        return "Checkmate is now unavoidable"
    if is_mate(before) and pov_before > 0 and (not is_mate(after) or mated_after):
        return "Lost forced checkmate sequence"
    return None


def classify(before: int, after: int, white: bool, engine_choice: bool) -> str:
    """One of :data:`CLASSES`: the engine's choice is ``best``; else lichess's judgement,
    else ``good``."""
    if engine_choice:
        return "best"
    return judgement(before, after, white) or "good"


def _stdev(xs: Sequence[float]) -> float:
    mean = sum(xs) / len(xs)
    return math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs))


def _harmonic(xs: Sequence[float]) -> float:
    return len(xs) / sum(1.0 / max(1.0, x) for x in xs)


def game_accuracy(scores: Sequence[int], white_first: bool = True) -> tuple[float, float]:
    """(White's, Black's) accuracy in percent over a game (NaN for a side that did not move).

    ``scores`` are the evaluations of every position from the first (before any move) to the
    last, from White's side: one more than the moves."""
    wins = [win_percent(s) for s in scores]
    moves = len(wins) - 1
    if moves < 1:
        return math.nan, math.nan
    size = max(2, min(8, moves // 10))
    windows = [wins[:size]] * (min(size, len(wins)) - 2)
    windows += [wins[i : i + size] for i in range(max(1, len(wins) - size + 1))]
    weights = [max(0.5, min(12.0, _stdev(w))) for w in windows]
    per_side: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    for i in range(moves):
        white = (i % 2 == 0) == white_first
        before, after = wins[i], wins[i + 1]
        acc = move_accuracy(before, after) if white else move_accuracy(100 - before, 100 - after)
        per_side[white].append((acc, weights[i]))
    out = []
    for side in (True, False):
        pairs = per_side[side]
        if not pairs:
            out.append(math.nan)
            continue
        weighted = sum(a * w for a, w in pairs) / sum(w for _, w in pairs)
        out.append((weighted + _harmonic([a for a, _ in pairs])) / 2)
    return out[0], out[1]
