"""The one answer decoder of the arena: an agent's text becomes one JSON value, or a refusal.

Every game's answers arrive the same way (text from a program, a body from an HTTP agent), so
they are decoded once, here, before the game judges them. Strict by default: exactly one JSON
value, no duplicate keys (which of two ``"from"`` keys would be the move?), no text after it,
no ``NaN``, and an object: every game's answer is a JSON object, and a bare number must never
reach a game's ``judge``, which takes an int as a trusted in-process agent's native action
(the text ``1025`` was once a legal chess move). ``lenient`` is for experiments with language
models: it takes the one JSON object out of a Markdown fence or of surrounding prose, and never
guesses one where there are two.
"""

from __future__ import annotations

from typing import Any

from enoch._json import extract_object, loads_strict
from enoch.errors import ProtocolError
from enoch.game.api import Refusal


def decode_answer(raw: str | bytes, *, lenient: bool = False) -> Any:
    """The JSON value of an answer's text, or a :class:`Refusal` (``invalid_answer``)."""
    try:
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise ProtocolError("answer is not UTF-8 text") from None
        text = raw.strip()
        if lenient and not text.startswith("{"):
            text = extract_object(text)
        value = loads_strict(text, "answer")
    except ProtocolError as exc:
        return Refusal("invalid_answer", str(exc))
    if not isinstance(value, dict):
        kind = {str: "a string", list: "an array", bool: "a boolean", type(None): "null"}
        got = kind.get(type(value), "a number")
        return Refusal("invalid_answer", f"answer must be a JSON object, got {got}")
    return value
