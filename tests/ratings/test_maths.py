"""The rating maths against worked examples, each checked by an independent computation: a
brute-force grid over the log-likelihood written out here from the model's definition."""

from __future__ import annotations

import math

import pytest

from enoch.arena.stats import elo_from_score, ratings
from enoch.ratings.ladder import ladder_ratings, load_ladder
from enoch.ratings.maths import expected, fit, profile_interval


def _loglik(r: float, table: list[tuple[float, int, float]]) -> float:
    """log L of one agent rated ``r`` against fixed opponents: ``(rating, games, points)``,
    straight from the definition P = 1 / (1 + 10^((Rb - Ra) / 400))."""
    total = 0.0
    for rb, n, pts in table:
        p = 1.0 / (1.0 + 10.0 ** ((rb - r) / 400.0))
        total += pts * math.log(p) + (n - pts) * math.log(1.0 - p)
    return total


def _games(
    table: list[tuple[float, int, float]],
) -> tuple[list[tuple[str, str, float]], dict[str, float]]:
    """Games of ``X`` against opponents ``o0, o1, ...``: points as wins, a half as a draw."""
    games: list[tuple[str, str, float]] = []
    fixed: dict[str, float] = {}
    for k, (rb, n, pts) in enumerate(table):
        name = f"o{k}"
        fixed[name] = rb
        wins = int(pts)
        draw = pts - wins
        games += [("X", name, 1.0)] * wins
        if draw:
            games.append(("X", name, 0.5))
        games += [(name, "X", 1.0)] * (n - wins - (1 if draw else 0))
    return games, fixed


def _grid(table: list[tuple[float, int, float]]) -> tuple[float, float]:
    """The maximum on a 0.01-point grid, and the curvature half-width by finite differences."""
    lo, hi = -2000.0, 4000.0
    best = lo
    step = 10.0
    for _ in range(4):  # coarse to fine
        xs = [lo + i * step for i in range(int((hi - lo) / step) + 1)]
        best = max(xs, key=lambda x: _loglik(x, table))
        lo, hi, step = best - step, best + step, step / 10
    h = 1.0
    second = (_loglik(best + h, table) - 2 * _loglik(best, table) + _loglik(best - h, table)) / h**2
    return best, 1.959964 / math.sqrt(-second)


TABLES = [
    # one opponent at 1500, 7 of 10: the rating is the classic 1500 + elo_from_score(0.7)
    [(1500.0, 10, 7.0)],
    # three opponents, draws included
    [(1200.0, 20, 15.5), (1500.0, 20, 10.0), (1800.0, 20, 4.5)],
    # an uneven gauntlet
    [(800.0, 4, 4.0), (1100.0, 12, 8.0), (1400.0, 30, 9.5), (2000.0, 6, 0.5)],
]


@pytest.mark.parametrize("table", TABLES)
def test_fit_matches_brute_force_grid(table: list[tuple[float, int, float]]) -> None:
    games, fixed = _games(table)
    r, low, high = fit(games, fixed, prior=0.0)["X"]
    best, half = _grid(table)
    assert abs(r - best) < 0.02
    assert abs((high - low) / 2 - half) < 0.05
    assert low < r < high
    for name, rating in fixed.items():  # held
        assert fit(games, fixed, prior=0.0)[name] == (rating, rating, rating)


def test_single_opponent_is_the_score_formula() -> None:
    games, fixed = _games([(1500.0, 10, 7.0)])
    r, _, _ = fit(games, fixed, prior=0.0)["X"]
    assert r == pytest.approx(1500 + elo_from_score(0.7), abs=1e-6)  # 1647.2


def test_profile_interval_contains_the_fit_and_agrees_with_many_games() -> None:
    table = [(1200.0, 60, 40.0), (1600.0, 60, 25.0)]
    games, fixed = _games(table)
    r, low, high = fit(games, fixed, prior=0.0)["X"]
    pr, plow, phigh = profile_interval(games, fixed, "X", prior=0.0)
    assert pr == pytest.approx(r, abs=1e-6)
    # the likelihood-ratio bounds are where log L fell by 1.92 (checked on the definition)
    top = _loglik(r, table)
    assert top - _loglik(plow, table) == pytest.approx(1.920729, abs=1e-3)
    assert top - _loglik(phigh, table) == pytest.approx(1.920729, abs=1e-3)
    # with 120 games both intervals nearly agree
    assert abs(plow - low) < 5 and abs(phigh - high) < 5


def test_perfect_score_stays_finite_with_the_prior() -> None:
    games = [("X", "A", 1.0)] * 10
    with_prior = fit(games, {"A": 1000.0})["X"]
    assert math.isfinite(with_prior[0]) and with_prior[0] > 1300
    assert with_prior[1] < with_prior[0] < with_prior[2]
    # the prior is a virtual draw: the same as the plain fit of 10.5 points of 11
    plain = fit([*games, ("X", "A", 0.5)], {"A": 1000.0}, prior=0.0)["X"]
    assert with_prior[0] == pytest.approx(plain[0], abs=1e-6)


def test_two_free_agents_chained_through_a_fixed_one() -> None:
    # Y only met X, X only met the anchor: Y's interval is wider than X's (it carries X's)
    games = [("X", "A", 1.0)] * 15 + [("A", "X", 1.0)] * 5
    games += [("Y", "X", 1.0)] * 10 + [("X", "Y", 1.0)] * 10
    out = fit(games, {"A": 1000.0}, prior=0.0)
    x, y = out["X"], out["Y"]
    assert x[0] == pytest.approx(1000 + elo_from_score(0.75), abs=1e-6)
    assert y[0] == pytest.approx(x[0], abs=1e-6)
    assert (y[2] - y[1]) > (x[2] - x[1]) * 1.3


def test_no_anchor_means_mean_zero_and_agrees_with_the_arena_bradley_terry() -> None:
    games = [("a", "b", 1.0)] * 6 + [("b", "a", 1.0)] * 4 + [("b", "c", 1.0)] * 7
    games += [("c", "b", 1.0)] * 3 + [("a", "c", 0.5)] * 4 + [("a", "c", 1.0)] * 4
    out = fit(games, {}, prior=0.0)
    assert sum(v[0] for v in out.values()) == pytest.approx(0.0, abs=1e-6)
    # the same maximum as the arena's MM fit (its light prior aside): within a few points
    index = {"a": 0, "b": 1, "c": 2}
    bt = ratings(["a", "b", "c"], [(index[a], index[b], s) for a, b, s in games], 2000)
    for name in index:
        assert out[name][0] == pytest.approx(bt[name][0], abs=15)
    assert out["a"][0] > out["b"][0] > out["c"][0]


def test_expected_is_the_logistic_elo_curve() -> None:
    assert expected(1500, 1500) == 0.5
    assert expected(1900, 1500) == pytest.approx(10 / 11)
    assert expected(-20000, 20000) >= 0.0


def test_bad_games_are_refused() -> None:
    with pytest.raises(ValueError):
        fit([("a", "b", 1.5)], {})
    with pytest.raises(ValueError):
        fit([("a", "a", 1.0)], {})


@pytest.mark.parametrize("variant", ["chess", "enochian"])
def test_shipped_ladders_load(variant: str) -> None:
    ladder = load_ladder(variant)
    for key in ("date", "commit", "command", "time_control", "anchor", "agents"):
        assert key in ladder
    fixed = ladder_ratings(ladder)
    assert "builtin:random" in fixed
    for rung in ladder["agents"].values():
        assert rung["low"] <= rung["rating"] <= rung["high"]
    if variant == "enochian":
        assert fixed["builtin:random"] == 0.0
