"""Strict JSON reading for everything enoch reads from outside (states, answers, options).

Python's ``json.loads`` keeps the last of two equal keys, reads ``NaN`` and ``Infinity``, and
raises ``RecursionError`` on deep nesting. An agent's answer with ``"from"`` twice is ambiguous,
and a referee that silently picks one is guessing a move, so every reader in enoch goes through
:func:`loads_strict`, which refuses all three with one line that says what is wrong.
"""

from __future__ import annotations

import json
from typing import IO, Any

from enoch.errors import ProtocolError, quote

# The largest state (or any JSON document) read when the caller names no limit. A state
# carries the position history of its game: the longest game FIDE's 75-move rule allows, every
# position in the history, is about 1 MB; twice that. A 50 MB "state" is refused at once
# instead of keeping an agent busy for a minute. Answers have their own, smaller limit
# (``--max-answer-bytes``, 64 KiB), enforced by the transports as they read.
DEFAULT_MAX_BYTES = 2 * 1024 * 1024


def too_large(what: str, max_bytes: int, flag: str = "--max-state-bytes") -> ProtocolError:
    return ProtocolError(f"{what} is larger than {max_bytes} bytes (the limit; see {flag})")


def add_state_limit(parser: Any) -> None:
    """The ``--max-state-bytes`` flag of every command that reads a state."""
    from enoch._numbers import arg

    parser.add_argument(
        "--max-state-bytes",
        type=arg("int", 2),
        default=DEFAULT_MAX_BYTES,
        metavar="N",
        help="refuse a larger state (default: %(default)s)",
    )


def read_limited(stream: IO[bytes], what: str, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """All of ``stream``, refused as soon as it passes ``max_bytes`` (never read whole)."""
    data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise too_large(what, max_bytes)
    return data


def read_line_limited(stream: IO[bytes], what: str, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """One line of ``stream`` (b"" at its end), refused when longer than ``max_bytes``."""
    line = stream.readline(max_bytes + 2)
    if len(line.rstrip(b"\r\n")) > max_bytes:
        raise too_large(what, max_bytes)
    return line


def loads_strict(text: str | bytes, what: str, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Any:
    """``json.loads`` that rejects duplicate keys, NaN/Infinity, deep nesting and texts
    longer than ``max_bytes`` (None: no limit), with a one-line error."""
    if max_bytes is not None and len(text) > max_bytes:
        raise too_large(what, max_bytes)
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError(
                f"{what} is not UTF-8 text: {exc.reason} at byte {exc.start}"
            ) from None

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in items:
            if k in out:
                raise ProtocolError(f"{what} has the key {quote(k)} twice")
            out[k] = v
        return out

    def constant(name: str) -> Any:
        raise ProtocolError(f"{what} contains {name}, which is not JSON")

    if not text.strip():
        raise ProtocolError(f"{what} is empty (expected one JSON object)")
    try:
        return json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            raise ProtocolError(
                f"{what} has text after the JSON value (line {exc.lineno} column {exc.colno}); "
                "send exactly one JSON object"
            ) from None
        raise ProtocolError(
            f"{what} is not valid JSON: {exc.msg} (line {exc.lineno} column {exc.colno})"
        ) from None
    except RecursionError:
        raise ProtocolError(f"{what} is nested too deeply") from None
    except ValueError as exc:  # an integer literal past Python's digit limit
        if "digits" in str(exc):
            raise ProtocolError(f"{what} has an integer of more than 4300 digits") from None
        raise ProtocolError(f"{what} is not usable JSON: {str(exc)[:80]}") from None


def extract_object(text: str) -> str:
    """The one JSON object of a text that wraps it in a Markdown fence or in prose (lenient
    reading for language models); never a guess where there are two fences."""
    import re  # only lenient reading needs it; keep cold start fast

    fenced = re.findall(r"```(?:json|JSON)?\s*(\{.*?\})\s*```", text, re.S)
    if len(fenced) == 1:
        return str(fenced[0])
    if len(fenced) > 1:
        raise ProtocolError("answer has more than one fenced JSON object")
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ProtocolError("answer contains no JSON object")
    return text[start : end + 1]


def extract_one_object(text: str) -> str:
    """The one JSON object in a language model's text: bare, in a Markdown fence or inside
    prose. Every top-level ``{...}`` that parses as JSON counts; the same object written twice
    (in prose and in a fence) is one object. None, or two different ones, is a
    :class:`ProtocolError`: a referee that picked one would be guessing the move."""
    decoder = json.JSONDecoder()
    found: list[tuple[str, Any]] = []
    i = text.find("{")
    while i >= 0:
        try:
            value, end = decoder.raw_decode(text, i)
        except (ValueError, RecursionError):
            i = text.find("{", i + 1)
            continue
        found.append((text[i:end], value))
        i = text.find("{", end)
    if not found:
        raise ProtocolError("the model's text contains no JSON object")
    first_text, first = found[0]
    if any(value != first for _, value in found[1:]):
        raise ProtocolError(
            f"the model's text contains {len(found)} different JSON objects; answer with "
            "exactly one"
        )
    return first_text
