"""``enoch microchess explain`` through the real top-level CLI."""

from __future__ import annotations

import json

import pytest
from tests.microchess.mc_data import CASES

from enoch.cli import main

BACK_RANK = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"
MATED = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"


def test_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["microchess", "explain", BACK_RANK, "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    data = json.loads(out)
    assert {"computer", "best_move", "score", "candidates"} <= set(data)
    assert data["computer"] == "white" and data["best_move"] == "a1a8" and data["score"] == 255
    first = data["candidates"][0]
    assert first["move"] == "f2f3"
    for key in ("WCAP0", "WCAP1", "WCAP2", "BCAP0", "BCAP1", "BCAP2", "WMOB", "WMAXC", "WCC",
                "WMAXP", "BMOB", "BMAXC", "BMCC", "BMAXP", "PMOB", "PMAXC", "PCC",
                "score", "strategy_value"):  # fmt: skip
        assert isinstance(first[key], int), key
    assert all(len(c["move"]) == 4 for c in data["candidates"])


def test_json_matches_the_case_file(capsys: pytest.CaptureFixture[str]) -> None:
    case = next(c for c in CASES if c["computer"] == "black" and c["best_move"])
    assert main(["microchess", "explain", case["fen"], "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["best_move"] == case["best_move"]
    assert {c["move"]: c["score"] for c in data["candidates"]} == case["candidates"]


def test_no_move_is_null(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["microchess", "explain", MATED, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == {"computer": "white", "best_move": None, "score": 12, "candidates": []}


def test_human_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["microchess", "explain", BACK_RANK]) == 0
    out = capsys.readouterr().out
    assert "PMOB=20" in out and "WMAXC" in out and "BMCC" in out
    chosen = [line for line in out.splitlines() if "*" in line]
    assert len(chosen) == 1 and "a1a8" in chosen[0] and chosen[0].rstrip().endswith("255")
    assert "chosen: a1a8 (score 255)" in out


def test_human_table_says_when_no_move(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["microchess", "explain", MATED]) == 0
    assert "no move" in capsys.readouterr().out


def test_unquoted_fen_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["microchess", "explain", *BACK_RANK.split(), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["best_move"] == "a1a8"


@pytest.mark.parametrize(
    "fen",
    [
        "not a fen",
        "8/8/8/8/8/8/8/8 w - - 0 1",  # no kings
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ],
)
def test_bad_fen(fen: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["microchess", "explain", fen]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("enoch: error:")
    assert "Traceback" not in err


def test_missing_subcommand_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["microchess"])
    assert exc.value.code == 2
