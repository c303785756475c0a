"""``builtin:microchess``: the 1976 program as a player of FIDE chess.

Where the original would move, the agent plays the same move. Everything the original cannot
express is decided here, openly (see ``docs/microchess.md``):

* **Promotion.** The original walks a pawn to the last row and leaves it a pawn; the agent
  promotes it to a queen (``"Q"``).
* **Castling, en passant.** The original never generates them, so the agent never chooses
  them (except in the ``resign=no`` fallback below, which may pick any legal move).
* **Too many men of a kind** (a second queen...). Men that fit no slot are invisible to the
  evaluator (:mod:`enoch.microchess.slots`); a freed slot of their kind takes them back.
* **Legality.** Every move is checked against the FIDE rules core. The original's choice can
  only be illegal when invisible men are about (it may move through or onto them, or ignore
  their checks); then the agent plays the best-scoring candidate that *is* legal.
* **No move** (``bestv < 15``: the original resigns, or is mated or stalemated). The agent
  claims a draw if one can be claimed now (threefold repetition, fifty moves), else resigns.
* **Draw claims** otherwise: the original knows no draw rules and plays on.

Options (``builtin:microchess?resign=no&draw=always&history=no``):

* ``resign=yes|no`` (yes): with ``no``, the no-move case plays the best-scoring legal candidate,
  or the first legal FIDE move if the original has none (this may castle or take en passant).
* ``draw=lost|always|never`` (lost): claim an available draw only when the original would not
  move, always before moving, or never.
* ``history=yes|no`` (yes): follow men through ``position_history`` so that each keeps its slot,
  as in the original's own games; with ``no``, assign slots from the current position.
"""

from __future__ import annotations

from typing import Any

from enoch.errors import InputError, quote
from enoch.microchess.evaluator import Board, Evaluation, evaluate, from_frame
from enoch.microchess.slots import BLACK, WHITE, Men, Placement, assign, parse_placement, track
from enoch.protocol import read_state
from enoch.rules import SQUARE_NAMES, Position, move_uci

_OPTIONS: dict[str, tuple[str, ...]] = {
    "resign": ("yes", "no"),
    "draw": ("lost", "always", "never"),
    "history": ("yes", "no"),
}


def state_position(state: dict[str, Any]) -> Position:
    """The FIDE position of a state, parsed (and validated) by the protocol layer."""
    return read_state(state).position


def _history_key(fen4: str) -> str | None:
    """A history entry normalised to FIDE's identity (legal-only en passant), or None."""
    try:
        return Position.from_fen(fen4.strip(), validate=False).position_fen()
    except InputError:
        return None


class MicroChessAgent:
    """The 1976 MicroChess move chooser, playing only FIDE-legal moves."""

    def __init__(self, **options: str) -> None:
        for key, value in options.items():
            allowed = _OPTIONS.get(key)
            if allowed is None:
                known = ", ".join(sorted(_OPTIONS))
                raise InputError(
                    f"unknown option {quote(key)} for builtin:microchess (known: {known})"
                )
            if value not in allowed:
                raise InputError(
                    f"option {key}={quote(value)} for builtin:microchess must be one of "
                    + ", ".join(allowed)
                )
        self.resign = options.get("resign", "yes") == "yes"
        self.draw = options.get("draw", "lost")
        self.follow_history = options.get("history", "yes") == "yes"
        self.name = "microchess"

    # -- what the original sees ----------------------------------------------------------------

    def men_for(self, state: dict[str, Any], pos: Position) -> Men:
        """Slots for the current position: followed through the history when there is one."""
        current = parse_placement(pos.board_fen())
        history = state.get("position_history") or []
        if not self.follow_history or not isinstance(history, list) or not history:
            return assign(current)
        chain: list[tuple[Placement, int]] = []
        try:
            for entry in history:
                fields = str(entry).split()
                chain.append((parse_placement(fields[0]), WHITE if fields[1] == "w" else BLACK))
        except (ValueError, IndexError):
            return assign(current)  # an unreadable history: judge the position alone
        chain.append((current, pos.turn))
        men = track(chain)
        return men if men.placement() == current else assign(current)

    def evaluation(self, state: dict[str, Any]) -> tuple[Position, Evaluation]:
        """The original's full decision for a state (used by ``answer`` and by tests)."""
        pos = state_position(state)
        men = self.men_for(state, pos)
        white = pos.turn == WHITE
        return pos, evaluate(Board.from_men(men, white), white)

    # -- the answer ------------------------------------------------------------------------------

    def _draw_reason(self, state: dict[str, Any], pos: Position) -> str | None:
        """The draw the side to move could claim now, if any (checked as the referee does)."""
        if not pos.legal_moves():
            return None
        if pos.halfmove >= 100:
            return "fifty_move_rule"
        history = state.get("position_history") or []
        if isinstance(history, list) and len(history) >= 2:
            here = pos.position_fen()
            recent = history[max(len(history) - pos.halfmove, 0) :]
            if 1 + sum(_history_key(str(h)) == here for h in recent) >= 3:
                return "threefold_repetition"
        return None

    def answer(self, state: dict[str, Any]) -> dict[str, Any]:
        """Answer one state: the original's move, verified legal, or a claim or resignation."""
        pos, ev = self.evaluation(state)
        white = pos.turn == WHITE
        moves = [move_uci(m) for m in pos.legal_moves()]
        legal = set(moves)
        if self.draw == "always":
            reason = self._draw_reason(state, pos)
            if reason:
                return {"action": "claim_draw", "reason": reason}

        def as_uci(i: int) -> str:
            c = ev.candidates[i]
            return SQUARE_NAMES[from_frame(c.frm, white)] + SQUARE_NAMES[from_frame(c.to, white)]

        # The original's choice when legal, else the best legal candidate: highest score, the
        # earliest in generation order among equals (the original's own tie rule).
        order = sorted(range(len(ev.candidates)), key=lambda i: -ev.candidates[i].score)
        if ev.best is not None:
            order.remove(ev.best)
            order.insert(0, ev.best)
        playable = [i for i in order if as_uci(i) in legal or as_uci(i) + "q" in legal]
        if playable and ev.candidates[playable[0]].score >= 15:
            return self._move(as_uci(playable[0]), legal)
        # The original would not move.
        if self.draw != "never":
            reason = self._draw_reason(state, pos)
            if reason:
                return {"action": "claim_draw", "reason": reason}
        if self.resign or not legal:
            return {"action": "resign"}
        if playable:
            return self._move(as_uci(playable[0]), legal)
        # Nothing the original knows is legal (only castling or en passant is): the first legal
        # move of the rules core, never an under-promotion.
        return self._move(next(u for u in moves if len(u) == 4 or u.endswith("q")), legal)

    @staticmethod
    def _move(uci: str, legal: set[str]) -> dict[str, Any]:
        """The answer object for a UCI move; a pawn reaching the last rank becomes a queen."""
        promotion = None
        if uci not in legal:
            promotion = "Q"
        elif len(uci) == 5:
            promotion = uci[4].upper()
        return {"from": uci[0:2], "to": uci[2:4], "promotion": promotion}

    def close(self) -> None:
        """Nothing to release: the agent holds no process or table."""
