"""A person at the terminal as an Enochian agent (the ``human`` seat).

It reads the state JSON like any agent, draws the board, and asks until the text is a legal
move in the game's notation, or ``offer``, ``resign`` or ``withdraw``; an exchange offer
addressed to it is answered ``y`` or ``n``. End of input resigns. A person is not held to the
agents' time limits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class TerminalPlayer:
    name = "human"
    untimed = True

    def __init__(self, read: Callable[[str], str] = input, console: Any = None) -> None:
        self.read = read
        self.console = console

    def _print(self, what: Any) -> None:
        if self.console is None:
            from rich.console import Console

            self.console = Console()
        self.console.print(what)

    def answer(self, state: dict[str, Any]) -> dict[str, Any]:
        from enoch.enochian.protocol import move_to_json, state_from_json
        from enoch.enochian.render import board_text, status_line
        from enoch.errors import IllegalMoveError

        st = state_from_json({k: v for k, v in state.items() if k not in ("last_error",)})
        self._print(board_text(st))
        self._print(status_line(st))
        if state.get("last_error"):
            self._print(f"refused: {state['last_error']}")
        try:
            if st.pending is not None:
                while True:
                    ans = self.read("exchange of prisoners offered: accept? [y/n] ").strip()
                    if ans.lower() in ("y", "n"):
                        action = "accept_exchange" if ans.lower() == "y" else "refuse_exchange"
                        return {"action": action}
            moves = st.legal_moves()
            self._print("legal: " + " ".join(st.move_str(m) for m in moves))
            while True:
                example = st.move_str(moves[0]) if moves else "offer"
                text = self.read(
                    f"{state['to_move']} to move (e.g. {example}, offer, resign): "
                ).strip()
                if text in ("offer", "resign", "withdraw"):
                    return {"action": {"offer": "offer_exchange"}.get(text, text)}
                try:
                    return move_to_json(st, st.parse_move(text))
                except IllegalMoveError as exc:
                    self._print(str(exc))
        except EOFError:
            return {"action": "resign"}

    def close(self) -> None:
        """Nothing to release."""
