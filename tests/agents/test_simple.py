"""The random and greedy agents: legal always, claims when valid, greedy really greedy."""

from __future__ import annotations

import random

import chess
import pytest

from enoch.protocol import make_state, state_from_fen
from enoch.rules import Position
from tests.builtins import make_builtin


@pytest.mark.parametrize("name", ["random", "greedy"])
def test_never_illegal_over_many_positions(name: str) -> None:
    """Thousands of positions from seeded games, each answer checked by python-chess."""
    agent = make_builtin(f"builtin:{name}?seed=11")
    rng = random.Random(5)
    checked = 0
    for _game in range(12):
        board = chess.Board()
        pos = Position.start()
        history: list[str] = []
        while not board.is_game_over() and board.ply() < 250:
            answer = agent.answer(make_state(pos, history))
            if "action" in answer:
                assert answer["action"] == "claim_draw"
                assert board.is_repetition(3) or board.halfmove_clock >= 100
                break
            uci = answer["from"] + answer["to"] + (answer["promotion"] or "").lower()
            assert chess.Move.from_uci(uci) in board.legal_moves
            checked += 1
            # Alternate the agent's move with a random one to vary the games.
            move = uci if rng.random() < 0.5 else rng.choice(list(board.legal_moves)).uci()
            history.append(pos.position_fen())
            pos.make(pos.parse_uci(move))
            board.push_uci(move)
    assert checked > 1500


def test_claims_threefold_and_fifty() -> None:
    pos = Position.start()
    history = []
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8"] * 2:
        history.append(pos.position_fen())
        pos.make(pos.parse_uci(uci))
    for name in ["random", "greedy"]:
        agent = make_builtin(f"builtin:{name}")
        assert agent.answer(make_state(pos, history)) == {
            "action": "claim_draw",
            "reason": "threefold_repetition",
        }
        # Two occurrences only: no claim.
        assert "action" not in agent.answer(make_state(pos, history[4:]))
        fifty = state_from_fen("4k3/8/8/8/8/8/8/4K2R w - - 100 80")
        assert agent.answer(fifty) == {"action": "claim_draw", "reason": "fifty_move_rule"}
        assert "action" not in agent.answer(state_from_fen("4k3/8/8/8/8/8/8/4K2R w - - 99 80"))


def test_greedy_takes_the_most_valuable_capture() -> None:
    # The knight on d5 can take a pawn (c7), a rook (e7) or the queen (f6).
    state = state_from_fen("4k3/2p1r3/5q2/3N4/8/8/8/7K w - - 0 1")
    for seed in range(10):
        answer = make_builtin(f"builtin:greedy?seed={seed}").answer(state)
        assert (answer["from"], answer["to"]) == ("d5", "f6")


def test_seeded_random_is_reproducible() -> None:
    state = state_from_fen(chess.STARTING_FEN)
    a = [make_builtin("builtin:random?seed=42").answer(state) for _ in range(3)]
    assert a[0] == a[1] == a[2]


@pytest.mark.parametrize("name", ["random", "greedy"])
def test_read_only_agents_leave_the_position_as_they_found_it(name: str) -> None:
    """``READ_ONLY`` agents are handed the referee's live position: over whole games, nothing
    of it (board, key, history, undo stack) may change while they choose."""
    agent = make_builtin(f"builtin:{name}?seed=3")
    assert type(agent).READ_ONLY
    for game in range(6):
        pos = Position.start()
        rng = random.Random(game)
        for _ply in range(200):
            moves = pos.legal_moves()
            if not moves:
                break
            before = (pos.position_fen(), pos.key, list(pos.history), len(pos.stack))
            answer = agent.answer_position(pos, legal_moves=list(moves))
            assert (pos.position_fen(), pos.key, list(pos.history), len(pos.stack)) == before
            pos.make(answer if isinstance(answer, int) else rng.choice(moves))
