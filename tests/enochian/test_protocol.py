"""The Enochian state and answer JSON: round trips, strict errors, schema agreement."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from helpers import pos

from enoch.enochian.protocol import (
    answer_to_action,
    move_to_json,
    parse_answer,
    schema,
    state_from_json,
    state_to_json,
    validate_state_text,
)
from enoch.enochian.spec import available_arrays
from enoch.enochian.state import OFFER, Divination, new_game
from enoch.errors import IllegalMoveError, ProtocolError

ROOT = Path(__file__).resolve().parents[2]
STATE_V = jsonschema.Draft202012Validator(schema("state"))
ANSWER_V = jsonschema.Draft202012Validator(schema("answer"))


def test_docs_copies_of_schemas_are_identical() -> None:
    for name in ("state", "answer"):
        pkg = ROOT / "src/enoch/enochian/schema" / f"{name}.schema.json"
        assert (ROOT / "docs" / f"enochian-{name}.schema.json").read_text() == pkg.read_text()


def _states() -> list[dict[str, Any]]:
    out = []
    rng = random.Random(7)
    for i, spec in enumerate(available_arrays()[:8]):
        div = Divination(i % 4, 35, i) if i % 3 == 0 else None
        st = new_game(spec.id, players=2 + 2 * (i % 2), divination=div, max_plies=120)
        while not st.is_terminal():
            out.append(state_to_json(st))
            st.make(rng.choice(st.legal_actions()))
        out.append(state_to_json(st))
    return out


STATES = _states()


def test_every_state_written_satisfies_the_schema_and_round_trips() -> None:
    for d in STATES[::7]:
        STATE_V.validate(d)
        st = state_from_json(json.loads(json.dumps(d)))
        assert state_to_json(st) == d


def test_round_trip_keeps_legal_moves() -> None:
    rng = random.Random(3)
    st = new_game("air_of_water", players=4)
    for _ in range(60):
        if st.is_terminal():
            break
        back = state_from_json(state_to_json(st))
        assert sorted(back.legal_actions()) == sorted(st.legal_actions())
        assert back.key() == st.key()
        st.make(rng.choice(st.legal_actions()))


def test_answers_of_legal_moves_satisfy_the_schema() -> None:
    st = new_game()
    for m in st.legal_moves():
        a = move_to_json(st, m)
        ANSWER_V.validate(a)
        assert answer_to_action(st, parse_answer(a, st)) == m


def test_exchange_answers() -> None:
    st = pos(
        "fire",
        "air: Pd7/rook; water: Kh5 Pg5/rook; fire: Kh1 Pe2/knight; earth: Pb4/rook",
        frozen="air earth",
        captured_by="air=water earth=fire",
    )
    d = state_to_json(st)
    assert d["exchange_possible"] == "water"
    assert answer_to_action(st, parse_answer({"action": "offer_exchange"}, st)) == OFFER
    st.make(OFFER)
    d = state_to_json(st)
    STATE_V.validate(d)
    assert d["exchange_offer"] == {"from": "fire", "to": "water"} and d["to_act"] == "water"
    with pytest.raises(IllegalMoveError, match="must accept or refuse"):
        parse_answer({"from": "h5", "to": "h4", "promotion": None}, st)
    back = state_from_json(d)
    assert back.pending == (2, 1)


def _first(d: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(m for m in d["men"] if m["kind"] == kind)


BAD_STATES: list[tuple[Any, str]] = [
    (lambda d: d["men"][3].__setitem__("kind", "quen"), r"state\.men\[3\]\.kind: unknown kind"),
    (lambda d: d["men"][0].__setitem__("square", "i9"), r"state\.men\[0\]\.square: not a square"),
    (lambda d: _first(d, "pawn").pop("patron"), r"state\.men\[\d+\]\.patron"),
    (lambda d: _first(d, "bishop").__setitem__("system", "x"), r"state\.men\[\d+\]\.system"),
    (lambda d: _first(d, "rook").__setitem__("system", "aries"), r"\.system: only queens"),
    (lambda d: d.__setitem__("to_move", "spirit"), r"state\.to_move: unknown army"),
    (lambda d: d.pop("frozen"), r"state: missing field 'frozen'"),
    (lambda d: d.__setitem__("colour", 1), r"state: unknown field 'colour'"),
    (lambda d: d.__setitem__("players", 3), r"state\.players"),
    (lambda d: d["pawns_lost"].__setitem__("air", -1), r"state\.pawns_lost\.air"),
    (lambda d: d["options"].__setitem__("zz", True), r"state\.options"),
    (
        lambda d: d.__setitem__("turn_order", ["air", "fire", "water", "earth"]),
        r"state\.turn_order",
    ),
    (lambda d: d["controllers"].__setitem__("air", 1), r"controllers"),
    (lambda d: d["men"].append({"square": "d4", "army": "air", "kind": "king"}), r"2 kings"),
    (lambda d: d.__setitem__("to_act", "water"), r"state\.to_act"),
    (lambda d: d.__setitem__("divination", {"querent": "air"}), r"state\.divination"),
]


@pytest.mark.parametrize(("breakage", "message"), BAD_STATES)
def test_bad_states_are_rejected_by_parser_and_schema(breakage: Any, message: str) -> None:
    d = copy.deepcopy(STATES[0])
    breakage(d)
    with pytest.raises(ProtocolError, match=message):
        state_from_json(d)
    semantic = ("2 kings", "controllers", "to_act", "turn_order")
    if not any(s in message for s in semantic):
        assert not STATE_V.is_valid(d), message


BAD_ANSWERS: list[tuple[Any, str]] = [
    ({"from": "e2", "to": "e3"}, "missing field 'promotion'"),
    ({"from": "e2", "to": "e3", "promotion": "K"}, r"answer\.promotion"),
    ({"from": "e2", "to": "e9", "promotion": None}, r"answer\.to: not a square"),
    ({"from": "e2", "to": "e3", "promotion": None, "x": 1}, "unknown field 'x'"),
    ({"action": "draw"}, r"answer\.action: unknown action"),
    ({"action": "resign", "why": "lost"}, "only 'action'"),
    ([1], "answer: must be an object"),
]


@pytest.mark.parametrize(("answer", "message"), BAD_ANSWERS)
def test_bad_answers_rejected_by_parser_and_schema(answer: Any, message: str) -> None:
    with pytest.raises(ProtocolError, match=message):
        parse_answer(answer)
    assert not ANSWER_V.is_valid(answer)


def test_illegal_answers() -> None:
    st = new_game()
    with pytest.raises(IllegalMoveError, match="not a legal move"):
        parse_answer({"from": "e2", "to": "e5", "promotion": None}, st)
    with pytest.raises(IllegalMoveError, match="not possible"):
        parse_answer({"action": "accept_exchange"}, st)
    p = pos("air", "air: Ka8 Qe5 Pc2/knight", lost="air=3")
    with pytest.raises(IllegalMoveError, match="promotion must be Q, B, N, R"):
        parse_answer({"from": "c2", "to": "c1", "promotion": None}, p)


def test_shared_throne_kind_disambiguates() -> None:
    st = pos("water", "water: Kh8 Rh8; air: Ka1", shared="water")
    a = parse_answer({"from": "h8", "to": "h7", "promotion": None, "kind": "rook"}, st)
    m = answer_to_action(st, a)
    assert move_to_json(st, m)["kind"] == "rook"
    with pytest.raises(IllegalMoveError, match='add "kind"'):
        answer_to_action(st, {"from": "h8", "to": "h7", "promotion": None})


def test_validate_text() -> None:
    with pytest.raises(ProtocolError, match="not valid JSON"):
        validate_state_text("{")
    assert validate_state_text(json.dumps(STATES[0])).army_to_move == 0


def test_seed_system_labels_swap_names_only() -> None:
    a = state_to_json(new_game())
    b = state_to_json(new_game(options={"seed_system_labels": True}))
    sys_a = {m["square"]: m["system"] for m in a["men"] if "system" in m}
    sys_b = {m["square"]: m["system"] for m in b["men"] if "system" in m}
    assert sys_a and all(sys_a[s] != sys_b[s] for s in sys_a)
    assert sorted(new_game().legal_moves()) == sorted(
        new_game(options={"seed_system_labels": True}).legal_moves()
    )
    assert state_from_json(b).opts.seed_system_labels
