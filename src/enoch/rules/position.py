"""The FIDE position: bitboards on Python ints, legal moves, make/unmake, Zobrist keys, outcome.

Design for speed (the engine searches on this class):

- Moves are plain ints: ``from | to << 6 | promotion << 12 | special << 15``. No objects are
  allocated per move; :func:`move_uci` and friends convert at the edges.
- The position keeps one bitboard per piece code (``colour << 3 | type``), one per colour, a
  64-entry mailbox for "what stands on this square", and both king squares.
- Legal moves are generated directly (checkers, pin lines and evasion masks are computed once
  per position), so no move is ever made only to be taken back. En passant, the one move that
  can expose the king along a rank by removing two men, is verified by a full attack test.
- ``make``/``unmake`` update everything incrementally, including the Zobrist key, and push one
  tuple per move on an undo stack.

The Zobrist key identifies FIDE's "same position" (Art. 9.2.3): placement, side to move,
castling rights, and the en passant square *only when an en passant capture is legal*. So
repetition counting is a key comparison.
"""

from __future__ import annotations

from enoch.errors import FenError, IllegalMoveError, quote
from enoch.rules.tables import (
    BETWEEN,
    BISHOP,
    BISHOP_PSEUDO,
    BLACK,
    CASTLE_BK,
    CASTLE_BQ,
    CASTLE_KEEP,
    CASTLE_WK,
    CASTLE_WQ,
    DARK_SQUARES,
    DIAG_ATTACKS,
    DIAG_MASKS,
    FILE_ATTACKS,
    FILE_MASKS,
    KING,
    KING_ATTACKS,
    KNIGHT,
    KNIGHT_ATTACKS,
    LIGHT_SQUARES,
    LINE,
    NOT_FILE_A,
    NOT_FILE_H,
    PAWN,
    PAWN_ATTACKS,
    PIECE_SYMBOLS,
    QUEEN,
    RANK_1,
    RANK_3,
    RANK_6,
    RANK_8,
    RANK_ATTACKS,
    RANK_MASKS,
    ROOK,
    ROOK_PSEUDO,
    SQUARE_INDEX,
    SQUARE_NAMES,
    SYMBOL_TO_CODE,
    WHITE,
    ZOBRIST_CASTLE,
    ZOBRIST_EP,
    ZOBRIST_PIECE,
    ZOBRIST_TURN,
)

STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
# The largest halfmove clock and fullmove number a FEN (or a state) may carry. The longest
# game FIDE's 75-move rule allows has under 9,000 moves; 100,000 leaves room for any FEN a tool
# writes and keeps every count small (an integer of thousands of digits is refused, not read).
MAX_CLOCK = 100_000

# Move encoding.
SPECIAL_NONE, SPECIAL_EP, SPECIAL_CASTLE, SPECIAL_DOUBLE = 0, 1, 2, 3
EP_FLAG = SPECIAL_EP << 15
CASTLE_FLAG = SPECIAL_CASTLE << 15
DOUBLE_FLAG = SPECIAL_DOUBLE << 15
PROMO_SHIFT = 12
_PROMO_Q, _PROMO_R, _PROMO_B, _PROMO_N = QUEEN << 12, ROOK << 12, BISHOP << 12, KNIGHT << 12

_ALL64 = (1 << 64) - 1
_BB = [1 << s for s in range(64)]
# Rook moves of castling, indexed by the king's destination square.
_CASTLE_ROOK = {6: (7, 5), 2: (0, 3), 62: (63, 61), 58: (56, 59)}

Move = int


def move_from(move: Move) -> int:
    return move & 63


def move_to(move: Move) -> int:
    return (move >> 6) & 63


def move_promotion(move: Move) -> int:
    """The promotion piece type (KNIGHT..QUEEN), or 0."""
    return (move >> 12) & 7


def move_uci(move: Move) -> str:
    """UCI text of a move (``e2e4``, ``e7e8q``; castling as the king's two-square move)."""
    promo = (move >> 12) & 7
    text = SQUARE_NAMES[move & 63] + SQUARE_NAMES[(move >> 6) & 63]
    return text + PIECE_SYMBOLS[8 | promo] if promo else text


class Outcome:
    """How a game ended: ``termination`` uses the protocol's names, ``winner`` is 0, 1 or None.

    A plain class rather than a dataclass: importing ``dataclasses`` costs milliseconds of the
    cold start that ``enoch agent`` must keep short."""

    __slots__ = ("termination", "winner")

    def __init__(self, termination: str, winner: int | None) -> None:
        self.termination = termination
        self.winner = winner

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Outcome)
            and other.termination == self.termination
            and other.winner == self.winner
        )

    def __hash__(self) -> int:
        return hash((self.termination, self.winner))

    def __repr__(self) -> str:
        return f"Outcome({self.termination!r}, {self.winner!r})"

    @property
    def result(self) -> str:
        return "1/2-1/2" if self.winner is None else ("1-0" if self.winner == WHITE else "0-1")


