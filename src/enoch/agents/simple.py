"""The baseline agents: random and greedy.

They are the floor every other agent is measured against, and the referee's fastest test
partners, so they do as little as the protocol allows: parse the state, claim a draw when a
claim is valid (the protocol asks agents to, see docs/protocol.md), otherwise pick a legal
move.
"""

from __future__ import annotations

import random
from typing import Any

from enoch._numbers import parse_int
from enoch.errors import InputError, ProtocolError, quote
from enoch.protocol import GameState, move_answer, read_state
from enoch.rules import BISHOP, KNIGHT, PAWN, QUEEN, ROOK, Move, Position

PIECE_VALUES = {PAWN: 1, KNIGHT: 3, BISHOP: 3, ROOK: 5, QUEEN: 9}


def claim_for(state: GameState | Position) -> dict[str, Any] | None:
    """The draw claim the side to move can make now, if any (docs/protocol.md: threefold counts the
    current position with the history; fifty moves needs ``halfmove_clock >= 100``)."""
    pos = state.position if isinstance(state, GameState) else state
    if pos.repetition_count() >= 3:
        return {"action": "claim_draw", "reason": "threefold_repetition"}
    if pos.halfmove >= 100:
        return {"action": "claim_draw", "reason": "fifty_move_rule"}
    return None


class BuiltinAgent:
    """Shared frame: options, parsing, the draw claim, and a last legality check."""

    name = "builtin"
    # Options every built-in accepts; ``movetime`` is ignored by agents that answer instantly.
    OPTIONS: tuple[str, ...] = ("seed", "movetime")
    # True for agents that only read the position they are given (never make a move on it):
    # an in-process referee may then hand over its own position instead of a copy (copying
    # the key history is O(plies) per ply, about a sixth of a random game's time).
    READ_ONLY = False

    def __init__(self, **options: str) -> None:
        unknown = sorted(set(options) - set(self.OPTIONS))
        if unknown:
            raise InputError(
                f"builtin:{self.name} has no option {quote(unknown[0])} "
                f"(options: {', '.join(self.OPTIONS)})"
            )
        seed = options.get("seed")
        number = None if seed is None else parse_int(seed, f"builtin:{self.name}: seed")
        self.rng = random.Random(number)
        self.options = options

    def answer(self, state: dict[str, Any]) -> dict[str, Any]:
        parsed = read_state(state)
        result = self.answer_position(parsed.position, draw_offer=parsed.draw_offer)
        return move_answer(result) if isinstance(result, int) else result

    def answer_position(
        self, pos: Position, *, legal_moves: list[Move] | None = None, **fields: Any
    ) -> dict[str, Any] | Move:
        """The answer without the JSON round trip, for in-process referees: ``pos`` has its key
        history loaded (the referee passes a copy), ``legal_moves`` may hand over the legal
        moves the referee already generated, ``fields`` are the state's optional fields.
        Returns an action object or a move as an int (the referee checks it against its own
        legal moves). ``answer`` is exactly parse + this."""
        claim = claim_for(pos)
        if claim is not None:
            return claim
        moves = legal_moves if legal_moves is not None else pos.legal_moves()
        if not moves:
            raise ProtocolError(
                "the position has no legal move (the game is over): nothing to answer"
            )
        move = self.choose(pos, moves)
        if move not in moves:  # legality is sacred: never print an unverified move
            raise AssertionError(f"builtin:{self.name} chose an illegal move {move}")
        return move

    def choose(self, pos: Position, moves: list[Move]) -> Move:
        raise NotImplementedError

    def close(self) -> None:
        pass


class RandomAgent(BuiltinAgent):
    """A uniformly random legal move."""

    name = "random"
    READ_ONLY = True

    def choose(self, pos: Position, moves: list[Move]) -> Move:
        return self.rng.choice(moves)


class GreedyAgent(BuiltinAgent):
    """The most valuable capture (ties broken at random), else a random move."""

    name = "greedy"
    READ_ONLY = True

    def choose(self, pos: Position, moves: list[Move]) -> Move:
        board = pos.board
        best: list[Move] = []
        best_value = 0
        for m in moves:
            victim = board[(m >> 6) & 63] & 7
            if not victim and (m >> 15) == 1:  # en passant
                victim = PAWN
            value = PIECE_VALUES.get(victim, 0)
            if value > best_value:
                best_value = value
                best = [m]
            elif value and value == best_value:
                best.append(m)
        return self.rng.choice(best or moves)
