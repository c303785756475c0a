"""The JSON agent protocol (``docs/protocol.md``): states and answers, in one place.

Public surface: :func:`parse_state` / :func:`make_state` for the state object,
:func:`parse_answer` / :func:`answer_move` / :func:`move_answer` for answers, and
:func:`schema` for the shipped JSON Schema files.
"""

from typing import Any

from enoch._json import loads_strict
from enoch.protocol.answer import (
    ACTIONS,
    CLAIM_REASONS,
    Answer,
    answer_move,
    move_answer,
    parse_answer,
)
from enoch.protocol.state import (
    GameState,
    make_state,
    parse_state,
    read_state,
    state_from_fen,
    state_problems,
)


def schema(name: str) -> dict[str, Any]:
    """A shipped JSON Schema: ``"state"`` or ``"answer"``."""
    import json
    from importlib import resources

    if name not in ("state", "answer"):
        raise ValueError(f"no schema named {name!r}")
    text = resources.files("enoch.protocol").joinpath(f"schema/{name}.schema.json").read_text()
    result: dict[str, Any] = json.loads(text)
    return result


__all__ = [
    "ACTIONS",
    "CLAIM_REASONS",
    "Answer",
    "GameState",
    "answer_move",
    "loads_strict",
    "make_state",
    "move_answer",
    "parse_answer",
    "parse_state",
    "read_state",
    "schema",
    "state_from_fen",
    "state_problems",
]
