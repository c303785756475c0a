"""Precomputed bitboard tables: the squares each man attacks, rays, lines and Zobrist keys.

Squares are 0..63 from a1 to h8 (``square = rank * 8 + file``), the numbering python-chess uses,
so that differential tests compare squares directly. Sliding attacks come from dictionaries keyed
by the occupancy of the relevant line (the same scheme as python-chess): one lookup for a
bishop, two for a rook. The tables are built once at import in a few tens of milliseconds.
"""

from __future__ import annotations

import random

# Piece types and colours. A piece code is ``colour << 3 | type`` so that it indexes the
# per-piece bitboard list directly and ``code & 7`` is the type, ``code >> 3`` the colour.
WHITE, BLACK = 0, 1
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6
PIECE_SYMBOLS = ".PNBRQK..pnbrqk"
SYMBOL_TO_CODE = {s: i for i, s in enumerate(PIECE_SYMBOLS) if s != "."}

FILE_NAMES = "abcdefgh"
RANK_NAMES = "12345678"
SQUARE_NAMES = [f + r for r in RANK_NAMES for f in FILE_NAMES]
SQUARE_INDEX = {name: i for i, name in enumerate(SQUARE_NAMES)}

ALL = (1 << 64) - 1
FILE_A = 0x0101010101010101
FILE_H = FILE_A << 7
RANK_1 = 0xFF
RANK_2 = RANK_1 << 8
RANK_3 = RANK_1 << 16
RANK_6 = RANK_1 << 40
RANK_7 = RANK_1 << 48
RANK_8 = RANK_1 << 56
BACKRANKS = RANK_1 | RANK_8
NOT_FILE_A = ALL ^ FILE_A
NOT_FILE_H = ALL ^ FILE_H
LIGHT_SQUARES = 0x55AA55AA55AA55AA
DARK_SQUARES = 0xAA55AA55AA55AA55

BB_SQUARES = [1 << s for s in range(64)]


def _step_attacks(deltas: list[tuple[int, int]]) -> list[int]:
    table = []
    for sq in range(64):
        r, f = divmod(sq, 8)
        bb = 0
        for dr, df in deltas:
            rr, ff = r + dr, f + df
            if 0 <= rr < 8 and 0 <= ff < 8:
                bb |= 1 << (rr * 8 + ff)
        table.append(bb)
    return table


