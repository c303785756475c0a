"""Game pairs: the schedule's pairs, the pentanomial statistics over them, and the records a
resumed run reads back."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from enoch.arena.match import (
    MatchOutcome,
    ScheduledGame,
    match_schedule,
    read_recorded,
    run_match,
    tournament_schedule,
)
from enoch.arena.referee import GameResult
from enoch.arena.stats import PAIR_PRIOR, PairScore, Score, Sprt, score_from_elo
from enoch.errors import InputError
from enoch.game import Start
from enoch.openings import Opening

START = Start("start", Opening("start"))


def test_schedules_number_their_pairs() -> None:
    sched = match_schedule(6, [START], first=3)
    assert [(g.index, g.pair) for g in sched] == [
        (4, 2),
        (5, 3),
        (6, 3),
        (7, 4),
        (8, 4),
        (9, 5),
    ]
    four = match_schedule(8, [START], seats=4)
    assert [g.pair for g in four] == [1, 1, 1, 1, 2, 2, 2, 2]
    tour = tournament_schedule(3, 1, [START])
    assert [g.pair for g in tour] == [1, 1, 2, 2, 3, 3]
    for a, b in zip(tour[::2], tour[1::2], strict=True):
        assert a.seats == b.seats[::-1] and a.start == b.start


def test_pair_score_counts_the_five_outcomes() -> None:
    ps = PairScore()
    for total in (0, 0.5, 1, 1, 1.5, 2, 2):
        ps.add(total)
    assert ps.counts == [1, 1, 2, 1, 2]
    assert ps.pairs == 7 and ps.games == 14 and ps.points == 8.0
    assert ps.fraction == pytest.approx(8 / 14)
    with pytest.raises(ValueError):
        ps.add(2.5)


def test_pentanomial_llr_is_the_gsprt_over_pairs() -> None:
    sprt = Sprt(elo0=0, elo1=10)
    ps = PairScore([3, 10, 40, 20, 7])
    n = ps.pairs
    mu = ps.points / (2 * n)
    weights = [c + PAIR_PRIOR for c in ps.counts]
    var = sum(w * (t / 4 - mu) ** 2 for w, t in zip(weights, range(5), strict=True))
    var /= sum(weights)
    s0, s1 = score_from_elo(0), score_from_elo(10)
    assert sprt.llr(ps) == pytest.approx(n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var))
    assert sprt.llr(PairScore()) == 0.0


def test_pairs_cancel_the_start_bias_that_inflates_the_trinomial() -> None:
    # Each start wins for white: every pair is a win and a loss. As single games that is a
    # coin toss of variance 1/4 per game; as pairs every pair scores exactly 1 (no spread).
    games, pairs = Score(), PairScore()
    for _ in range(200):
        games.add(1.0)
        games.add(0.0)
        pairs.add(1.0)
    lo_t, hi_t = games.elo()[1:]
    lo_p, hi_p = pairs.elo()[1:]
    assert pairs.elo()[0] == pytest.approx(0.0, abs=1e-9)
    # (not zero: half a pseudo-pair per bin keeps any interval honest; 9x narrower here)
    assert hi_p - lo_p < (hi_t - lo_t) / 8
    sprt = Sprt(elo0=0, elo1=10)
    assert sprt.decision(pairs) == "H0"
    assert sprt.decision(games) is None
    assert abs(sprt.llr(pairs)) > 10 * abs(sprt.llr(games))


def test_one_pair_alone_decides_nothing() -> None:
    for total in (0.0, 1.0, 2.0):
        ps = PairScore()
        ps.add(total)
        assert Sprt().decision(ps) is None


def _result(points: list[float], termination: str = "checkmate") -> GameResult:
    return GameResult(
        variant="chess",
        seats=["a", "b"],
        result="*" if termination == "abandoned" else "1-0",
        termination=termination,
        reason="",
        winner=None,
        points=points,
        moves=[],
    )


def test_outcome_pairs_skip_incomplete_and_abandoned_pairs() -> None:
    out = MatchOutcome(["a", "b"])
    g = match_schedule(8, [START])
    out.games = [
        (g[0], _result([1.0, 0.0])),  # pair 1: a wins as white, draws as black
        (g[1], _result([0.5, 0.5])),
        (g[2], _result([0.0, 1.0])),  # pair 2: incomplete
        (g[4], _result([0.0, 0.0], "abandoned")),  # pair 3: abandoned, not rated
        (g[5], _result([0.0, 1.0])),
        (g[6], _result([1.0, 0.0])),  # pair 4: a scores 2 (wins as black too)
        (g[7], _result([0.0, 1.0])),
    ]
    ps = out.pair_score(0)
    assert ps.counts == [0, 0, 0, 1, 1]
    assert out.pair_score(1).counts == [1, 1, 0, 0, 0]
    sc = out.score(0)
    assert (sc.wins, sc.draws, sc.losses) == (4, 1, 1)  # the abandoned game is not a loss
    out.games.append((g[3], _result([1.0, 0.0])))  # pair 2 completes: a scores 0 + 0
    assert out.pair_score(0).counts == [1, 0, 0, 1, 1]
    assert out.pair_score(0).counts == [1, 0, 0, 1, 1]  # asked again: counted once


def test_read_recorded_drops_a_cut_line_and_refuses_another_match(tmp_path: Path) -> None:
    sched = {g.index: g for g in match_schedule(4, [START])}
    path = tmp_path / "r.jsonl"
    line = {"game": 2, "pair": 1, "attempt": 1, "seats": ["b", "a"], "points": [0.5, 0.5]}
    path.write_text(json.dumps(line) + "\n" + '{"game": 3, "se')
    got = read_recorded(path, sched, ["a", "b"])
    assert list(got) == [2] and got[2].points == [0.5, 0.5]
    assert path.read_text().endswith("}\n")  # the cut line is gone, the next run appends
    with pytest.raises(InputError, match="not a game of this match"):
        read_recorded(path, sched, ["x", "y"])
    path.write_text("not json\n")
    with pytest.raises(InputError, match="line 1 is not a results line"):
        read_recorded(path, sched, ["a", "b"])
    assert read_recorded(tmp_path / "none.jsonl", sched, ["a", "b"]) == {}


def test_resume_plays_only_the_missing_games(tmp_path: Path) -> None:
    agents = ("builtin:random?seed=1", "builtin:greedy?seed=2")
    full = tmp_path / "full.jsonl"
    run_match(*agents, games=4, results=full)
    lines = full.read_text().splitlines()
    part = tmp_path / "part.jsonl"
    part.write_text(lines[0] + "\n" + lines[2] + "\n")
    seen: list[int] = []

    def note(outcome: MatchOutcome, game: ScheduledGame, result: GameResult) -> bool:
        seen.append(game.index)
        return False

    outcome = run_match(*agents, games=4, resume=part, on_result=note)
    assert sorted(seen) == [2, 4]  # games 1 and 3 were recorded: not played again
    assert len(outcome.games) == 4

    def key(text: str) -> dict[str, Any]:  # all but the timings
        line = json.loads(text)
        del line["seconds"]
        for seat in line.get("usage") or ():
            del seat["seconds"]
        return dict(line)

    got = sorted(map(key, part.read_text().splitlines()), key=lambda d: d["game"])
    assert got == sorted(map(key, lines), key=lambda d: d["game"])


def test_elo_over_pairs_is_finite_and_ordered() -> None:
    ps = PairScore([1, 2, 5, 3, 2])
    e, lo, hi = ps.elo()
    assert lo < e < hi and all(map(math.isfinite, (e, lo, hi)))


def test_a_game_without_pair_is_a_unit_of_its_own() -> None:
    g = ScheduledGame(7, (0, 1), START)
    assert g.pair == 0
