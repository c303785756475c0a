"""The state JSON of the agent protocol: parse and validate strictly, write exactly.

One place for the state of ``docs/protocol.md`` ("The state"), so that the referee, the
built-in agents and ``enoch validate`` cannot disagree. Parsing collects *every* problem (for
``enoch validate``) and names where each one is (``state.board.e9``,
``state.position_history[3]``); :func:`parse_state` raises them as one :class:`ProtocolError`.

History convention (docs/protocol.md): each ``position_history`` entry is the first four FEN fields
with the en passant square written only when an en passant capture is legal, so that string
equality is FIDE's "same position". Readers here are tolerant all the same: every entry is
parsed and re-keyed, so a history written with the "after every double step" convention still
counts repetitions correctly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from enoch._json import loads_strict
from enoch.errors import FenError, ProtocolError, quote
from enoch.rules import (
    BLACK,
    MAX_CLOCK,
    PIECE_SYMBOLS,
    SQUARE_INDEX,
    SQUARE_NAMES,
    WHITE,
    Position,
)

COLOURS = ("white", "black")
SYMBOLS = frozenset(s for s in PIECE_SYMBOLS if s != ".")
REQUIRED_FIELDS = (
    "board",
    "turn",
    "castling",
    "en_passant",
    "halfmove_clock",
    "fullmove_number",
    "position_history",
)
# Optional fields the referee adds when they carry news; readers tolerate any other field.
OPTIONAL_FIELDS = ("draw_offer", "last_error", "clock", "move_time_limit")


@dataclass
class GameState:
    """A parsed state: the position (its key history loaded, so repetition counts work), the
    history as normalised FEN strings, and the optional fields that were present."""

    position: Position
    history: list[str]
    draw_offer: str | None = None
    last_error: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _show(value: Any) -> str:
    """A value as JSON for a message, cut to a short prefix (never the whole of a huge one)."""
    if isinstance(value, str) and len(value) > 40:
        value = value[:40]
    try:
        text = json.dumps(value) if not isinstance(value, float) or value == value else str(value)
    except (ValueError, TypeError, RecursionError):  # a huge integer, a Python object
        return quote(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def state_problems(data: Any) -> tuple[list[str], GameState | None]:
    """Every problem of a state (already decoded from JSON), and the state if there are none."""
    if not isinstance(data, Mapping):
        return [f"state must be a JSON object, got {_type_name(data)}"], None
    problems: list[str] = []
    for name in REQUIRED_FIELDS:
        if name not in data:
            problems.append(f"state: missing field {name!r}")

    placement: list[int] = [0] * 64
    board = data.get("board")
    if "board" in data:
        if not isinstance(board, Mapping):
            problems.append(
                f"state.board must be an object of square: symbol, got {_type_name(board)}"
            )
        else:
            for sq_name, symbol in board.items():
                sq = SQUARE_INDEX.get(sq_name) if isinstance(sq_name, str) else None
                if sq is None:
                    problems.append(
                        f"state.board: {quote(sq_name)} is not a square "
                        "(expected a1..h8, lowercase)"
                    )
                    continue
                if not isinstance(symbol, str) or symbol not in SYMBOLS:
                    problems.append(
                        f"state.board.{sq_name}: {_show(symbol)} is not a piece symbol "
                        "(one of KQRBNP for white, kqrbnp for black)"
                    )
                    continue
                placement[sq] = PIECE_SYMBOLS.index(symbol)

    turn = data.get("turn")
    if "turn" in data and turn not in COLOURS:
        problems.append(f'state.turn must be "white" or "black", got {_show(turn)}')

    castling_text = ""
    castling = data.get("castling")
    if "castling" in data:
        if not isinstance(castling, Mapping):
            problems.append(f"state.castling must be an object, got {_type_name(castling)}")
        else:
            for colour in COLOURS:
                side = castling.get(colour)
                if not isinstance(side, Mapping):
                    problems.append(
                        f"state.castling.{colour} must be an object with kingside and queenside"
                        f" booleans, got {_type_name(side) if colour in castling else 'nothing'}"
                    )
                    continue
                for wing, letter in (("kingside", "K"), ("queenside", "Q")):
                    value = side.get(wing)
                    if not isinstance(value, bool):
                        got = _show(value) if wing in side else "nothing"
                        problems.append(
                            f"state.castling.{colour}.{wing} must be true or false, got {got}"
                        )
                    elif value:
                        castling_text += letter if colour == "white" else letter.lower()
                extra = set(side) - {"kingside", "queenside"}
                if extra:
                    problems.append(
                        f"state.castling.{colour}: unknown key {quote(sorted(extra)[0])}"
                    )
            extra = set(castling) - set(COLOURS)
            if extra:
                problems.append(f"state.castling: unknown key {quote(sorted(extra)[0])}")

    ep = data.get("en_passant")
    if ep is not None and (not isinstance(ep, str) or ep not in SQUARE_INDEX):
        problems.append(f'state.en_passant must be null or a square like "e3", got {_show(ep)}')

    for name, minimum in (("halfmove_clock", 0), ("fullmove_number", 1)):
        if name in data:
            value = data[name]
            if not _is_int(value):
                problems.append(f"state.{name} must be an integer, got {_show(value)}")
            elif value < minimum:
                adjective = "negative" if minimum == 0 else "less than 1"
                problems.append(f"state.{name} is {adjective} ({quote(value)})")
            elif value > MAX_CLOCK:
                problems.append(f"state.{name} is more than {MAX_CLOCK} ({quote(value)})")

    history = data.get("position_history")
    if "position_history" in data and not isinstance(history, list):
        problems.append(
            f"state.position_history must be an array of FEN strings, got {_type_name(history)}"
        )
        history = None

    draw_offer = data.get("draw_offer")
    if draw_offer is not None and draw_offer not in COLOURS:
        problems.append(
            f'state.draw_offer must be null, "white" or "black", got {_show(draw_offer)}'
        )
    last_error = data.get("last_error")
    if last_error is not None and not isinstance(last_error, str):
        problems.append(f"state.last_error must be null or a string, got {_type_name(last_error)}")

    if problems:
        return problems, None

    # The structure is right: build the position and judge whether it can exist.
    pos = Position()
    for sq, code in enumerate(placement):
        if code:
            pos.put(sq, code)
    pos.turn = WHITE if turn == "white" else BLACK
    for letter, bit in (("K", 1), ("Q", 2), ("k", 4), ("q", 8)):
        if letter in castling_text:
            pos.castling |= bit
    pos.ep = SQUARE_INDEX[ep] if ep is not None else -1
    pos.halfmove = data["halfmove_clock"]
    pos.fullmove = data["fullmove_number"]
    problems.extend(f"state: impossible position: {p}" for p in pos.problems())

    keys: list[int] = []
    normalised: list[str] = []
    assert history is not None
    for i, entry in enumerate(history):
        if not isinstance(entry, str):
            problems.append(
                f"state.position_history[{i}] must be a FEN string, got {_type_name(entry)}"
            )
            continue
        fields = entry.split(" ")
        if len(fields) not in (4, 6):
            problems.append(
                f"state.position_history[{i}]: {_show(entry)} is not a FEN "
                f"(expected 4 fields, or 6 with clocks; got {len(fields)})"
            )
            continue
        try:
            # Clocks are not part of a position's identity (they are parsed, and must be
            # clocks, but only placement and rights are judged).
            hp = Position.from_fen(entry, validate=False)
        except FenError as exc:
            problems.append(f"state.position_history[{i}]: {exc}")
            continue
        bad = hp.problems()
        if bad:
            problems.append(f"state.position_history[{i}]: impossible position: {bad[0]}")
            continue
        keys.append(hp.key)
        normalised.append(hp.position_fen())
    if problems:
        return problems, None

    pos.key = pos._compute_key()
    pos.history = keys
    extras = {k: v for k, v in data.items() if k not in REQUIRED_FIELDS}
    return [], GameState(pos, normalised, draw_offer, last_error, extras)


def parse_state(data: str | bytes | Mapping[str, Any]) -> GameState:
    """Parse a state (JSON text or decoded object); :class:`ProtocolError` lists every problem."""
    if isinstance(data, str | bytes):
        data = loads_strict(data, "state")
    return read_state(data)


def read_state(data: Any) -> GameState:
    """A state already decoded from JSON (what an agent's ``answer`` receives). Never text: a
    JSON string that holds a state is a string, refused, not decoded a second time."""
    problems, state = state_problems(data)
    if state is None:
        # one short line: the first problems (enoch validate lists them all)
        more = (
            f"; and {len(problems) - 3} more (enoch validate lists them)"
            if len(problems) > 3
            else ""
        )
        raise ProtocolError("; ".join(problems[:3]) + more)
    return state


def make_state(
    position: Position,
    history: Sequence[str] = (),
    **optional: Any,
) -> dict[str, Any]:
    """The state JSON object for ``position``, exactly the fields of docs/protocol.md.

    ``history`` holds the earlier positions as :meth:`Position.position_fen` strings, oldest
    first. Optional fields (``draw_offer``, ``last_error``, ``clock``, ...) are added only when
    given and not None: writers are exact, and an agent that knows only the base fields sees
    only them.
    """
    board = position.board
    c = position.castling
    state: dict[str, Any] = {
        "board": {SQUARE_NAMES[sq]: PIECE_SYMBOLS[code] for sq, code in enumerate(board) if code},
        "turn": COLOURS[position.turn],
        "castling": {
            "white": {"kingside": bool(c & 1), "queenside": bool(c & 2)},
            "black": {"kingside": bool(c & 4), "queenside": bool(c & 8)},
        },
        "en_passant": SQUARE_NAMES[position.ep] if position.ep >= 0 else None,
        "halfmove_clock": position.halfmove,
        "fullmove_number": position.fullmove,
        "position_history": list(history),
    }
    for key, value in optional.items():
        if value is not None:
            state[key] = value
    return state


def state_from_fen(fen: str, history: Sequence[str] = ()) -> dict[str, Any]:
    """Convenience for tests and users: the state of a FEN (validated) with a history."""
    return make_state(Position.from_fen(fen), history)
