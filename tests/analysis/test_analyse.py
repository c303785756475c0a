"""``enoch analyse``: planted blunders and best moves found, mates scored, the annotated PGN
read back by python-chess, the JSON's shape, and bad input refused with one line."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
from pathlib import Path

import chess
import chess.pgn
import pytest

from enoch.analysis import judge
from enoch.analysis.analyse import analyse_moves, analyse_pgn_game, annotated_pgn, read_pgn
from enoch.analysis.engines import BuiltinEvaluator, make_evaluator, parse_info_score
from enoch.cli import main

STOCKFISH = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")
NODES = 4000  # enough to see a hung queen and a mate in one; quick in CI

# 2. Qg4?? hangs the queen to the c8 bishop; 2... Bxg4 takes it.
HUNG_QUEEN = '[White "A"]\n[Black "B"]\n[Result "0-1"]\n\n1. e4 d5 2. Qg4 Bxg4 0-1\n'
# The fool's mate: 2. g4?? allows mate in one, 2... Qh4#.
FOOLS_MATE = '[White "C"]\n[Black "D"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n'


def _write(tmp_path: Path, text: str, name: str = "games.pgn") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _game(text: str) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    return game


def test_a_hung_queen_is_a_blunder_and_taking_it_is_best() -> None:
    ev = BuiltinEvaluator(NODES)
    result = analyse_pgn_game(_game(HUNG_QUEEN), ev)
    ev.close()
    qg4, bxg4 = result.moves[2], result.moves[3]
    assert (qg4.ply, qg4.move, qg4.uci) == (3, "Qg4", "d1g4")
    assert qg4.cls == "blunder"
    assert qg4.eval_before > -100 and qg4.eval_after < -600  # a queen down, from White's side
    assert qg4.loss >= 600
    assert qg4.best != "Qg4"
    assert (bxg4.move, bxg4.cls, bxg4.best) == ("Bxg4", "best", "Bxg4")
    assert bxg4.loss < 100
    # the opening moves are not judged as mistakes; Black played cleanly
    assert {m.cls for m in result.moves[:2]} <= {"best", "good"}
    assert result.white_acpl is not None and result.black_acpl is not None
    assert result.white_acpl > 200 > result.black_acpl
    assert result.white_accuracy is not None and result.black_accuracy is not None
    assert result.white_accuracy < 50 < result.black_accuracy


def test_mate_scores() -> None:
    ev = BuiltinEvaluator(NODES)
    result = analyse_pgn_game(_game(FOOLS_MATE), ev)
    ev.close()
    g4, qh4 = result.moves[2], result.moves[3]
    # after 2. g4 Black mates in one ply: -(100000 - 1); after the mate, -(100000 - 0)
    assert g4.eval_after == -(judge.MATE_SCORE - 1)
    assert qh4.eval_before == g4.eval_after
    assert qh4.eval_after == -judge.MATE_SCORE
    assert g4.cls == "blunder"  # walked into a forced mate
    assert qh4.cls == "best"
    assert g4.loss == judge.centipawn_loss(g4.eval_before, g4.eval_after, True)
    data = result.to_json()
    assert data["moves"][2]["eval_after"] == -99999


def test_annotated_pgn_parses_back_with_its_evaluations(tmp_path: Path) -> None:
    ev = BuiltinEvaluator(NODES)
    games = read_pgn(_write(tmp_path, HUNG_QUEEN + "\n" + FOOLS_MATE))
    analyses = [analyse_pgn_game(g, ev) for g in games]
    ev.close()
    text = "".join(annotated_pgn(a, "enoch analyse (test)") for a in analyses)
    flat = " ".join(text.split())  # lines are wrapped anywhere between tokens
    assert re.search(
        r"Qg4\?\? \{ \[%eval -\d+\.\d\d\] \} \{ \(-?\d+\.\d\d → -\d+\.\d\d\) Blunder\. "
        r"exd5 was best\. \} \( 2\. exd5 \) 2\.\.\. Bxg4",
        flat,
    )
    assert re.search(
        r"g4\?\? \{ \[%eval #-1\] \} \{ \(-?\d+\.\d\d → #-1\) Checkmate is now unavoidable\. "
        r"\S+ was best\. \} \( 2\. \S+ \) 2\.\.\. Qh4# 0-1",
        flat,
    )
    stream = io.StringIO(text)
    for analysis in analyses:
        back = chess.pgn.read_game(stream)
        assert back is not None and not back.errors
        assert back.headers["Annotator"] == "enoch analyse (test)"
        assert back.headers["White"] == analysis.white
        nodes = list(back.mainline())
        assert [n.move.uci() for n in nodes] == [m.uci for m in analysis.moves]
        for node, m in zip(nodes, analysis.moves, strict=True):
            score = node.eval()
            if abs(m.eval_after) == judge.MATE_SCORE:  # a checkmate carries no evaluation
                assert score is None
                continue
            assert score is not None
            white = score.white()
            if judge.is_mate(m.eval_after):
                plies = judge.mate_plies(m.eval_after)
                assert white.mate() == ((plies + 1) // 2) * (1 if m.eval_after > 0 else -1)
            else:
                assert white.score() == m.eval_after
            nag = {
                "inaccuracy": chess.pgn.NAG_DUBIOUS_MOVE,
                "mistake": chess.pgn.NAG_MISTAKE,
                "blunder": chess.pgn.NAG_BLUNDER,
            }.get(m.cls)
            assert node.nags == ({nag} if nag else set())
    assert chess.pgn.read_game(stream) is None


def test_from_a_fen_with_black_to_move() -> None:
    board = chess.Board("4k3/8/8/8/8/3q4/8/4K2R b K - 0 30")
    moves = [chess.Move.from_uci(u) for u in ("d3e2", "e1e2")]  # Black hangs the queen
    ev = BuiltinEvaluator(NODES)
    result = analyse_moves(board, moves, ev)
    ev.close()
    assert [m.ply for m in result.moves] == [60, 61]
    assert not result.moves[0].white and result.moves[1].white
    assert result.moves[0].cls == "blunder"
    assert result.moves[1].cls == "best"
    text = annotated_pgn(result, "t")
    flat = " ".join(text.split())
    assert re.search(r"30\.\.\. Qe2\+\?\?( \{[^}]*\})+ \( 30\.\.\. \S+ \) 31\. Kxe2", flat)


def test_cli_json_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, HUNG_QUEEN)
    assert main(["analyse", str(path), "--json", "--nodes", str(NODES)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["games"]
    (game,) = data["games"]
    assert set(game) == {
        "white",
        "black",
        "moves",
        "white_acpl",
        "black_acpl",
        "white_accuracy",
        "black_accuracy",
    }
    assert (game["white"], game["black"]) == ("A", "B")
    assert [set(m) for m in game["moves"]] == [
        {"ply", "move", "eval_before", "eval_after", "loss", "class"}
    ] * 4
    assert game["moves"][2]["class"] == "blunder"
    assert game["moves"][3]["class"] == "best"


def test_same_judgement_every_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, FOOLS_MATE + "\n" + HUNG_QUEEN)
    outputs = []
    for _ in range(2):
        assert main(["analyse", str(path), "--nodes", "1500"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize(
    ("text", "args", "message"),
    [
        (None, [], "cannot read"),
        ("hello world\n", [], "no chess game with moves"),
        ("1. e4 e5 2. Ke3 *\n", [], "illegal san"),
        ('[FEN "not a fen"]\n\n1. e4 *\n', [], "fen"),
        ('[Variant "enochian"]\n\n1. e4 *\n', [], "only chess"),
        (HUNG_QUEEN, ["--engine", "builtin:random"], "--engine must be"),
        (HUNG_QUEEN, ["--engine", "builtin:engine?depth=3"], "only hash"),
        (HUNG_QUEEN, ["--engine", "uci:/nonexistent/engine"], "cannot start"),
        (HUNG_QUEEN, ["--nodes", "0"], "--nodes"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    text: str | None,
    args: list[str],
    message: str,
) -> None:
    path = tmp_path / "x.pgn" if text is None else _write(tmp_path, text)
    assert main(["analyse", str(path), *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("enoch: error: ") and message in err


def test_binary_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "b.pgn"
    path.write_bytes(bytes(range(256)) * 8)
    assert main(["analyse", str(path)]) == 2
    assert "not a PGN text file" in capsys.readouterr().err


def test_uci_info_scores() -> None:
    assert parse_info_score("info depth 10 score cp 35 nodes 100 pv e2e4") == 35
    assert parse_info_score("info depth 10 score mate 3 pv e2e4") == judge.MATE_SCORE - 5
    assert parse_info_score("info depth 10 score mate -2 pv e2e4") == -(judge.MATE_SCORE - 4)
    assert parse_info_score("info depth 10 score cp 35 lowerbound") is None
    assert parse_info_score("info depth 3 multipv 2 score cp 1") is None
    assert parse_info_score("info string hello") is None


@pytest.mark.skipif(
    STOCKFISH is None, reason="stockfish is not installed (apt-get install stockfish)"
)
def test_a_uci_engine_judges_too(tmp_path: Path) -> None:
    ev = make_evaluator(f"uci:{STOCKFISH}?Threads=1&Hash=16", 20000)
    try:
        games = read_pgn(_write(tmp_path, HUNG_QUEEN + "\n" + FOOLS_MATE))
        hung = analyse_pgn_game(games[0], ev)
        mate = analyse_pgn_game(games[1], ev)
    finally:
        ev.close()
    proc = ev.proc  # type: ignore[attr-defined]
    assert proc.closed
    with pytest.raises(ProcessLookupError):  # the engine's whole process group is gone
        os.killpg(proc.pgid, 0)
    assert hung.moves[2].cls == "blunder" and hung.moves[3].cls == "best"
    assert mate.moves[2].eval_after == -(judge.MATE_SCORE - 1)
    assert mate.moves[3].eval_after == -judge.MATE_SCORE
