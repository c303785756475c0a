"""A person at the terminal as a chess agent (the ``human`` seat).

It is an agent like any other: it reads the state JSON and returns one answer object, so the
referee judges a person's answers by the same rules. It asks again, before answering, until
the text is a legal move (SAN ``Nf3`` or UCI ``g1f3``) or one of ``draw`` (offer, or accept
a standing offer), ``claim`` (a draw claim: threefold repetition or fifty moves, whichever
holds) and ``resign``; end of input resigns. A person is not held to the agents' time limits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from enoch.protocol import move_answer, parse_state
from enoch.rules import Position, move_uci


class TerminalPlayer:
    name = "human"
    untimed = True

    def __init__(
        self, read: Callable[[str], str] = input, write: Callable[[str], Any] = print
    ) -> None:
        self.read = read
        self.write = write

    def answer(self, state: dict[str, Any]) -> dict[str, Any]:
        import chess

        parsed = parse_state(state)
        pos: Position = parsed.position
        board = chess.Board(pos.fen())
        colour = state["turn"]
        if state.get("last_error"):
            self.write(f"refused: {state['last_error']}")
        offer = state.get("draw_offer")
        if offer and offer != colour:
            self.write(f"{offer} offers a draw: type draw to accept, or move to decline")
        legal = {move_uci(m): m for m in pos.legal_moves()}
        while True:
            try:
                text = self.read(f"{colour} to move (SAN or UCI, draw, claim, resign): ").strip()
            except EOFError:
                return {"action": "resign"}
            if text == "resign":
                return {"action": "resign"}
            if text in ("draw", "offer"):
                return {"action": "offer_draw"}
            if text == "claim":
                reason = (
                    "threefold_repetition" if pos.repetition_count() >= 3 else "fifty_move_rule"
                )
                return {"action": "claim_draw", "reason": reason}
            uci = text.lower()
            if uci not in legal:
                try:
                    uci = board.parse_san(text).uci()
                except ValueError:
                    self.write(f"not a legal move here: {text[:20]!r}")
                    continue
            if uci in legal:
                return move_answer(legal[uci])
            self.write(f"not a legal move here: {text[:20]!r}")

    def close(self) -> None:
        """Nothing to release."""
