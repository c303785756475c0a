"""An independent, deliberately slow reference move generator for Enochian chess.

Written from the rules as documented in ``docs/enochian.md`` (with its numbered fine points)
alone, sharing no code with ``enoch.enochian.state``: a position is a dict of square names to
lists of men, moves are found by walking coordinates, and every legality question is answered
by playing the move on a copy. It exists to check the fast engine (perft counts and move sets
along random games), so it favours plainness over speed. Two-player defaults only: no ally king
capture, no divination, no exchanges.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

ARMIES = ["air", "water", "fire", "earth"]
TEAM = {"air": 0, "fire": 0, "water": 1, "earth": 1}
THRONE = {"air": "a8", "water": "h8", "fire": "h1", "earth": "a1"}
FORWARD = {"air": (0, -1), "water": (-1, 0), "fire": (0, 1), "earth": (1, 0)}
LETTER = {"king": "K", "queen": "Q", "bishop": "B", "knight": "N", "rook": "R", "pawn": "P"}


def sq(f: int, r: int) -> str | None:
    return "abcdefgh"[f] + str(r + 1) if 0 <= f < 8 and 0 <= r < 8 else None


def fr(s: str) -> tuple[int, int]:
    return "abcdefgh".index(s[0]), int(s[1]) - 1


def on_edge(army: str, s: str) -> bool:
    f, r = fr(s)
    return {"air": r == 0, "water": f == 0, "fire": r == 7, "earth": f == 7}[army]


@dataclass
class Man:
    army: str
    kind: str
    patron: str | None = None


@dataclass
class Pos:
    men: dict[str, list[Man]]
    to_move: str
    order: list[str]
    partner: str = "rook"
    frozen: set[str] = field(default_factory=set)
    lost: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ARMIES, 0))
    over: bool = False


def enemies(a: str, b: str) -> bool:
    return TEAM[a] != TEAM[b]


def can_take(mover: Man, target: Man) -> bool:
    if mover.kind == "bishop" and target.kind == "bishop":
        return False
    return not (mover.kind == "queen" and target.kind == "queen")


def targets(p: Pos, s: str, man: Man) -> list[tuple[str, bool]]:
    """(square, is_capture) for one man, ignoring its own king's safety."""
    f, r = fr(s)
    out: list[tuple[str, bool]] = []

    def landing(t: str | None) -> None:
        if t is None:
            return
        here = p.men.get(t)
        if not here:
            out.append((t, False))
        elif (
            enemies(man.army, here[0].army)
            and here[0].army not in p.frozen
            and all(can_take(man, h) for h in here)
        ):
            out.append((t, True))

    if man.kind in ("king", "knight", "queen"):
        if man.kind == "king":
            deltas = [(a, b) for a in (-1, 0, 1) for b in (-1, 0, 1) if a or b]
        elif man.kind == "knight":
            deltas = [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)]
        else:
            deltas = [(a, b) for a in (-2, 0, 2) for b in (-2, 0, 2) if a or b]
        for df, dr in deltas:
            landing(sq(f + df, r + dr))
    elif man.kind in ("rook", "bishop"):
        dirs = (
            [(0, 1), (0, -1), (1, 0), (-1, 0)]
            if man.kind == "rook"
            else [(1, 1), (1, -1), (-1, 1), (-1, -1)]
        )
        for df, dr in dirs:
            x, y = f + df, r + dr
            while sq(x, y) is not None:
                t = sq(x, y)
                assert t is not None
                landing(t)
                if p.men.get(t):
                    break
                x, y = x + df, y + dr
    else:
        df, dr = FORWARD[man.army]
        t = sq(f + df, r + dr)
        if t is not None and not p.men.get(t):
            out.append((t, False))
        for side in (-1, 1):
            c = sq(f + df + (side if df == 0 else 0), r + dr + (side if dr == 0 else 0))
            if c is not None and p.men.get(c):
                landing(c)
    return out


def king_square(p: Pos, army: str) -> str | None:
    for s, here in p.men.items():
        for m in here:
            if m.army == army and m.kind == "king":
                return s
    return None


def attacked(p: Pos, s: str) -> bool:
    """Could a live enemy of the men on ``s`` take them all there?"""
    here = p.men[s]
    for t, others in p.men.items():
        for m in others:
            if m.army in p.frozen or not enemies(m.army, here[0].army):
                continue
            if any(x == s and c for x, c in targets(p, t, m)):
                return True
    return False


def count(p: Pos, army: str) -> dict[str, int]:
    c: dict[str, int] = {}
    for here in p.men.values():
        for m in here:
            if m.army == army:
                c[m.kind] = c.get(m.kind, 0) + 1
    return c


