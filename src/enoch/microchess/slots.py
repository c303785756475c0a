"""Men and slots: how MicroChess sees the pieces of a position.

The 1976 program has no piece codes. Each side owns 16 fixed *slots*; the slot alone decides how
a man moves and what it is worth, and a captured man just leaves its slot empty. A FIDE position
therefore has to be *assigned* to slots before the evaluator can look at it, and inside a game a
man keeps the slot it started in (the original never re-sorts its tables), so an agent that sees
the game's history follows men through it instead of re-assigning them.

Squares here are the ordinary ones, ``rank * 8 + file`` (a1 = 0, h8 = 63, python-chess's
numbering); the rotated 0x88 frame of the evaluator lives in :mod:`enoch.microchess.evaluator`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

Square = int
"""An ordinary square, ``rank * 8 + file`` (a1 = 0)."""

Placement = dict[Square, str]
"""Occupied squares only, value is the FEN letter (``"K"`` white king, ``"p"`` black pawn)."""

WHITE, BLACK = 0, 1

#: Slot number -> the man that lives there (K, Q, KR, QR, KB, QB, KN, QN, then eight pawns).
SLOT_NAMES: tuple[str, ...] = (
    "K", "Q", "KR", "QR", "KB", "QB", "KN", "QN",
    "P(h)", "P(a)", "P(g)", "P(b)", "P(f)", "P(c)", "P(d)", "P(e)",
)  # fmt: skip

#: Material points by slot (the original's POINTS table): K 11, Q 10, R 6, B 4, N 4, pawns 2.
POINTS: tuple[int, ...] = (11, 10, 6, 6, 4, 4, 4, 4, 2, 2, 2, 2, 2, 2, 2, 2)

#: Home file (0 = a .. 7 = h) of every slot, for both colours.
HOME_FILE: tuple[int, ...] = (4, 3, 7, 0, 5, 2, 6, 1, 7, 0, 6, 1, 5, 2, 3, 4)

#: FEN letter (upper case) -> the slots that kind of man may occupy, in slot order.
KIND_SLOTS: dict[str, tuple[int, ...]] = {
    "K": (0,),
    "Q": (1,),
    "R": (2, 3),
    "B": (4, 5),
    "N": (6, 7),
    "P": tuple(range(8, 16)),
}

#: Slot -> FEN letter (upper case) of the man it holds.
SLOT_KIND: tuple[str, ...] = ("K", "Q", "R", "R", "B", "B", "N", "N") + ("P",) * 8


_PIECE_LETTERS = frozenset("KQRBNPkqrbnp")


def parse_placement(field: str) -> Placement:
    """The first FEN field -> ``{square: letter}``; ValueError if it is not 8 ranks of 8."""
    ranks = field.split("/")
    if len(ranks) != 8:
        raise ValueError(f"placement {field!r} does not have 8 ranks")
    out: Placement = {}
    for i, row in enumerate(ranks):
        rank = 7 - i
        file = 0
        for ch in row:
            if ch.isdigit() and ch not in "09":
                file += int(ch)
            elif ch in _PIECE_LETTERS and file < 8:
                out[rank * 8 + file] = ch
                file += 1
            else:
                raise ValueError(f"placement {field!r}: bad character {ch!r}")
        if file != 8:
            raise ValueError(f"placement {field!r}: rank {rank + 1} is not 8 squares")
    return out


def colour_of(letter: str) -> int:
    """WHITE for upper-case FEN letters, BLACK for lower case."""
    return WHITE if letter.isupper() else BLACK


def back_rank(colour: int) -> int:
    """Rank index (0..7) of a side's own back rank."""
    return 0 if colour == WHITE else 7


def home_square(colour: int, slot: int) -> Square:
    """The square a piece slot starts on (pawn slots: their file on the second rank)."""
    rank = back_rank(colour)
    if slot >= 8:
        rank = 1 if colour == WHITE else 6
    return rank * 8 + HOME_FILE[slot]


