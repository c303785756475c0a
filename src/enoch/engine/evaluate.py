"""Static evaluation: tapered (middlegame/endgame) score from the side to move's point of view.

Scores are packed: ``S(mg, eg) = (mg << 16) + eg`` holds both halves in one int, so that the
search carries a single incremental material+table score (``psq``) and adds a move's delta with
one addition. :func:`unpack` splits it again. Everything else (pawn structure, mobility, king
safety, bishop pair, rooks on files) is computed at the leaf: pawn structure is cached by the
pawn bitboards, since pawns move rarely.
"""

from __future__ import annotations

from enoch.engine import tables as T
from enoch.rules.position import Position
from enoch.rules.tables import (
    DIAG_ATTACKS,
    DIAG_MASKS,
    FILE_A,
    FILE_ATTACKS,
    FILE_MASKS,
    KING_ATTACKS,
    KNIGHT_ATTACKS,
    NOT_FILE_A,
    NOT_FILE_H,
    RANK_ATTACKS,
    RANK_MASKS,
)

ALL64 = (1 << 64) - 1


def S(mg: int, eg: int) -> int:
    return (mg << 16) + eg


def unpack(s: int) -> tuple[int, int]:
    eg = ((s + 0x8000) & 0xFFFF) - 0x8000
    return (s - eg) >> 16, eg


def _build_psq() -> list[list[int]]:
    psq = [[0] * 64 for _ in range(16)]
    for t in range(1, 7):
        for sq in range(64):
            w = S(T.MG_VALUE[t] + T.MG_PST[t][sq ^ 56], T.EG_VALUE[t] + T.EG_PST[t][sq ^ 56])
            b = S(T.MG_VALUE[t] + T.MG_PST[t][sq], T.EG_VALUE[t] + T.EG_PST[t][sq])
            psq[t][sq] = w
            psq[8 | t][sq] = -b
    return psq


PSQ = _build_psq()
# Material for SEE, MVV-LVA and delta pruning (index: piece type).
SEE_VALUE = (0, 100, 320, 330, 500, 950, 20000)


def psq_score(pos: Position) -> int:
    """The packed material + table score of a position, White's point of view (from scratch)."""
    s = 0
    for sq, code in enumerate(pos.board):
        if code:
            s += PSQ[code][sq]
    return s


def _w(name: str) -> int:
    mg, eg = T.WEIGHTS[name]
    return S(mg, eg)


def _mobility_table(name: str, centre: int, size: int) -> list[int]:
    mg, eg = T.WEIGHTS[name]
    return [S(mg * (n - centre), eg * (n - centre)) for n in range(size)]


FILES = [FILE_A << f for f in range(8)]
ADJACENT = [(FILES[f - 1] if f > 0 else 0) | (FILES[f + 1] if f < 7 else 0) for f in range(8)]
# Squares in front of a pawn on its own and adjacent files (the squares an enemy pawn must not
# hold for it to be passed), per colour.
PASSED_MASK: list[list[int]] = [[0] * 64, [0] * 64]
SHIELD: list[list[int]] = [[0] * 64, [0] * 64]
for _sq in range(64):
    _r, _f = divmod(_sq, 8)
    _span = FILES[_f] | ADJACENT[_f]
    _ahead_w = sum(1 << s for s in range((_r + 1) * 8, 64)) if _r < 7 else 0
    _ahead_b = (1 << (_r * 8)) - 1
    PASSED_MASK[0][_sq] = _span & _ahead_w
    PASSED_MASK[1][_sq] = _span & _ahead_b
    _near_w = sum(1 << s for s in range((_r + 1) * 8, min(64, (_r + 3) * 8)))
    _near_b = sum(1 << s for s in range(max(0, (_r - 2) * 8), _r * 8))
    SHIELD[0][_sq] = _span & _near_w if _r <= 1 else 0
    SHIELD[1][_sq] = _span & _near_b if _r >= 6 else 0

W: dict[str, int] = {}
MOB_N: list[int] = []
MOB_B: list[int] = []
MOB_R: list[int] = []
MOB_Q: list[int] = []
PASSED: list[list[int]] = [[0] * 64, [0] * 64]
KING_DANGER: list[int] = []
PAWN_CACHE: dict[int, int] = {}
# Bumped by every configure(): searchers drop their cached evaluations when it changes.
VERSION = 0