class Position:
    """A FIDE position with its game history (for repetitions) and an undo stack."""

    __slots__ = (
        "bb",
        "board",
        "castling",
        "ep",
        "epkey",
        "fullmove",
        "halfmove",
        "history",
        "key",
        "kings",
        "occ",
        "stack",
        "turn",
    )

    def __init__(self) -> None:
        self.bb: list[int] = [0] * 16
        self.occ: list[int] = [0, 0]
        self.board: list[int] = [0] * 64
        self.kings: list[int] = [-1, -1]
        self.turn = WHITE
        self.castling = 0
        self.ep = -1
        # The key's en passant term: nonzero only while an en passant capture is legal.
        self.epkey = 0
        self.halfmove = 0
        self.fullmove = 1
        self.key = 0
        # Keys of earlier positions of the game, oldest first (for repetition counting). ``make``
        # appends, ``unmake`` pops; positions loaded from a protocol history are prepended.
        self.history: list[int] = []
        self.stack: list[tuple[int, int, int, int, int, int, int]] = []

    # ------------------------------------------------------------------ construction, FEN

    @classmethod
    def start(cls) -> Position:
        return cls.from_fen(STARTING_FEN)

    @classmethod
    def from_fen(cls, fen: str, *, validate: bool = True) -> Position:
        """Parse a FEN strictly. Four fields (no clocks) are accepted, with clocks 0 and 1.

        Raises :class:`FenError` naming the field that is wrong, and (with ``validate``) the
        first reason the position is impossible.
        """
        if not isinstance(fen, str):
            raise FenError(f"FEN must be a string, not {type(fen).__name__}")
        if fen == "startpos":  # the UCI name of the start, taken wherever a FEN is
            fen = STARTING_FEN
        fields = fen.split(" ")
        if len(fields) not in (4, 6) or any(not f for f in fields):
            raise FenError(
                f"FEN {quote(fen)}: expected 6 space-separated fields (or 4 without clocks), "
                f"got {len([f for f in fields if f])}"
            )
        pos = cls()
        pos._set_placement(fields[0], fen)
        if fields[1] not in ("w", "b"):
            raise FenError(
                f"FEN {quote(fen)}: side-to-move field must be 'w' or 'b', not {quote(fields[1])}"
            )
        pos.turn = WHITE if fields[1] == "w" else BLACK
        pos.castling = _parse_castling(fields[2], fen)
        pos.ep = _parse_ep(fields[3], fen)
        if len(fields) == 6:
            pos.halfmove = _parse_int(fields[4], "halfmove clock", fen, minimum=0)
            pos.fullmove = _parse_int(fields[5], "fullmove number", fen, minimum=1)
        if validate:
            problems = pos.problems()
            if problems:
                raise FenError(f"FEN {quote(fen)}: {problems[0]}")
        pos.key = pos._compute_key()
        return pos

    def _set_placement(self, placement: str, fen: str) -> None:
        rows = placement.split("/")
        if len(rows) != 8:
            raise FenError(f"FEN {quote(fen)}: piece placement must have 8 ranks, got {len(rows)}")
        for i, row in enumerate(rows):
            rank = 7 - i
            file = 0
            prev_digit = False
            for ch in row:
                if ch in "12345678":
                    if prev_digit:
                        raise FenError(f"FEN {quote(fen)}: rank {rank + 1} has two digits in a row")
                    file += int(ch)
                    prev_digit = True
                elif ch in SYMBOL_TO_CODE:
                    if file < 8:
                        self.put(rank * 8 + file, SYMBOL_TO_CODE[ch])
                    file += 1
                    prev_digit = False
                else:
                    raise FenError(
                        f"FEN {quote(fen)}: unknown piece symbol {ch!r} on rank {rank + 1}"
                    )
            if file != 8:
                raise FenError(f"FEN {quote(fen)}: rank {rank + 1} has {file} squares, expected 8")

    def put(self, sq: int, code: int) -> None:
        """Place a man on an empty square (set-up only: does not touch the key or the stack)."""
        b = 1 << sq
        self.bb[code] |= b
        self.occ[code >> 3] |= b
        self.board[sq] = code
        if code & 7 == KING:
            self.kings[code >> 3] = sq

    def copy(self) -> Position:
        """A copy with the same history of keys but an empty undo stack."""
        pos = Position.__new__(Position)
        pos.bb = self.bb[:]
        pos.occ = self.occ[:]
        pos.board = self.board[:]
        pos.kings = self.kings[:]
        pos.turn = self.turn
        pos.castling = self.castling
        pos.ep = self.ep
        pos.epkey = self.epkey
        pos.halfmove = self.halfmove
        pos.fullmove = self.fullmove
        pos.key = self.key
        pos.history = self.history[:]
        pos.stack = []
        return pos

    def board_fen(self) -> str:
        rows = []
        board = self.board
        for rank in range(7, -1, -1):
            row = ""
            empty = 0
            for file in range(8):
                code = board[rank * 8 + file]
                if code:
                    if empty:
                        row += str(empty)
                        empty = 0
                    row += PIECE_SYMBOLS[code]
                else:
                    empty += 1
            if empty:
                row += str(empty)
            rows.append(row)
        return "/".join(rows)

    def castling_fen(self) -> str:
        c = self.castling
        text = "".join(s for bit, s in ((1, "K"), (2, "Q"), (4, "k"), (8, "q")) if c & bit)
        return text or "-"

    def fen(self, *, en_passant: str = "legal", clocks: bool = True) -> str:
        """The FEN. ``en_passant="legal"`` writes the square only when an en passant capture is
        legal (python-chess's default, and enoch's history convention); ``"always"`` writes it
        after every double step (the protocol's ``en_passant`` field)."""
        if en_passant == "legal":
            ep = SQUARE_NAMES[self.ep] if self.ep >= 0 and self.has_legal_ep() else "-"
        else:
            ep = SQUARE_NAMES[self.ep] if self.ep >= 0 else "-"
        parts = [self.board_fen(), "wb"[self.turn], self.castling_fen(), ep]
        if clocks:
            parts += [str(self.halfmove), str(self.fullmove)]
        return " ".join(parts)

    def position_fen(self) -> str:
        """The first four FEN fields with the legal-only en passant square: FIDE's identity of a
        position, as written in the protocol's ``position_history``."""
        return self.fen(en_passant="legal", clocks=False)

    def piece_at(self, sq: int) -> int:
        return self.board[sq]

    def __repr__(self) -> str:
        return f"Position({self.fen()!r})"

    def __str__(self) -> str:
        lines = []
        for rank in range(7, -1, -1):
            row = " ".join(PIECE_SYMBOLS[self.board[rank * 8 + f]] for f in range(8))
            lines.append(f"{rank + 1} {row}")
        lines.append("  a b c d e f g h")
        return "\n".join(lines)

    # ------------------------------------------------------------------ keys

    def _compute_key(self) -> int:
        key = 0
        for sq, code in enumerate(self.board):
            if code:
                key ^= ZOBRIST_PIECE[code][sq]
        if self.turn == BLACK:
            key ^= ZOBRIST_TURN
        key ^= ZOBRIST_CASTLE[self.castling]
        self.epkey = ZOBRIST_EP[self.ep & 7] if self.ep >= 0 and self.has_legal_ep() else 0
        return key ^ self.epkey

    # ------------------------------------------------------------------ attacks

    def attackers(self, colour: int, sq: int, occ: int) -> int:
        """Men of ``colour`` attacking ``sq`` given occupancy ``occ``."""
        bb = self.bb
        cb = colour << 3
        queens = bb[cb | QUEEN]
        return (
            (KNIGHT_ATTACKS[sq] & bb[cb | KNIGHT])
            | (KING_ATTACKS[sq] & bb[cb | KING])
            | (PAWN_ATTACKS[colour ^ 1][sq] & bb[cb | PAWN])
            | (DIAG_ATTACKS[sq][occ & DIAG_MASKS[sq]] & (bb[cb | BISHOP] | queens))
            | (
                (FILE_ATTACKS[sq][occ & FILE_MASKS[sq]] | RANK_ATTACKS[sq][occ & RANK_MASKS[sq]])
                & (bb[cb | ROOK] | queens)
            )
        )

    def is_attacked(self, colour: int, sq: int) -> bool:
        return bool(self.attackers(colour, sq, self.occ[0] | self.occ[1]))

    def checkers(self) -> int:
        us = self.turn
        return self.attackers(us ^ 1, self.kings[us], self.occ[0] | self.occ[1])

    def is_check(self) -> bool:
        us = self.turn
        return bool(self.attackers(us ^ 1, self.kings[us], self.occ[0] | self.occ[1]))

    def has_legal_ep(self) -> bool:
        """Whether the side to move can legally capture en passant now."""
        ep = self.ep
        if ep < 0:
            return False
        us = self.turn
        pawns = PAWN_ATTACKS[us ^ 1][ep] & self.bb[us << 3 | PAWN]
        while pawns:
            b = pawns & -pawns
            if self._ep_is_legal(b.bit_length() - 1, ep):
                return True
            pawns ^= b
        return False

    def _ep_is_legal(self, fr: int, ep: int) -> bool:
        us = self.turn
        them = us ^ 1
        cap = ep - 8 if us == WHITE else ep + 8
        if self.board[cap] != (them << 3 | PAWN) or self.board[ep]:
            return False
        occ = (self.occ[0] | self.occ[1]) ^ (1 << fr) ^ (1 << cap) | (1 << ep)
        # The captured pawn no longer attacks; every other enemy man still may.
        return not (self.attackers(them, self.kings[us], occ) & ~(1 << cap))

    # ------------------------------------------------------------------ move generation

    def _analyse(self) -> tuple[int, int, int, list[Move]]:
        """What both generators need first: the safe king destinations (tested with the king
        lifted, so it cannot hide behind itself on a checking line), the evasion mask (every
        square when not in check, 0 in double check), our pinned men, and the legal castlings
        (never out of, through or into check)."""
        us = self.turn
        them = us ^ 1
        bb = self.bb
        tb = them << 3
        occ_us = self.occ[us]
        occ = occ_us | self.occ[them]
        ksq = self.kings[us]
        e_queens = bb[tb | QUEEN]
        e_rq = bb[tb | ROOK] | e_queens
        e_bq = bb[tb | BISHOP] | e_queens
        e_pawns = bb[tb | PAWN]
        e_knights = bb[tb | KNIGHT]
        pawn_att_us = PAWN_ATTACKS[us]
        checkers = (
            (KNIGHT_ATTACKS[ksq] & e_knights)
            | (pawn_att_us[ksq] & e_pawns)
            | (DIAG_ATTACKS[ksq][occ & DIAG_MASKS[ksq]] & e_bq)
            | (
                (
                    FILE_ATTACKS[ksq][occ & FILE_MASKS[ksq]]
                    | RANK_ATTACKS[ksq][occ & RANK_MASKS[ksq]]
                )
                & e_rq
            )
        )
        occ_nok = occ ^ (1 << ksq)
        e_king = bb[tb | KING]
        safe = 0
        t = KING_ATTACKS[ksq] & ~occ_us
        while t:
            b = t & -t
            to = b.bit_length() - 1
            t ^= b
            if not (
                (KNIGHT_ATTACKS[to] & e_knights)
                or (pawn_att_us[to] & e_pawns)
                or (KING_ATTACKS[to] & e_king)
                or (DIAG_ATTACKS[to][occ_nok & DIAG_MASKS[to]] & e_bq)
                or (FILE_ATTACKS[to][occ_nok & FILE_MASKS[to]] & e_rq)
                or (RANK_ATTACKS[to][occ_nok & RANK_MASKS[to]] & e_rq)
            ):
                safe |= b
        castles: list[Move] = []
        if checkers:
            if checkers & (checkers - 1):
                return safe, 0, 0, castles  # double check: only the king may move
            target = checkers | BETWEEN[ksq][checkers.bit_length() - 1]
        else:
            target = _ALL64
            c = self.castling
            if c:
                if us == WHITE:
                    if c & CASTLE_WK and not occ & 0x60 and not self._any_attacked(them, 5, 6, occ):
                        castles.append(4 | 6 << 6 | CASTLE_FLAG)
                    if c & CASTLE_WQ and not occ & 0x0E and not self._any_attacked(them, 3, 2, occ):
                        castles.append(4 | 2 << 6 | CASTLE_FLAG)
                else:
                    if (
                        c & CASTLE_BK
                        and not occ & (0x60 << 56)
                        and not self._any_attacked(them, 61, 62, occ)
                    ):
                        castles.append(60 | 62 << 6 | CASTLE_FLAG)
                    if (
                        c & CASTLE_BQ
                        and not occ & (0x0E << 56)
                        and not self._any_attacked(them, 59, 58, occ)
                    ):
                        castles.append(60 | 58 << 6 | CASTLE_FLAG)
        # Pinned men: ours, alone between our king and an enemy slider on a line.
        pinned = 0
        snipers = (ROOK_PSEUDO[ksq] & e_rq) | (BISHOP_PSEUDO[ksq] & e_bq)
        while snipers:
            b = snipers & -snipers
            snipers ^= b
            blockers = BETWEEN[ksq][b.bit_length() - 1] & occ
            if blockers and not blockers & (blockers - 1) and blockers & occ_us:
                pinned |= blockers
        return safe, target, pinned, castles

    def legal_moves(self) -> list[Move]:
        """Every legal move, as ints."""
        safe, target, pinned, moves = self._analyse()
        append = moves.append
        us = self.turn
        them = us ^ 1
        ksq = self.kings[us]
        while safe:
            b = safe & -safe
            append(ksq | (b.bit_length() - 1) << 6)
            safe ^= b
        if not target:
            return moves
        bb = self.bb
        ub = us << 3
        occ_us = self.occ[us]
        occ_them = self.occ[them]
        occ = occ_us | occ_them
        not_us = ~occ_us & _ALL64
        mask = not_us & target
        line_k = LINE[ksq]

        # Knights (a pinned knight never moves).
        pieces = bb[ub | KNIGHT] & ~pinned
        while pieces:
            b = pieces & -pieces
            fr = b.bit_length() - 1
            pieces ^= b
            t = KNIGHT_ATTACKS[fr] & mask
            while t:
                tb_ = t & -t
                append(fr | (tb_.bit_length() - 1) << 6)
                t ^= tb_

        # Sliders.
        queens = bb[ub | QUEEN]
        pieces = bb[ub | BISHOP] | queens
        while pieces:
            b = pieces & -pieces
            fr = b.bit_length() - 1
            pieces ^= b
            t = DIAG_ATTACKS[fr][occ & DIAG_MASKS[fr]] & mask
            if b & pinned:
                t &= line_k[fr]
            while t:
                tb_ = t & -t
                append(fr | (tb_.bit_length() - 1) << 6)
                t ^= tb_
        pieces = bb[ub | ROOK] | queens
        while pieces:
            b = pieces & -pieces
            fr = b.bit_length() - 1
            pieces ^= b
            t = (
                FILE_ATTACKS[fr][occ & FILE_MASKS[fr]] | RANK_ATTACKS[fr][occ & RANK_MASKS[fr]]
            ) & mask
            if b & pinned:
                t &= line_k[fr]
            while t:
                tb_ = t & -t
                append(fr | (tb_.bit_length() - 1) << 6)
                t ^= tb_

        # Pawns: unpinned ones in bulk by shifts, pinned ones one by one.
        pawns = bb[ub | PAWN]
        free = pawns & ~pinned
        empty = ~occ & _ALL64
        if us == WHITE:
            one = (free << 8) & empty
            two = ((one & RANK_3) << 8) & empty & target
            one &= target
            left = ((free & NOT_FILE_A) << 7) & occ_them & target
            right = ((free & NOT_FILE_H) << 9) & occ_them & target
            d1, d2, dl, dr = 8, 16, 7, 9
            promo_rank = RANK_8
        else:
            one = (free >> 8) & empty
            two = ((one & RANK_6) >> 8) & empty & target
            one &= target
            left = ((free & NOT_FILE_A) >> 9) & occ_them & target
            right = ((free & NOT_FILE_H) >> 7) & occ_them & target
            d1, d2, dl, dr = -8, -16, -9, -7
            promo_rank = RANK_1
        for t, d in ((one, d1), (left, dl), (right, dr)):
            p = t & promo_rank
            t ^= p
            while t:
                b = t & -t
                to = b.bit_length() - 1
                append((to - d) | to << 6)
                t ^= b
            while p:
                b = p & -p
                to = b.bit_length() - 1
                m = (to - d) | to << 6
                append(m | _PROMO_Q)
                append(m | _PROMO_R)
                append(m | _PROMO_B)
                append(m | _PROMO_N)
                p ^= b
        while two:
            b = two & -two
            to = b.bit_length() - 1
            append((to - d2) | to << 6 | DOUBLE_FLAG)
            two ^= b
        if pawns & pinned:
            for fr, t, double in self._pinned_pawns(pawns & pinned, target, d1):
                if double:
                    append(double)
                while t:
                    tb_ = t & -t
                    to = tb_.bit_length() - 1
                    t ^= tb_
                    m = fr | to << 6
                    if tb_ & promo_rank:
                        append(m | _PROMO_Q)
                        append(m | _PROMO_R)
                        append(m | _PROMO_B)
                        append(m | _PROMO_N)
                    else:
                        append(m)
        ep = self.ep
        if ep >= 0:
            t = PAWN_ATTACKS[them][ep] & pawns
            while t:
                b = t & -t
                fr = b.bit_length() - 1
                t ^= b
                if self._ep_is_legal(fr, ep):
                    append(fr | ep << 6 | EP_FLAG)
        return moves

    def _pinned_pawns(
        self, pinned_pawns: int, target: int, step: int
    ) -> list[tuple[int, int, int]]:
        """For each pinned pawn of the side to move: (from square, single-step and capture
        destinations along its pin line and within ``target``, the double-step move or 0)."""
        us = self.turn
        occ_them = self.occ[us ^ 1]
        occ = self.occ[us] | occ_them
        line_k = LINE[self.kings[us]]
        start_rank = 0xFF00 if us == WHITE else 0xFF << 48
        out = []
        while pinned_pawns:
            b = pinned_pawns & -pinned_pawns
            fr = b.bit_length() - 1
            pinned_pawns ^= b
            line = line_k[fr]
            t = PAWN_ATTACKS[us][fr] & occ_them & target & line
            double = 0
            to1 = fr + step
            if not (occ >> to1) & 1 and (1 << to1) & line:
                t |= (1 << to1) & target
                to2 = to1 + step
                if b & start_rank and not (occ >> to2) & 1 and (1 << to2) & target:
                    double = fr | to2 << 6 | DOUBLE_FLAG
            out.append((fr, t, double))
        return out

    def _any_attacked(self, colour: int, a: int, b: int, occ: int) -> bool:
        return bool(self.attackers(colour, a, occ) or self.attackers(colour, b, occ))

    def count_legal(self) -> int:
        """The number of legal moves, without building them (perft's bulk counting).

        Pinned men, castling and en passant are counted one by one; every other man's
        destinations are counted with ``int.bit_count`` on its target set."""
        safe, target, pinned, castles = self._analyse()
        n = safe.bit_count()
        if not target:
            return n
        n += len(castles)
        us = self.turn
        them = us ^ 1
        bb = self.bb
        ub = us << 3
        occ_us = self.occ[us]
        occ_them = self.occ[them]
        occ = occ_us | occ_them
        ksq = self.kings[us]
        not_us = ~occ_us & _ALL64
        mask = not_us & target
        line_k = LINE[ksq]
        pieces = bb[ub | KNIGHT] & ~pinned
        while pieces:
            b = pieces & -pieces
            n += (KNIGHT_ATTACKS[b.bit_length() - 1] & mask).bit_count()
            pieces ^= b
        queens = bb[ub | QUEEN]
        pieces = bb[ub | BISHOP] | queens
        while pieces:
            b = pieces & -pieces
            fr = b.bit_length() - 1
            pieces ^= b
            t = DIAG_ATTACKS[fr][occ & DIAG_MASKS[fr]] & mask
            if b & pinned:
                t &= line_k[fr]
            n += t.bit_count()
        pieces = bb[ub | ROOK] | queens
        while pieces:
            b = pieces & -pieces
            fr = b.bit_length() - 1
            pieces ^= b
            t = (
                FILE_ATTACKS[fr][occ & FILE_MASKS[fr]] | RANK_ATTACKS[fr][occ & RANK_MASKS[fr]]
            ) & mask
            if b & pinned:
                t &= line_k[fr]
            n += t.bit_count()
        pawns = bb[ub | PAWN]
        free = pawns & ~pinned
        empty = ~occ & _ALL64
        if us == WHITE:
            one = (free << 8) & empty
            two = ((one & RANK_3) << 8) & empty & target
            one &= target
            caps = (
                ((free & NOT_FILE_A) << 7) & occ_them & target,
                ((free & NOT_FILE_H) << 9) & occ_them & target,
            )
            promo_rank = RANK_8
            d1 = 8
        else:
            one = (free >> 8) & empty
            two = ((one & RANK_6) >> 8) & empty & target
            one &= target
            caps = (
                ((free & NOT_FILE_A) >> 9) & occ_them & target,
                ((free & NOT_FILE_H) >> 7) & occ_them & target,
            )
            promo_rank = RANK_1
            d1 = -8
        for t in (one, caps[0], caps[1]):
            n += t.bit_count() + 3 * (t & promo_rank).bit_count()
        n += two.bit_count()
        if pawns & pinned:
            for _, t, double in self._pinned_pawns(pawns & pinned, target, d1):
                n += (double != 0) + t.bit_count() + 3 * (t & promo_rank).bit_count()
        ep = self.ep
        if ep >= 0:
            t = PAWN_ATTACKS[them][ep] & pawns
            while t:
                b = t & -t
                t ^= b
                if self._ep_is_legal(b.bit_length() - 1, ep):
                    n += 1
        return n

    def has_legal_move(self) -> bool:
        return self.count_legal() > 0

    # ------------------------------------------------------------------ make / unmake

    def make(self, move: Move) -> None:
        """Play a legal move (not checked: use :meth:`is_legal` or :meth:`parse_uci` first).

        Plain moves (no promotion, castling, en passant or double step: ``move < 4096``) take
        a short path; this is most of the nodes of a search."""
        fr = move & 63
        to = (move >> 6) & 63
        board = self.board
        piece = board[fr]
        captured = board[to]
        key = self.key
        castling = self.castling
        self.stack.append((move, captured, castling, self.ep, self.halfmove, key, self.epkey))
        self.history.append(key)
        us = self.turn
        them = us ^ 1
        bb = self.bb
        occ = self.occ
        # Remove the old en passant contribution (if any) and flip the side to move.
        key ^= self.epkey ^ ZOBRIST_TURN
        zpp = ZOBRIST_PIECE[piece]
        frto = (1 << fr) | (1 << to)
        if captured:
            cb = 1 << to
            bb[captured] ^= cb
            occ[them] ^= cb
            key ^= ZOBRIST_PIECE[captured][to]
        bb[piece] ^= frto
        occ[us] ^= frto
        board[fr] = 0
        board[to] = piece
        key ^= zpp[fr] ^ zpp[to]
        if castling:
            nc = castling & CASTLE_KEEP[fr] & CASTLE_KEEP[to]
            if nc != castling:
                key ^= ZOBRIST_CASTLE[castling] ^ ZOBRIST_CASTLE[nc]
                self.castling = nc
        ptype = piece & 7
        if ptype == KING:
            self.kings[us] = to
        if captured or ptype == PAWN:
            self.halfmove = 0
        else:
            self.halfmove += 1
        if us:
            self.fullmove += 1
        self.turn = them
        self.ep = -1
        self.epkey = 0
        if move >= 4096:
            key = self._make_special(move, fr, to, us, them, key)
        self.key = key

    def _make_special(self, move: Move, fr: int, to: int, us: int, them: int, key: int) -> int:
        """The rest of a promotion, castling, en passant or double step; returns the key."""
        board = self.board
        bb = self.bb
        occ = self.occ
        zp = ZOBRIST_PIECE
        special = move >> 15
        promo = (move >> 12) & 7
        if promo:
            pawn = us << 3 | PAWN
            new = us << 3 | promo
            tb = 1 << to
            bb[pawn] ^= tb
            bb[new] ^= tb
            board[to] = new
            key ^= zp[pawn][to] ^ zp[new][to]
        elif special == SPECIAL_DOUBLE:
            ep = (fr + to) >> 1
            self.ep = ep
            # Only a legal en passant capture makes the position differ (FIDE 9.2.3).
            if PAWN_ATTACKS[us][ep] & bb[them << 3 | PAWN] and self.has_legal_ep():
                self.epkey = ZOBRIST_EP[ep & 7]
                key ^= self.epkey
        elif special == SPECIAL_EP:
            cap = to - 8 if us == WHITE else to + 8
            captured = them << 3 | PAWN
            cb = 1 << cap
            bb[captured] ^= cb
            occ[them] ^= cb
            board[cap] = 0
            key ^= zp[captured][cap]
        elif special == SPECIAL_CASTLE:
            rfr, rto = _CASTLE_ROOK[to]
            rook = us << 3 | ROOK
            rb = (1 << rfr) | (1 << rto)
            bb[rook] ^= rb
            occ[us] ^= rb
            board[rfr] = 0
            board[rto] = rook
            key ^= zp[rook][rfr] ^ zp[rook][rto]
        return key

    def unmake(self) -> None:
        """Take back the last move made with :meth:`make`."""
        move, captured, castling, ep, halfmove, key, epkey = self.stack.pop()
        self.history.pop()
        fr = move & 63
        to = (move >> 6) & 63
        board = self.board
        bb = self.bb
        occ = self.occ
        them = self.turn
        us = them ^ 1
        piece = board[to]
        if move >= 4096:
            special = move >> 15
            if (move >> 12) & 7:
                tb = 1 << to
                bb[piece] ^= tb
                piece = us << 3 | PAWN
                bb[piece] ^= tb
            elif special == SPECIAL_EP:
                cap = to - 8 if us == WHITE else to + 8
                pawn = them << 3 | PAWN
                cb = 1 << cap
                bb[pawn] ^= cb
                occ[them] ^= cb
                board[cap] = pawn
            elif special == SPECIAL_CASTLE:
                rfr, rto = _CASTLE_ROOK[to]
                rook = us << 3 | ROOK
                rb = (1 << rfr) | (1 << rto)
                bb[rook] ^= rb
                occ[us] ^= rb
                board[rto] = 0
                board[rfr] = rook
        frto = (1 << fr) | (1 << to)
        bb[piece] ^= frto
        occ[us] ^= frto
        board[fr] = piece
        board[to] = captured
        if captured:
            cb = 1 << to
            bb[captured] ^= cb
            occ[them] ^= cb
        if piece & 7 == KING:
            self.kings[us] = fr
        self.turn = us
        self.castling = castling
        self.ep = ep
        self.epkey = epkey
        self.halfmove = halfmove
        if us:
            self.fullmove -= 1
        self.key = key

    def make_null(self) -> None:
        """Pass the move (for null-move pruning in search); undone by :meth:`unmake_null`."""
        key = self.key
        self.stack.append((0, 0, self.castling, self.ep, self.halfmove, key, self.epkey))
        self.history.append(key)
        self.ep = -1
        self.turn ^= 1
        self.halfmove += 1
        self.key = key ^ self.epkey ^ ZOBRIST_TURN
        self.epkey = 0

    def unmake_null(self) -> None:
        _, _, _, ep, halfmove, key, epkey = self.stack.pop()
        self.history.pop()
        self.turn ^= 1
        self.ep = ep
        self.epkey = epkey
        self.halfmove = halfmove
        self.key = key

    # ------------------------------------------------------------------ moves from text

    def is_legal(self, move: Move) -> bool:
        return move in self.legal_moves()

    def find_move(self, fr: int, to: int, promotion: int = 0) -> Move | None:
        """The legal move from ``fr`` to ``to`` with that promotion type, or None."""
        for m in self.legal_moves():
            if m & 63 == fr and (m >> 6) & 63 == to and (m >> 12) & 7 == promotion:
                return m
        return None

    def parse_uci(self, text: str) -> Move:
        """The legal move written as UCI text; :class:`IllegalMoveError` if there is none."""
        if not isinstance(text, str) or len(text) not in (4, 5):
            raise IllegalMoveError(f"not a UCI move: {quote(text)}")
        fr = SQUARE_INDEX.get(text[0:2])
        to = SQUARE_INDEX.get(text[2:4])
        promo = 0
        if len(text) == 5:
            promo = {"q": QUEEN, "r": ROOK, "b": BISHOP, "n": KNIGHT}.get(text[4], -1)
        if fr is None or to is None or promo < 0:
            raise IllegalMoveError(f"not a UCI move: {quote(text)}")
        move = self.find_move(fr, to, promo)
        if move is None:
            raise IllegalMoveError(f"illegal move {text} in {self.fen()}")
        return move

    # ------------------------------------------------------------------ game status

    def is_checkmate(self) -> bool:
        return self.is_check() and not self.count_legal()

    def is_stalemate(self) -> bool:
        return not self.is_check() and not self.count_legal()

    def has_insufficient_material(self, colour: int) -> bool:
        """Whether ``colour`` cannot mate by any sequence of legal moves, judged on material as
        python-chess does (so that referee and oracle agree): lone king; king and one knight
        when the opponent has only a king and queens (no self-mate helpers); kings and bishops
        all on one colour with no pawns or knights on the board."""
        bb = self.bb
        cb = colour << 3
        if bb[cb | PAWN] | bb[cb | ROOK] | bb[cb | QUEEN]:
            return False
        ours = self.occ[colour]
        ob = (colour ^ 1) << 3
        if bb[cb | KNIGHT]:
            return ours.bit_count() <= 2 and not (
                self.occ[colour ^ 1] & ~bb[ob | KING] & ~bb[ob | QUEEN]
            )
        if bb[cb | BISHOP]:
            bishops = bb[BISHOP] | bb[8 | BISHOP]
            same_colour = not (bishops & DARK_SQUARES) or not (bishops & LIGHT_SQUARES)
            return same_colour and not (bb[PAWN] | bb[8 | PAWN] | bb[KNIGHT] | bb[8 | KNIGHT])
        return True

    def is_insufficient_material(self) -> bool:
        """A dead position by material (FIDE 5.2.2, as docs/protocol.md lists it and python-chess
        judges it)."""
        return self.has_insufficient_material(WHITE) and self.has_insufficient_material(BLACK)

    def repetition_count(self) -> int:
        """How many times the current position has occurred in the game, this time included."""
        key = self.key
        hist = self.history
        # Positions before the last pawn move or capture cannot recur. Every entry is compared
        # (not every other one): the key includes the side to move, and a history handed in by
        # an agent need not alternate strictly.
        return 1 + hist[max(len(hist) - self.halfmove, 0) :].count(key)

    def can_claim_threefold(self) -> bool:
        return self.repetition_count() >= 3

    def can_claim_fifty(self) -> bool:
        return self.halfmove >= 100 and self.count_legal() > 0

    def outcome(self, *, claim_draw: bool = False) -> Outcome | None:
        """The game's end, or None. Automatic endings in python-chess's order (checkmate, dead
        position, stalemate, 75 moves, fivefold); with ``claim_draw`` also the claimable ones
        (fifty moves, threefold) the side to move could claim now."""
        n = self.count_legal()
        if not n and self.is_check():
            return Outcome("checkmate", self.turn ^ 1)
        if self.is_insufficient_material():
            return Outcome("insufficient_material", None)
        if not n:
            return Outcome("stalemate", None)
        if self.halfmove >= 150:
            return Outcome("seventyfive_moves", None)
        rep = self.repetition_count() if self.halfmove >= 8 else 1
        if rep >= 5:
            return Outcome("fivefold_repetition", None)
        if claim_draw:
            if self.halfmove >= 100:
                return Outcome("fifty_moves", None)
            if rep >= 3:
                return Outcome("threefold_repetition", None)
        return None

    # ------------------------------------------------------------------ validation

    def problems(self) -> list[str]:
        """Every reason this position cannot arise in a game of chess (empty if none)."""
        out: list[str] = []
        bb = self.bb
        for colour, name in ((WHITE, "white"), (BLACK, "black")):
            cb = colour << 3
            kings = bb[cb | KING].bit_count()
            if kings == 0:
                out.append(f"{name} has no king")
            elif kings > 1:
                out.append(f"{name} has {kings} kings")
            pawns = bb[cb | PAWN].bit_count()
            if pawns > 8:
                out.append(f"{name} has {pawns} pawns (at most 8)")
            men = self.occ[colour].bit_count()
            if men > 16:
                out.append(f"{name} has {men} men (at most 16)")
        back = (bb[PAWN] | bb[8 | PAWN]) & (RANK_1 | RANK_8)
        if back:
            names = ", ".join(SQUARE_NAMES[s] for s in range(64) if back >> s & 1)
            out.append(f"pawn on the first or last rank ({names})")
        c = self.castling
        for bit, king_sq, rook_sq, label in (
            (CASTLE_WK, 4, 7, "K"),
            (CASTLE_WQ, 4, 0, "Q"),
            (CASTLE_BK, 60, 63, "k"),
            (CASTLE_BQ, 60, 56, "q"),
        ):
            if c & bit:
                colour = WHITE if bit < 4 else BLACK
                if self.board[king_sq] != (colour << 3 | KING) or self.board[rook_sq] != (
                    colour << 3 | ROOK
                ):
                    out.append(
                        f"castling right {label} without the king on {SQUARE_NAMES[king_sq]} "
                        f"and the rook on {SQUARE_NAMES[rook_sq]}"
                    )
        if self.ep >= 0:
            ep = self.ep
            want_rank = 5 if self.turn == WHITE else 2
            if ep >> 3 != want_rank:
                out.append(
                    f"en passant square {SQUARE_NAMES[ep]} is not on rank {want_rank + 1} "
                    f"(it must be the square a {'black' if self.turn == WHITE else 'white'} "
                    "pawn just skipped)"
                )
            else:
                step = 8 if self.turn == WHITE else -8
                pawn = (BLACK << 3 | PAWN) if self.turn == WHITE else (WHITE << 3 | PAWN)
                if self.board[ep] or self.board[ep + step]:
                    out.append(
                        f"en passant square {SQUARE_NAMES[ep]}: no double step can explain it "
                        "(the skipped or starting square is occupied)"
                    )
                elif self.board[ep - step] != pawn:
                    out.append(
                        f"en passant square {SQUARE_NAMES[ep]}: no double step can explain it "
                        f"(no pawn on {SQUARE_NAMES[ep - step]})"
                    )
                elif self.halfmove != 0:
                    out.append(
                        f"halfmove clock is {self.halfmove} but a pawn has just moved "
                        f"(en passant square {SQUARE_NAMES[ep]})"
                    )
        if self.halfmove < 0:
            out.append(f"halfmove clock {self.halfmove} is negative")
        if self.fullmove < 1:
            out.append(f"fullmove number {self.fullmove} is less than 1")
        elif self.halfmove > 2 * (self.fullmove - 1) + self.turn:
            out.append(
                f"halfmove clock {self.halfmove} is more than the "
                f"{2 * (self.fullmove - 1) + self.turn} half-moves played before move "
                f"{self.fullmove} ({'white' if self.turn == WHITE else 'black'} to move)"
            )
        if not out:
            them = self.turn ^ 1
            occ = self.occ[0] | self.occ[1]
            if self.attackers(self.turn, self.kings[them], occ):
                out.append(f"the side not to move ({('white', 'black')[them]}) is in check")
            n = self.attackers(them, self.kings[self.turn], occ).bit_count()
            if n > 2:
                out.append(f"the king to move is attacked by {n} men (at most 2 is possible)")
        return out


