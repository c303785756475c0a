"""The CLI contract: output shapes, exit codes, one-line errors with nothing on stdout."""

from __future__ import annotations

import json
import subprocess
import sys

import chess
import pytest

from enoch.cli import main
from enoch.protocol import state_from_fen

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def run(args: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "enoch", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_legal_lists_the_moves_python_chess_finds() -> None:
    result = run(["legal"], json.dumps(state_from_fen(KIWIPETE)))
    assert result.returncode == 0, result.stderr
    moves = json.loads(result.stdout)
    ours = {m["from"] + m["to"] + (m["promotion"] or "").lower() for m in moves}
    assert ours == {m.uci() for m in chess.Board(KIWIPETE).legal_moves}
    assert all(set(m) == {"from", "to", "promotion"} for m in moves)


def test_perft_last_line_is_the_count(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", KIWIPETE, "2"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "2039"
    assert main(["perft", "startpos", "3", "--divide"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1] == "8902"
    assert len([line for line in lines if ":" in line]) == 20
    assert "e2e4: 600" in lines


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["legal"], "{", "state is not valid JSON"),
        (["legal"], '{"board": {}}', "missing field 'turn'"),
        (["agent"], "", "state is empty"),
        (["agent", "--agent", "builtin:nope"], "{}", "unknown agent builtin:nope for chess"),
        (["agent", "--agent", "builtin:random?depth=3"], "{}", "has no option 'depth'"),
        (["perft", "not a fen", "2"], "", "FEN 'not a fen'"),
        (["perft", "startpos", "-1"], "", "DEPTH: the value must be at least 0"),
    ],
)
def test_bad_input_one_line_exit_2_nothing_on_stdout(
    args: list[str], stdin: str, message: str
) -> None:
    result = run(args, stdin)
    assert result.returncode == 2
    assert result.stdout == ""
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_validate_ok_and_problems(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    good = json.dumps(state_from_fen(KIWIPETE))
    result = run(["validate"], good)
    assert (result.returncode, result.stdout.strip()) == (0, "ok")
    bad = json.loads(good)
    bad["turn"] = "blue"
    bad["halfmove_clock"] = -2
    result = run(["validate"], json.dumps(bad))
    assert result.returncode == 2
    assert len(result.stdout.strip().splitlines()) == 2
    result = run(["validate", "--json"], "not json")
    report = json.loads(result.stdout)
    assert report["ok"] is False and "not valid JSON" in report["problems"][0]


def test_agent_answers_one_legal_move() -> None:
    state = state_from_fen(KIWIPETE)
    for name in ["builtin:random", "builtin:greedy", "builtin:random?seed=3"]:
        result = run(["agent", "--agent", name], json.dumps(state))
        assert result.returncode == 0, result.stderr
        answer = json.loads(result.stdout)
        move = chess.Move.from_uci(
            answer["from"] + answer["to"] + (answer["promotion"] or "").lower()
        )
        assert move in chess.Board(KIWIPETE).legal_moves
        assert result.stdout.count("\n") == 1


def test_agent_jsonl_answers_each_line() -> None:
    fens = [KIWIPETE, chess.STARTING_FEN, "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"]
    stdin = "".join(json.dumps(state_from_fen(f)) + "\n" for f in fens)
    result = run(["agent", "--jsonl", "--agent", "builtin:greedy"], stdin)
    assert result.returncode == 0, result.stderr
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(answers) == 3


def test_game_over_state_is_an_input_error() -> None:
    mated = state_from_fen("7k/6Q1/6K1/8/8/8/8/8 b - - 0 60")
    result = run(["agent"], json.dumps(mated))
    assert result.returncode == 2 and "no legal move" in result.stderr


def test_agent_cold_path_imports_only_what_it_needs() -> None:
    """``enoch agent --agent builtin:random`` must start fast (issue: < 150 ms cold), so it may
    not import the arena, the engine, MicroChess or Enochian chess. Checked by module list,
    not by a clock: deterministic on any machine."""
    code = (
        "import sys, io, json\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))\n"
        "from enoch.cli import main\n"
        "main(['agent', '--agent', 'builtin:random'])\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('enoch'))))\n"
    )
    state = json.dumps(state_from_fen(chess.STARTING_FEN))
    result = subprocess.run(
        [sys.executable, "-c", code, state], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    modules = json.loads(result.stdout.strip().splitlines()[-1])
    parts = ("arena", "engine", "microchess", "enochian")
    heavy = [m for m in modules if m.count(".") and m.split(".")[1] in parts]
    # Registering the subcommands imports each part's small ``cli`` module, nothing more.
    assert all(m.endswith(".cli") or m.count(".") == 1 for m in heavy), heavy


def test_every_help_text_prints_its_percent_signs_once() -> None:
    # argparse %-formats help= strings but prints a description as written: "95%%" in a
    # description showed as "95%%" in `enoch rate --help`
    import argparse

    from enoch.cli import build_parser

    def helps(parser: argparse.ArgumentParser) -> list[str]:
        out = [parser.format_help()]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    out += helps(sub)
        return out

    texts = helps(build_parser())
    assert len(texts) > 20
    for text in texts:
        assert "%%" not in text, text[:200]