def is_light(square: Square) -> bool:
    """True on light squares (a1 is dark, h1 is light)."""
    return (square % 8 + square // 8) % 2 == 1


def _empty_slots() -> tuple[list[Square | None], list[Square | None]]:
    """Sixteen empty slots per side."""
    empty: list[Square | None] = [None] * 16
    return list(empty), list(empty)


@dataclass
class Men:
    """Which square every slot of both sides holds, plus the men no slot could take.

    ``slots[colour][slot]`` is a square or ``None`` (empty slot: a captured man). ``unplaced``
    lists ``(square, letter)`` of men that did not fit (a second queen after a promotion, a
    third knight...): the original cannot see them at all.
    """

    slots: tuple[list[Square | None], list[Square | None]] = field(default_factory=_empty_slots)
    unplaced: list[tuple[Square, str]] = field(default_factory=list)

    def copy(self) -> Men:
        """An independent copy (the tracker updates men move by move)."""
        return Men((list(self.slots[0]), list(self.slots[1])), list(self.unplaced))

    def placement(self) -> Placement:
        """The position these men describe (unplaced men included)."""
        out: Placement = {}
        for colour in (WHITE, BLACK):
            for slot, sq in enumerate(self.slots[colour]):
                if sq is not None:
                    kind = SLOT_KIND[slot]
                    out[sq] = kind if colour == WHITE else kind.lower()
        for sq, letter in self.unplaced:
            out[sq] = letter
        return out

    def find(self, square: Square) -> tuple[int, int] | None:
        """``(colour, slot)`` of the placed man on ``square``, or None."""
        for colour in (WHITE, BLACK):
            for slot, sq in enumerate(self.slots[colour]):
                if sq == square:
                    return colour, slot
        return None


def _fill(
    slots: list[Square | None],
    colour: int,
    kind: str,
    squares: Sequence[Square],
) -> list[Square]:
    """Put men of one kind (squares in a1..h8 order) into their slots; return the leftovers.

    The rules of docs/microchess.md: rooks, knights and pawns first claim the free slot whose
    home (square for pieces, file for pawns) they stand on, then the rest fill free slots in slot
    order. Bishops claim the first free slot whose home square has their colour, then the rest
    fill what is left. King and queen have a single slot.
    """
    free = [s for s in KIND_SLOTS[kind] if slots[s] is None]
    rest: list[Square] = []
    for sq in squares:
        chosen: int | None = None
        if kind in ("R", "N"):
            chosen = next((s for s in free if home_square(colour, s) == sq), None)
        elif kind == "P":
            chosen = next((s for s in free if HOME_FILE[s] == sq % 8), None)
        elif kind == "B":
            chosen = next(
                (s for s in free if is_light(home_square(colour, s)) == is_light(sq)), None
            )
        if chosen is None:
            rest.append(sq)
        else:
            slots[chosen] = sq
            free.remove(chosen)
    leftovers: list[Square] = []
    for sq in rest:
        if free:
            slots[free.pop(0)] = sq
        else:
            leftovers.append(sq)
    return leftovers


def assign(placement: Placement) -> Men:
    """Assign the men of a position to slots, each side separately, as docs/microchess.md says."""
    men = Men()
    for letter in ("K", "Q", "R", "B", "N", "P"):
        for colour in (WHITE, BLACK):
            mine = letter if colour == WHITE else letter.lower()
            squares = sorted(sq for sq, p in placement.items() if p == mine)
            for sq in _fill(men.slots[colour], colour, letter, squares):
                men.unplaced.append((sq, mine))
    men.unplaced.sort()
    return men


def _place_unplaced(men: Men) -> None:
    """Give free slots to men that had none (after a capture freed a slot of their kind)."""
    if not men.unplaced:
        return
    still: list[tuple[Square, str]] = []
    for letter in ("K", "Q", "R", "B", "N", "P"):
        for colour in (WHITE, BLACK):
            mine = letter if colour == WHITE else letter.lower()
            squares = [sq for sq, p in men.unplaced if p == mine]
            if squares:
                still.extend((sq, mine) for sq in _fill(men.slots[colour], colour, letter, squares))
    men.unplaced = sorted(still)


def _apply_diff(men: Men, before: Placement, after: Placement, mover: int) -> bool:
    """Move the men of ``men`` from ``before`` to ``after`` (one move by ``mover``).

    Recognises ordinary moves and captures, en passant, castling and promotion from the two
    placements alone. Returns False (leaving ``men`` in an unspecified state) when the change
    is not one move, so that the caller can start afresh from ``after``.
    """
    gone = [sq for sq, p in before.items() if colour_of(p) == mover and after.get(sq) != p]
    came = [sq for sq, p in after.items() if colour_of(p) == mover and before.get(sq) != p]
    lost = [sq for sq, p in before.items() if colour_of(p) != mover and after.get(sq) != p]
    if any(colour_of(p) != mover and before.get(sq) != p for sq, p in after.items()):
        return False  # the side not moving cannot gain or shift men
    if len(lost) > 1:
        return False
    moves: list[tuple[Square, Square]]
    if len(gone) == 1 and len(came) == 1:
        moves = [(gone[0], came[0])]
    elif len(gone) == 2 and len(came) == 2 and not lost:
        king = "K" if mover == WHITE else "k"
        rook = "R" if mover == WHITE else "r"
        kf = [sq for sq in gone if before[sq] == king]
        kt = [sq for sq in came if after[sq] == king]
        rf = [sq for sq in gone if before[sq] == rook]
        rt = [sq for sq in came if after[sq] == rook]
        if not (len(kf) == len(kt) == len(rf) == len(rt) == 1):
            return False
        moves = [(kf[0], kt[0]), (rf[0], rt[0])]
    else:
        return False
    for sq in lost:  # the captured man (on the target square, or the en passant pawn)
        hit = men.find(sq)
        if hit is not None:
            men.slots[hit[0]][hit[1]] = None
        else:
            men.unplaced = [u for u in men.unplaced if u[0] != sq]
    for frm, to in moves:
        letter = after[to]
        hit = men.find(frm)
        promoted = before[frm].upper() == "P" and letter.upper() != "P"
        if before[frm].upper() != letter.upper() and not promoted:
            return False
        if hit is not None and hit[0] == mover:
            if promoted:
                # The pawn's slot empties; the new piece looks for a free slot of its kind.
                men.slots[mover][hit[1]] = None
                men.unplaced.append((to, letter))
            else:
                men.slots[mover][hit[1]] = to
        else:
            men.unplaced = [(to if sq == frm else sq, p) for sq, p in men.unplaced]
            if promoted:
                men.unplaced = [(sq, letter if sq == to else p) for sq, p in men.unplaced]
    _place_unplaced(men)
    return men.placement() == after


def track(positions: Iterable[tuple[Placement, int]]) -> Men:
    """Follow men through a game: ``positions`` are ``(placement, side to move)``, oldest first.

    Slots are assigned from the first position and then carried move by move, as the original
    keeps them during a game. Where two neighbouring positions are not one move apart (a gap or
    an edited history), assignment starts afresh from the later one. The last position is the
    one to evaluate; the returned men describe it exactly.
    """
    men: Men | None = None
    prev: tuple[Placement, int] | None = None
    for placement, turn in positions:
        if men is None or prev is None:
            men = assign(placement)
        else:
            before, mover = prev
            trial = men.copy()
            if mover != turn and _apply_diff(trial, before, placement, mover):
                men = trial
            else:
                men = assign(placement)
        prev = (placement, turn)
    if men is None:
        raise ValueError("track() needs at least one position")
    return men