def _parse_castling(text: str, fen: str) -> int:
    if text == "-":
        return 0
    bits = {"K": CASTLE_WK, "Q": CASTLE_WQ, "k": CASTLE_BK, "q": CASTLE_BQ}
    c = 0
    for ch in text:
        bit = bits.get(ch)
        if bit is None or c & bit:
            raise FenError(
                f"FEN {quote(fen)}: castling field {quote(text)} must be '-' or letters of KQkq"
            )
        c |= bit
    canonical = "".join(ch for ch in "KQkq" if ch in text)
    if text != canonical:
        raise FenError(
            f"FEN {quote(fen)}: castling field {quote(text)} must list its rights in the order KQkq"
        )
    return c


def _parse_ep(text: str, fen: str) -> int:
    if text == "-":
        return -1
    sq = SQUARE_INDEX.get(text)
    if sq is None:
        raise FenError(f"FEN {quote(fen)}: en passant field {quote(text)} is not '-' or a square")
    return sq


def _parse_int(text: str, what: str, fen: str, *, minimum: int) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(MAX_CLOCK)):
        if text.isascii() and text.isdigit():
            raise FenError(f"FEN {quote(fen)}: {what} {quote(text)} is more than {MAX_CLOCK}")
        raise FenError(f"FEN {quote(fen)}: {what} {quote(text)} is not a non-negative integer")
    value = int(text)
    if value < minimum:
        raise FenError(f"FEN {quote(fen)}: {what} {value} must be at least {minimum}")
    if value > MAX_CLOCK:
        raise FenError(f"FEN {quote(fen)}: {what} {value} is more than {MAX_CLOCK}")
    return value


__all__ = [
    "MAX_CLOCK",
    "STARTING_FEN",
    "Move",
    "Outcome",
    "Position",
    "move_from",
    "move_promotion",
    "move_to",
    "move_uci",
]
_ = (BISHOP_PSEUDO, ROOK_PSEUDO)  # re-exported tables are used by the engine
