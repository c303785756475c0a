"""The 6502's byte arithmetic, and the scoring routine written in it.

MicroChess scores a move with one accumulator and the carry flag. ``adc`` adds the carry left by
the previous ``adc``, ``sbc`` subtracts the borrow left by the previous ``sbc``, and only the
flag after the *last* subtraction decides the clamp. Against plain integer arithmetic this moves
some scores by one and lets others wrap round 256 (a queen capture can score below 15 and be
declined), which changes the chosen move. So the chain is replayed instruction by instruction
rather than written as a formula.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Points of the king (slot 0): a reply worth this much would take our king.
POINTS_KING = 11

#: The squares whose arrival earns the +2 kicker, in the mover's frame: e4, d4, f3, c3 for
#: White; d5, e5, c6, f6 for Black (the board is rotated for Black).
CENTRE_KICK_SQUARES = frozenset({0x22, 0x25, 0x33, 0x34})


def adc(a: int, x: int, carry: int) -> tuple[int, int]:
    """ADC: ``A + x + C``; returns the new byte and the carry out (1 on overflow past 255)."""
    total = a + x + carry
    return total & 0xFF, 1 if total > 0xFF else 0


def sbc(a: int, x: int, carry: int) -> tuple[int, int]:
    """SBC: ``A - x - (1 - C)``; returns the new byte and the carry (1 means *no* borrow)."""
    total = a - x - (1 - carry)
    return total & 0xFF, 1 if total >= 0 else 0


def lsr(a: int) -> tuple[int, int]:
    """LSR A: halve; the bit shifted out becomes the carry."""
    return a >> 1, a & 1


@dataclass(frozen=True, slots=True)
class Counters:
    """The 17 counters of one candidate move, named as docs/microchess.md names them.

    W* are ours after the move (continuation), B* the opponent's replies, P* ours before the
    move; *CAPn the exchange-tree maxima, *MOB mobility, *MAXC the best target's points, *CC the
    sum of targets, *MAXP the slot of the best target.
    """

    WCAP0: int
    WCAP1: int
    WCAP2: int
    BCAP0: int
    BCAP1: int
    BCAP2: int
    WMOB: int
    WMAXC: int
    WCC: int
    WMAXP: int
    BMOB: int
    BMAXC: int
    BMCC: int
    BMAXP: int
    PMOB: int
    PMAXC: int
    PCC: int


COUNTER_NAMES: tuple[str, ...] = tuple(Counters.__dataclass_fields__)


def strategy_value(c: Counters, to: int, frm: int, mover_is_king: bool) -> int:
    """The value before the overrides, exactly as the original's STRATGY routine computes it.

    ``to`` and ``frm`` are squares in the mover's 0x88 frame (row 0 = the mover's back rank).
    """
    # Quarter weight: our follow-up minus the baseline and the replies; one clamp at the end.
    a, cy = 0x80, 0
    for x in (c.WMOB, c.WMAXC, c.WCC, c.WCAP1, c.WCAP2):
        a, cy = adc(a, x, cy)
    cy = 1
    for x in (c.PMAXC, c.PCC, c.BCAP0, c.BCAP1, c.BCAP2, c.PMOB, c.BMOB):
        a, cy = sbc(a, x, cy)
    if cy == 0:  # only the borrow of the LAST subtraction clamps
        a = 0
    a, _ = lsr(a)
    # Half weight: threats we make minus the opponent's best threat.
    a, cy = adc(a, 0x40, 0)
    a, cy = adc(a, c.WMAXC, cy)
    a, cy = adc(a, c.WCC, cy)
    a, cy = sbc(a, c.BMAXC, 1)
    a, _ = lsr(a)
    # Full weight: what this move captures (four times), the exchange, and the threats against us.
    cy = 0
    for x in (0x90, c.WCAP0, c.WCAP0, c.WCAP0, c.WCAP0, c.WCAP1):
        a, cy = adc(a, x, cy)
    cy = 1
    for x in (c.BMAXC, c.BMAXC, c.BMCC, c.BMCC, c.BCAP1):
        a, cy = sbc(a, x, cy)
    # Positional kicker: the centre, or developing a piece off the back rank.
    if to in CENTRE_KICK_SQUARES or (not mover_is_king and frm >> 4 == 0):
        a = (a + 2) & 0xFF
    return a


def final_score(c: Counters, value: int) -> int:
    """Apply the terminal overrides to a strategy value.

    If the opponent can take our king the move is worth 0 (cannot happen: such moves are never
    generated). If the opponent has no reply and our continuation captures nothing (WMAXP is
    also 0 when it captures the king) the move is worth 0xFF: mate, but stalemate too.
    """
    if c.BMAXC == POINTS_KING:
        return 0x00
    if c.BMOB == 0 and c.WMAXP == 0:
        return 0xFF
    return value
