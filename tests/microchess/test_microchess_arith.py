"""The 6502 byte arithmetic and the scoring chain built on it."""

from __future__ import annotations

import dataclasses

import pytest

from enoch.microchess.arith import (
    COUNTER_NAMES,
    Counters,
    adc,
    final_score,
    lsr,
    sbc,
    strategy_value,
)

ZERO = Counters(**dict.fromkeys(COUNTER_NAMES, 0))
QUIET_TO, QUIET_FROM = 0x50, 0x40  # no kicker: not a centre square, not from row 0


def counters(**values: int) -> Counters:
    return dataclasses.replace(ZERO, **values)


@pytest.mark.parametrize(
    ("a", "x", "c", "out"),
    [
        (0x10, 0x20, 0, (0x30, 0)),
        (0x10, 0x20, 1, (0x31, 0)),  # the carry in is added
        (0xFF, 0x01, 0, (0x00, 1)),  # wraps, carry out
        (0xFF, 0x00, 1, (0x00, 1)),
        (0x80, 0x80, 1, (0x01, 1)),
    ],
)
def test_adc(a: int, x: int, c: int, out: tuple[int, int]) -> None:
    assert adc(a, x, c) == out


@pytest.mark.parametrize(
    ("a", "x", "c", "out"),
    [
        (0x05, 0x03, 1, (0x02, 1)),  # C=1: no borrow in, none out
        (0x05, 0x03, 0, (0x01, 1)),  # C=0: one more is subtracted
        (0x05, 0x05, 0, (0xFF, 0)),  # borrow out: wraps, C=0
        (0x00, 0x01, 1, (0xFF, 0)),
        (0x00, 0x00, 1, (0x00, 1)),
    ],
)
def test_sbc(a: int, x: int, c: int, out: tuple[int, int]) -> None:
    assert sbc(a, x, c) == out


def test_lsr_shifts_bit_zero_into_carry() -> None:
    assert lsr(0x81) == (0x40, 1)
    assert lsr(0x80) == (0x40, 0)


def test_all_zero_counters() -> None:
    # 0x80 -> 0x40; 0x40 + 0x40 = 0x80 -> 0x40; 0x40 + 0x90 = 0xD0.
    assert strategy_value(ZERO, QUIET_TO, QUIET_FROM, False) == 0xD0


def test_carry_of_the_addition_chain_is_added_to_the_next_operand() -> None:
    # 0x80 + 0x80 wraps to 0x00 with carry; the carry makes the next adc 0x01 (not 0x100 = 256
    # as in plain arithmetic, which would give 240).
    # stage 1: 0x01 >> 1 = 0; stage 2: 0x40 >> 1 = 0x20; stage 3: 0x20 + 0x90 = 0xB0.
    assert strategy_value(counters(WMOB=0x80), QUIET_TO, QUIET_FROM, False) == 0xB0


def test_only_the_last_borrow_clamps() -> None:
    # 0x80 - 0x81 borrows (A=0xFF, C=0); the next sbc 0 subtracts that borrow (A=0xFE) and
    # leaves C=1, so no clamp although the running value went below zero:
    # 0xFE >> 1 = 0x7F; (0x7F + 0x40) >> 1 = 0x5F; 0x5F + 0x90 = 0xEF.
    assert strategy_value(counters(PMAXC=0x81), QUIET_TO, QUIET_FROM, False) == 0xEF


def test_clamp_when_the_last_subtraction_borrows() -> None:
    # BMOB is subtracted last: 0x80 - 0x81 borrows there, so stage 1 is clamped to 0:
    # 0 >> 1 = 0; 0x40 >> 1 = 0x20; 0x20 + 0x90 = 0xB0.
    assert strategy_value(counters(BMOB=0x81), QUIET_TO, QUIET_FROM, False) == 0xB0


def test_final_byte_wraps_with_the_carry() -> None:
    # stage 1: 0x80 + 80 - 20 - 20 = 168 -> 84; stage 2: 84 + 64 = 148 -> 74;
    # stage 3: 74 + 144 = 218, + 4 * 10 = 258 -> 2 with carry, + WCAP1 0 + carry = 3.
    # A queen capture scoring 3: below 15, the original would decline it.
    c = counters(WMOB=80, PMOB=20, BMOB=20, WCAP0=10)
    assert strategy_value(c, QUIET_TO, QUIET_FROM, False) == 3


def test_kicker_centre_squares_and_development() -> None:
    for to in (0x22, 0x25, 0x33, 0x34):
        assert strategy_value(ZERO, to, QUIET_FROM, True) == 0xD2
    assert strategy_value(ZERO, QUIET_TO, 0x03, False) == 0xD2  # a piece leaves row 0
    assert strategy_value(ZERO, QUIET_TO, 0x03, True) == 0xD0  # ... but not the king
    assert strategy_value(ZERO, 0x22, 0x03, False) == 0xD2  # one kicker, not two


def test_kicker_wraps() -> None:
    # stage 1: (0x80 + 2) >> 1 = 0x41; stage 2: (0x41 + 0x40) >> 1 = 0x40;
    # stage 3: 0x40 + 0x90 + 4 * 11 + 2 = 0xFE; the kicker's +2 wraps it to 0x00.
    c = counters(WCAP0=11, WCAP1=2)
    assert strategy_value(c, QUIET_TO, QUIET_FROM, False) == 0xFE
    assert strategy_value(c, 0x22, QUIET_FROM, False) == 0x00


def test_overrides() -> None:
    assert final_score(counters(BMAXC=11, BMOB=3), 200) == 0x00
    assert final_score(counters(BMOB=0, WMAXP=0), 200) == 0xFF  # mate, or stalemate
    assert final_score(counters(BMOB=0, WMAXP=3), 200) == 200
    assert final_score(counters(BMOB=5), 200) == 200
