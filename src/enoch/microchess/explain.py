"""``enoch microchess explain``: every candidate, its 17 counters, and the decision.

The point is auditability: a reader can take any line, feed its counters to the scoring chain
in :mod:`enoch.microchess.arith` by hand, and land on the same byte, and can compare a whole
position against a run of the original program counter by counter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from enoch.microchess.arith import COUNTER_NAMES
from enoch.microchess.evaluator import Board, Evaluation, evaluate, from_frame
from enoch.microchess.slots import SLOT_NAMES, WHITE, Men, assign, parse_placement
from enoch.rules import SQUARE_NAMES, Position

#: The counters that are the same for every candidate (taken before any move is made).
BASELINE = ("PMOB", "PMAXC", "PCC")


@dataclass(frozen=True)
class Explanation:
    """A position, the men as the original sees them, and its evaluation."""

    fen: str
    men: Men
    evaluation: Evaluation

    def uci(self, i: int) -> str:
        """Candidate ``i`` as UCI text (no promotion letter: the original never promotes)."""
        c = self.evaluation.candidates[i]
        white = self.evaluation.white_to_move
        return SQUARE_NAMES[from_frame(c.frm, white)] + SQUARE_NAMES[from_frame(c.to, white)]

    @property
    def best_move(self) -> str | None:
        best = self.evaluation.best
        return None if best is None else self.uci(best)


def explain_fen(fen: str) -> Explanation:
    """Evaluate a FEN as the original would; :class:`enoch.errors.FenError` if it is bad.

    Slots are assigned from the position alone (there is no game to follow).
    """
    pos = Position.from_fen(fen.strip())
    men = assign(parse_placement(pos.board_fen()))
    white = pos.turn == WHITE
    shown = pos.fen() if fen.strip() == "startpos" else fen.strip()
    return Explanation(shown, men, evaluate(Board.from_men(men, white), white))


def to_json(ex: Explanation) -> dict[str, Any]:
    """The ``--json`` object: computer, best_move, score (the original's bestv), candidates."""
    ev = ex.evaluation
    out: dict[str, Any] = {
        "computer": "white" if ev.white_to_move else "black",
        "best_move": ex.best_move,
        "score": ev.best_value,
        "candidates": [
            {
                "move": ex.uci(i),
                "piece": c.slot,
                "score": c.score,
                "strategy_value": c.strategy_value,
                **{name: getattr(c.counters, name) for name in COUNTER_NAMES},
            }
            for i, c in enumerate(ev.candidates)
        ],
    }
    if ex.men.unplaced:
        out["unplaced"] = [SQUARE_NAMES[sq] for sq, _ in ex.men.unplaced]
    return out


def render_text(ex: Explanation) -> str:
    """A plain fixed-width table, one candidate per line in generation order."""
    ev = ex.evaluation
    side = "White" if ev.white_to_move else "Black"
    lines = [f"MicroChess (1976) to move as {side}: {ex.fen}"]
    if ex.men.unplaced:
        names = ", ".join(f"{p}{SQUARE_NAMES[sq]}" for sq, p in ex.men.unplaced)
        lines.append(f"men with no free slot (invisible to the original): {names}")
    if not ev.candidates:
        lines.append("no candidate moves")
    else:
        first = ev.candidates[0].counters
        base = "  ".join(f"{n}={getattr(first, n)}" for n in BASELINE)
        lines.append(f"before the move: {base}")
        shown = [n for n in COUNTER_NAMES if n not in BASELINE]
        header = f"{'#':>3}  {'move':<5} {'man':<5}" + "".join(f"{n:>6}" for n in shown)
        header += f"{'value':>7}{'score':>7}"
        lines.append(header)
        for i, c in enumerate(ev.candidates):
            mark = "*" if i == ev.best else " "
            row = f"{i:>3}{mark} {ex.uci(i):<5} {SLOT_NAMES[c.slot]:<5}"
            row += "".join(f"{getattr(c.counters, n):>6}" for n in shown)
            row += f"{c.strategy_value:>7}{c.score:>7}"
            lines.append(row)
    if ex.best_move is None:
        lines.append(
            f"no move: best score {ev.best_value} < 15, the original resigns "
            "(or is mated or stalemated)"
        )
    else:
        lines.append(f"chosen: {ex.best_move} (score {ev.best_value})")
    return "\n".join(lines) + "\n"
