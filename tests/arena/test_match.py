"""Openings, statistics, matches, tournaments and the CLI commands."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import chess
import pytest

from enoch.arena import GameConfig
from enoch.arena.match import match_schedule, run_match, run_tournament, tournament_schedule
from enoch.arena.stats import Score, Sprt, elo_from_score, ratings
from enoch.cli import main
from enoch.errors import InputError
from enoch.fide.records import read_pgn_games
from enoch.game import Start
from enoch.openings import Opening, default_suite, load_openings


def test_opening_suite_is_legal_balanced_and_deep_enough() -> None:
    suite = default_suite()
    assert len(suite) >= 24
    assert len({o.moves for o in suite}) == len(suite)
    for opening in suite:
        assert 4 <= len(opening.moves) <= 10, opening.name
        board = chess.Board()
        for text in opening.moves:
            move = chess.Move.from_uci(text)
            assert move in board.legal_moves, (opening.name, text)
            board.push(move)
        assert not board.is_game_over(claim_draw=True)
        # balanced: the material is level
        values = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
        diff = sum(
            v * (len(board.pieces(p, chess.WHITE)) - len(board.pieces(p, chess.BLACK)))
            for p, v in values.items()
        )
        assert diff == 0, opening.name
        assert opening.position().fen() == board.fen()


def test_openings_files(tmp_path: Path) -> None:
    epd = tmp_path / "o.epd"
    epd.write_text('4k3/8/8/8/8/8/8/R3K3 w Q - id "rook";\n# comment\n')
    [o] = load_openings(epd)
    assert o.name == "rook" and o.start_fen.startswith("4k3/")
    pgn = tmp_path / "o.pgn"
    pgn.write_text('[ECO "C20"]\n[Opening "King pawn"]\n\n1. e4 e5 *\n')
    [o] = load_openings(pgn)
    assert o.moves == ("e2e4", "e7e5") and o.name == "C20 King pawn"


def test_schedules_swap_colours_per_opening() -> None:
    book = [Start(o.name, o) for o in default_suite()]
    games = match_schedule(6, book)
    assert [(g.white, g.black) for g in games] == [(0, 1), (1, 0)] * 3
    assert games[0].start == games[1].start != games[2].start
    # A run continued with --first plays exactly the rest of one long run's schedule.
    whole = [(g.index, g.white, g.start.name) for g in match_schedule(10, book)]
    parts = match_schedule(3, book) + match_schedule(7, book, first=3)
    assert [(g.index, g.white, g.start.name) for g in parts] == whole
    with pytest.raises(InputError, match="--first"):
        match_schedule(2, book, first=-1)
    rr = tournament_schedule(3, 2, book)
    assert len(rr) == 3 * 2 * 2
    gauntlet = tournament_schedule(4, 1, book, gauntlet=True)
    assert {frozenset((g.white, g.black)) for g in gauntlet} == {
        frozenset((0, j)) for j in (1, 2, 3)
    }


def test_stats() -> None:
    assert elo_from_score(0.5) == 0
    sc = Score(wins=30, draws=40, losses=30)
    e, lo, hi = sc.elo()
    assert e == 0 and lo < 0 < hi and math.isclose(-lo, hi, rel_tol=1e-9)
    assert sc.los() == 0.5
    assert Score(wins=20, draws=0, losses=10).los() > 0.95
    sprt = Sprt.parse("elo0=0,elo1=10")
    assert sprt.decision(Score(wins=300, draws=100, losses=100)) == "H1"
    assert sprt.decision(Score(wins=100, draws=100, losses=300)) == "H0"
    assert sprt.decision(Score(wins=5, draws=5, losses=5)) is None
    rated = ratings(["a", "b", "c"], [(0, 1, 1.0), (0, 2, 1.0), (1, 2, 0.5), (1, 0, 0.0)])
    assert rated["a"][0] > rated["b"][0] and abs(sum(r for r, _ in rated.values())) < 1e-6


def test_match_with_concurrency_writes_pgn_and_results(tmp_path: Path) -> None:
    pgn, results, logs = tmp_path / "m.pgn", tmp_path / "m.jsonl", tmp_path / "logs"
    outcome = run_match(
        "builtin:greedy?seed=1",
        "builtin:random?seed=2",
        games=4,
        concurrency=2,
        pgn=pgn,
        results=results,
        log_dir=logs,
        config=GameConfig(),
    )
    assert outcome.score(0).games == 4
    lines = [json.loads(x) for x in results.read_text().splitlines()]
    assert len(lines) == 4
    for line in lines:
        assert set(line) >= {
            "white",
            "black",
            "result",
            "termination",
            "reason",
            "plies",
            "moves",
            "start_fen",
            "opening",
        }
    games = read_pgn_games(pgn.read_text())
    by_round = {int(g.headers["Round"]): g for g in games}
    for line in lines:
        g = by_round[line["game"]]
        assert [m.uci() for m in g.mainline_moves()] == line["moves"]
        assert g.headers["Result"] == line["result"]
        assert g.headers["Opening"] == line["opening"]
    assert len(list(logs.glob("game-*.jsonl"))) == 4
    # colours alternate, both colours per opening (lines are in completion order: sort them)
    ordered = sorted(lines, key=lambda x: x["game"])
    assert [(x["white"], x["opening"]) for x in ordered][:2] == [
        ("builtin:greedy?seed=1", ordered[0]["opening"]),
        ("builtin:random?seed=2", ordered[0]["opening"]),
    ]


def test_sprt_stops_a_match_early() -> None:
    def resign(state: dict[str, Any]) -> dict[str, Any]:
        return {"action": "resign"}

    outcome = run_match(
        "builtin:random",
        resign,
        games=200,
        sprt=Sprt(0, 10, 0.05, 0.05),
        starts=[Start("start", Opening("start"))],
    )
    assert outcome.stopped_by_sprt == "H1" and outcome.score(0).games < 200


def test_tournament() -> None:
    outcome = run_tournament(["builtin:random", "builtin:greedy", "builtin:random"], rounds=1)
    assert outcome.names == ["builtin:random", "builtin:greedy", "builtin:random#2"]
    assert len(outcome.games) == 6


def test_cli_play_match_tournament(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pgn = tmp_path / "p.pgn"
    assert (
        main(
            ["play", "builtin:greedy?seed=1", "builtin:random?seed=1", "--quiet", "--pgn", str(pgn)]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "[EnochTermination" in out and len(read_pgn_games(pgn.read_text())) == 1
    assert (
        main(
            ["play", "builtin:random", "--fen", "7k/8/8/6Q1/8/8/8/K7 w - - 0 1", "--moves", "g5g6"]
        )
        == 0
    )
    assert "stalemate" in capsys.readouterr().out
    results = tmp_path / "r.jsonl"
    assert (
        main(
            [
                "match",
                "builtin:greedy",
                "builtin:random",
                "--games",
                "4",
                "--sprt",
                "--results",
                str(results),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "LOS" in out and "SPRT" in out and len(results.read_text().splitlines()) == 4
    assert main(["tournament", "builtin:greedy", "builtin:random", "--gauntlet"]) == 0
    assert "crosstable" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "nonsense"],
        ["play", "builtin:nosuch"],
        ["match", "builtin:random", "builtin:random", "--games", "0"],
        ["match", "builtin:random", "builtin:random", "--tc", "abc"],
        ["match", "builtin:random", "builtin:random", "--sprt", "elo0=5,elo1=1"],
        ["match", "builtin:random", "builtin:random", "--fen", "not a fen"],
        ["tournament", "builtin:random"],
    ],
)
def test_cli_bad_input_is_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    try:
        status = main(argv)
    except SystemExit as exc:  # a flag argparse refuses (its type says why)
        status = exc.code  # type: ignore[assignment]
    assert status == 2
    err = capsys.readouterr().err
    assert err.startswith(("enoch: error:", f"enoch {argv[0]}: error:")) and err.count("\n") == 1


def test_parallel_schedule_stops_and_cancels_queued_games(tmp_path: Path) -> None:
    """With workers, a stop keeps the games already playing (they count) and cancels the
    queued ones: far fewer than the schedule are played, and every one is recorded once."""
    from enoch.arena.match import ScheduledGame, run_schedule

    schedule = [
        ScheduledGame(i + 1, (i % 2, 1 - i % 2), Start("start", Opening("start")))
        for i in range(60)
    ]
    results = tmp_path / "results.jsonl"
    outcome = run_schedule(
        ["builtin:random", "builtin:greedy"],
        schedule,
        concurrency=2,
        results=results,
        on_result=lambda outcome, game, result: True,
    )
    played = [game.index for game, _ in outcome.games]
    assert 1 <= len(played) <= 4  # at most two playing and two queued when the stop came
    assert len(set(played)) == len(played)
    lines = results.read_text().splitlines()
    assert len(lines) == len(played)
