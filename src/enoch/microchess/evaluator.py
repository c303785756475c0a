"""The MicroChess move chooser: generator, COUNT, exchange tree and selection.

Everything here happens in the original's frame: squares are ``row * 16 + col`` (0x88), row 0 is
the back rank of the side the program plays ("us", the side to move), and for White ``col = 7 -
file`` so that the board is rotated 180 degrees, not mirrored, between the two sides. The
original flips the board to let the opponent move; we keep one frame and negate the opponent's
steps instead, which gives the same squares in the same order.

The board is 32 slot bytes (ours 0..15, theirs 16..31) holding a frame square or ``ABSENT``, as
in the original, plus a 128-entry mailbox (square -> slot index or -1) so that "who stands
there" is one lookup instead of the original's scan of 32 bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from enoch.microchess.arith import Counters, final_score, strategy_value
from enoch.microchess.slots import BLACK, POINTS, WHITE, Men, Square

#: The byte an empty (captured) slot holds in the original; off the board because 0xCC & 0x88.
ABSENT = 0xCC

#: Direction steps numbered 1..16 as in the original (index 0 unused).
DIRECTIONS: tuple[int, ...] = (
    0, -16, -1, 1, 16, 17, 15, -17, -15, -33, -31, -18, -14, 18, 14, 31, 33,
)  # fmt: skip

KING_DIRS = tuple(DIRECTIONS[d] for d in range(8, 0, -1))
QUEEN_DIRS = KING_DIRS
ROOK_DIRS = tuple(DIRECTIONS[d] for d in range(4, 0, -1))
BISHOP_DIRS = tuple(DIRECTIONS[d] for d in range(8, 4, -1))
KNIGHT_DIRS = tuple(DIRECTIONS[d] for d in range(16, 8, -1))
ORTHOGONAL = (-16, -1, 1, 16)
DIAGONAL = (17, 15, -17, -15)

#: A move: (mover's index 0..31, from, to, captured man's index or -1).
Move = tuple[int, int, int, int]

#: Slot ranges whose captures the exchange tree records and follows (not the king, not pawns).
_TREE_SLOTS = range(1, 8)

#: Names of the exchange-tree levels: level 0 is the opponent's capture, then alternately.
TREE_LEVELS = ("BCAP0", "WCAP1", "BCAP1", "WCAP2", "BCAP2")


def slot_moves(slot: int) -> tuple[tuple[int, ...], bool]:
    """The directions a man in ``slot`` moves in, and whether it slides: slot 0 the king,
    1 the queen, 2-3 rooks, 4-5 bishops, 6-7 knights (pawns are generated apart)."""
    if slot == 0:
        return KING_DIRS, False
    if slot == 1:
        return QUEEN_DIRS, True
    if slot <= 3:
        return ROOK_DIRS, True
    if slot <= 5:
        return BISHOP_DIRS, True
    return KNIGHT_DIRS, False


def to_frame(square: Square, white_to_move: bool) -> int:
    """Ordinary square (a1 = 0) -> the 0x88 frame of the side to move."""
    rank, file = divmod(square, 8)
    if white_to_move:
        return rank * 16 + (7 - file)
    return (7 - rank) * 16 + file


def from_frame(square: int, white_to_move: bool) -> Square:
    """The 0x88 frame of the side to move -> ordinary square."""
    row, col = divmod(square, 16)
    if white_to_move:
        return row * 8 + (7 - col)
    return (7 - row) * 8 + col


class Board:
    """The original's 32 slot bytes plus a mailbox, with make/unmake and the generator."""

    __slots__ = ("box", "sq")

    def __init__(self, sq: list[int]) -> None:
        self.sq = sq
        self.box = [-1] * 128
        for idx, s in enumerate(sq):
            if not s & 0x88:
                self.box[s] = idx

    @classmethod
    def from_men(cls, men: Men, white_to_move: bool) -> Board:
        """Lay out assigned men: the side to move in slots 0..15, the other in 16..31."""
        us, them = (WHITE, BLACK) if white_to_move else (BLACK, WHITE)
        sq = [ABSENT] * 32
        for base, colour in ((0, us), (16, them)):
            for slot, s in enumerate(men.slots[colour]):
                if s is not None:
                    sq[base + slot] = to_frame(s, white_to_move)
        return cls(sq)

    # -- make / unmake ---------------------------------------------------------------------

    def make(self, m: Move) -> None:
        idx, frm, to, cap = m
        if cap >= 0:
            self.sq[cap] = ABSENT
        self.sq[idx] = to
        self.box[frm] = -1
        self.box[to] = idx

    def unmake(self, m: Move) -> None:
        idx, frm, to, cap = m
        self.sq[idx] = frm
        self.box[frm] = idx
        if cap >= 0:
            self.sq[cap] = to
            self.box[to] = cap
        else:
            self.box[to] = -1

    # -- the check test ----------------------------------------------------------------------

    def attacked(self, target: int, by: int) -> bool:
        """Would any pseudo-legal move of side ``by`` (0 us, 1 them) land on ``target``?

        This is the original's check test asked backwards: rays and steps from the target,
        looking for a man whose slot moves that way.
        """
        box = self.box
        base = 16 * by
        sign = 1 if by == 0 else -1
        # Pawns of ``by`` capture forward-diagonally (+15, +17 in their own frame).
        for d in (15, 17):
            s = target - sign * d
            if not s & 0x88:
                i = box[s]
                if i >= base + 8 and i < base + 16:
                    return True
        for d in KNIGHT_DIRS:
            s = target + d
            if not s & 0x88:
                i = box[s]
                if i == base + 6 or i == base + 7:
                    return True
        for d in KING_DIRS:
            s = target + d
            if not s & 0x88 and box[s] == base:
                return True
        for dirs, sliders in ((ORTHOGONAL, (1, 2, 3)), (DIAGONAL, (1, 4, 5))):
            for d in dirs:
                s = target + d
                while not s & 0x88:
                    i = box[s]
                    if i >= 0:
                        if i - base in sliders:
                            return True
                        break
                    s += d
        return False

    def _rejected(self, m: Move, side: int) -> bool:
        """The ``checked`` test: try ``m`` and see whether the mover's king could be taken."""
        self.make(m)
        king = self.sq[16 * side]
        bad = not king & 0x88 and self.attacked(king, 1 - side)
        self.unmake(m)
        return bad

    # -- GEN -----------------------------------------------------------------------------------

    def gen(self, side: int, checked: bool) -> list[Move]:
        """GEN(side, checked): the original's moves in its order (slots 15..0, its directions).

        Pawns capture towards directions 6 then 5 only onto an enemy man, then step forward
        onto an empty square, twice if the first step lands on row 2 (of the mover's frame).
        With ``checked``, moves exposing the mover's king are dropped; a slider skips such a
        quiet square and keeps sliding, and a rejected single pawn step also stops the double
        step (the original misses a double step that would block a check).
        """
        sq = self.sq
        box = self.box
        base = 16 * side
        sign = 1 if side == 0 else -1
        enemy_lo = 16 - base  # 16 when we move, 0 when they move
        out: list[Move] = []
        for slot in range(15, -1, -1):
            idx = base + slot
            frm = sq[idx]
            if frm & 0x88:
                continue
            if slot >= 8:
                for d in (15, 17):  # directions 6 then 5
                    to = frm + sign * d
                    if to & 0x88:
                        continue
                    cap = box[to]
                    if cap >= 0 and enemy_lo <= cap < enemy_lo + 16:
                        m = (idx, frm, to, cap)
                        if not (checked and self._rejected(m, side)):
                            out.append(m)
                to = frm
                for _ in range(2):
                    to += sign * 16
                    if to & 0x88 or box[to] >= 0:
                        break
                    m = (idx, frm, to, -1)
                    if checked and self._rejected(m, side):
                        break
                    out.append(m)
                    row = to >> 4 if side == 0 else 7 - (to >> 4)
                    if row != 2:
                        break
                continue
            dirs, slide = slot_moves(slot)
            for d in dirs:
                step = sign * d
                to = frm + step
                while not to & 0x88:
                    cap = box[to]
                    if cap >= 0 and not enemy_lo <= cap < enemy_lo + 16:
                        break  # own man
                    m = (idx, frm, to, cap)
                    if checked and self._rejected(m, side):
                        if cap >= 0:
                            break
                    else:
                        out.append(m)
                        if cap >= 0:
                            break
                    if not slide:
                        break
                    to += step
        return out

    def captures(self, side: int) -> list[Move]:
        """The captures of GEN(side, unchecked) whose victim sits in slots 1..7 (any order).

        The exchange tree follows nothing else, so it does not need the quiet moves.
        """
        sq = self.sq
        box = self.box
        base = 16 * side
        sign = 1 if side == 0 else -1
        lo = 16 - base + 1
        hi = lo + 7  # victims in slots 1..7 of the other side
        out: list[Move] = []
        for slot in range(16):
            idx = base + slot
            frm = sq[idx]
            if frm & 0x88:
                continue
            if slot >= 8:
                for d in (15, 17):
                    to = frm + sign * d
                    if not to & 0x88:
                        cap = box[to]
                        if lo <= cap < hi:
                            out.append((idx, frm, to, cap))
                continue
            dirs, slide = slot_moves(slot)
            for d in dirs:
                to = frm + d
                while not to & 0x88:
                    cap = box[to]
                    if cap >= 0:
                        if lo <= cap < hi:
                            out.append((idx, frm, to, cap))
                        break
                    if not slide:
                        break
                    to += d
        return out


