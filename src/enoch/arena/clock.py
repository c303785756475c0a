"""Time controls and game clocks, in the notation engine testers use.

``60+0.5``: 60 seconds for the game, 0.5 seconds added after each move. ``40/60``: 60 seconds
for every 40 moves (the time is added again after each 40th move). ``40/60+1`` combines both.
Times are seconds; ``1:30`` minutes:seconds is accepted for the base.
"""

from __future__ import annotations

from dataclasses import dataclass

from enoch.errors import InputError


@dataclass(frozen=True)
class TimeControl:
    base: float
    increment: float = 0.0
    moves: int = 0  # 0: the base is for the whole game

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """``60+0.5``, ``40/60``, ``40/60+1`` or ``1:30+2``: finite, bounded numbers only
        (``1e400`` or a negative increment is refused here, before any game starts)."""
        from enoch._numbers import MAX_SECONDS, parse_float, parse_int
        from enoch.errors import quote

        original = text
        expected = "(expected e.g. 60+0.5, 40/60 or 40/60+1)"
        moves = 0
        try:
            if "/" in text:
                head, text = text.split("/", 1)
                moves = parse_int(head, "moves per period", 1, 10_000)
            base_text, _, inc_text = text.partition("+")
            if ":" in base_text:
                minutes, secs = base_text.split(":", 1)
                base = parse_int(minutes, "minutes", 0, 100_000) * 60 + parse_float(
                    secs, "seconds", 0, 59.999
                )
            else:
                base = parse_float(base_text, "the base time", 0, MAX_SECONDS)
            increment = parse_float(inc_text, "the increment", 0, MAX_SECONDS) if inc_text else 0.0
        except InputError as exc:
            raise InputError(f"bad time control {quote(original)}: {exc} {expected}") from None
        if not base > 0 or base > MAX_SECONDS:
            raise InputError(
                f"bad time control {quote(original)}: the base time must be more than 0 and at "
                f"most {MAX_SECONDS:g} seconds"
            )
        return cls(base, increment, moves)

    def __str__(self) -> str:
        """The PGN ``TimeControl`` tag value (seconds)."""
        text = f"{self.base:g}"
        if self.moves:
            text = f"{self.moves}/{text}"
        if self.increment:
            text += f"+{self.increment:g}"
        return text


class Clock:
    """Every seat's remaining time (seats are 0, 1, ...; for chess 0 is white)."""

    def __init__(self, tc: TimeControl, seats: int = 2) -> None:
        self.tc = tc
        self.remaining = [tc.base] * seats
        self.moves_made = [0] * seats

    def moves_to_go(self, seat: int) -> int:
        if not self.tc.moves:
            return 0
        return self.tc.moves - self.moves_made[seat] % self.tc.moves

    def spend(self, seat: int, seconds: float, *, move: bool = True) -> bool:
        """Charge ``seconds``; False if the flag fell. After a completed move (``move``) add
        the increment and, with ``moves/time`` controls, the next period's time."""
        self.remaining[seat] -= seconds
        if self.remaining[seat] < 0:
            return False
        if move:
            self.moves_made[seat] += 1
            self.remaining[seat] += self.tc.increment
            if self.tc.moves and self.moves_made[seat] % self.tc.moves == 0:
                self.remaining[seat] += self.tc.base
        return True
