"""Squares, armies, kinds and precomputed attack tables of the Enochian board.

Everything here is a constant computed once at import: bitboards are Python ints with a1 = bit 0
and h8 = bit 63 (the arrays file's convention). Armies are small integers in deosil order
(Air 0, Water 1, Fire 2, Earth 3), chosen so that ``army % 2`` is the team (Air and Fire are
the *actives*, team 0; Water and Earth the *passives*, team 1) and ``army ^ 2`` is the ally.
"""

from __future__ import annotations

import enoch.rules.tables as _fide_tables

Bitboard = int
Square = int

FULL: Bitboard = (1 << 64) - 1
SQUARE_NAMES = [f + r for r in "12345678" for f in "abcdefgh"]
SQUARE_INDEX = {name: i for i, name in enumerate(SQUARE_NAMES)}
BB = [1 << s for s in range(64)]

AIR, WATER, FIRE, EARTH = 0, 1, 2, 3
ARMIES = (AIR, WATER, FIRE, EARTH)
ARMY_NAMES = ("air", "water", "fire", "earth")
ARMY_COLOURS = ("yellow", "blue", "red", "black")
ARMY_INDEX = {n: i for i, n in enumerate(ARMY_NAMES)}
ARMY_INDEX.update({c: i for i, c in enumerate(ARMY_COLOURS)})
TEAM_NAMES = ("actives", "passives")
TEAM_INDEX = {n: i for i, n in enumerate(TEAM_NAMES)}

# Kinds. Pawns are four kinds, one per patron, so a pawn's patron lives in its bitboard.
KING, QUEEN, BISHOP, KNIGHT, ROOK = 0, 1, 2, 3, 4
PAWN_Q, PAWN_B, PAWN_N, PAWN_R = 5, 6, 7, 8
NKINDS = 9
PIECE_KINDS = (QUEEN, BISHOP, KNIGHT, ROOK)
PAWN_KINDS = (PAWN_Q, PAWN_B, PAWN_N, PAWN_R)
KIND_NAMES = ("king", "queen", "bishop", "knight", "rook", "pawn", "pawn", "pawn", "pawn")
KIND_LETTERS = "KQBNRPPPP"
BASE_KIND = {"king": KING, "queen": QUEEN, "bishop": BISHOP, "knight": KNIGHT, "rook": ROOK}
LETTER_KIND = {"K": KING, "Q": QUEEN, "B": BISHOP, "N": KNIGHT, "R": ROOK}


def pawn_of(patron: int) -> int:
    """The pawn kind whose patron is ``patron`` (a piece kind)."""
    return patron + 4


def patron_of(pawn_kind: int) -> int:
    """The patron piece kind of a pawn kind."""
    return pawn_kind - 4


# Systems: a queen or bishop never changes square colour, so its system is that colour.
ARIES_MASK: Bitboard = 0xAA55AA55AA55AA55  # dark squares, a1 and h8
CANCER_MASK: Bitboard = 0x55AA55AA55AA55AA  # light squares, a8 and h1

THRONES = (56, 63, 7, 0)  # a8, h8, h1, a1
CORNERS: Bitboard = BB[0] | BB[7] | BB[56] | BB[63]


def system_of(square: Square, seed_labels: bool = False) -> str:
    """The diagonal-system name of a square; ``seed_labels`` swaps the names as the seed note
    does (option ``seed_system_labels``, docs/enochian.md)."""
    dark = bool(ARIES_MASK >> square & 1)
    if seed_labels:
        dark = not dark
    return "aries" if dark else "cancer"


def _on(f: int, r: int) -> bool:
    return 0 <= f < 8 and 0 <= r < 8


def _leaps(deltas: list[tuple[int, int]]) -> list[Bitboard]:
    out = []
    for s in range(64):
        f, r = s % 8, s // 8
        bb = 0
        for df, dr in deltas:
            if _on(f + df, r + dr):
                bb |= BB[(r + dr) * 8 + f + df]
        out.append(bb)
    return out


KING_ATT = _leaps([(a, b) for a in (-1, 0, 1) for b in (-1, 0, 1) if a or b])
KNIGHT_ATT = _leaps([(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)])
QUEEN_ATT = _leaps([(a, b) for a in (-2, 0, 2) for b in (-2, 0, 2) if a or b])

# Sliders move as in FIDE chess on the same a1 = 0 square numbering, so the rules core's
# tables serve here too: the empty-board reach of each square, and table-driven attacks
# (11% fewer instructions for perft(4) than walking the rays, measured with callgrind).
ROOK_LINES = _fide_tables.ROOK_PSEUDO
BISHOP_LINES = _fide_tables.BISHOP_PSEUDO
rook_attacks = _fide_tables.rook_attacks
bishop_attacks = _fide_tables.bishop_attacks


# Pawns: direction per army (Air south, Water west, Fire north, Earth east).
PAWN_STEP = ((0, -1), (-1, 0), (0, 1), (1, 0))
PROMOTION_EDGE: list[Bitboard] = [0xFF, 0x0101010101010101, 0xFF << 56, 0x8080808080808080]
PAWN_PUSH: list[list[int]] = []  # [army][sq] -> target square or -1
PAWN_CAPS: list[list[Bitboard]] = []  # [army][sq] -> capture squares
PAWN_ATTACKERS: list[list[Bitboard]] = []  # [army][sq] -> squares its pawns capture sq from
for _a, (_df, _dr) in enumerate(PAWN_STEP):
    push, caps, rev = [], [], [0] * 64
    for _s in range(64):
        f, r = _s % 8 + _df, _s // 8 + _dr
        push.append(r * 8 + f if _on(f, r) else -1)
        bb = 0
        for side in (-1, 1):
            cf, cr = (f + side, r) if _df == 0 else (f, r + side)
            if _on(cf, cr):
                bb |= BB[cr * 8 + cf]
        caps.append(bb)
    for _s in range(64):
        b = caps[_s]
        while b:
            t = (b & -b).bit_length() - 1
            rev[t] |= BB[_s]
            b &= b - 1
    PAWN_PUSH.append(push)
    PAWN_CAPS.append(caps)
    PAWN_ATTACKERS.append(rev)


def squares(bb: Bitboard) -> list[Square]:
    """The set bits of ``bb`` in ascending order (a1, b1, ... h8)."""
    out = []
    while bb:
        low = bb & -bb
        out.append(low.bit_length() - 1)
        bb ^= low
    return out


def parse_square(text: object) -> Square:
    """``"e4"`` -> 28; raises ValueError for anything else."""
    if not isinstance(text, str) or text not in SQUARE_INDEX:
        raise ValueError(f"not a square: {text!r}")
    return SQUARE_INDEX[text]


def chebyshev(a: Square, b: Square) -> int:
    """King distance between two squares."""
    return max(abs(a % 8 - b % 8), abs(a // 8 - b // 8))