def count(moves: list[Move], base: int) -> tuple[int, int, int, int]:
    """COUNT over one move list: ``(mob, maxc, cc, pcap)``.

    ``mob`` counts moves (a queen's twice), ``maxc``/``pcap`` the points and slot of the most
    valuable target (``>=``, so the last of equals wins), ``cc`` the sum of targets (a man
    attacked twice counts twice). All bytes wrap at 256. ``base`` is the mover's index base.
    """
    mob = maxc = cc = pcap = 0
    for idx, _frm, _to, cap in moves:
        mob = (mob + (2 if idx - base == 1 else 1)) & 0xFF
        if cap >= 0:
            y = cap & 15
            p = POINTS[y]
            if p >= maxc:
                maxc = p
                pcap = y
            cc = (cc + p) & 0xFF
    return mob, maxc, cc, pcap


@dataclass(frozen=True, slots=True)
class Candidate:
    """One candidate move with everything the original computed for it."""

    frm: int
    to: int
    slot: int
    counters: Counters
    strategy_value: int
    score: int


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The result of one move choice: candidates in generation order and the decision."""

    white_to_move: bool
    candidates: tuple[Candidate, ...]
    best: int | None
    """Index into ``candidates`` of the chosen move, None if the program would not move."""
    best_value: int
    """The original's ``bestv`` after the loop: 12 when nothing beat it."""


