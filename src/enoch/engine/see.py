"""Move-generation helpers the search needs beyond the rules core: captures in MVV-LVA order
(pseudo-legal; legality is checked lazily after ``make``) and static exchange evaluation."""

from __future__ import annotations

from enoch.engine.evaluate import SEE_VALUE
from enoch.rules.position import Position
from enoch.rules.tables import (
    BISHOP_PSEUDO,
    DIAG_ATTACKS,
    DIAG_MASKS,
    FILE_ATTACKS,
    FILE_MASKS,
    KING_ATTACKS,
    KNIGHT_ATTACKS,
    PAWN_ATTACKS,
    RANK_ATTACKS,
    RANK_MASKS,
    ROOK_PSEUDO,
)

_RANK_1_8 = 0xFF | (0xFF << 56)
_QUEEN_PROMO = 5 << 12


_RANK_7 = (0xFF << 48, 0xFF00)


def captures(pos: Position, min_victim: int = 0) -> list[int]:
    """Pseudo-legal captures (and pawn pushes to the last rank, as queen promotions), most
    valuable victim first and, per victim, least valuable attacker first. En passant is left
    out. Each move may leave the mover's king in check: the caller tests after ``make``.

    ``min_victim`` (quiescence's delta pruning): captures of men worth less (``SEE_VALUE``)
    are left out, unless a pawn of ours stands on its seventh rank (a capture that promotes
    is worth more than its victim)."""
    out: list[int] = []
    append = out.append
    us = pos.turn
    them = us ^ 1
    bb = pos.bb
    ub = us << 3
    tb = them << 3
    occ = pos.occ[0] | pos.occ[1]
    pawns = bb[ub | 1]
    knights = bb[ub | 2]
    bishops = bb[ub | 3]
    rooks = bb[ub | 4]
    queens = bb[ub | 5]
    king = bb[ub | 6]
    bq = bishops | queens
    rq = rooks | queens
    pawn_from = PAWN_ATTACKS[them]
    if pawns & _RANK_7[us]:
        min_victim = 0
    for vt in (5, 4, 3, 2, 1):
        if SEE_VALUE[vt] < min_victim:
            break
        targets = bb[tb | vt]
        while targets:
            tbit = targets & -targets
            targets ^= tbit
            sq = tbit.bit_length() - 1
            to6 = sq << 6
            a = pawn_from[sq] & pawns
            if a:
                promo = _QUEEN_PROMO if tbit & _RANK_1_8 else 0
                while a:
                    b = a & -a
                    a ^= b
                    append((b.bit_length() - 1) | to6 | promo)
            a = KNIGHT_ATTACKS[sq] & knights
            while a:
                b = a & -a
                a ^= b
                append((b.bit_length() - 1) | to6)
            # Slider attacks are looked up only when a slider of ours stands on one of the
            # target's lines (the empty-board rays), which most often none does.
            diag = DIAG_ATTACKS[sq][occ & DIAG_MASKS[sq]] if BISHOP_PSEUDO[sq] & bq else 0
            a = diag & bishops
            while a:
                b = a & -a
                a ^= b
                append((b.bit_length() - 1) | to6)
            orth = (
                FILE_ATTACKS[sq][occ & FILE_MASKS[sq]] | RANK_ATTACKS[sq][occ & RANK_MASKS[sq]]
                if ROOK_PSEUDO[sq] & rq
                else 0
            )
            a = orth & rooks
            while a:
                b = a & -a
                a ^= b
                append((b.bit_length() - 1) | to6)
            a = (diag | orth) & queens
            while a:
                b = a & -a
                a ^= b
                append((b.bit_length() - 1) | to6)
            if KING_ATTACKS[sq] & king:
                append((king.bit_length() - 1) | to6)
    # Quiet queen promotions.
    if us == 0:
        p = ((pawns & (0xFF << 48)) << 8) & ~occ
        step = 8
    else:
        p = ((pawns & 0xFF00) >> 8) & ~occ
        step = -8
    while p:
        b = p & -p
        p ^= b
        to = b.bit_length() - 1
        append((to - step) | to << 6 | _QUEEN_PROMO)
    return out


