"""The chess board for the terminal: men on light and dark squares, the last move marked."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from enoch.rules import PIECE_SYMBOLS, move_from, move_to

if TYPE_CHECKING:
    from enoch.fide.game import ChessState

_GLYPHS = {"p": "♟", "n": "♞", "b": "♝", "r": "♜", "q": "♛", "k": "♚"}


def board(state: ChessState, colour: bool) -> Any:
    """The board as people see one, coloured when the output is a terminal; the plain text
    board otherwise (pipes, logs)."""
    from rich.text import Text

    cells = state.pos.board
    if not colour:
        return Text(board_text(state))
    marked: set[int] = set()
    if state.move_list:
        last = state.move_list[-1]
        marked = {move_from(last), move_to(last)}
    text = Text()
    for rank in range(7, -1, -1):
        text.append(f" {rank + 1} ", style="dim")
        for file in range(8):
            sq = rank * 8 + file
            light = (rank + file) % 2 == 1
            if sq in marked:
                bg = "#cdd26a" if light else "#aaa23a"
            else:
                bg = "#f0d9b5" if light else "#b58863"
            code = cells[sq]
            if not code:
                text.append("   ", style=f"on {bg}")
            else:
                symbol = PIECE_SYMBOLS[code]
                fg = "bold #ffffff" if symbol.isupper() else "bold #000000"
                text.append(f" {_GLYPHS[symbol.lower()]} ", style=f"{fg} on {bg}")
        text.append("\n")
    text.append("    a  b  c  d  e  f  g  h", style="dim")
    return text


def board_text(state: ChessState) -> str:
    rows = []
    cells = state.pos.board
    for rank in range(7, -1, -1):
        row = [PIECE_SYMBOLS[cells[rank * 8 + f]] if cells[rank * 8 + f] else "." for f in range(8)]
        rows.append(f"  {rank + 1} " + " ".join(row))
    rows.append("    a b c d e f g h")
    return "\n".join(rows)
