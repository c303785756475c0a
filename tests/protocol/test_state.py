"""The state JSON: round trips (hypothesis) and a table of bad inputs with their errors."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enoch.errors import ProtocolError
from enoch.protocol import make_state, parse_state, state_from_fen, state_problems
from enoch.rules import STARTING_FEN, Position

SICILIAN: dict[str, Any] = json.loads(
    """{
  "board": {
    "a1": "R", "b1": "N", "c1": "B", "d1": "Q", "e1": "K", "f1": "B", "g1": "N", "h1": "R",
    "a2": "P", "b2": "P", "c2": "P", "d2": "P", "f2": "P", "g2": "P", "h2": "P", "e4": "P",
    "a7": "p", "b7": "p", "c7": "p", "d7": "p", "e7": "p", "f7": "p", "g7": "p", "h7": "p",
    "a8": "r", "b8": "n", "c8": "b", "d8": "q", "e8": "k", "f8": "b", "g8": "n", "h8": "r"
  },
  "turn": "black",
  "castling": {"white": {"kingside": true, "queenside": true},
               "black": {"kingside": true, "queenside": true}},
  "en_passant": null,
  "halfmove_clock": 0,
  "fullmove_number": 1,
  "position_history": []
}"""
)


def test_spec_example_parses() -> None:
    state = parse_state(SICILIAN)
    assert state.position.fen() == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    assert state.history == []


def played_game(seed: int, plies: int) -> tuple[Position, list[str]]:
    """A position reached by seeded random play, and its history in the protocol's form."""
    rng = random.Random(seed)
    pos = Position.start()
    history: list[str] = []
    for _ in range(plies):
        moves = pos.legal_moves()
        if not moves:
            break
        history.append(pos.position_fen())
        pos.make(rng.choice(moves))
    return pos, history


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**9), plies=st.integers(0, 120), as_text=st.booleans())
def test_state_round_trip(seed: int, plies: int, as_text: bool) -> None:
    pos, history = played_game(seed, plies)
    state = make_state(pos, history)
    parsed = parse_state(json.dumps(state) if as_text else state)
    assert parsed.position.fen(en_passant="always") == pos.fen(en_passant="always")
    assert parsed.position.key == pos.key
    assert parsed.history == history
    assert parsed.position.repetition_count() == pos.repetition_count()
    # And back again: the writer is exact.
    assert make_state(parsed.position, parsed.history) == state


def test_history_with_after_every_double_step_convention_still_counts() -> None:
    # An agent may write history with the en passant square after every double step. The
    # reader re-keys every entry, so repetitions still count FIDE's way.
    pos, history = played_game(3, 0)
    for uci in ["e2e4", "g8f6", "g1f3", "f6g8", "f3g1", "g8f6", "g1f3", "f6g8", "f3g1"]:
        history.append(pos.fen(en_passant="always", clocks=False))
        pos.make(pos.parse_uci(uci))
    state = parse_state(make_state(pos, history))
    assert state.position.repetition_count() == pos.repetition_count() == 3


def _with(**changes: Any) -> dict[str, Any]:
    state = copy.deepcopy(SICILIAN)
    for key, value in changes.items():
        if value is _DELETE:
            del state[key]
        else:
            state[key] = value
    return state


_DELETE = object()
START = state_from_fen(STARTING_FEN)


def _board(**changes: Any) -> dict[str, Any]:
    state = copy.deepcopy(START)
    for sq, sym in changes.items():
        if sym is None:
            state["board"].pop(sq, None)
        else:
            state["board"][sq] = sym
    return state


