"""The referee's game results against python-chess, the independent oracle.

Games between in-process agents (random and greedy, which claim every valid draw, and a
shuffler that never claims and plays its last move backwards, to reach threefold and fivefold
repetitions) are replayed move by move in python-chess. Every ending must be one python-chess
recognises at that position, with the same result, and no earlier position may have ended the
game or offered a claim that a claiming agent would have made.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import chess
import pytest

from enoch.agents.simple import GreedyAgent, RandomAgent
from enoch.arena import GameConfig, play_game
from enoch.protocol import move_answer
from enoch.rules import Position

AUTOMATIC = {
    "checkmate": chess.Termination.CHECKMATE,
    "stalemate": chess.Termination.STALEMATE,
    "insufficient_material": chess.Termination.INSUFFICIENT_MATERIAL,
    "seventyfive_moves": chess.Termination.SEVENTYFIVE_MOVES,
    "fivefold_repetition": chess.Termination.FIVEFOLD_REPETITION,
}


class Shuffler:
    """Plays its own previous move backwards when it can (mostly), else a random move; never
    claims, so games run on to fivefold repetition and the 75-move rule."""

    claims = False

    def __init__(self, seed: int, backwards: float = 0.9) -> None:
        self.rng = random.Random(seed)
        self.backwards = backwards
        self.last: tuple[int, int] | None = None
        self.name = f"shuffler{seed}"

    def answer_position(self, pos: Position, **fields: Any) -> dict[str, Any]:
        moves = pos.legal_moves()
        choice = None
        if self.last is not None and self.rng.random() < self.backwards:
            fr, to = self.last
            choice = next(
                (m for m in moves if m & 63 == to and (m >> 6) & 63 == fr and m < 4096), None
            )
        if choice is None:
            choice = self.rng.choice(moves)
        self.last = (choice & 63, (choice >> 6) & 63)
        return move_answer(choice)


def _agents(kind: str, seed: int) -> tuple[Any, Any]:
    if kind == "random":
        return RandomAgent(seed=str(seed)), RandomAgent(seed=str(seed + 1))
    if kind == "greedy":
        return GreedyAgent(seed=str(seed)), RandomAgent(seed=str(seed + 1))
    if kind == "wanderer":  # random moves, never a claim: on to the 75-move rule
        return Shuffler(seed, 0.0), Shuffler(seed + 1, 0.0)
    return Shuffler(seed), Shuffler(seed + 1)


def _check_game(kind: str, seed: int, seen: Counter[str]) -> None:
    white, black = _agents(kind, seed)
    result = play_game(white, black, config=GameConfig(timeout=30))
    board = chess.Board()
    claims = [getattr(a, "claims", True) for a in (white, black)]
    for uci in result.moves:
        # Not over yet: no automatic ending, and a claiming agent had nothing to claim.
        assert board.outcome() is None, (seed, board.fen())
        if claims[0 if board.turn else 1]:
            assert not board.is_repetition(3) and board.halfmove_clock < 100, (seed, board.fen())
        board.push_uci(uci)
    seen[result.termination] += 1
    if result.termination in AUTOMATIC:
        outcome = board.outcome()
        assert outcome is not None, (seed, result.termination, board.fen())
        assert outcome.termination == AUTOMATIC[result.termination], (seed, board.fen())
        assert outcome.result() == result.result
    elif result.termination == "threefold_repetition":
        assert board.outcome() is None and board.is_repetition(3) and result.result == "1/2-1/2"
    elif result.termination == "fifty_moves":
        assert (
            board.outcome() is None and board.halfmove_clock >= 100 and result.result == "1/2-1/2"
        )
    else:
        pytest.fail(f"unexpected ending {result.termination}: {result.reason}")


@pytest.mark.parametrize("kind", ["random", "greedy", "shuffler", "wanderer"])
def test_referee_endings_agree_with_python_chess(kind: str) -> None:
    seen: Counter[str] = Counter()
    for seed in range(0, 2 * 200, 2):
        _check_game(kind, seed, seen)
    expected = {
        "random": {"insufficient_material", "threefold_repetition", "fifty_moves"},
        "greedy": {"checkmate", "insufficient_material"},
        "shuffler": {"fivefold_repetition"},
        "wanderer": {"seventyfive_moves", "insufficient_material"},
    }[kind]
    assert expected <= set(seen), dict(seen)


@pytest.mark.slow
def test_referee_oracle_soak() -> None:
    seen: Counter[str] = Counter()
    kinds = ("random", "greedy", "shuffler", "wanderer")
    for i in range(3000):
        _check_game(kinds[i % 4], 2 * i, seen)
    assert {"checkmate", "stalemate", "fivefold_repetition", "seventyfive_moves"} <= set(seen), (
        dict(seen)
    )