def configure() -> None:
    """(Re)build the derived tables from :data:`tables.WEIGHTS` (the tuner calls this)."""
    global VERSION
    VERSION += 1
    W.clear()
    for name in T.WEIGHTS:
        W[name] = _w(name)
    MOB_N[:] = _mobility_table("knight_mobility", 4, 9)
    MOB_B[:] = _mobility_table("bishop_mobility", 6, 14)
    MOB_R[:] = _mobility_table("rook_mobility", 6, 15)
    MOB_Q[:] = _mobility_table("queen_mobility", 12, 28)
    for sq in range(64):
        r = sq >> 3
        PASSED[0][sq] = S(T.PASSED_MG[r], T.PASSED_EG[r])
        PASSED[1][sq] = -S(T.PASSED_MG[7 - r], T.PASSED_EG[7 - r])
    ka = T.WEIGHTS["king_attack"][0]
    KING_DANGER[:] = [S(-min(u * u * ka // 3, 700), 0) for u in range(64)]
    PAWN_CACHE.clear()


configure()


def _pawns(wp: int, bp: int) -> int:
    """Packed pawn-structure score (White's view): doubled, isolated and passed pawns."""
    s = 0
    doubled = W["doubled_pawn"]
    isolated = W["isolated_pawn"]
    for f in range(8):
        fm = FILES[f]
        nw = (wp & fm).bit_count()
        nb = (bp & fm).bit_count()
        if nw:
            if nw > 1:
                s += doubled * (nw - 1)
            if not wp & ADJACENT[f]:
                s += isolated * nw
        if nb:
            if nb > 1:
                s -= doubled * (nb - 1)
            if not bp & ADJACENT[f]:
                s -= isolated * nb
    pw, pb = PASSED_MASK
    t = wp
    while t:
        b = t & -t
        sq = b.bit_length() - 1
        t ^= b
        if not pw[sq] & bp:
            s += PASSED[0][sq]
    t = bp
    while t:
        b = t & -t
        sq = b.bit_length() - 1
        t ^= b
        if not pb[sq] & wp:
            s += PASSED[1][sq]
    return s


def evaluate(pos: Position, psq: int) -> int:
    """The position's score in centipawns for the side to move; ``psq`` is its packed
    material + table score (White's view), as the search keeps it incrementally."""
    bb = pos.bb
    wp = bb[1]
    bp = bb[9]
    pkey = wp | bp << 64
    ps = PAWN_CACHE.get(pkey)
    if ps is None:
        if len(PAWN_CACHE) > 100_000:
            PAWN_CACHE.clear()
        ps = PAWN_CACHE[pkey] = _pawns(wp, bp)
    s = psq + ps
    occ = pos.occ
    wocc = occ[0]
    bocc = occ[1]
    allocc = wocc | bocc
    watt = (((wp & NOT_FILE_A) << 7) | ((wp & NOT_FILE_H) << 9)) & ALL64
    batt = ((bp & NOT_FILE_A) >> 9) | ((bp & NOT_FILE_H) >> 7)
    wsafe = ~(wocc | batt) & ALL64
    bsafe = ~(bocc | watt) & ALL64
    wk, bk = pos.kings
    wzone = KING_ATTACKS[wk]
    bzone = KING_ATTACKS[bk]
    w_units = w_attackers = b_units = b_attackers = 0  # attacks *by* white / black

    t = bb[2]
    while t:
        b = t & -t
        sq = b.bit_length() - 1
        t ^= b
        a = KNIGHT_ATTACKS[sq]
        s += MOB_N[(a & wsafe).bit_count()]
        if a & bzone:
            w_units += 2
            w_attackers += 1
    t = bb[10]
    while t:
        b = t & -t
        sq = b.bit_length() - 1
        t ^= b
        a = KNIGHT_ATTACKS[sq]
        s -= MOB_N[(a & bsafe).bit_count()]
        if a & wzone:
            b_units += 2
            b_attackers += 1
    t = bb[3]
    while t:
        b = t & -t
        sq = b.bit_length() - 1
        t ^= b
        a = DIAG_ATTACKS[sq][allocc & DIAG_MASKS[sq]]
        s += MOB_B[(a & wsafe).bit_count()]
        if a & bzone:
            w_units += 2
            w_attackers += 1
    t = bb[11]
    while t:
        b = t & -t
        sq = b.bit_length() - 1
        t ^= b
        a = DIAG_ATTACKS[sq][allocc & DIAG_MASKS[sq]]
        s -= MOB_B[(a & bsafe).bit_count()]
        if a & wzone:
            b_units += 2
            b_attackers += 1
    allp = wp | bp
    t = bb[4]
    while t:
        b = t & -t
        sq = b.bit_length() - 1
        t ^= b
        a = FILE_ATTACKS[sq][allocc & FILE_MASKS[sq]] | RANK_ATTACKS[sq][allocc & RANK_MASKS[sq]]
        s += MOB_R[(a & wsafe).bit_count()]
        if a & bzone:
            w_units += 3
            w_attackers += 1
        fm = FILES[sq & 7]
        if not fm & wp:
            s += W["rook_semi_open_file"] if fm & bp else W["rook_open_file"]
    t = bb[12]
    while t:
        b = t & -t
        sq = b.bit_length() - 1
        t ^= b
        a = FILE_ATTACKS[sq][allocc & FILE_MASKS[sq]] | RANK_ATTACKS[sq][allocc & RANK_MASKS[sq]]
        s -= MOB_R[(a & bsafe).bit_count()]
        if a & wzone:
            b_units += 3
            b_attackers += 1
        fm = FILES[sq & 7]
        if not fm & bp:
            s -= W["rook_semi_open_file"] if fm & wp else W["rook_open_file"]
    wq = bb[5]
    t = wq
    while t:
        b = t & -t
        sq = b.bit_length() - 1
        t ^= b
        a = (
            DIAG_ATTACKS[sq][allocc & DIAG_MASKS[sq]]
            | FILE_ATTACKS[sq][allocc & FILE_MASKS[sq]]
            | RANK_ATTACKS[sq][allocc & RANK_MASKS[sq]]
        )
        s += MOB_Q[(a & wsafe).bit_count()]
        if a & bzone:
            w_units += 5
            w_attackers += 1
    bq = bb[13]
    t = bq
    while t:
        b = t & -t
        sq = b.bit_length() - 1
        t ^= b
        a = (
            DIAG_ATTACKS[sq][allocc & DIAG_MASKS[sq]]
            | FILE_ATTACKS[sq][allocc & FILE_MASKS[sq]]
            | RANK_ATTACKS[sq][allocc & RANK_MASKS[sq]]
        )
        s -= MOB_Q[(a & bsafe).bit_count()]
        if a & wzone:
            b_units += 5
            b_attackers += 1
    _ = allp

    # King safety: attack units on the zone (only with a queen to lead the attack), shelter.
    if w_attackers >= 2 and wq:
        s -= KING_DANGER[min(w_units, 63)]
    if b_attackers >= 2 and bq:
        s += KING_DANGER[min(b_units, 63)]
    shield = W["king_shield"]
    s += shield * (SHIELD[0][wk] & wp).bit_count()
    s -= shield * (SHIELD[1][bk] & bp).bit_count()

    if bb[3] & (bb[3] - 1):
        s += W["bishop_pair"]
    if bb[11] & (bb[11] - 1):
        s -= W["bishop_pair"]

    phase = (
        (bb[2] | bb[10] | bb[3] | bb[11]).bit_count()
        + 2 * (bb[4] | bb[12]).bit_count()
        + 4 * (wq | bq).bit_count()
    )
    if phase > 24:
        phase = 24
    eg = ((s + 0x8000) & 0xFFFF) - 0x8000
    mg = (s - eg) >> 16
    score = mg * phase + eg * (24 - phase)
    # Round towards zero, so that a position and its mirror image score exactly opposite.
    score = score // 24 if score >= 0 else -(-score // 24)

    # A side without pawns and at most a minor piece more cannot win: damp its advantage.
    if score > 0 and not wp:
        if (wocc & ~bb[6]).bit_count() <= 1 or _minor_edge(bb, 0):
            score //= 8
    elif score < 0 and not bp and ((bocc & ~bb[14]).bit_count() <= 1 or _minor_edge(bb, 1)):
        score = -(-score // 8)
    tempo = W["tempo"]
    if pos.turn:
        return -score + (tempo >> 16)
    return score + (tempo >> 16)


def _minor_edge(bb: list[int], colour: int) -> bool:
    """Whether ``colour``'s pieces exceed the opponent's by at most one minor piece (no pawns
    of its own is checked by the caller): KR v KB, KRN v KR and the like are drawish."""
    c = colour << 3
    o = c ^ 8

    def mat(x: int) -> int:
        return (
            3 * (bb[x | 2] | bb[x | 3]).bit_count()
            + 5 * bb[x | 4].bit_count()
            + 9 * bb[x | 5].bit_count()
        )

    return mat(c) - mat(o) <= 3 and mat(c) < 9
