"""builtin:engine over the JSON protocol: legal answers, draw claims and offers, options."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import chess
import pytest

from enoch.errors import InputError
from enoch.protocol import make_state, parse_answer, state_from_fen
from enoch.rules import Position
from tests.builtins import make_builtin


def _uci(answer: dict[str, object]) -> str:
    return f"{answer['from']}{answer['to']}{(answer['promotion'] or '')}".lower()


def test_selfplay_positions_are_all_legal() -> None:
    """Thousands of self-play positions (shallow, randomised openings), every answer checked
    against python-chess, and the position as the engine left it checked too."""
    agent = make_builtin("builtin:engine?depth=1&hash=2")
    rng = random.Random(2024)
    checked = 0
    for _game in range(30):
        board = chess.Board()
        pos = Position.start()
        history: list[str] = []
        while not board.is_game_over(claim_draw=True) and board.ply() < 160:
            answer = agent.answer(make_state(pos, history))
            assert "action" not in answer or answer["action"] == "claim_draw"
            if "action" in answer:
                assert board.can_claim_draw()
                break
            uci = _uci(answer)
            assert chess.Move.from_uci(uci) in board.legal_moves, (board.fen(), uci)
            checked += 1
            move = uci if rng.random() < 0.75 else rng.choice(list(board.legal_moves)).uci()
            history.append(pos.position_fen())
            pos.make(pos.parse_uci(move))
            board.push_uci(move)
            assert pos.fen(en_passant="legal") == board.fen(en_passant="legal")
    assert checked >= 2000


def _repeated(pos: Position, moves: list[str]) -> list[str]:
    history = []
    for uci in moves:
        history.append(pos.position_fen())
        pos.make(pos.parse_uci(uci))
    return history


def test_claims_threefold_when_not_better() -> None:
    # Equal material, threefold on the board: claim.
    pos = Position.start()
    history = _repeated(pos, ["g1f3", "g8f6", "f3g1", "f6g8"] * 2)
    agent = make_builtin("builtin:engine?depth=3")
    assert agent.answer(make_state(pos, history)) == {
        "action": "claim_draw",
        "reason": "threefold_repetition",
    }


def test_no_claim_when_winning() -> None:
    # White is a queen up and the position has occurred three times: play on.
    pos = Position.from_fen("4k3/8/8/8/8/8/Q7/4K1N1 w - - 0 1")
    history = _repeated(pos, ["g1f3", "e8d8", "f3g1", "d8e8"] * 2)
    assert pos.repetition_count() == 3
    agent = make_builtin("builtin:engine?depth=3")
    answer = agent.answer(make_state(pos, history))
    assert "action" not in answer
    assert chess.Move.from_uci(_uci(answer)) in chess.Board(pos.fen()).legal_moves


def test_fifty_move_claim_depends_on_the_position() -> None:
    agent = make_builtin("builtin:engine?depth=3")
    # Bare kings and a knight each: claim.
    assert agent.answer(state_from_fen("4k3/8/8/8/8/8/n7/N3K3 w - - 100 80")) == {
        "action": "claim_draw",
        "reason": "fifty_move_rule",
    }
    # Black to move, a rook down: claim.
    assert agent.answer(state_from_fen("4k3/8/8/8/8/8/8/R3K3 b - - 100 80"))["action"] == (
        "claim_draw"
    )


def test_draw_offers_answered_by_evaluation() -> None:
    agent = make_builtin("builtin:engine?depth=3")
    # We (black) are a rook down: accept white's offer.
    losing = make_state(Position.from_fen("4k3/8/8/8/8/8/PPP5/R3K3 b - - 0 40"), draw_offer="white")
    assert agent.answer(losing) == {"action": "offer_draw"}
    # We (white) are a rook up: decline by moving.
    winning = make_state(
        Position.from_fen("4k3/8/8/8/8/8/PPP5/R3K3 w - - 0 40"), draw_offer="black"
    )
    answer = agent.answer(winning)
    assert "action" not in answer
    parse_answer(answer)
    # Our own pending offer (we are asked again for a move): just move.
    own = make_state(Position.from_fen("4k3/8/8/8/8/8/PPP5/R3K3 b - - 0 40"), draw_offer="black")
    assert "action" not in agent.answer(own)


def test_resigns_only_when_asked() -> None:
    lost = state_from_fen("4k3/8/8/8/8/8/PPP5/RQ2K3 b - - 0 40")
    never = make_builtin("builtin:engine?depth=2")
    for _ in range(4):
        assert "action" not in never.answer(lost)
    resigner = make_builtin("builtin:engine?depth=2&resign=500")
    answers = [resigner.answer(lost) for _ in range(3)]
    assert answers[-1] == {"action": "resign"}


@pytest.mark.parametrize(
    "spec",
    [
        "builtin:engine?colour=white",
        "builtin:engine?movetime=-1",
        "builtin:engine?movetime=abc",
        "builtin:engine?hash=0",
        "builtin:engine?depth=1.5",
        "builtin:engine?resign=x",
        "builtin:engine?threads=0",
        "builtin:engine?threads=two",
        "builtin:engine?threads=65",
    ],
)
def test_bad_options_are_input_errors(spec: str) -> None:
    with pytest.raises(InputError):
        make_builtin(spec)


def test_mate_in_one_via_the_protocol() -> None:
    agent = make_builtin("builtin:engine?movetime=0.2")
    answer = agent.answer(state_from_fen("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"))
    assert answer == {"from": "a1", "to": "a8", "promotion": None}


def test_cli_jsonl_answers_every_line() -> None:
    states = [
        state_from_fen(chess.STARTING_FEN),
        state_from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"),
    ]
    text = "".join(json.dumps(s) + "\n" for s in states)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "enoch",
            "agent",
            "--agent",
            "builtin:engine?movetime=0.1",
            "--jsonl",
        ],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.splitlines()
    assert len(out) == 2
    for line, state in zip(out, states, strict=True):
        answer = json.loads(line)
        fen = chess.Board()
        if state["turn"] == "black":
            fen.push_uci("e2e4")
        assert chess.Move.from_uci(_uci(answer)) in fen.legal_moves


def test_agent_keeps_its_table_between_moves() -> None:
    agent = make_builtin("builtin:engine?depth=4")
    state = state_from_fen("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R1BQ1RK1 w - - 0 9")
    agent.answer(state)
    filled = agent.searcher.tt_entries()
    assert filled > 0
    agent.answer(state)
    assert agent.searcher.tt_entries() >= filled
