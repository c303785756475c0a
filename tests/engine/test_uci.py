"""``enoch uci``: conversations in-process and end to end through python-chess."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import time

import chess
import chess.engine
import pytest

from enoch.engine.uci import UciEngine, run


def _talk(lines: list[str]) -> list[str]:
    """Send the lines, letting each bounded ``go`` finish before the next line."""
    out = io.StringIO()
    engine = UciEngine(out)
    for line in lines:
        if not engine.handle(line):
            break
        if line.startswith("go"):
            engine.wait()
    return out.getvalue().splitlines()


def test_run_reads_until_quit() -> None:
    out = io.StringIO()
    run(io.StringIO("uci\nisready\nquit\nisready\n"), out)
    assert out.getvalue().splitlines()[-1] == "readyok"
    assert out.getvalue().count("readyok") == 1


def test_handshake_and_options() -> None:
    out = _talk(
        [
            "uci",
            "setoption name Hash value 4",
            "setoption name Move Overhead value 10",
            "isready",
            "quit",
        ]
    )
    assert out[0].startswith("id name enoch")
    assert "uciok" in out
    assert any(line.startswith("option name Hash type spin") for line in out)
    assert any(line.startswith("option name Move Overhead") for line in out)
    assert out[-1] == "readyok"


def test_go_depth_prints_info_and_a_legal_bestmove() -> None:
    out = _talk(["position startpos moves e2e4 e7e5 g1f3", "go depth 3", "quit"])
    infos = [line for line in out if line.startswith("info depth")]
    assert len(infos) == 3
    for key in ("depth", "seldepth", "score", "nodes", "nps", "time", "pv"):
        assert f" {key} " in infos[-1]
    best = out[-1].split()
    assert best[0] == "bestmove"
    board = chess.Board()
    for m in ("e2e4", "e7e5", "g1f3"):
        board.push_uci(m)
    assert chess.Move.from_uci(best[1]) in board.legal_moves


def test_position_fen_and_mate_score() -> None:
    out = _talk(["position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "go depth 2", "quit"])
    assert "score mate 1" in out[-2]
    assert out[-1] == "bestmove a1a8"


def test_bad_input_does_not_crash() -> None:
    out = _talk(
        [
            "position fen nonsense",
            "position startpos moves e2e5",
            "frobnicate",
            "go depth 1",
            "quit",
        ]
    )
    assert any("bad position" in line for line in out)
    assert any("unknown command" in line for line in out)
    assert out[-1].startswith("bestmove ")


def test_infinite_waits_for_stop() -> None:
    out = io.StringIO()
    engine = UciEngine(out)
    engine.handle("position startpos")
    engine.handle("go infinite")
    time.sleep(0.3)
    assert "bestmove" not in out.getvalue()
    engine.handle("stop")
    assert out.getvalue().splitlines()[-1].startswith("bestmove ")


def test_nodes_limit() -> None:
    out = _talk(["position startpos", "go nodes 500", "quit"])
    assert out[-1].startswith("bestmove ")


def _enoch_uci() -> list[str]:
    exe = shutil.which("enoch")
    return [exe, "uci"] if exe else [sys.executable, "-m", "enoch", "uci"]


def test_python_chess_plays_and_analyses() -> None:
    with chess.engine.SimpleEngine.popen_uci(_enoch_uci()) as engine:
        assert engine.id["name"].startswith("enoch")
        engine.configure({"Hash": 8, "Move Overhead": 20})
        board = chess.Board()
        for _ in range(6):
            result = engine.play(board, chess.engine.Limit(time=0.05))
            assert result.move is not None and result.move in board.legal_moves
            board.push(result.move)
        info = engine.analyse(board, chess.engine.Limit(depth=3))
        assert info["depth"] == 3
        assert "score" in info and "pv" in info
        # Clock-based limit.
        result = engine.play(
            board,
            chess.engine.Limit(white_clock=1.0, black_clock=1.0, white_inc=0.01, black_inc=0.01),
        )
        assert result.move is not None and result.move in board.legal_moves


def test_movetime_respected_end_to_end() -> None:
    board = chess.Board("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R1BQ1RK1 w - - 0 9")
    with chess.engine.SimpleEngine.popen_uci(_enoch_uci()) as engine:
        engine.ping()
        worst = 0.0
        for _ in range(5):
            t = time.perf_counter()
            engine.play(board, chess.engine.Limit(time=0.05))
            worst = max(worst, time.perf_counter() - t)
    # 50 ms budget; allow for the pipe and scheduler on a loaded machine.
    assert worst < 0.15


@pytest.mark.slow
def test_many_games_through_python_chess() -> None:
    with chess.engine.SimpleEngine.popen_uci(_enoch_uci()) as engine:
        for _ in range(2):
            board = chess.Board()
            while not board.is_game_over() and board.ply() < 120:
                result = engine.play(board, chess.engine.Limit(time=0.02))
                assert result.move is not None and result.move in board.legal_moves
                board.push(result.move)


def _legal(fen_moves: list[str], best: str) -> bool:
    board = chess.Board()
    for m in fen_moves:
        board.push_uci(m)
    return chess.Move.from_uci(best) in board.legal_moves


@pytest.mark.parametrize(
    ("stream", "positions"),
    [
        # a GUI that changes the position during an infinite search, then quits
        (["position startpos", "go infinite", "position startpos moves e2e4", "quit"], [[]]),
        # ... or starts the next search without a stop: the first still gets its bestmove
        (
            [
                "position startpos",
                "go infinite",
                "position startpos moves e2e4",
                "go infinite",
                "position startpos moves e2e4 e7e5",
                "go depth 2",
                "quit",
            ],
            [[], ["e2e4"], ["e2e4", "e7e5"]],
        ),
        # ... or sets an option / starts a new game mid-search
        (
            [
                "go infinite",
                "setoption name Hash value 2",
                "go infinite",
                "ucinewgame",
                "isready",
                "quit",
            ],
            [[], []],
        ),
    ],
)
def test_commands_during_go_infinite_then_quit_exit(
    stream: list[str], positions: list[list[str]]
) -> None:
    """The reader never blocks on a search that only ``stop`` can end: the process exits in
    bounded time, every ``go`` has one legal ``bestmove`` of the position it searched."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "enoch", "uci"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None
    for line in stream:
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        time.sleep(0.2)  # let each search get going before the next command
    try:
        out, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"enoch uci did not exit after {stream}")
    assert proc.returncode == 0, err
    best = [line.split()[1] for line in out.splitlines() if line.startswith("bestmove")]
    assert len(best) == len(positions), out
    for moves, move in zip(positions, best, strict=True):
        assert _legal(moves, move), (moves, move)
    if "isready" in stream:
        assert out.splitlines()[-1] == "readyok"
