"""The shipped JSON Schemas agree with the parser, and the docs/ copies with the package's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from enoch.errors import ProtocolError
from enoch.protocol import parse_answer, parse_state, schema

from .test_answer import BAD as BAD_ANSWERS
from .test_answer import GOOD as GOOD_ANSWERS
from .test_state import BAD_STATES, played_game

ROOT = Path(__file__).resolve().parents[2]
# Problems the schema cannot express (whether a position can exist): parser-only.
SEMANTIC = ("impossible position", "halfmove clock", "en passant square")


@pytest.mark.parametrize("name", ["state", "answer"])
def test_docs_copy_is_identical(name: str) -> None:
    docs = json.loads((ROOT / "docs" / "schema" / f"{name}.schema.json").read_text())
    assert docs == schema(name)
    jsonschema.Draft202012Validator.check_schema(docs)


def test_states_the_parser_accepts_are_schema_valid() -> None:
    from enoch.protocol import make_state

    validator = jsonschema.Draft202012Validator(schema("state"))
    for seed in range(60):
        pos, history = played_game(seed, seed * 3)
        state = make_state(pos, history, draw_offer="white", last_error="x")
        parse_state(state)
        validator.validate(state)


@pytest.mark.parametrize(("name", "state", "message"), BAD_STATES, ids=[b[0] for b in BAD_STATES])
def test_states_the_parser_rejects(name: str, state: Any, message: str) -> None:
    validator = jsonschema.Draft202012Validator(schema("state"))
    with pytest.raises(ProtocolError) as info:
        parse_state(state)
    if any(s in str(info.value) for s in SEMANTIC):
        assert validator.is_valid(state), "semantic problems pass the schema (documented)"
    else:
        assert not validator.is_valid(state), "the schema must reject what the parser rejects"


def test_answers_agree_with_the_schema() -> None:
    validator = jsonschema.Draft202012Validator(schema("answer"))
    for text, expected in GOOD_ANSWERS:
        assert validator.is_valid(json.loads(text))
        assert validator.is_valid(expected)
    for text, _ in BAD_ANSWERS:
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            continue  # not JSON: nothing for a schema to judge
        with pytest.raises(ProtocolError):
            parse_answer(text)
        if "twice" in _:
            continue  # duplicate keys are invisible once decoded: only the parser sees them
        assert not validator.is_valid(value), text