def see(pos: Position, move: int) -> int:
    """Static exchange evaluation of a capture: the material the side to move expects to win
    on the target square if both sides recapture with their least valuable men (x-rays
    included), each side free to stop. En passant and promotions count as plain captures."""
    fr = move & 63
    to = (move >> 6) & 63
    board = pos.board
    bb = pos.bb
    occ = (pos.occ[0] | pos.occ[1]) ^ (1 << fr)
    gain = [SEE_VALUE[board[to] & 7]]
    piece_value = SEE_VALUE[board[fr] & 7]
    side = pos.turn ^ 1
    bq = bb[3] | bb[11] | bb[5] | bb[13]
    rq = bb[4] | bb[12] | bb[5] | bb[13]
    knights = bb[2] | bb[10]
    kings = bb[6] | bb[14]
    pw = PAWN_ATTACKS[1][to] & bb[1]
    pb = PAWN_ATTACKS[0][to] & bb[9]
    n_att = KNIGHT_ATTACKS[to] & knights
    k_att = KING_ATTACKS[to] & kings
    while True:
        diag = DIAG_ATTACKS[to][occ & DIAG_MASKS[to]] & bq
        orth = (
            FILE_ATTACKS[to][occ & FILE_MASKS[to]] | RANK_ATTACKS[to][occ & RANK_MASKS[to]]
        ) & rq
        attackers = (pw | pb | n_att | k_att | diag | orth) & occ & pos.occ[side]
        if not attackers:
            break
        sb = side << 3
        for t in (1, 2, 3, 4, 5, 6):
            a = attackers & bb[sb | t]
            if a:
                break
        else:  # pragma: no cover - attackers is non-empty
            break
        b = a & -a
        gain.append(piece_value - gain[-1])
        piece_value = SEE_VALUE[t]
        occ ^= b
        side ^= 1
        if t == 6:
            # A king capture is legal only if the other side has no attacker left.
            diag = DIAG_ATTACKS[to][occ & DIAG_MASKS[to]] & bq
            orth = (
                FILE_ATTACKS[to][occ & FILE_MASKS[to]] | RANK_ATTACKS[to][occ & RANK_MASKS[to]]
            ) & rq
            left = (pw | pb | n_att | k_att | diag | orth) & occ & pos.occ[side]
            if left:
                gain.pop()
            break
    n = len(gain) - 1
    while n > 0:
        g = -gain[n]
        if g < gain[n - 1]:
            gain[n - 1] = g
        n -= 1
    return gain[0]


def see_ge(pos: Position, move: int) -> bool:
    """Whether :func:`see` of a capture is at least 0, with the exchange cut short as soon as
    the answer is known (the search asks only that; most exchanges are decided after one or two
    recaptures). Same values, x-rays and king rule as :func:`see`."""
    fr = move & 63
    to = (move >> 6) & 63
    board = pos.board
    # ``swap``: what the side that captured last stands to win if the exchange stopped after
    # the next recapture; ``res``: whether the side to move comes out at least even so far.
    swap = SEE_VALUE[board[to] & 7]
    swap = SEE_VALUE[board[fr] & 7] - swap
    if swap <= 0:
        return True
    bb = pos.bb
    occ = (pos.occ[0] | pos.occ[1]) ^ (1 << fr)
    side = pos.turn
    bq = bb[3] | bb[11] | bb[5] | bb[13]
    rq = bb[4] | bb[12] | bb[5] | bb[13]
    near = (
        (PAWN_ATTACKS[1][to] & bb[1])
        | (PAWN_ATTACKS[0][to] & bb[9])
        | (KNIGHT_ATTACKS[to] & (bb[2] | bb[10]))
        | (KING_ATTACKS[to] & (bb[6] | bb[14]))
    )
    res = 1
    king = False
    while True:
        side ^= 1
        attackers = (
            near
            | (DIAG_ATTACKS[to][occ & DIAG_MASKS[to]] & bq)
            | (
                (FILE_ATTACKS[to][occ & FILE_MASKS[to]] | RANK_ATTACKS[to][occ & RANK_MASKS[to]])
                & rq
            )
        ) & occ
        mine = attackers & pos.occ[side]
        if king:
            # The last capture was the king's: legal only if this side cannot recapture
            # (x-rays through the king's square included).
            return bool(res ^ 1) if mine else bool(res)
        if not mine:
            break
        res ^= 1
        sb = side << 3
        for t in (1, 2, 3, 4, 5, 6):
            a = mine & bb[sb | t]
            if a:
                break
        if t == 6:
            king = True
            occ ^= a
            continue
        swap = SEE_VALUE[t] - swap
        if swap < res:
            break
        occ ^= a & -a
    return bool(res)
