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
    """Both players' remaining time; players are 0 (white) and 1 (black)."""

    def __init__(self, tc: TimeControl) -> None:
        self.tc = tc
        self.remaining = [tc.base, tc.base]
        self.moves_made = [0, 0]

    def moves_to_go(self, player: int) -> int:
        if not self.tc.moves:
            return 0
        return self.tc.moves - self.moves_made[player] % self.tc.moves

    def spend(self, player: int, seconds: float) -> bool:
        """Charge ``seconds``; False if the flag fell. Adds the increment and the next
        period's time after a completed move."""
        self.remaining[player] -= seconds
        if self.remaining[player] < 0:
            return False
        self.moves_made[player] += 1
        self.remaining[player] += self.tc.increment
        if self.tc.moves and self.moves_made[player] % self.tc.moves == 0:
            self.remaining[player] += self.tc.base
        return True

    def state_field(self, player: int) -> dict[str, float | int]:
        """The optional ``clock`` state field for ``player`` (remaining seconds of both sides,
        the increment, and with ``moves/time`` controls the moves left in this period)."""
        field: dict[str, float | int] = {
            "white": round(self.remaining[0], 3),
            "black": round(self.remaining[1], 3),
            "increment": self.tc.increment,
        }
        if self.tc.moves:
            field["moves_to_go"] = self.moves_to_go(player)
        return field

    def uci(self, player: int) -> dict[str, float]:
        return {
            "wtime": max(self.remaining[0], 0.0),
            "btime": max(self.remaining[1], 0.0),
            "winc": self.tc.increment,
            "binc": self.tc.increment,
            "movestogo": float(self.moves_to_go(player)),
        }
