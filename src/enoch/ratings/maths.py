"""Ratings on a known scale: maximum likelihood with some ratings held fixed.

The model is the logistic Elo model (Bradley-Terry on a base-10 scale of 400): agent ``a``
scores against ``b`` with expectation ``1 / (1 + 10^((Rb - Ra) / 400))``, a draw counting as
half a win for each side (the likelihood of a game with score ``s`` is ``p^s (1 - p)^(1 - s)``,
which is the usual treatment when draws are not modelled on their own).

Why fixed ratings: an agent's rating means something only against a scale others know. The
ladder's rungs (measured against Stockfish's ``UCI_Elo`` levels, ``ladder.json``) are held at
their ratings and only the new agents move, so "1500" from ``enoch rate`` is the ladder's
1500 and not a number relative to the field of one run. With nothing fixed the ratings are
anchored at mean 0, as the arena's tournament table is (:func:`enoch.arena.stats.ratings`,
the MM fit with a margin per player; this module adds what it lacks: fixed anchors and
intervals that account for the uncertainty of the other free agents).

Why a prior: a free agent that won (or lost) every game has no finite maximum; a tournament of
language models against engines has many. ``prior`` adds that many virtual draws per free
agent, spread over its real opponents in proportion to its games against each, which pulls a
perfect score back to "better than everyone it met, by about this much" and changes a
well-measured rating by little (one virtual draw among 100 games moves it a few points
towards the average opponent). ``prior=0`` is the plain maximum likelihood (tests use it).

Intervals: 95% from the curvature of the log-likelihood at its maximum (the inverse of the
observed information, all free agents at once), the standard asymptotic interval;
:func:`profile_interval` gives the likelihood-ratio interval of one agent, which is better
with few games and asymmetric near a perfect score.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

# Natural-log units per Elo point: P = 1 / (1 + exp(-K (Ra - Rb))).
K = math.log(10.0) / 400.0
# The 95% two-sided normal quantile, and the log-likelihood drop that bounds a 95%
# likelihood-ratio interval (chi-square with one degree of freedom: 3.841 / 2).
Z95 = 1.959964
LR95 = 1.920729
# Virtual draws per free agent by default (see the module docstring).
PRIOR_DRAWS = 1.0
# Newton iterations: the likelihood is concave, a few iterations reach 1e-9.
MAX_ITERATIONS = 100
TOLERANCE = 1e-9
# No rating moves further than this from the anchors: keeps an agent with only losses and
# ``prior=0`` at a large finite number instead of overflowing.
MAX_ABS = 10_000.0

Game = tuple[str, str, float]


def expected(ra: float, rb: float) -> float:
    """Expected score of a rating ``ra`` against ``rb``."""
    x = K * (ra - rb)
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def log_likelihood(games: Iterable[Game], ratings: Mapping[str, float]) -> float:
    """The log-likelihood of ``games`` (draws as half a win each way) under ``ratings``."""
    total = 0.0
    for a, b, s in games:
        x = K * (ratings[a] - ratings[b])
        # log p = -log(1 + e^-x), log(1 - p) = -log(1 + e^x), computed without overflow
        total -= s * _log1pexp(-x) + (1.0 - s) * _log1pexp(x)
    return total


def _log1pexp(x: float) -> float:
    return x + math.log1p(math.exp(-x)) if x > 0 else math.log1p(math.exp(x))


def _check(games: Sequence[Game], fixed: Mapping[str, float]) -> None:
    for g in games:
        if len(g) != 3 or not 0.0 <= g[2] <= 1.0 or g[0] == g[1]:
            raise ValueError(f"bad game {g!r}: (agent, opponent, score 0..1), two agents")
    for name, r in fixed.items():
        if not math.isfinite(r):
            raise ValueError(f"fixed rating of {name!r} is not finite")


def _weighted(
    games: Sequence[Game], free: set[str], prior: float
) -> list[tuple[str, str, float, float]]:
    """Games as ``(a, b, score, weight)``, merged by pair, with the virtual draws added."""
    table: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    count: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for a, b, s in games:
        key = (a, b) if a < b else (b, a)
        cell = table[key]
        cell[0] += s if a == key[0] else 1.0 - s
        cell[1] += 1.0
        count[a][b] += 1.0
        count[b][a] += 1.0
    if prior > 0:
        for agent in free:
            opponents = count.get(agent)
            if not opponents:
                continue
            n = sum(opponents.values())
            for opp, k in opponents.items():
                w = prior * k / n
                key = (agent, opp) if agent < opp else (opp, agent)
                table[key][0] += 0.5 * w
                table[key][1] += w
    return [(a, b, pts / n, n) for (a, b), (pts, n) in table.items()]


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the systems are small: one row per free
    agent); a singular direction (an agent with no games) gets 0."""
    n = len(vector)
    a = [[*row, vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-300:
            continue
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col and a[r][col]:
                f = a[r][col] / a[col][col]
                for c in range(col, n + 1):
                    a[r][c] -= f * a[col][c]
    return [a[i][n] / a[i][i] if abs(a[i][i]) >= 1e-300 else 0.0 for i in range(n)]


def inverse(matrix: list[list[float]]) -> list[list[float]]:
    """The inverse of a small square matrix (a singular direction gets 0, see :func:`_solve`)."""
    n = len(matrix)
    cols = [_solve(matrix, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    return [[cols[j][i] for j in range(n)] for i in range(n)]


def _maximise(
    weighted: list[tuple[str, str, float, float]],
    ratings: dict[str, float],
    free: list[str],
) -> list[list[float]]:
    """Newton's method on the free ratings in place; returns the information matrix (the
    negative Hessian, in Elo units) at the maximum."""
    index = {name: i for i, name in enumerate(free)}
    n = len(free)
    ridge = 1e-12  # keeps directions the games do not determine solvable (moved by 0)
    info = [[0.0] * n for _ in range(n)]
    for _ in range(MAX_ITERATIONS):
        grad = [0.0] * n
        info = [[ridge if i == j else 0.0 for j in range(n)] for i in range(n)]
        for a, b, s, w in weighted:
            p = expected(ratings[a], ratings[b])
            g = w * K * (s - p)
            h = w * K * K * p * (1.0 - p)
            ia, ib = index.get(a), index.get(b)
            if ia is not None:
                grad[ia] += g
                info[ia][ia] += h
            if ib is not None:
                grad[ib] -= g
                info[ib][ib] += h
            if ia is not None and ib is not None:
                info[ia][ib] -= h
                info[ib][ia] -= h
        step = _solve(info, grad)
        # Damped: no step of more than 400 points (far from the maximum, e.g. a perfect score
        # with prior=0, Newton would overshoot the flat tail).
        biggest = max((abs(x) for x in step), default=0.0)
        scale = min(1.0, 400.0 / biggest) if biggest else 1.0
        for name, i in index.items():
            ratings[name] = max(-MAX_ABS, min(MAX_ABS, ratings[name] + scale * step[i]))
        if biggest * scale < TOLERANCE:
            break
    return info


def fit(
    games: list[tuple[str, str, float]],
    fixed: dict[str, float],
    *,
    prior: float = PRIOR_DRAWS,
) -> dict[str, tuple[float, float, float]]:
    """Maximum-likelihood ratings of every agent in ``games`` with ``fixed`` held.

    ``games`` holds ``(agent, opponent, agent's score)``, the score 1, 0.5 or 0 (any value in
    between is taken as a fractional win). Returns ``name -> (rating, low, high)``, the 95%
    interval from the curvature; a fixed agent's interval is its rating. Fixed agents that
    played no game are returned too. With nothing fixed, the ratings have mean 0.
    """
    _check(games, fixed)
    names = sorted({g[0] for g in games} | {g[1] for g in games} | set(fixed))
    free = [n for n in names if n not in fixed]
    centre = sum(fixed.values()) / len(fixed) if fixed else 0.0
    ratings = {n: float(fixed.get(n, centre)) for n in names}
    if not free:
        return {n: (r, r, r) for n, r in ratings.items()}
    weighted = _weighted(games, set(free), prior)
    info = _maximise(weighted, ratings, free)
    if not fixed:
        # Only differences are determined: centre them (the covariance below is then that of
        # the differences from the mean, the ridge's huge common-mode variance removed).
        mean = sum(ratings.values()) / len(ratings)
        for n in names:
            ratings[n] -= mean
    cov = inverse(info)
    if not fixed:
        cov = _centred(cov)
    out: dict[str, tuple[float, float, float]] = {}
    for n in names:
        r = ratings[n]
        if n in fixed:
            out[n] = (r, r, r)
            continue
        i = free.index(n)
        var = cov[i][i]
        half = Z95 * math.sqrt(var) if var > 0 else math.inf
        half = min(half, MAX_ABS)
        out[n] = (r, r - half, r + half)
    return out


def _centred(cov: list[list[float]]) -> list[list[float]]:
    """The covariance of ``x - mean(x)`` given that of ``x``."""
    n = len(cov)
    row = [sum(cov[i]) / n for i in range(n)]
    total = sum(row) / n
    return [[cov[i][j] - row[i] - row[j] + total for j in range(n)] for i in range(n)]


def profile_interval(
    games: list[tuple[str, str, float]],
    fixed: dict[str, float],
    agent: str,
    *,
    prior: float = PRIOR_DRAWS,
) -> tuple[float, float, float]:
    """(rating, low, high) of one free ``agent`` by the likelihood ratio: the ratings where
    the log-likelihood, maximised over every other free agent, is 1.92 below its maximum.
    Slower than :func:`fit` (a fit per bisection step); for few agents and few games."""
    best = fit(games, fixed, prior=prior)
    if agent in fixed:
        r = fixed[agent]
        return r, r, r
    if agent not in best:
        raise ValueError(f"{agent!r} played no game")
    free = {n for n in best if n not in fixed}

    def profile(r: float) -> float:
        held = dict(fixed)
        held[agent] = r
        others = fit(games, held, prior=prior)
        ratings = {n: v[0] for n, v in others.items()}
        return _penalised(games, ratings, free, prior)

    top_r = best[agent][0]
    top = profile(top_r)
    out = [top_r]
    for direction in (-1.0, 1.0):
        near, far = top_r, top_r + direction * 50.0
        while top - profile(far) < LR95:
            near, far = far, far + (far - top_r)
            if abs(far - top_r) > MAX_ABS:
                far = top_r + direction * MAX_ABS
                break
        for _ in range(40):
            mid = 0.5 * (near + far)
            if top - profile(mid) < LR95:
                near = mid
            else:
                far = mid
        out.append(0.5 * (near + far))
    return out[0], out[1], out[2]


def _penalised(
    games: Sequence[Game], ratings: Mapping[str, float], free: set[str], prior: float
) -> float:
    """The log-likelihood including the virtual draws that :func:`fit` maximises."""
    total = 0.0
    for a, b, s, w in _weighted(games, free, prior):
        x = K * (ratings[a] - ratings[b])
        total -= w * (s * _log1pexp(-x) + (1.0 - s) * _log1pexp(x))
    return total


__all__ = ["PRIOR_DRAWS", "Z95", "K", "expected", "fit", "log_likelihood", "profile_interval"]
