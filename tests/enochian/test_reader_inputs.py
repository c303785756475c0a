"""The Enochian reader held to its own schema on the fields it used to ignore (issue 20):
``player``, ``exchange_possible``, rule option types, history entries, bounded integers."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest
from helpers import pos

from enoch.enochian.protocol import schema, state_from_json, state_to_json
from enoch.enochian.state import OFFER, REFUSE, new_game
from enoch.errors import ProtocolError

STATE_V = jsonschema.Draft202012Validator(schema("state"))


def _exchange_position() -> Any:
    return pos(
        "fire",
        "air: Pd7/rook; water: Kh5 Pg5/rook; fire: Kh1 Pe2/knight; earth: Pb4/rook",
        frozen="air earth",
        captured_by="air=water earth=fire",
    )


def test_exchange_possible_null_keeps_one_offer_a_turn() -> None:
    """After a refused offer the state says exchange_possible null: read back, the side to
    move may not offer again this turn (the reader used to forget it and offer again)."""
    st = _exchange_position()
    assert OFFER in st.legal_actions()
    st.make(OFFER)
    st.make(REFUSE)
    d = state_to_json(st)
    assert d["exchange_possible"] is None and d["to_move"] == "fire"
    back = state_from_json(d)
    assert OFFER not in back.legal_actions()
    assert sorted(back.legal_actions()) == sorted(st.legal_actions())


def test_exchange_possible_must_agree_with_the_position() -> None:
    d = state_to_json(_exchange_position())
    assert d["exchange_possible"] == "water"
    for wrong in ("air", "earth", "fire"):
        bad = dict(d, exchange_possible=wrong)
        with pytest.raises(ProtocolError, match=r"state\.exchange_possible: must be water"):
            state_from_json(bad)
    d0 = state_to_json(new_game())
    with pytest.raises(ProtocolError, match="must be null"):
        state_from_json(dict(d0, exchange_possible="water"))


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("player", "0", r"state\.player: must be an integer from -1 to 3"),
        ("player", 4, r"state\.player: must be an integer from -1 to 3"),
        ("player", 1, r"state\.player: must be 0, not 1"),
        ("player", None, r"state\.player"),
        ("exchange_possible", 1, r"state\.exchange_possible: unknown army"),
        ("exchange_possible", "red", r"unknown army 'red'"),
        ("to_move", "yellow", r"state\.to_move: unknown army 'yellow'"),
        ("ply", 10**4000, r"state\.ply: must be an integer from 0 to 1000000"),
        ("ply", 1.0, r"state\.ply"),
        ("max_plies", 0, r"state\.max_plies"),
        ("history", [{"army": "air", "move": "e2e4"}], r"state\.history\[0\]\.move"),
        ("history", [{"army": "air", "move": "Pe2-e4", "x": 1}], r"state\.history\[0\]"),
        ("history", [{"army": "red", "skip": "die 3"}], r"state\.history\[0\]\.army"),
        ("history", [{"event": "exchange", "returned": ["air"]}], r"returned"),
        ("last_error", 5, r"state\.last_error"),
        ("clock", {"remaining": [1, "x"], "increment": 0}, r"state\.clock\.remaining"),
        ("outcome", {"winner": None, "reason": "x", "extra": 1}, r"state\.outcome"),
    ],
)
def test_fields_the_reader_used_to_ignore(field: str, value: Any, message: str) -> None:
    d = state_to_json(new_game())
    d[field] = value
    with pytest.raises(ProtocolError, match=message):
        state_from_json(d)
    # a type or range the schema refuses too (but JSON Schema counts 1.0 as an integer, and
    # only the reader knows which player acts)
    if "must be 0, not 1" not in message and not isinstance(value, float):
        assert not STATE_V.is_valid(d)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("ally_king_capture", "true"),
        ("ally_king_capture", 1),
        ("divination_rerolls", "2"),
        ("divination_rerolls", 2.5),
        ("divination_rerolls", True),
        ("divination_rerolls", -1),
        ("divination_die", 3),
    ],
)
def test_rule_options_are_json_typed(option: str, value: Any) -> None:
    d = state_to_json(new_game())
    d["options"] = dict(d["options"], **{option: value})
    with pytest.raises(ProtocolError, match=r"state\.options"):
        state_from_json(d)
    assert not STATE_V.is_valid(d)


def test_every_history_entry_a_game_writes_is_read_back() -> None:
    """The history shapes cover what games write: moves, skips (die, check, stalemate),
    start-of-turn promotions, actions and exchanges."""
    import random

    from enoch.enochian.state import Divination

    seen: set[frozenset[str]] = set()
    rng = random.Random(5)
    for i in range(12):
        div = Divination(i % 4, 35, i) if i % 2 else None
        st = new_game(players=2 + 2 * (i % 2), divination=div, max_plies=150)
        while not st.is_terminal():
            st.make(rng.choice(st.legal_actions()))
        d = state_to_json(st)
        STATE_V.validate(d)
        assert state_to_json(state_from_json(copy.deepcopy(d))) == d
        seen |= {frozenset(h) for h in d["history"]}
    assert {frozenset({"army", "move"}), frozenset({"army", "skip"})} <= seen
