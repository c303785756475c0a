"""``enoch leaderboard``: results files with and without ``usage``, old lines, both games, a
PGN, abandoned games skipped, ladder anchoring, ``--analyse``, and bad files refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from enoch.cli import main
from enoch.ratings import leaderboard
from enoch.ratings.leaderboard import build, read_results

HUNG = ["e2e4", "d7d5", "d1g4", "c8g4"]  # White hangs the queen, Black takes it


def _chess(white: str, black: str, points: list[float], **extra: Any) -> dict[str, Any]:
    line: dict[str, Any] = {
        "variant": "chess",
        "white": white,
        "black": black,
        "seats": [white, black],
        "result": {1.0: "1-0", 0.0: "0-1"}.get(points[0], "1/2-1/2"),
        "termination": "checkmate" if points[0] != 0.5 else "stalemate",
        "winner": None,
        "points": points,
        "plies": 4,
        "moves": HUNG,
        "seconds": 1.0,
    }
    line.update(extra)
    return line


def _usage(
    requests: int,
    illegal: int,
    invalid: int,
    seconds: float,
    tokens: int | None,
    cost: float | None,
) -> dict[str, Any]:
    return {
        "requests": requests,
        "retries": illegal + invalid,
        "illegal": illegal,
        "invalid": invalid,
        "prompt_tokens": None if tokens is None else tokens - 10,
        "completion_tokens": None if tokens is None else 10,
        "seconds": seconds,
        "cost": cost,
    }


def _write(tmp_path: Path, name: str, lines: list[Any]) -> Path:
    path = tmp_path / name
    path.write_text("".join((l if isinstance(l, str) else json.dumps(l)) + "\n" for l in lines))
    return path


def _rows(board: leaderboard.Leaderboard) -> dict[tuple[str, str], dict[str, Any]]:
    return {(r["variant"], r["agent"]): r for r in board.to_json()["agents"]}


def test_usage_gives_failures_time_tokens_and_cost(tmp_path: Path) -> None:
    # llm plays White twice (2 moves a game), once with usage, once without (an older line)
    with_usage = _chess(
        "llm",
        "builtin:engine",
        [0.0, 1.0],
        usage=[_usage(3, 1, 0, 4.0, 500, 0.02), _usage(2, 0, 0, 0.2, None, None)],
    )
    without = _chess("llm", "builtin:engine", [0.0, 1.0], termination="illegal_move")
    board = build(read_results([_write(tmp_path, "r.jsonl", [with_usage, without])]))
    rows = _rows(board)
    llm, engine = rows[("chess", "llm")], rows[("chess", "builtin:engine")]
    assert (llm["games"], llm["wins"], llm["draws"], llm["losses"]) == (2, 0, 0, 2)
    assert llm["moves"] == 4
    # one illegal answer from usage, one illegal-move forfeit from the older line: 2 per 4 moves
    assert llm["illegal_per_1000"] == 500.0 and llm["invalid_per_1000"] == 0.0
    assert engine["illegal_per_1000"] == 0.0
    # seconds and tokens only over the moves that usage covers (2 of them)
    assert llm["seconds_per_move"] == 2.0 and llm["tokens_per_move"] == 250.0
    assert llm["cost"] == 0.02
    assert engine["seconds_per_move"] == 0.1
    assert engine["tokens_per_move"] is None and engine["cost"] is None
    assert engine["rating"] > llm["rating"]
    assert board.rows[0].agent == "builtin:engine"  # sorted by rating


def test_old_lines_without_variant_seats_or_points(tmp_path: Path) -> None:
    old = {
        "white": "a",
        "black": "b",
        "result": "1-0",
        "termination": "checkmate",
        "moves": ["e2e4"],
        "times": [0.5],
    }
    board = build(
        read_results([_write(tmp_path, "old.jsonl", [old, old, dict(old, result="1/2-1/2")])])
    )
    rows = _rows(board)
    assert (rows[("chess", "a")]["wins"], rows[("chess", "a")]["draws"]) == (2, 1)
    assert rows[("chess", "b")]["losses"] == 2
    # times: White made the only move of each game
    assert rows[("chess", "a")]["seconds_per_move"] == 0.5
    assert rows[("chess", "b")]["seconds_per_move"] is None  # no moves, no time
    assert rows[("chess", "a")]["rating"] > rows[("chess", "b")]["rating"]
    assert (
        rows[("chess", "a")]["low"] < rows[("chess", "a")]["rating"] < rows[("chess", "a")]["high"]
    )


def test_both_games_and_abandoned_games_skipped(tmp_path: Path) -> None:
    four = {
        "variant": "enochian",
        "seats": ["w", "x", "y", "z"],
        "teams": [0, 1, 0, 1],
        "result": "actives win",
        "termination": "kings_captured",
        "winner": 0,
        "points": [1.0, 0.0, 1.0, 0.0],
        "moves": ["Ne1-f3"] * 8,
    }
    chess_lines = [
        _chess("p", "q", [1.0, 0.0]),
        _chess("q", "p", [0.0, 1.0]),
        _chess("p", "q", [0.0, 1.0], termination="abandoned", result="*"),
    ]
    board = build(
        read_results(
            [_write(tmp_path, "c.jsonl", chess_lines), _write(tmp_path, "e.jsonl", [four, four])]
        )
    )
    rows = _rows(board)
    assert set(rows) == {
        ("chess", "p"),
        ("chess", "q"),
        ("enochian", "w"),
        ("enochian", "x"),
        ("enochian", "y"),
        ("enochian", "z"),
    }
    assert rows[("chess", "p")]["wins"] == 2 and rows[("chess", "p")]["losses"] == 0
    assert board.skipped == 1
    # four seats: two moves each; teammates w and y are rated alike, above x and z
    assert rows[("enochian", "w")]["moves"] == 4
    assert rows[("enochian", "w")]["rating"] == pytest.approx(rows[("enochian", "y")]["rating"])
    assert rows[("enochian", "w")]["rating"] > rows[("enochian", "x")]["rating"]
    assert board.scales == {"chess": "pool mean 0", "enochian": "pool mean 0"}
    assert [r.variant for r in board.rows] == ["chess"] * 2 + ["enochian"] * 4


def test_anchored_to_the_ladder_when_ladder_agents_took_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [_chess("builtin:random", "x", [0.0, 1.0])] * 3 + [
        _chess("x", "builtin:random", [0.5, 0.5])
    ]
    path = _write(tmp_path, "r.jsonl", lines)
    free = _rows(build(read_results([path])))
    ladders = {"chess": {"builtin:random": 400.0, "builtin:engine?elo=1600": 1600.0}}
    monkeypatch.setattr(leaderboard, "ladder_ratings", lambda variant: ladders.get(variant, {}))
    board = build(read_results([path]))
    anchored = _rows(board)
    assert anchored[("chess", "builtin:random")]["rating"] == pytest.approx(400.0, abs=0.1)
    gap = free[("chess", "x")]["rating"] - free[("chess", "builtin:random")]["rating"]
    assert anchored[("chess", "x")]["rating"] == pytest.approx(400.0 + gap, abs=0.2)
    assert board.scales["chess"] == "anchored to the ladder (builtin:random)"


def test_pgn_as_results_and_analyse(tmp_path: Path) -> None:
    pgn = tmp_path / "g.pgn"
    pgn.write_text(
        '[White "hanger"]\n[Black "taker"]\n[Result "0-1"]\n\n1. e4 d5 2. Qg4 Bxg4 0-1\n'
    )
    line = _chess("taker", "hanger", [1.0, 0.0], moves=["d2d4", "e7e5", "d4e5", "d8g5", "c1g5"])
    games = read_results([pgn, _write(tmp_path, "r.jsonl", [line])])
    assert [g.seats for g in games] == [["hanger", "taker"], ["taker", "hanger"]]
    seen: list[int] = []
    board = build(games, analyse=True, nodes=3000, progress=lambda i: lambda d, t: seen.append(i))
    rows = _rows(board)
    hanger, taker = rows[("chess", "hanger")], rows[("chess", "taker")]
    assert hanger["acpl"] > 200 > taker["acpl"]
    assert hanger["accuracy"] < 60 < taker["accuracy"]
    assert set(seen) == {1, 2}


def test_cli_table_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a real match's results, read back
    results = tmp_path / "m.jsonl"
    assert (
        main(
            [
                "match",
                "builtin:random?seed=1",
                "builtin:greedy?seed=2",
                "--games",
                "2",
                "--max-plies",
                "30",
                "--results",
                str(results),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["leaderboard", str(results)]) == 0
    out = capsys.readouterr().out
    assert "builtin:random?seed=1" in out and "builtin:greedy?seed=2" in out
    assert "W/D/L" in out and "chess: ratings pool mean 0" in out
    assert main(["leaderboard", str(results), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sorted(r["agent"] for r in data["agents"]) == [
        "builtin:greedy?seed=2",
        "builtin:random?seed=1",
    ]
    assert all(r["games"] == 2 and r["moves"] > 0 for r in data["agents"])
    assert set(data["agents"][0]) >= {
        "rating",
        "low",
        "high",
        "wins",
        "draws",
        "losses",
        "illegal_per_1000",
        "invalid_per_1000",
        "seconds_per_move",
        "tokens_per_move",
        "cost",
        "acpl",
        "accuracy",
    }


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (None, "cannot read"),
        ([], "no games"),
        (["not json"], "r.jsonl:1: not a JSON line"),
        ([_chess("a", "b", [1.0, 0.0]), "[1, 2]"], "r.jsonl:2: not a JSON object"),
        ([{"result": "1-0"}], "no agents"),
        ([{"white": "a", "black": "b", "result": "*"}], "no points"),
        ([dict(_chess("a", "b", [1.0, 0.0]), points=[1.0])], "one number 0..1 per seat"),
        ([_chess("a", "b", [1.0, 0.0], usage=[{}])], "usage must be one object per seat"),
        ([_chess("a", "b", [1.0, 0.0], moves="e2e4")], "moves must be a list"),
    ],
)
def test_bad_files_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[Any] | None, message: str
) -> None:
    path = tmp_path / "r.jsonl" if lines is None else _write(tmp_path, "r.jsonl", lines)
    assert main(["leaderboard", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("enoch: error: ") and message in err


def test_binary_results_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert main(["leaderboard", str(path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