def _best_victim(sq: list[int], base: int) -> int:
    """The most a capture of one of this side's slot 1..7 men could be worth now."""
    if not sq[base + 1] & 0x88:
        return 10
    if not (sq[base + 2] & sq[base + 3]) & 0x88:
        return 6
    for slot in range(4, 8):
        if not sq[base + slot] & 0x88:
            return 4
    return 0


def _tree(board: Board, level: int, m: Move, maxima: list[int]) -> None:
    """One node of the exchange tree: record the capture's points, then follow the replies.

    These are maxima over the whole tree, not minimax values: the original only asks "how much
    could be taken at this depth", whatever the order. That allows an exact shortcut the
    original does not take: a subtree is skipped when no level below could still raise its
    maximum (captures only remove men, so the men on the board now bound every later capture).
    """
    p = POINTS[m[3] & 15]
    if p > maxima[level]:
        maxima[level] = p
    if level == 4:
        return
    board.make(m)
    sq = board.sq
    victim_side = m[0] >> 4  # the side that just captured is the next one captured from
    bound = (_best_victim(sq, 16 * victim_side), _best_victim(sq, 16 - 16 * victim_side))
    for r in board.captures(1 - victim_side):
        if all(maxima[k] >= bound[(k - level - 1) & 1] for k in range(level + 1, 5)):
            break
        _tree(board, level + 1, r, maxima)
    board.unmake(m)


def evaluate(board: Board, white_to_move: bool) -> Evaluation:
    """Choose a move exactly as the original does; every candidate keeps its counters."""
    pmob, pmaxc, pcc, _ = count(board.gen(0, False), 0)
    best: int | None = None
    bestv = 12
    cands: list[Candidate] = []
    for m in board.gen(0, True):
        idx, frm, to, cap = m
        wcap0 = POINTS[cap & 15] if cap >= 0 else 0
        maxima = [0, 0, 0, 0, 0]
        board.make(m)
        replies = board.gen(1, True)
        bmob, bmaxc, bmcc, bmaxp = count(replies, 16)
        for r in replies:
            if r[3] >= 0 and r[3] & 15 in _TREE_SLOTS:
                _tree(board, 0, r, maxima)
        cont = [c for c in board.gen(0, False) if c[0] == 0 or c[0] != bmaxp]
        wmob, wmaxc, wcc, wmaxp = count(cont, 0)
        board.unmake(m)
        counters = Counters(
            WCAP0=wcap0,
            WCAP1=maxima[1],
            WCAP2=maxima[3],
            BCAP0=maxima[0],
            BCAP1=maxima[2],
            BCAP2=maxima[4],
            WMOB=wmob,
            WMAXC=wmaxc,
            WCC=wcc,
            WMAXP=wmaxp,
            BMOB=bmob,
            BMAXC=bmaxc,
            BMCC=bmcc,
            BMAXP=bmaxp,
            PMOB=pmob,
            PMAXC=pmaxc,
            PCC=pcc,
        )
        value = strategy_value(counters, to, frm, idx == 0)
        score = final_score(counters, value)
        if score > bestv:
            bestv = score
            best = len(cands)
        cands.append(Candidate(frm, to, idx, counters, value, score))
    if bestv < 15:
        best = None
    return Evaluation(white_to_move, tuple(cands), best, bestv)