KNIGHT_ATTACKS = _step_attacks(
    [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
)
KING_ATTACKS = _step_attacks([(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)])
# PAWN_ATTACKS[colour][sq]: squares a pawn of that colour on sq attacks.
PAWN_ATTACKS = [_step_attacks([(1, -1), (1, 1)]), _step_attacks([(-1, -1), (-1, 1)])]


def _ray_attacks(sq: int, occ: int, dirs: tuple[tuple[int, int], ...]) -> int:
    r0, f0 = divmod(sq, 8)
    bb = 0
    for dr, df in dirs:
        r, f = r0 + dr, f0 + df
        while 0 <= r < 8 and 0 <= f < 8:
            b = 1 << (r * 8 + f)
            bb |= b
            if occ & b:
                break
            r += dr
            f += df
    return bb


def _edges(sq: int) -> int:
    """Edge squares that never block a slider from ``sq`` (except the edges ``sq`` is on)."""
    r, f = divmod(sq, 8)
    return ((RANK_1 | RANK_8) & ~(RANK_1 << (8 * r))) | ((FILE_A | FILE_H) & ~(FILE_A << f))


def _subsets(mask: int) -> list[int]:
    out = [0]
    sub = 0
    while True:
        sub = (sub - mask) & mask
        if sub == 0:
            return out
        out.append(sub)


_DIAG_DIRS = ((1, 1), (1, -1), (-1, 1), (-1, -1))
_FILE_DIRS = ((1, 0), (-1, 0))
_RANK_DIRS = ((0, 1), (0, -1))


def _line_tables(dirs: tuple[tuple[int, int], ...]) -> tuple[list[int], list[dict[int, int]]]:
    masks: list[int] = []
    attacks: list[dict[int, int]] = []
    for sq in range(64):
        if dirs is _RANK_DIRS:
            mask = _ray_attacks(sq, 0, dirs) & ~(FILE_A | FILE_H)
        elif dirs is _FILE_DIRS:
            mask = _ray_attacks(sq, 0, dirs) & ~(RANK_1 | RANK_8)
        else:
            mask = _ray_attacks(sq, 0, dirs) & ~_edges(sq) & ~(RANK_1 | RANK_8 | FILE_A | FILE_H)
        masks.append(mask)
        attacks.append({sub: _ray_attacks(sq, sub, dirs) for sub in _subsets(mask)})
    return masks, attacks


DIAG_MASKS, DIAG_ATTACKS = _line_tables(_DIAG_DIRS)
FILE_MASKS, FILE_ATTACKS = _line_tables(_FILE_DIRS)
RANK_MASKS, RANK_ATTACKS = _line_tables(_RANK_DIRS)

# Empty-board slider reach, used to find pinners and x-ray attackers cheaply.
BISHOP_PSEUDO = [DIAG_ATTACKS[s][0] for s in range(64)]
ROOK_PSEUDO = [FILE_ATTACKS[s][0] | RANK_ATTACKS[s][0] for s in range(64)]


def bishop_attacks(sq: int, occ: int) -> int:
    return DIAG_ATTACKS[sq][occ & DIAG_MASKS[sq]]


def rook_attacks(sq: int, occ: int) -> int:
    return FILE_ATTACKS[sq][occ & FILE_MASKS[sq]] | RANK_ATTACKS[sq][occ & RANK_MASKS[sq]]


def _build_lines() -> tuple[list[list[int]], list[list[int]]]:
    """LINE[a][b]: the whole line through a and b (0 if not aligned); BETWEEN[a][b]: the
    squares strictly between them (0 if not aligned)."""
    line = [[0] * 64 for _ in range(64)]
    between = [[0] * 64 for _ in range(64)]
    for a in range(64):
        r0, f0 = divmod(a, 8)
        for dr, df in _DIAG_DIRS + _FILE_DIRS + _RANK_DIRS:
            full = _ray_attacks(a, 0, ((dr, df), (-dr, -df))) | (1 << a)
            r, f = r0 + dr, f0 + df
            passed = 0
            while 0 <= r < 8 and 0 <= f < 8:
                b = r * 8 + f
                line[a][b] = full
                between[a][b] = passed
                passed |= 1 << b
                r += dr
                f += df
    return line, between


LINE, BETWEEN = _build_lines()

# Castling rights: bit per right, and for every square the rights that survive a move from or to
# it (a king or rook leaving home, or a rook captured at home).
CASTLE_WK, CASTLE_WQ, CASTLE_BK, CASTLE_BQ = 1, 2, 4, 8
CASTLE_KEEP = [15] * 64
CASTLE_KEEP[4] = 15 & ~(CASTLE_WK | CASTLE_WQ)
CASTLE_KEEP[0] = 15 & ~CASTLE_WQ
CASTLE_KEEP[7] = 15 & ~CASTLE_WK
CASTLE_KEEP[60] = 15 & ~(CASTLE_BK | CASTLE_BQ)
CASTLE_KEEP[56] = 15 & ~CASTLE_BQ
CASTLE_KEEP[63] = 15 & ~CASTLE_BK

# Zobrist keys: fixed seed so that keys are stable across runs (tests, stored tables).
_rng = random.Random(0x5EED_E70C)
ZOBRIST_PIECE = [[_rng.getrandbits(64) for _ in range(64)] for _ in range(16)]
ZOBRIST_TURN = _rng.getrandbits(64)
ZOBRIST_CASTLE = [0] * 16
_cbits = [_rng.getrandbits(64) for _ in range(4)]
for _rights in range(16):
    for _i in range(4):
        if _rights >> _i & 1:
            ZOBRIST_CASTLE[_rights] ^= _cbits[_i]
ZOBRIST_EP = [_rng.getrandbits(64) for _ in range(8)]
del _rng, _cbits