BAD_STATES: list[tuple[str, Any, str]] = [
    ("not an object", [1, 2], "state must be a JSON object, got an array"),
    ("missing turn", _with(turn=_DELETE), "state: missing field 'turn'"),
    ("missing history", _with(position_history=_DELETE), "missing field 'position_history'"),
    ("board not object", _with(board=[]), "state.board must be an object"),
    ("bad square", _with(board={**SICILIAN["board"], "i9": "P"}), "'i9' is not a square"),
    ("uppercase square", _with(board={**SICILIAN["board"], "E5": "P"}), "'E5' is not a square"),
    (
        "bad symbol",
        _with(board={**SICILIAN["board"], "e5": "X"}),
        'state.board.e5: "X" is not a piece symbol',
    ),
    (
        "symbol not string",
        _with(board={**SICILIAN["board"], "e5": 1}),
        "state.board.e5: 1 is not a piece symbol",
    ),
    ("bad turn", _with(turn="White"), 'state.turn must be "white" or "black", got "White"'),
    ("castling not object", _with(castling=True), "state.castling must be an object"),
    (
        "castling side missing",
        _with(castling={"white": {"kingside": True, "queenside": True}}),
        "state.castling.black must be an object",
    ),
    (
        "castling not bool",
        _with(
            castling={
                "white": {"kingside": 1, "queenside": True},
                "black": {"kingside": True, "queenside": True},
            }
        ),
        "state.castling.white.kingside must be true or false, got 1",
    ),
    (
        "castling unknown key",
        _with(
            castling={
                "white": {"kingside": True, "queenside": True, "long": False},
                "black": {"kingside": True, "queenside": True},
            }
        ),
        "unknown key 'long'",
    ),
    ("ep not square", _with(en_passant="e9"), "state.en_passant must be null or a square"),
    ("ep wrong type", _with(en_passant=5), "state.en_passant must be null or a square"),
    (
        "halfmove float",
        _with(halfmove_clock=1.5),
        "state.halfmove_clock must be an integer, got 1.5",
    ),
    (
        "halfmove bool",
        _with(halfmove_clock=True),
        "state.halfmove_clock must be an integer, got true",
    ),
    ("halfmove negative", _with(halfmove_clock=-1), "state.halfmove_clock is negative (-1)"),
    ("fullmove zero", _with(fullmove_number=0), "state.fullmove_number is less than 1 (0)"),
    (
        "fullmove string",
        _with(fullmove_number="1"),
        'state.fullmove_number must be an integer, got "1"',
    ),
    ("history not list", _with(position_history="abc"), "state.position_history must be an array"),
    (
        "history not string",
        _with(position_history=[5]),
        "state.position_history[0] must be a FEN string",
    ),
    (
        "history not FEN",
        _with(position_history=["hello"]),
        'state.position_history[0]: "hello" is not a FEN',
    ),
    (
        "history bad FEN",
        _with(position_history=["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9"]),
        "state.position_history[0]: FEN",
    ),
    (
        "history impossible",
        _with(position_history=["8/8/8/8/8/8/8/8 w - -"]),
        "state.position_history[0]: impossible position: white has no king",
    ),
    ("no white king", _board(e1=None), "impossible position: white has no king"),
    ("two black kings", _board(e5="k"), "impossible position: black has 2 kings"),
    ("pawn on last rank", _board(a8="P"), "pawn on the first or last rank (a8)"),
    ("pawn on first rank", _board(b1="p"), "pawn on the first or last rank (b1)"),
    ("too many men", _board(a3="N", b3="N"), "white has 18 men (at most 16)"),
    ("nine pawns", _board(a3="P"), "white has 9 pawns"),
    (
        "side not to move in check",
        _board(e2=None, d7=None, f1=None, e7="Q"),
        "the side not to move",
    ),
    (
        "castling without rook",
        _board(h1=None),
        "castling right K without the king on e1 and the rook on h1",
    ),
    ("castling without king", _board(e8=None, d8="k"), "castling right k without the king on e8"),
    (
        "ep unexplained",
        {**_board(), "en_passant": "e6"},
        "en passant square e6: no double step can explain it",
    ),
    ("ep wrong rank", {**_board(), "en_passant": "e3"}, "en passant square e3 is not on rank 6"),
    (
        "ep with clock",
        {
            **state_from_fen("rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 2"),
            "en_passant": "e6",
            "halfmove_clock": 1,
        },
        "halfmove clock is 1 but a pawn has just moved",
    ),
    (
        "clock inconsistent",
        {**_board(), "halfmove_clock": 7, "fullmove_number": 3},
        "halfmove clock 7 is more than the 4 half-moves played",
    ),
    (
        "draw_offer bad",
        _with(draw_offer="both"),
        'state.draw_offer must be null, "white" or "black"',
    ),
]


@pytest.mark.parametrize(("name", "state", "message"), BAD_STATES, ids=[b[0] for b in BAD_STATES])
def test_bad_state_is_rejected_with_a_precise_message(name: str, state: Any, message: str) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_state(state)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


BAD_TEXT = [
    ("", "state is empty"),
    ("{", "state is not valid JSON"),
    ('{"turn": "white"} {"turn": "black"}', "text after the JSON value"),
    ('{"turn": "white", "turn": "black"}', "has the key 'turn' twice"),
    ('{"halfmove_clock": NaN}', "contains NaN, which is not JSON"),
    (b"\xff\xfe", "state is not UTF-8"),
    ("[" * 100000 + "]" * 100000, "nested too deeply"),
]


@pytest.mark.parametrize(("text", "message"), BAD_TEXT, ids=[m for _, m in BAD_TEXT])
def test_bad_json_text(text: str | bytes, message: str) -> None:
    with pytest.raises(ProtocolError, match=message):
        parse_state(text)


def test_every_problem_is_listed() -> None:
    problems, state = state_problems(_with(turn="red", halfmove_clock=-3, en_passant="zz"))
    assert state is None
    assert len(problems) == 3


def test_unknown_fields_are_tolerated() -> None:
    state = parse_state(
        {**SICILIAN, "clock": {"white": 10.0}, "comment": "hi", "draw_offer": "white"}
    )
    assert state.draw_offer == "white"
    assert state.extras["comment"] == "hi"
