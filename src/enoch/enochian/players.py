"""The fast path for in-process Enochian agents.

Through JSON, an in-process agent costs the referee more than the rules do: the state is
written as JSON each ply and parsed back into a position by the agent (two thirds of a random
game's time). An agent may instead define ``answer_state(state, fields)``: it gets a *copy* of
the rules state (cheap: moves replace the lists they change) and the state's optional fields
(``move_time_limit``, ``last_error``, ...), and answers with a native action or an answer
object. The referee judges that answer like any other, so a wrong one is refused as usual.
"""

from __future__ import annotations

from typing import Any

from enoch.arena.players import Player, Raw, Turn
from enoch.enochian.game import EnochianState


class StatePlayer(Player):
    """A Python Enochian agent with ``answer_state``."""

    def __init__(self, name: str, agent: Any) -> None:
        self.name = name
        self.agent = agent
        self.timed = not getattr(agent, "untimed", False)

    def ask(self, turn: Turn) -> Raw:
        state = turn.state
        assert isinstance(state, EnochianState)
        return self.agent.answer_state(state.st.copy(), turn.fields)

    def close(self) -> None:
        close = getattr(self.agent, "close", None)
        if close is not None:
            close()


__all__ = ["StatePlayer"]
