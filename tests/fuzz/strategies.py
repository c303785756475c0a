"""Hypothesis strategies for malformed input: JSON values, states, FENs, option values and
UCI command streams. Most inputs start from a valid one and break it in one place, where bugs
live (a valid shape with one wrong field), and some are noise."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from hypothesis import strategies as st

from enoch.protocol import state_from_fen
from enoch.rules import STARTING_FEN, Position

# Text that has broken parsers before: huge and signed numbers, other scripts' digits,
# whitespace, NUL, the surrogate-free but odd, and the words of the protocols.
ODD_TEXT = [
    "",
    " ",
    "+3",
    " 3",
    "3 ",
    "٣",
    "\uff13",  # a fullwidth digit three
    "1e400",
    "-1e400",
    "nan",
    "inf",
    "-0",
    "0x10",
    "1_000",
    "9" * 5000,
    "-" + "9" * 30,
    "x y",
    "\x00",
    "\n",
    "startpos",
    "x" * 5000,
    "é",
    "😀",
]

numbers = st.one_of(
    st.integers(min_value=-(10**6), max_value=10**6),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.sampled_from([4000, -4000, 63, 64]).map(lambda n: (10 ** abs(n)) * (1 if n > 0 else -1)),
    st.sampled_from([100_000, 100_001, 2**63]),
    st.floats(allow_nan=False, allow_infinity=False),
)
odd_strings = st.one_of(st.sampled_from(ODD_TEXT), st.text(max_size=30))
json_scalars = st.one_of(st.none(), st.booleans(), numbers, odd_strings)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=8,
)


def random_position(seed: int, plies: int) -> Position:
    """A position reached by random legal moves from the start."""
    rng = random.Random(seed)
    pos = Position.start()
    for _ in range(plies):
        moves = pos.legal_moves()
        if not moves:
            break
        pos.make(rng.choice(moves))
    return pos


@st.composite
def valid_states(draw: st.DrawFn) -> dict[str, Any]:
    pos = random_position(draw(st.integers(0, 10**6)), draw(st.integers(0, 40)))
    history = []
    for _ in range(draw(st.integers(0, 3))):  # the history's entries need only be positions
        history.append(random_position(draw(st.integers(0, 999)), 4).position_fen())
    return state_from_fen(pos.fen(), history)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


@st.composite
def broken(draw: st.DrawFn, base: st.SearchStrategy[dict[str, Any]]) -> Any:
    """A valid document broken in one to three places: a value replaced, a key removed or
    added, a list entry replaced by odd text (e.g. a history FEN with clocks ``x y``)."""
    doc = copy.deepcopy(draw(base))
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent: Any = doc
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        action = draw(st.sampled_from(["replace", "delete", "add", "text"]))
        if action == "replace":
            parent[key] = draw(json_values)
        elif action == "delete" and isinstance(parent, dict):
            del parent[key]
        elif action == "add" and isinstance(parent, dict):
            parent[draw(st.text(max_size=10))] = draw(json_values)
        elif action == "text":
            old = parent[key]
            if isinstance(old, str) and old:
                words = old.split(" ")
                words[draw(st.integers(0, len(words) - 1))] = draw(odd_strings)
                parent[key] = " ".join(words)
            else:
                parent[key] = draw(odd_strings)
    return doc


@st.composite
def encoded(draw: st.DrawFn, docs: st.SearchStrategy[Any]) -> bytes:
    """A document as the bytes a reader gets: JSON, JSON of its JSON text (a string), cut
    short, with junk around it, deeply nested, or not UTF-8."""
    doc = draw(docs)
    text = json.dumps(doc, ensure_ascii=draw(st.booleans()))
    how = draw(
        st.sampled_from(["plain"] * 6 + ["string", "cut", "junk", "nest", "bytes", "digits"])
    )
    if how == "digits":  # a number of more digits than Python converts (JSON has no limit)
        import re

        text = re.sub(r"(?<![\w.])[0-9]+(?![\w.])", "9" * 5000, text, count=1)
    elif how == "string":
        text = json.dumps(text)
    elif how == "cut":
        text = text[: draw(st.integers(0, max(len(text) - 1, 0)))]
    elif how == "junk":
        text = draw(odd_strings) + text + draw(odd_strings)
    elif how == "nest":
        depth = draw(st.sampled_from([10, 1000, 100_000]))
        text = "[" * depth + text + "]" * depth
    elif how == "bytes":
        return text.encode() + draw(st.binary(min_size=1, max_size=8))
    return text.encode("utf-8", "surrogatepass")


FEN_CHARS = "pnbrqkPNBRQK12345678/ wb-KQkqabcdefgh0123456789"


@st.composite
def fens(draw: st.DrawFn) -> str:
    """Valid FENs broken in one field, FEN-alphabet noise, and odd text."""
    kind = draw(st.sampled_from(["broken", "broken", "noise", "odd"]))
    if kind == "odd":
        return draw(odd_strings)
    if kind == "noise":
        return draw(st.text(alphabet=FEN_CHARS, max_size=90))
    fen = random_position(draw(st.integers(0, 10**6)), draw(st.integers(0, 30))).fen()
    fields = fen.split(" ")
    i = draw(st.integers(0, len(fields) - 1))
    fields[i] = draw(st.one_of(odd_strings, st.text(alphabet=FEN_CHARS, max_size=20)))
    if draw(st.booleans()):
        del fields[draw(st.integers(0, len(fields) - 1))]
    return " ".join(fields)


# UCI: commands a GUI sends, with numbers and words that have broken engines.
uci_numbers = st.one_of(st.sampled_from(ODD_TEXT[:15]), st.integers(-5, 3).map(str))


@st.composite
def uci_streams(draw: st.DrawFn) -> str:
    """A session of UCI commands ending with ``quit``. Every ``go`` carries a bound (an
    unbounded ``go infinite`` is stopped by the GUI, here by the ``stop`` that follows)."""
    lines = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(
            st.sampled_from(
                ["uci", "isready", "ucinewgame", "position", "go", "setoption", "noise", "d"]
            )
        )
        if kind == "position":
            head = draw(st.sampled_from(["startpos", "fen " + draw(fens()), "fen", "", "x"]))
            moves = draw(
                st.lists(st.sampled_from(["e2e4", "e7e5", "g1f3", "zz", "e2e5"]), max_size=3)
            )
            lines.append(f"position {head}" + (" moves " + " ".join(moves) if moves else ""))
        elif kind == "go":
            bound = draw(st.sampled_from(["depth", "nodes", "movetime", "wtime", "btime"]))
            value = draw(uci_numbers)
            if bound == "depth":
                value = draw(st.sampled_from(["1", "2", value]))
            lines.append(f"go {bound} {value}")
            lines.append("stop")
        elif kind == "setoption":
            name = draw(st.sampled_from(["Hash", "Threads", "Move Overhead", "Clear Hash", "Nope"]))
            lines.append(f"setoption name {name} value {draw(uci_numbers)}")
        elif kind == "noise":
            lines.append(draw(st.text(max_size=40)).replace("\n", " "))
        else:
            lines.append(kind)
    lines.append("quit")
    return "\n".join(lines) + "\n"


STARTING_STATE = state_from_fen(STARTING_FEN)
