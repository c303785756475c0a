"""Players: the agent interface and enoch's built-in agents (``builtin:NAME?opts``)."""

from enoch.agents.base import Agent
from enoch.agents.registry import BUILTINS, make_builtin, parse_builtin

__all__ = ["BUILTINS", "Agent", "make_builtin", "parse_builtin"]