def privileged(p: Pos, army: str) -> bool:
    c = count(p, army)
    return c in (
        {"king": 1, "pawn": 1},
        {"king": 1, "queen": 1, "pawn": 1},
        {"king": 1, "bishop": 1, "pawn": 1},
    )


def has_kind(p: Pos, army: str, kind: str) -> bool:
    return count(p, army).get(kind, 0) > 0


def pseudo(p: Pos, army: str) -> list[tuple[str, str, str, str | None]]:
    """(from, kind, to, promotion) tuples."""
    out: list[tuple[str, str, str, str | None]] = []
    for s, here in sorted(p.men.items()):
        for m in here:
            if m.army != army:
                continue
            for t, _c in targets(p, s, m):
                if m.kind == "pawn" and on_edge(army, t):
                    if privileged(p, army):
                        for k in ("queen", "rook", "bishop", "knight"):
                            out.append((s, m.kind, t, "priv:" + k))
                        continue
                    becomes = p.partner if t in THRONE.values() else m.patron
                    assert becomes is not None
                    if p.lost[army] and not has_kind(p, army, becomes):
                        out.append((s, m.kind, t, becomes))
                    else:
                        out.append((s, m.kind, t, None))
                else:
                    out.append((s, m.kind, t, None))
    return out


def play(p: Pos, mv: tuple[str, str, str, str | None]) -> Pos:
    """The board part of a move on a copy, freezing an army whose king is taken."""
    q = copy.deepcopy(p)
    s, kind, t, promo = mv
    here = q.men[s]
    man = next(m for m in here if m.kind == kind)
    here.remove(man)
    if not here:
        del q.men[s]
    for victim in q.men.pop(t, []):
        if victim.kind == "pawn":
            q.lost[victim.army] += 1
        if victim.kind == "king":
            q.frozen.add(victim.army)
    if promo and promo.startswith("priv:"):
        k = promo[5:]
        for other in q.men.values():
            for o in other:
                if o.army == man.army and o.kind == k:
                    o.kind, o.patron = "pawn", k
        man = Man(man.army, k)
    elif promo:
        man = Man(man.army, promo)
    q.men[t] = [man]
    return q


def in_check(p: Pos, army: str) -> bool:
    k = king_square(p, army)
    return k is not None and attacked(p, k)


def legal(p: Pos) -> list[tuple[str, str, str, str | None]]:
    if p.over:
        return []
    a = p.to_move
    moves = pseudo(p, a)
    if king_square(p, a) is None:
        return moves
    if in_check(p, a):
        kings = [m for m in moves if m[1] == "king"]
        return kings or moves
    return [m for m in moves if not in_check(play(p, m), a)]


def notation(p: Pos, mv: tuple[str, str, str, str | None]) -> str:
    s, kind, t, promo = mv
    text = LETTER[kind] + s + ("x" if t in p.men else "-") + t
    if promo:
        text += "=" + LETTER[promo.replace("priv:", "")]
    return text


def start_turn(p: Pos) -> None:
    """Waiting pawns of the army to move promote, in square order a1, b1, ... h8."""
    a = p.to_move
    if not p.lost[a]:
        return
    for s in sorted(p.men, key=lambda x: (x[1], x[0])):
        for m in p.men[s]:
            if m.army == a and m.kind == "pawn" and on_edge(a, s):
                becomes = p.partner if s in THRONE.values() else m.patron
                assert becomes is not None
                if not has_kind(p, a, becomes):
                    m.kind, m.patron = becomes, None


def after(p: Pos, mv: tuple[str, str, str, str | None]) -> Pos:
    """The whole move: board, end of game, and the next army able to move."""
    q = play(p, mv)
    for team in (0, 1):
        if not any(king_square(q, a) for a in ARMIES if TEAM[a] == team) and any(
            m.kind == "king" for m in p.men.get(mv[2], [])
        ):
            q.over = True
            return q
    bare = [count(q, a) == {"king": 1} for a in ARMIES]
    if (bare[0] and bare[2]) or (bare[1] and bare[3]):
        q.over = True
        return q
    stuck = 0
    i = q.order.index(q.to_move)
    while True:
        i = (i + 1) % 4
        q.to_move = q.order[i]
        a = q.to_move
        if a in q.frozen or not count(q, a):
            stuck += 1
        else:
            start_turn(q)
            if legal(q):
                return q
            if not in_check(q, a):
                ally = ARMIES[(ARMIES.index(a) + 2) % 4]
                if ally in q.frozen or not count(q, ally):
                    q.over = True
                    return q
            stuck += 1
        if stuck >= 4:
            q.over = True
            return q


def perft(p: Pos, depth: int) -> int:
    moves = legal(p)
    if depth == 1:
        return len(moves)
    return sum(perft(after(p, m), depth - 1) for m in moves)
