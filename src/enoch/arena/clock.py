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
        original = text
        moves = 0
        try:
            if "/" in text:
                head, text = text.split("/", 1)
                moves = int(head)
                if moves <= 0:
                    raise ValueError
            base_text, _, inc_text = text.partition("+")
            if ":" in base_text:
                minutes, seconds = base_text.split(":", 1)
                base = int(minutes) * 60 + float(seconds)
            else:
                base = float(base_text)
            increment = float(inc_text) if inc_text else 0.0
        except ValueError:
            raise InputError(
                f"bad time control {original!r} (expected e.g. 60+0.5, 40/60 or 40/60+1)"
            ) from None
        if not base > 0 or increment < 0 or base != base or increment != increment:
            raise InputError(f"bad time control {original!r}: times must be positive")
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
