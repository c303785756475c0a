"""The inputs of issue 20 that need more than the fuzz corpus's contract check: the bounded
number parser, the short quotes of error messages, time controls, FEN clocks and startpos."""

from __future__ import annotations

import argparse

import pytest

from enoch._json import DEFAULT_MAX_BYTES, loads_strict
from enoch._numbers import MAX_SECONDS, arg, check_int, parse_float, parse_int, seconds
from enoch.arena.clock import TimeControl
from enoch.errors import FenError, InputError, ProtocolError, quote
from enoch.rules import MAX_CLOCK, STARTING_FEN, Position


@pytest.mark.parametrize(
    "text", ["+3", " 3", "3 ", "\u0663", "\uff13", "3.0", "1e3", "", "-", "0x10", "1_0", "9" * 19]
)
def test_parse_int_takes_plain_ascii_decimals_only(text: str) -> None:
    with pytest.raises(InputError, match="must be an integer"):
        parse_int(text, "n")


def test_parse_int_bounds_and_values() -> None:
    assert parse_int("-12", "n") == -12 and parse_int("0", "n", 0, 0) == 0
    with pytest.raises(InputError, match="at most 5, got 6"):
        parse_int("6", "n", 0, 5)
    with pytest.raises(InputError, match="at least 1, got 0"):
        parse_int("0", "n", 1)


@pytest.mark.parametrize("text", ["1e400", "-1e400", "nan", "inf", "Infinity", " 1", "+1", "1,5"])
def test_parse_float_refuses_what_is_not_a_finite_ascii_number(text: str) -> None:
    with pytest.raises(InputError):
        parse_float(text, "x")


def test_check_int_holds_json_integers_to_bounds() -> None:
    assert check_int(7, "n", 0, 10) == 7
    for bad in (True, 1.0, "1", None, 10**5000):
        with pytest.raises(InputError):
            check_int(bad, "n", 0, 10)


def test_argparse_types_refuse_before_anything_runs() -> None:
    p = argparse.ArgumentParser(exit_on_error=False)
    p.add_argument("--grace", type=seconds(positive=False))
    p.add_argument("--movetime", type=seconds())
    p.add_argument("--memory-mb", type=arg("int", 0, 1 << 24))
    assert p.parse_args(["--grace", "0", "--movetime", "0.5"]).movetime == 0.5
    for argv in (
        ["--grace", "-5"],
        ["--movetime", "0"],
        ["--movetime", "1e400"],
        ["--movetime", str(MAX_SECONDS * 2)],
        ["--memory-mb", "-1"],
    ):
        with pytest.raises(argparse.ArgumentError):
            p.parse_args(argv)


def test_quote_is_short_whatever_the_value() -> None:
    assert quote("abc") == "'abc'"
    assert len(quote("x" * 1_000_000)) < 80 and "1000000 characters" in quote("x" * 1_000_000)
    assert "digits" in quote(10**5000)
    assert len(quote([10**5000] * 1000)) <= 40
    assert len(quote({"k": ["v" * 10_000] * 10})) <= 40


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("60+0.5", TimeControl(60.0, 0.5, 0)),
        ("40/60", TimeControl(60.0, 0.0, 40)),
        ("40/60+1", TimeControl(60.0, 1.0, 40)),
        ("1:30+2", TimeControl(90.0, 2.0, 0)),
    ],
)
def test_time_controls(text: str, expected: TimeControl) -> None:
    assert TimeControl.parse(text) == expected


@pytest.mark.parametrize(
    "text", ["1e400+0", "60+1e400", "0+1", "60+-1", "x", "\u0663+0", "0/60", "40/60/1", "nan+0"]
)
def test_bad_time_controls_are_input_errors(text: str) -> None:
    with pytest.raises(InputError, match="bad time control"):
        TimeControl.parse(text)


def test_fen_clocks_are_bounded_and_messages_short() -> None:
    assert (
        Position.from_fen(f"8/8/8/8/8/8/8/K6k w - - {MAX_CLOCK} {MAX_CLOCK}").halfmove == MAX_CLOCK
    )
    for clocks in (f"0 {MAX_CLOCK + 1}", "x y", "0 " + "1" * 5000, "+1 1", "\u0663 1"):
        with pytest.raises(FenError) as exc:
            Position.from_fen(f"8/8/8/8/8/8/8/K6k w - - {clocks}")
        assert len(str(exc.value)) < 300
    with pytest.raises(FenError) as exc:
        Position.from_fen("x" * 1_000_000)
    assert len(str(exc.value)) < 300


def test_startpos_wherever_a_fen_is_taken() -> None:
    assert Position.from_fen("startpos").fen() == STARTING_FEN
    from enoch.microchess.explain import explain_fen

    assert explain_fen("startpos").fen == STARTING_FEN


def test_one_size_limit_for_states() -> None:
    big = '{"board": "' + "x" * DEFAULT_MAX_BYTES + '"}'
    with pytest.raises(ProtocolError, match=f"larger than {DEFAULT_MAX_BYTES} bytes"):
        loads_strict(big, "state")
    assert loads_strict(big, "state", None)["board"].startswith("x")


def test_clocks_that_grow_past_the_os_timers_do_not_blame_the_agent() -> None:
    """--tc 1000000+1000000 (each number within bounds): after two moves the clock is past what
    poll() takes; the referee's wait is capped, and the agent is not forfeited for it."""
    import shlex
    import sys

    from enoch.arena.referee import GameConfig, play_game

    code = (
        "import json,sys; s=json.load(sys.stdin); "
        "m=('d2','d4') if 'e4' in s['board'] else ('e2','e4'); "
        "print(json.dumps({'from': m[0], 'to': m[1], 'promotion': None}))"
    )
    agent = "exec:" + shlex.join([sys.executable, "-c", code])
    config = GameConfig(tc=TimeControl.parse("1000000+1000000"))
    result = play_game(agent, "builtin:random", config=config, max_plies=4)
    assert result.termination == "move_limit", result.reason
    assert result.moves[0] == "e2e4" and result.moves[2] == "d2d4"
