"""Chess players: the agent interface and enoch's baselines (``builtin:random``,
``builtin:greedy``). Built-in agents are found by name through their game
(:meth:`enoch.game.api.Game.make_builtin`), so that a name means the game's own agent."""

from enoch.agents.base import Agent

__all__ = ["Agent"]
