"""The fast path for in-process chess agents.

Building the state JSON each ply and having the agent parse the whole ``position_history``
back costs far more than the rules themselves (O(plies) per ply). An in-process agent may
define ``answer_position(position, **fields)``: it gets a *copy* of the live position (its key
history loaded, so repetition counts work) and the state's optional fields, and answers with a
move as an int or an answer object. enoch's own baselines also take the referee's legal moves
instead of generating them again, and those that never make a move on the position they are
given (``READ_ONLY``: random, greedy) get the live position itself, since copying the key
history is O(plies) a ply. The referee judges the answer like any other.
"""

from __future__ import annotations

from typing import Any

from enoch.agents.simple import BuiltinAgent
from enoch.arena.players import Player, Raw, Turn
from enoch.fide.game import ChessState


class PositionPlayer(Player):
    """A Python chess agent with ``answer_position``."""

    def __init__(self, name: str, agent: Any) -> None:
        self.name = name
        self.agent = agent
        self.timed = not getattr(agent, "untimed", False)
        self._hand_legal = isinstance(agent, BuiltinAgent)
        # enoch's read-only baselines see the live position (no copy); every other agent a
        # copy, so that nothing it does to the position can reach the referee's
        self._live = self._hand_legal and type(agent).READ_ONLY

    def ask(self, turn: Turn) -> Raw:
        state = turn.state
        assert isinstance(state, ChessState)
        fields = turn.fields
        offer = state.draw_offer_field()
        if offer is not None:
            fields = {**fields, "draw_offer": offer}
        if self._hand_legal:
            return self.agent.answer_position(
                state.pos if self._live else state.pos.copy(),
                legal_moves=list(state.legal_moves()),
                **fields,
            )
        return self.agent.answer_position(state.pos.copy(), **fields)

    def close(self) -> None:
        close = getattr(self.agent, "close", None)
        if close is not None:
            close()
