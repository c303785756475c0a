"""Declared options: one parser for the CLI, the web and Python, one JSON Schema per game.

The same value must be read the same way whether it came as ``--option players=4``, as a JSON
body or as a Python keyword, and a bad one must be refused with one line that names the option
(the CLI prints it as is, with exit status 2). The schema made from the declarations is what
forms and clients validate against, so it must be a valid schema that every default satisfies.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from enoch.errors import InputError
from enoch.game import OptionSpec, find_game, game_names, parse_options, parse_pairs
from enoch.game.options import options_schema

INT = OptionSpec("depth", "int", 3, "search depth", minimum=1, maximum=9)
FLOAT = OptionSpec("movetime", "float", 0.5, "seconds", minimum=0.0, maximum=60.0)
BOOL = OptionSpec("divination", "bool", False, "dice mode")
STR = OptionSpec("direction", "str", "deosil", "turn order", choices=("deosil", "widdershins"))
OPTIONAL = OptionSpec("fen", "str", None, "a start position")
CHOICE_INT = OptionSpec("players", "int", 2, "seats", choices=(2, 4))


def refused(spec: OptionSpec, value: Any, game: str = "") -> str:
    with pytest.raises(InputError) as caught:
        spec.parse(value, game)
    text = str(caught.value)
    assert "\n" not in text, text
    assert f"option {spec.name}" in text, text
    return text


@pytest.mark.parametrize(("value", "expected"), [("5", 5), (" 7 ", 7), (1, 1), (9, 9)])
def test_int_values(value: Any, expected: int) -> None:
    got = INT.parse(value)
    assert got == expected and type(got) is int


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (0, "at least 1"),
        ("-1", "at least 1"),
        ("10", "at most 9"),
        ("x", "must be an integer"),
        ("2.0", "must be an integer"),
        (2.0, "must be an integer"),
        (True, "must be an integer"),
        ("٣", "must be an integer"),  # not an ASCII digit
        ("1" * 30, "must be an integer"),
        ([3], "must be an integer"),
    ],
)
def test_int_refusals(value: Any, words: str) -> None:
    assert words in refused(INT, value)


def test_int_choices() -> None:
    assert CHOICE_INT.parse("4") == 4
    assert "must be one of 2, 4, got '3'" in refused(CHOICE_INT, "3")


def test_float_values_and_refusals() -> None:
    assert FLOAT.parse("1.5") == 1.5
    assert FLOAT.parse(2) == 2.0 and type(FLOAT.parse(2)) is float
    assert FLOAT.parse(".25") == 0.25
    assert "at most 60" in refused(FLOAT, "61")
    assert "at least 0" in refused(FLOAT, -0.5)
    assert "must be a number" in refused(FLOAT, "nan")
    assert "must be a number" in refused(FLOAT, "inf")
    assert "finite" in refused(FLOAT, float("inf"))
    assert "finite" in refused(FLOAT, float("nan"))
    assert "must be a number" in refused(FLOAT, True)
    assert "must be a finite number" in refused(FLOAT, "1e400")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("true", True),
        ("YES", True),
        (" on ", True),
        ("1", True),
        (True, True),
        ("false", False),
        ("no", False),
        ("off", False),
        ("0", False),
        (False, False),
    ],
)
def test_bool_values(value: Any, expected: bool) -> None:
    assert BOOL.parse(value) is expected


@pytest.mark.parametrize("value", ["maybe", "", 1, 0, 1.0, "tru"])
def test_bool_refusals(value: Any) -> None:
    assert "must be true or false" in refused(BOOL, value)


def test_str_values_and_refusals() -> None:
    assert STR.parse("widdershins") == "widdershins"
    assert "must be one of deosil, widdershins" in refused(STR, "Deosil")
    assert "must be a string" in refused(STR, 3)
    assert OPTIONAL.parse("startpos") == "startpos"


def test_null() -> None:
    assert OPTIONAL.parse(None) is None
    assert "must not be null" in refused(INT, None)


def test_the_game_is_named_and_long_values_are_cut() -> None:
    text = refused(STR, "w" * 500, "enochian")
    assert "option direction of enochian" in text
    assert len(text) < 200


def test_an_unknown_type_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown type 'list'"):
        OptionSpec("x", "list", None, "")


def test_parse_options_fills_defaults_and_refuses_unknown_names() -> None:
    specs = (INT, BOOL, OPTIONAL)
    assert parse_options(specs, {}) == {"depth": 3, "divination": False, "fen": None}
    assert parse_options(specs, {"depth": "4", "divination": "yes"}) == {
        "depth": 4,
        "divination": True,
        "fen": None,
    }
    with pytest.raises(InputError) as caught:
        parse_options(specs, {"dpeth": "4"}, game="chess")
    text = str(caught.value)
    assert "\n" not in text
    assert "unknown option 'dpeth' for chess" in text
    assert "(options: depth, divination, fen)" in text
    with pytest.raises(InputError, match=r"unknown option 'x' \(options: none\)"):
        parse_options((), {"x": 1})


def test_parse_options_of_the_games() -> None:
    chess = find_game("chess")
    assert chess.setup({"fen": "startpos"}).options["fen"] == "startpos"
    enochian = find_game("enochian")
    assert enochian.setup({"players": "4"}).options["players"] == 4
    with pytest.raises(InputError, match="option players of enochian must be one of 2, 4"):
        enochian.setup({"players": "3"})


def test_parse_pairs() -> None:
    assert parse_pairs(["players=4", " array = all", "fen=a=b", "moves="]) == {
        "players": "4",
        "array": " all",
        "fen": "a=b",
        "moves": "",
    }
    for bad, words in [
        ("players", "expected KEY=VALUE"),
        ("=4", "expected KEY=VALUE"),
        (" =4", "expected KEY=VALUE"),
    ]:
        with pytest.raises(InputError, match=words) as caught:
            parse_pairs([bad])
        assert "\n" not in str(caught.value)
    with pytest.raises(InputError, match="--option players given twice"):
        parse_pairs(["players=2", "players=4"])


@pytest.mark.parametrize("name", game_names())
def test_options_schema_of_every_game(name: str) -> None:
    game = find_game(name)
    schema = options_schema(game.options)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    defaults = {spec.name: spec.default for spec in game.options}
    assert not list(validator.iter_errors(defaults))
    assert not list(validator.iter_errors({}))
    for spec in game.options:
        prop = schema["properties"][spec.name]
        assert not list(validator.iter_errors({spec.name: spec.default})), spec.name
        if "default" in prop:
            assert prop["default"] == spec.default
    # what the parser refuses, the schema refuses too
    assert list(validator.iter_errors({"no_such_option": 1}))
    for spec in game.options:
        if spec.choices is not None and spec.type == "int":
            assert list(validator.iter_errors({spec.name: max(spec.choices) + 1}))
        if spec.minimum is not None:
            assert list(validator.iter_errors({spec.name: spec.minimum - 1}))


def test_options_schema_types() -> None:
    schema = options_schema((INT, FLOAT, BOOL, STR, OPTIONAL, CHOICE_INT))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    good = {"depth": 9, "movetime": 0.5, "divination": True, "direction": "deosil", "fen": None}
    assert not list(validator.iter_errors(good))
    for bad in (
        {"depth": 10},
        {"depth": 1.5},
        {"movetime": "1"},
        {"divination": "yes"},  # the schema is for JSON values, not --option text
        {"direction": "clockwise"},
        {"players": 3},
        {"depth": None},
    ):
        assert list(validator.iter_errors(bad)), bad
