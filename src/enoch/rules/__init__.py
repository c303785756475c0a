"""The FIDE rules core: positions, legal moves, make/unmake, Zobrist keys, FEN, outcome.

Public surface: :class:`Position`, :class:`Outcome`, the move helpers and :func:`perft`.
Moves are ints (see :mod:`enoch.rules.position`); squares are 0..63 from a1 to h8.
"""

from enoch.rules.perft import MAX_PERFT_DEPTH, divide, perft, perft_bulk
from enoch.rules.position import (
    MAX_CLOCK,
    STARTING_FEN,
    Move,
    Outcome,
    Position,
    move_from,
    move_promotion,
    move_to,
    move_uci,
)
from enoch.rules.tables import (
    BISHOP,
    BLACK,
    KING,
    KNIGHT,
    PAWN,
    PIECE_SYMBOLS,
    QUEEN,
    ROOK,
    SQUARE_INDEX,
    SQUARE_NAMES,
    WHITE,
)

__all__ = [
    "BISHOP",
    "BLACK",
    "KING",
    "KNIGHT",
    "MAX_CLOCK",
    "MAX_PERFT_DEPTH",
    "PAWN",
    "PIECE_SYMBOLS",
    "QUEEN",
    "ROOK",
    "SQUARE_INDEX",
    "SQUARE_NAMES",
    "STARTING_FEN",
    "WHITE",
    "Move",
    "Outcome",
    "Position",
    "divide",
    "move_from",
    "move_promotion",
    "move_to",
    "move_uci",
    "perft",
    "perft_bulk",
]
