"""The Enochian rules engine: a four-army position, legal moves, make/unmake, outcome.

Shaped like an OpenSpiel game: a :class:`GameConfig` declares players, armies and options; a
:class:`State` is the state machine (``current_player``, ``legal_actions``, ``apply``,
``undo``, ``is_terminal``, ``returns``). Players are integers, so one referee serves two players
(one team each) or four (one army each).

Representation. One bitboard (Python int) per army and kind, with the pawns split into four
kinds by patron, plus a 64-square mailbox. The only square that may hold two men is an army's
throne while the king still shares it with its throne partner: both bitboards carry the bit,
the mailbox holds the partner, and the ``shared`` bit mask says so.

Make/unmake copies the few small lists a move touches and pushes the old references: simpler
and, measured, no slower in CPython than recording and reversing each change.

Rules are those of ``docs/enochian.md`` (Zalewski's by default, with the numbered fine points
of its "Fine points" section); where the code implements a fine point, the comment cites it as
"(fine point N)".
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from enoch.enochian.geometry import (
    ARMY_INDEX,
    ARMY_NAMES,
    BASE_KIND,
    BB,
    BISHOP,
    BISHOP_LINES,
    CORNERS,
    FULL,
    KIND_LETTERS,
    KIND_NAMES,
    KING,
    KING_ATT,
    KNIGHT,
    KNIGHT_ATT,
    NKINDS,
    PAWN_ATTACKERS,
    PAWN_CAPS,
    PAWN_KINDS,
    PAWN_PUSH,
    PROMOTION_EDGE,
    QUEEN,
    QUEEN_ATT,
    ROOK,
    ROOK_LINES,
    SQUARE_INDEX,
    SQUARE_NAMES,
    THRONES,
    bishop_attacks,
    chebyshev,
    pawn_of,
    rook_attacks,
    squares,
)
from enoch.enochian.spec import ArraySpec, RuleOptions, find_array, parse_options
from enoch.errors import IllegalMoveError, InputError

# --- Moves --------------------------------------------------------------------------------
# A board move is an int: from | to << 6 | kind << 12 | (promoted kind + 1) << 16 | PRIV.
# Actions that are not board moves live above bit 24.
PRIV = 1 << 21
OFFER = 1 << 24  # offer an exchange of prisoners (before the move)
ACCEPT = 2 << 24
REFUSE = 3 << 24
RESIGN = 4 << 24  # the team concedes
WITHDRAW = 5 << 24  # four players: this army leaves the game
SPECIAL_NAMES = {
    OFFER: "offer",
    ACCEPT: "accept",
    REFUSE: "refuse",
    RESIGN: "resign",
    WITHDRAW: "withdraw",
}
SPECIAL_BY_NAME = {v: k for k, v in SPECIAL_NAMES.items()}
PROMO_KINDS = (QUEEN, ROOK, BISHOP, KNIGHT)  # privileged choices, in the order they are listed


def move_from(m: int) -> int:
    return m & 63


def move_to(m: int) -> int:
    return m >> 6 & 63


def move_kind(m: int) -> int:
    return m >> 12 & 15


def move_promo(m: int) -> int:
    """The kind a pawn becomes by this move, or -1."""
    return (m >> 16 & 15) - 1


# --- Zobrist keys -------------------------------------------------------------------------
_rng = random.Random(0x5EED_E0C4)
Z_MEN = [[_rng.getrandbits(64) for _ in range(64)] for _ in range(4 * NKINDS)]
Z_TURN = [_rng.getrandbits(64) for _ in range(4)]
Z_FROZEN = [_rng.getrandbits(64) for _ in range(16)]
Z_SHARED = [_rng.getrandbits(64) for _ in range(16)]
Z_LOST = [_rng.getrandbits(64) for _ in range(16)]
Z_DIE = [_rng.getrandbits(64) for _ in range(7)]
Z_PENDING = _rng.getrandbits(64)


@dataclass(frozen=True)
class Divination:
    """Divination mode: the querent's army, its Ptah square (a marker) and the die's seed."""

    querent: int
    ptah: int
    seed: int = 0


@dataclass(frozen=True)
class GameConfig:
    """The declaration of one game: what stays fixed while the state changes."""

    order: tuple[int, ...]
    players: int = 2
    controllers: tuple[int, ...] = (0, 1, 0, 1)
    options: RuleOptions = field(default_factory=RuleOptions)
    partner: tuple[int, ...] = (ROOK, ROOK, ROOK, ROOK)
    array_id: str | None = None
    direction: str = "deosil"
    divination: Divination | None = None
    die_table: tuple[str, ...] = ("king", "knight", "bishop", "queen", "rook", "pawn")
    max_plies: int | None = None

    @property
    def ally_capture(self) -> bool:
        """The ally-king-capture option applies to four-player games only."""
        return self.options.ally_king_capture and self.players == 4


@dataclass(frozen=True)
class Outcome:
    """How a game ended: the winning team (0 actives, 1 passives) or None for a draw."""

    winner: int | None
    reason: str

    def as_dict(self) -> dict[str, Any]:
        from enoch.enochian.geometry import TEAM_NAMES

        return {
            "winner": None if self.winner is None else TEAM_NAMES[self.winner],
            "reason": self.reason,
        }


def default_controllers(order: Sequence[int], players: int) -> tuple[int, ...]:
    """Player numbers per army: player 0 moves first (its team, or its army)."""
    if players == 2:
        first = order[0] % 2
        return tuple(0 if a % 2 == first else 1 for a in range(4))
    if players == 4:
        out = [0] * 4
        for i, a in enumerate(order):
            out[a] = i
        return tuple(out)
    raise InputError(f"players must be 2 or 4, not {players}")


def parse_controllers(
    raw: dict[str, Any] | Sequence[int] | None, order: Sequence[int], players: int
) -> tuple[int, ...]:
    """Validate a controller map (army name -> player number)."""
    if raw is None:
        return default_controllers(order, players)
    if isinstance(raw, dict):
        out = [-1] * 4
        for name, p in raw.items():
            if name not in ARMY_INDEX:
                raise InputError(f"controllers: unknown army {name!r}")
            if not isinstance(p, int) or isinstance(p, bool) or not 0 <= p < players:
                raise InputError(f"controllers.{name}: player must be 0..{players - 1}, not {p!r}")
            out[ARMY_INDEX[name]] = p
        if -1 in out:
            raise InputError(f"controllers: no player for {ARMY_NAMES[out.index(-1)]}")
    else:
        out = list(raw)
    if players == 2:
        if out[0] != out[2] or out[1] != out[3] or out[0] == out[1]:
            raise InputError(
                "controllers: with two players each player commands one team "
                "(air+fire, water+earth)"
            )
    elif sorted(out) != [0, 1, 2, 3]:
        raise InputError("controllers: with four players each player commands one army")
    return tuple(out)


class State:
    """A position and everything needed to continue the game from it."""

    _FIELDS = (
        "bb",
        "occ",
        "board",
        "shared",
        "frozen",
        "withdrawn",
        "pawns_lost",
        "commander",
        "captured_by",
        "turn_idx",
        "ply",
        "turns",
        "die",
        "outcome",
        "pending",
        "offered",
        "ptah_watch",
        "verdict",
        "_legal",
        "_loglen",
        "zkey",
    )

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        self.opts = config.options
        self.bb: list[int] = [0] * (4 * NKINDS)
        self.occ: list[int] = [0] * 4
        self.board: list[int] = [-1] * 64
        self.shared = 0
        self.frozen = 0
        self.withdrawn = 0
        self.pawns_lost = [0, 0, 0, 0]
        self.commander = [0, 1, 2, 3]
        self.captured_by = [-1, -1, -1, -1]
        self.turn_idx = 0
        self.ply = 0
        self.turns = 0  # army turns begun, skipped ones included: indexes the die
        self.die = 0
        self.outcome: Outcome | None = None
        self.pending: tuple[int, int] | None = None
        self.offered = False
        self.ptah_watch = False
        self.verdict: str | None = None
        self._legal: list[int] | None = None
        self.log: list[dict[str, Any]] = []
        self._loglen = 0
        self.zkey = 0
        self._stack: list[tuple[Any, ...]] = []

    def copy(self) -> State:
        """An independent copy (history and undo stack included), for an agent to search on.

        Moves replace the lists they change (copy on write: that is what makes ``undo`` a
        restore of references), so copying the current lists once is all it takes.
        """
        new = State.__new__(State)
        new.config = self.config
        new.opts = self.opts
        for name in self._FIELDS:
            setattr(new, name, getattr(self, name))
        new.bb = self.bb.copy()
        new.occ = self.occ.copy()
        new.board = self.board.copy()
        new.pawns_lost = self.pawns_lost.copy()
        new.commander = self.commander.copy()
        new.captured_by = self.captured_by.copy()
        new.log = self.log.copy()
        new._stack = self._stack.copy()
        return new

    # --- construction ---------------------------------------------------------------------
    def _place(self, army: int, kind: int, sq: int) -> None:
        code = army * NKINDS + kind
        self.bb[code] |= BB[sq]
        self.occ[army] |= BB[sq]
        self.zkey ^= Z_MEN[code][sq]
        if kind != KING or self.board[sq] < 0:
            self.board[sq] = code

    @classmethod
    def from_men(
        cls,
        config: GameConfig,
        men: Iterable[Sequence[Any]],
        to_move: int,
        frozen: Iterable[int] = (),
        shared: Iterable[int] = (),
        pawns_lost: Sequence[int] = (0, 0, 0, 0),
        start_turn: bool = True,
        captured_by: Sequence[int] = (-1, -1, -1, -1),
        commander: Sequence[int] = (0, 1, 2, 3),
        withdrawn: Iterable[int] = (),
        ply: int = 0,
    ) -> State:
        """A position from a list of men ``(square, army, kind, patron-or-None)``.

        Validates what the rules need (one man a square except a shared throne, one king an
        army). With ``start_turn`` the army to move begins its turn as in a game: waiting
        pawns promote and, if it cannot move, the turn passes.
        """
        st = cls(config)
        shared_set = set(shared)
        per_sq: dict[int, list[tuple[int, int]]] = {}
        for i, man in enumerate(men):
            sq, army, kind_name = man[0], man[1], man[2]
            patron = man[3] if len(man) > 3 else None
            if kind_name == "pawn":
                if patron not in ("queen", "bishop", "knight", "rook"):
                    raise InputError(
                        f"men[{i}]: a pawn needs a patron (queen, bishop, knight, "
                        f"rook), not {patron!r}"
                    )
                kind = pawn_of(BASE_KIND[patron])
            elif kind_name in BASE_KIND:
                kind = BASE_KIND[kind_name]
            else:
                raise InputError(f"men[{i}]: unknown kind {kind_name!r}")
            per_sq.setdefault(sq, []).append((army, kind))
        kings = [0, 0, 0, 0]
        for sq, here in per_sq.items():
            if len(here) == 2:
                (a1, k1), (a2, k2) = here
                if (
                    a1 != a2
                    or sq != THRONES[a1]
                    or (k1 == KING) == (k2 == KING)
                    or a1 not in shared_set
                ):
                    raise InputError(
                        f"square {SQUARE_NAMES[sq]} holds two men; only an army's "
                        "throne listed as shared may hold its king and one other man"
                    )
                here.sort(key=lambda x: x[1] != KING)  # king first, partner lands in mailbox
            elif len(here) > 2:
                raise InputError(f"square {SQUARE_NAMES[sq]} holds {len(here)} men")
            for army, kind in here:
                st._place(army, kind, sq)
                if kind == KING:
                    kings[army] += 1
        for a in range(4):
            if kings[a] > 1:
                raise InputError(f"{ARMY_NAMES[a]} has {kings[a]} kings")
        for a in shared_set:
            t = THRONES[a]
            if not (st.bb[a * NKINDS + KING] & BB[t]) or len(per_sq.get(t, [])) != 2:
                raise InputError(
                    f"shared: {ARMY_NAMES[a]}'s throne {SQUARE_NAMES[t]} does not "
                    "hold its king and one other man"
                )
            st.shared |= 1 << a
        for a in frozen:
            st.frozen |= 1 << a
        for a in withdrawn:
            st.withdrawn |= 1 << a
            st.frozen |= 1 << a
        st.pawns_lost = list(pawns_lost)
        st.captured_by = list(captured_by)
        st.commander = list(commander)
        st.ply = ply
        for a in range(4):
            if st.captured_by[a] >= 0 and (
                st.captured_by[a] % 2 == a % 2 or st.bb[a * NKINDS + KING]
            ):
                raise InputError(
                    f"captured_by: {ARMY_NAMES[a]}'s king is on the board or was taken by an ally"
                )
            if st.commander[a] % 2 != a % 2:
                raise InputError(f"commander: {ARMY_NAMES[a]} cannot be commanded by an enemy")
        if to_move not in config.order:
            raise InputError(f"to_move: {to_move!r} is not an army")
        st.turn_idx = config.order.index(to_move)
        if config.divination is not None and start_turn:
            # a rule of the set-up: in a game the querent's king goes there to win (and a
            # state read mid-game may show it there, watching)
            q = config.divination.querent
            if st.bb[q * NKINDS + KING] & BB[config.divination.ptah]:
                raise InputError("the Ptah square may not be the querent king's square")
        if start_turn:
            st.turn_idx = (st.turn_idx - 1) % 4
            st.turns -= 1
            st._advance()
        return st

    # --- basic queries --------------------------------------------------------------------
    @property
    def army_to_move(self) -> int:
        """The army whose turn it is (also while an exchange offer awaits an answer)."""
        return self.config.order[self.turn_idx]

    @property
    def deciding_army(self) -> int:
        """The army that must act now: the offer's addressee while an offer is pending."""
        return self.pending[1] if self.pending else self.army_to_move

    def current_player(self) -> int:
        """The player number that acts now, or -1 when the game is over."""
        if self.outcome is not None:
            return -1
        return self.config.controllers[self.commander[self.deciding_army]]

    def is_terminal(self) -> bool:
        return self.outcome is not None

    def returns(self) -> list[float]:
        """Per player: +1 win, -1 loss, 0 draw or unfinished (the team's result for each)."""
        n = self.config.players
        if self.outcome is None or self.outcome.winner is None:
            return [0.0] * n
        out = [0.0] * n
        for a in range(4):
            out[self.config.controllers[a]] = 1.0 if a % 2 == self.outcome.winner else -1.0
        return out

    def king_square(self, army: int) -> int:
        k = self.bb[army * NKINDS + KING]
        return k.bit_length() - 1 if k else -1

    def is_out(self, army: int) -> bool:
        """Frozen, withdrawn or without men (fine point 9)."""
        return bool((self.frozen | self.withdrawn) >> army & 1) or not self.occ[army]

    def men(self) -> list[tuple[int, int, int]]:
        """Every man as (square, army, kind), in square order, king first on a shared throne."""
        out = []
        for code in range(4 * NKINDS):
            for s in squares(self.bb[code]):
                out.append((s, code // NKINDS, code % NKINDS))
        out.sort(key=lambda x: (x[0], x[2] != KING))
        return out

    def key(self) -> int:
        """Zobrist key of the position (men, army to move, frozen, shared, lost-pawn flags)."""
        lost = sum(1 << a for a in range(4) if self.pawns_lost[a])
        k = (
            self.zkey
            ^ Z_TURN[self.army_to_move]
            ^ Z_FROZEN[self.frozen]
            ^ Z_SHARED[self.shared]
            ^ Z_LOST[lost]
            ^ Z_DIE[self.die]
        )
        return k ^ Z_PENDING if self.pending else k

    # --- attacks --------------------------------------------------------------------------
    def attacked(self, sq: int, army: int, no_b: bool = False, no_q: bool = False) -> bool:
        """Could a live enemy man of ``army`` capture on ``sq``? (fine point 1: pseudo-legal)

        ``no_b``/``no_q``: the square holds a bishop/queen, which enemy bishops/queens may not
        take (a shared throne is attacked only by a man able to take every man on it).
        """
        bb = self.bb
        occ = self.occ
        all_occ = occ[0] | occ[1] | occ[2] | occ[3]
        ratt = batt = -1
        for e in ((army + 1) & 3, (army + 3) & 3):
            if self.frozen >> e & 1:
                continue
            b = e * NKINDS
            if KNIGHT_ATT[sq] & bb[b + KNIGHT] or KING_ATT[sq] & bb[b + KING]:
                return True
            if not no_q and QUEEN_ATT[sq] & bb[b + QUEEN]:
                return True
            if PAWN_ATTACKERS[e][sq] & (bb[b + 5] | bb[b + 6] | bb[b + 7] | bb[b + 8]):
                return True
            r = bb[b + ROOK]
            if r & ROOK_LINES[sq]:
                if ratt < 0:
                    ratt = rook_attacks(sq, all_occ)
                if ratt & r:
                    return True
            bi = bb[b + BISHOP]
            if not no_b and bi & BISHOP_LINES[sq]:
                if batt < 0:
                    batt = bishop_attacks(sq, all_occ)
                if batt & bi:
                    return True
        return False

    def in_check(self, army: int) -> bool:
        """Is the army's king attacked (a shared throne by the kind rule, fine point 4)?"""
        ksq = self.king_square(army)
        if ksq < 0:
            return False
        if self.shared >> army & 1 and ksq == THRONES[army]:
            pk = self.board[ksq] % NKINDS
            return self.attacked(ksq, army, pk == BISHOP, pk == QUEEN)
        return self.attacked(ksq, army)

    # --- move generation ------------------------------------------------------------------
    def privileged(self, army: int) -> bool:
        """Exactly K+Q+P, K+B+P or K+P: the pawn may become any piece."""
        b = army * NKINDS
        bb = self.bb
        if not bb[b + KING]:
            return False
        pawns = bb[b + 5] | bb[b + 6] | bb[b + 7] | bb[b + 8]
        if pawns.bit_count() != 1 or bb[b + KNIGHT] or bb[b + ROOK]:
            return False
        q, bi = bb[b + QUEEN].bit_count(), bb[b + BISHOP].bit_count()
        return q + bi <= 1

    def pseudo_moves(self, army: int) -> list[int]:
        """Every move of the army's men ignoring its own king's safety."""
        bb = self.bb
        occ = self.occ
        all_occ = occ[0] | occ[1] | occ[2] | occ[3]
        empty = FULL ^ all_occ
        cap = no_b = no_q = 0
        for e in ((army + 1) & 3, (army + 3) & 3):
            if self.frozen >> e & 1:
                continue
            cap |= occ[e]
            no_b |= bb[e * NKINDS + BISHOP]
            no_q |= bb[e * NKINDS + QUEEN]
        if self.config.ally_capture:
            ally = army ^ 2
            ak = bb[ally * NKINDS + KING]
            alone = not (self.shared >> ally & 1 and ak & BB[THRONES[ally]])
            # fine point 11: "about to be taken" = attacked by a live enemy man
            if (
                ak
                and alone
                and not (self.frozen >> ally & 1)
                and self.attacked(ak.bit_length() - 1, ally)
            ):
                cap |= ak
        tgt = empty | cap
        base = army * NKINDS
        out: list[int] = []
        app = out.append
        for kind in (KING, QUEEN, BISHOP, KNIGHT, ROOK):
            men = bb[base + kind]
            while men:
                low = men & -men
                f = low.bit_length() - 1
                men ^= low
                if kind == KNIGHT:
                    t_bb = KNIGHT_ATT[f] & tgt
                elif kind == KING:
                    t_bb = KING_ATT[f] & tgt
                elif kind == QUEEN:
                    t_bb = QUEEN_ATT[f] & (empty | (cap & ~no_q))
                elif kind == BISHOP:
                    t_bb = bishop_attacks(f, all_occ) & (empty | (cap & ~no_b))
                else:
                    t_bb = rook_attacks(f, all_occ) & tgt
                fk = f | kind << 12
                while t_bb:
                    lt = t_bb & -t_bb
                    app(fk | (lt.bit_length() - 1) << 6)
                    t_bb ^= lt
        pawns_any = bb[base + 5] | bb[base + 6] | bb[base + 7] | bb[base + 8]
        if pawns_any:
            edge = PROMOTION_EDGE[army]
            push = PAWN_PUSH[army]
            caps = PAWN_CAPS[army]
            for kind in PAWN_KINDS:
                men = bb[base + kind]
                while men:
                    low = men & -men
                    f = low.bit_length() - 1
                    men ^= low
                    t_bb = caps[f] & cap
                    t = push[f]
                    if t >= 0 and empty & BB[t]:
                        t_bb |= BB[t]
                    fk = f | kind << 12
                    while t_bb:
                        lt = t_bb & -t_bb
                        t_bb ^= lt
                        m = fk | (lt.bit_length() - 1) << 6
                        if lt & edge:
                            self._promotions(army, kind, lt, m, out)
                        else:
                            app(m)
        return out

    def _promotion_target(self, army: int, pawn_kind: int, sq_bb: int) -> int:
        """The kind a pawn arriving on ``sq_bb`` would become: patron, or partner on a corner."""
        return self.config.partner[army] if sq_bb & CORNERS else pawn_kind - 4

    def _promotions(self, army: int, pawn_kind: int, sq_bb: int, m: int, out: list[int]) -> None:
        if self.privileged(army):  # fine point 7: four distinct moves
            for k in PROMO_KINDS:
                out.append(m | (k + 1) << 16 | PRIV)
            return
        target = self._promotion_target(army, pawn_kind, sq_bb)
        if self.pawns_lost[army] and (
            self.opts.allow_duplicate_patron_promotion or not self.bb[army * NKINDS + target]
        ):
            out.append(m | (target + 1) << 16)
        else:
            out.append(m)  # it arrives and waits

    def _compute_legal(self, army: int) -> list[int]:
        """Legal moves of ``army`` under the check rules (not the die)."""
        pseudo = self.pseudo_moves(army)
        ksq = self.king_square(army)
        if ksq < 0 or not pseudo:
            return pseudo
        if self.in_check(army):
            kings = [m for m in pseudo if m >> 12 & 15 == KING]
            return kings if kings else pseudo  # fine point 2
        # Only a king move, a move off the king's square, a promotion, or a move from a line
        # through the king with a live enemy slider on it can expose the king.
        bb = self.bb
        danger = 0
        for e in ((army + 1) & 3, (army + 3) & 3):
            if self.frozen >> e & 1:
                continue
            if bb[e * NKINDS + ROOK] & ROOK_LINES[ksq]:
                danger |= ROOK_LINES[ksq]
            if bb[e * NKINDS + BISHOP] & BISHOP_LINES[ksq]:
                danger |= BISHOP_LINES[ksq]
        out = []
        for m in pseudo:
            f = m & 63
            if (m >> 12 & 15) == KING or f == ksq or m >> 16 & 15 or BB[f] & danger:
                snap = self._snapshot()
                self._move_men(m, army)
                bad = self.in_check(army)  # fine point 3: after freezing
                self._restore(snap)
                if bad:
                    continue
            out.append(m)
        return out

    def legal_moves(self) -> list[int]:
        """Board moves the army to move may make now (empty when over or an offer pends)."""
        if self.outcome is not None or self.pending is not None:
            return []
        if self._legal is None:
            self._legal = self._turn_moves(self.army_to_move)
        return list(self._legal)

    def legal_actions(self) -> list[int]:
        """Moves plus negotiation: an exchange offer, or accept/refuse while one pends.

        Resigning and withdrawing are always allowed and not listed.
        """
        if self.outcome is not None:
            return []
        if self.pending is not None:
            return [ACCEPT, REFUSE]
        acts = self.legal_moves()
        if self.exchange_target() >= 0:
            acts.append(OFFER)
        return acts

    # --- making moves ---------------------------------------------------------------------
    def _snapshot(self) -> tuple[Any, ...]:
        return (
            self.bb,
            self.occ,
            self.board,
            self.shared,
            self.frozen,
            self.withdrawn,
            self.pawns_lost,
            self.commander,
            self.captured_by,
            self.turn_idx,
            self.ply,
            self.turns,
            self.die,
            self.outcome,
            self.pending,
            self.offered,
            self.ptah_watch,
            self.verdict,
            self._legal,
            len(self.log),
            self.zkey,
        )

    def _restore(self, s: tuple[Any, ...]) -> None:
        (
            self.bb,
            self.occ,
            self.board,
            self.shared,
            self.frozen,
            self.withdrawn,
            self.pawns_lost,
            self.commander,
            self.captured_by,
            self.turn_idx,
            self.ply,
            self.turns,
            self.die,
            self.outcome,
            self.pending,
            self.offered,
            self.ptah_watch,
            self.verdict,
            self._legal,
            loglen,
            self.zkey,
        ) = s
        del self.log[loglen:]

    def _move_men(self, m: int, army: int) -> int:
        """Play the board part of a move; returns the army whose king was taken, or -1."""
        bb = self.bb = self.bb.copy()
        occ = self.occ = self.occ.copy()
        board = self.board = self.board.copy()
        f, t, k = m & 63, m >> 6 & 63, m >> 12 & 15
        promo = (m >> 16 & 15) - 1
        bf, bt = BB[f], BB[t]
        z = self.zkey
        taken = -1
        victim = board[t]
        if victim >= 0:
            e = victim // NKINDS
            self.pawns_lost = lost = self.pawns_lost.copy()
            if self.shared >> e & 1 and t == THRONES[e]:  # capturing a shared throne takes both
                self.shared &= ~(1 << e)
                kc = e * NKINDS + KING
                bb[kc] ^= bt
                z ^= Z_MEN[kc][t]
                taken = e
            elif victim % NKINDS == KING:
                taken = e
            bb[victim] ^= bt
            z ^= Z_MEN[victim][t]
            occ[e] ^= bt
            if victim % NKINDS >= 5:
                lost[e] += 1  # fine point 5
        code = army * NKINDS + k
        bb[code] ^= bf
        z ^= Z_MEN[code][f]
        if self.shared >> army & 1 and f == THRONES[army]:
            self.shared &= ~(1 << army)
            if k != KING:
                board[f] = army * NKINDS + KING
        else:
            board[f] = -1
            occ[army] ^= bf
        newk = promo if promo >= 0 else k
        nc = army * NKINDS + newk
        bb[nc] |= bt
        z ^= Z_MEN[nc][t]
        occ[army] |= bt
        board[t] = nc
        if m & PRIV:  # the existing man of that kind becomes a pawn of that patron
            for s in squares(bb[nc] & ~bt):
                pc = army * NKINDS + pawn_of(newk)
                bb[nc] ^= BB[s]
                bb[pc] |= BB[s]
                z ^= Z_MEN[nc][s] ^ Z_MEN[pc][s]
                board[s] = pc
        self.zkey = z
        if taken >= 0:
            if taken == army ^ 2:  # an ally took its own king: commands it, not frozen
                self.commander = self.commander.copy()
                self.commander[taken] = self.commander[army]
            else:
                self.frozen |= 1 << taken
                self.captured_by = self.captured_by.copy()
                self.captured_by[taken] = army
                if any(c == taken for x, c in enumerate(self.commander) if x != taken):
                    # a seizure ends when the seizing king is taken
                    self.commander = [
                        x if c == taken and x != taken else c for x, c in enumerate(self.commander)
                    ]
        elif k == KING and t == THRONES[army ^ 2]:  # throne seizure (fine point 10)
            ally = army ^ 2
            if not (self.frozen >> ally & 1) or self.opts.throne_seizure_revives_frozen:
                self.frozen &= ~(1 << ally)
                self.commander = self.commander.copy()
                self.commander[ally] = army
        return taken

    def make(self, action: int) -> None:
        """Apply a legal action (a move from :meth:`legal_actions`, or resign/withdraw)."""
        if self.outcome is not None:
            raise IllegalMoveError("the game is over")
        self._stack.append(self._snapshot())
        if action >= OFFER:
            self._special(action)
            return
        army = self.army_to_move
        self._legal = None
        self.log.append({"army": ARMY_NAMES[army], "move": self.move_str(action)})
        capture = self.board[action >> 6 & 63] >= 0
        taken = self._move_men(action, army)
        self.ply += 1
        if taken >= 0:
            self._after_capture(taken)
        elif capture:
            self._check_bare()
        if self.config.divination is not None:
            self._ptah_update(mover=army)
        if (
            self.outcome is None
            and self.config.max_plies is not None
            and self.ply >= self.config.max_plies
        ):
            self.outcome = Outcome(None, "move_limit")
        if self.outcome is None:
            self._advance()

    apply = make
    apply_action = make

    def undo(self) -> None:
        """Take back the last action."""
        self._restore(self._stack.pop())

    unmake = undo

    def _after_capture(self, taken: int) -> None:
        div = self.config.divination
        if div is not None and self.verdict is None and taken == div.querent:
            self.verdict = "failure"
        team = taken % 2
        if not self.bb[team * NKINDS + KING] and not self.bb[(team + 2) * NKINDS + KING]:
            self.outcome = Outcome(1 - team, "kings_captured")  # fine point 9
            return
        self._check_bare()

    def _check_bare(self) -> None:
        bb = self.bb
        bare = []
        for a in range(4):
            b = a * NKINDS
            bare.append(bool(bb[b + KING]) and all(not bb[b + k] for k in range(1, NKINDS)))
        if all(bare):
            self.outcome = Outcome(None, "four_bare_kings")
        elif (bare[0] and bare[2]) or (bare[1] and bare[3]):
            self.outcome = Outcome(None, "bare_kings")

    def _special(self, action: int) -> None:
        army = self.deciding_army
        name = SPECIAL_NAMES.get(action)
        if name is None:
            raise IllegalMoveError(f"unknown action {action}")
        self.log.append({"army": ARMY_NAMES[army], "action": name})
        if action == RESIGN:
            self.outcome = Outcome(1 - army % 2, "resignation")
            self.pending = None
        elif action == WITHDRAW:
            if self.pending is not None:
                raise IllegalMoveError("cannot withdraw while an exchange offer awaits an answer")
            if self.config.players == 2:
                self.outcome = Outcome(1 - army % 2, "resignation")
                return
            self._withdraw(army)
        elif action == OFFER:
            x = self.exchange_target()
            if x < 0:
                self._stack.pop()
                del self.log[-1]
                raise IllegalMoveError("no exchange of prisoners can be offered now")
            self.pending = (army, x)
            self.offered = True
        elif action in (ACCEPT, REFUSE):
            if self.pending is None:
                self._stack.pop()
                del self.log[-1]
                raise IllegalMoveError("no exchange offer to answer")
            offerer, _x = self.pending
            self.pending = None
            if action == ACCEPT:
                self._exchange(offerer)
                self._legal = None
                if not self.legal_moves():
                    self._advance()

    def _withdraw(self, army: int) -> None:
        """A four-player army leaves: frozen, its king removed, its turns skipped."""
        self.withdrawn |= 1 << army
        self.frozen |= 1 << army
        ksq = self.king_square(army)
        if ksq >= 0:
            self.bb = self.bb.copy()
            self.occ = self.occ.copy()
            self.board = self.board.copy()
            kc = army * NKINDS + KING
            self.bb[kc] ^= BB[ksq]
            self.zkey ^= Z_MEN[kc][ksq]
            if self.shared >> army & 1 and ksq == THRONES[army]:
                self.shared &= ~(1 << army)
            else:
                self.board[ksq] = -1
                self.occ[army] ^= BB[ksq]
        self.commander = [x if c == army and x != army else c for x, c in enumerate(self.commander)]
        team = army % 2
        if not self.bb[team * NKINDS + KING] and not self.bb[(team + 2) * NKINDS + KING]:
            self.outcome = Outcome(1 - team, "withdrawal")
            return
        self._advance()

    # --- exchange of prisoners --------------------------------------------------------------
    def exchange_target(self) -> int:
        """The army the side to move may offer an exchange of prisoners now, or -1.

        Its ally's king was taken by enemy X (still live), and it took the king of X's ally;
        one offer a turn.
        """
        if self.pending is not None or self.offered or self.outcome is not None:
            return -1
        a = self.army_to_move
        ally = a ^ 2
        x = self.captured_by[ally]
        if x < 0 or not (self.frozen >> ally & 1) or self.is_out(x) or self.is_out(a):
            return -1
        y = x ^ 2
        if self.captured_by[y] != a or not (self.frozen >> y & 1) or self.withdrawn >> y & 1:
            return -1
        return x

    def _exchange(self, offerer: int) -> None:
        """Both prisoners return and both armies thaw."""
        ally = offerer ^ 2
        x = self.captured_by[ally]
        y = x ^ 2
        self.frozen &= ~((1 << ally) | (1 << y))
        self.captured_by = self.captured_by.copy()
        self.commander = self.commander.copy()
        self.bb = self.bb.copy()
        self.occ = self.occ.copy()
        self.board = self.board.copy()
        for r in (ally, y):
            self.captured_by[r] = -1
            self.commander[r] = r
            throne = THRONES[r]
            order = sorted(range(64), key=lambda s: (chebyshev(throne, s), s))
            all_occ = self.occ[0] | self.occ[1] | self.occ[2] | self.occ[3]
            empties = [s for s in order if not all_occ & BB[s]]
            safe = [s for s in empties if not self.attacked(s, r)]
            sq = (safe or empties)[0]
            self._place(r, KING, sq)
        self.log.append({"event": "exchange", "returned": [ARMY_NAMES[ally], ARMY_NAMES[y]]})

    # --- turns ------------------------------------------------------------------------------
    def _start_turn_promotions(self, army: int) -> None:
        """Waiting pawns promote at the start of their army's turn, in square order."""
        base = army * NKINDS
        edge = PROMOTION_EDGE[army]
        if not self.pawns_lost[army]:
            return
        for s in range(64):
            sb = BB[s]
            if not sb & edge:
                continue
            for pk in PAWN_KINDS:
                if self.bb[base + pk] & sb:
                    target = self._promotion_target(army, pk, sb)
                    if self.opts.allow_duplicate_patron_promotion or not self.bb[base + target]:
                        self.bb = self.bb.copy()
                        self.board = self.board.copy()
                        self.bb[base + pk] ^= sb
                        self.bb[base + target] |= sb
                        self.zkey ^= Z_MEN[base + pk][s] ^ Z_MEN[base + target][s]
                        if self.board[s] == base + pk:
                            self.board[s] = base + target
                        self.log.append(
                            {
                                "army": ARMY_NAMES[army],
                                "promotion": f"P{SQUARE_NAMES[s]}={KIND_LETTERS[target]}",
                            }
                        )

    def _roll(self, attempt: int) -> int:
        div = self.config.divination
        assert div is not None
        return random.Random(div.seed * 1_000_003 + self.turns * 17 + attempt).randint(1, 6)

    def _die_moves(self, army: int, roll: int) -> list[int]:
        """Divination: pseudo-legal moves of the rolled kind (check duties are off)."""
        kind = self.config.die_table[roll - 1]
        pseudo = self.pseudo_moves(army)
        pawns = [m for m in pseudo if m >> 12 & 15 >= 5]
        if kind == "pawn":
            return pawns
        if kind == "king":
            kings = [m for m in pseudo if m >> 12 & 15 == KING]
            if self.opts.one_allows_pawn_freely:
                return kings + pawns
            return kings if kings else pawns
        k = BASE_KIND[kind]
        return [m for m in pseudo if m >> 12 & 15 == k]

    def _turn_moves(self, army: int) -> list[int]:
        if self.config.divination is not None:
            return self._die_moves(army, self.die) if self.die else []
        return self._compute_legal(army)

    def _advance(self) -> None:
        """End the current turn: find the next army able to move, skipping as the rules say."""
        self.offered = False
        self._legal = None
        stuck = 0
        for _ in range(64):
            self.turn_idx = (self.turn_idx + 1) % 4
            self.turns += 1
            self.die = 0
            a = self.config.order[self.turn_idx]
            div = self.config.divination
            if div is not None and a == div.querent and self.ptah_watch and self.verdict is None:
                self.verdict = "success"
            if self.is_out(a):
                stuck += 1
            else:
                self._start_turn_promotions(a)
                if div is not None:
                    self._ptah_update(mover=-1)
                    moves: list[int] = []
                    for attempt in range(self.opts.divination_rerolls + 1):
                        self.die = self._roll(attempt)
                        moves = self._die_moves(a, self.die)
                        if moves:
                            break
                    if moves:
                        self._legal = moves
                        return
                    if not self.pseudo_moves(a):
                        stuck += 1
                    self.log.append({"army": ARMY_NAMES[a], "skip": f"die {self.die}"})
                else:
                    moves = self._compute_legal(a)
                    if moves:
                        self._legal = moves
                        return
                    if self.in_check(a):
                        self.log.append({"army": ARMY_NAMES[a], "skip": "no move in check"})
                    else:
                        self.log.append({"army": ARMY_NAMES[a], "skip": "stalemate"})
                        if self.is_out(a ^ 2):
                            self.outcome = Outcome(None, "stalemate_ally_out")
                            return
                    stuck += 1
            if stuck >= 4:
                self.outcome = Outcome(None, "no_moves")  # fine point 8
                return
        self.outcome = Outcome(None, "no_moves")

    def _ptah_update(self, mover: int) -> None:
        """Divination: watch the querent's king on the Ptah square, unattacked, for a round."""
        div = self.config.divination
        assert div is not None
        if self.verdict is not None:
            return
        q = div.querent
        ok = bool(self.bb[q * NKINDS + KING] & BB[div.ptah]) and not self.in_check(q)
        if not ok:
            self.ptah_watch = False
        elif mover == q:
            self.ptah_watch = True

    # --- notation ---------------------------------------------------------------------------
    def move_str(self, m: int) -> str:
        """``<kind letter><from><- or x><to>[=<new kind>]``, e.g. ``Qd5xf7``, ``Pc2-c1=Q``."""
        if m >= OFFER:
            return SPECIAL_NAMES[m]
        f, t = m & 63, m >> 6 & 63
        s = (
            KIND_LETTERS[m >> 12 & 15]
            + SQUARE_NAMES[f]
            + ("x" if self.board[t] >= 0 else "-")
            + SQUARE_NAMES[t]
        )
        promo = (m >> 16 & 15) - 1
        return s + "=" + KIND_LETTERS[promo] if promo >= 0 else s

    def parse_move(self, text: str) -> int:
        """A legal action from its notation (``Qd5xf7``, ``d5f7``, ``offer`` ...)."""
        text = text.strip()
        if text in SPECIAL_BY_NAME:
            act = SPECIAL_BY_NAME[text]
            if act in (RESIGN, WITHDRAW) or act in self.legal_actions():
                return act
            raise IllegalMoveError(f"{text} is not possible now")
        for m in self.legal_moves():
            s = self.move_str(m)
            short = s[1:3] + s[4:]
            if text in (s, short, s.replace("x", "-"), s[1:]):
                return m
        raise IllegalMoveError(f"{text!r} is not a legal move of {ARMY_NAMES[self.army_to_move]}")

    def find_move(
        self, frm: int, to: int, kind: int | None = None, promo: int | None = None
    ) -> int:
        """The legal move from ``frm`` to ``to`` (kind disambiguates a shared throne)."""
        cands = [
            m
            for m in self.legal_moves()
            if m & 63 == frm and m >> 6 & 63 == to and (kind is None or m >> 12 & 15 == kind)
        ]
        if promo is not None:
            cands = [m for m in cands if (m >> 16 & 15) - 1 == promo]
        elif len(cands) > 1 and all(move_promo(m) >= 0 for m in cands):
            raise IllegalMoveError(
                f"{SQUARE_NAMES[frm]}-{SQUARE_NAMES[to]} needs a promotion choice (Q, R, B or N)"
            )
        if not cands:
            raise IllegalMoveError(
                f"{SQUARE_NAMES[frm]}-{SQUARE_NAMES[to]} is not a legal move "
                f"of {ARMY_NAMES[self.army_to_move]}"
            )
        if len(cands) > 1:
            kinds = {m >> 12 & 15 for m in cands}
            if len(kinds) > 1:
                raise IllegalMoveError(
                    f"two men on {SQUARE_NAMES[frm]} can go to "
                    f"{SQUARE_NAMES[to]}: say which kind moves"
                )
        return cands[0]

    # --- counting ---------------------------------------------------------------------------
    def perft(self, depth: int) -> int:
        """Move sequences of length ``depth`` (fine point 12: skips are not moves)."""
        moves = self.legal_moves()
        if depth <= 1:
            return len(moves) if depth == 1 else 1
        n = 0
        for m in moves:
            self.make(m)
            n += self.perft(depth - 1)
            self.undo()
        return n

    def describe(self) -> str:
        """A short text picture of the board (for errors and debugging)."""
        rows = []
        for r in range(7, -1, -1):
            row = []
            for f in range(8):
                c = self.board[r * 8 + f]
                row.append(
                    "."
                    if c < 0
                    else KIND_LETTERS[c % NKINDS]
                    if c // NKINDS % 2 == 0
                    else KIND_LETTERS[c % NKINDS].lower()
                )
            rows.append("".join(row))
        return "\n".join(rows)


def new_game(
    array: str | ArraySpec = "earth_of_fire",
    direction: str = "deosil",
    options: RuleOptions | dict[str, Any] | None = None,
    players: int = 2,
    controllers: dict[str, Any] | Sequence[int] | None = None,
    divination: Divination | None = None,
    max_plies: int | None = None,
) -> State:
    """A game from a starting array, a direction, rule options and a controller map."""
    spec = find_array(array) if isinstance(array, str) else array
    if direction not in spec.turn_order:
        raise InputError(f"direction must be deosil or widdershins, not {direction!r}")
    opts = options if isinstance(options, RuleOptions) else parse_options(options)
    if players not in (2, 4):
        raise InputError(f"players must be 2 or 4, not {players}")
    order = spec.turn_order[direction]
    if divination is not None:  # the querent moves first, deosil (or the chosen direction)
        from enoch.enochian.geometry import ARMIES

        if divination.querent not in ARMIES:
            raise InputError(f"divination: bad querent army {divination.querent!r}")
        base = (0, 1, 2, 3) if direction == "deosil" else (0, 3, 2, 1)
        i = base.index(divination.querent)
        order = base[i:] + base[:i]
    die_table: tuple[str, ...] = ("king", "knight", "bishop", "queen", "rook", "pawn")
    if opts.divination_die == "original_gd":
        die_table = tuple(spec.die_original_gd[i] for i in range(1, 7))
    config = GameConfig(
        order=tuple(order),
        players=players,
        controllers=parse_controllers(controllers, order, players),
        options=opts,
        partner=(spec.throne_partner,) * 4,
        array_id=spec.id,
        direction=direction,
        divination=divination,
        die_table=die_table,
        max_plies=max_plies,
    )
    men = [(m.square, m.army, m.kind, m.patron) for m in spec.men]
    return State.from_men(config, men, to_move=order[0], shared=range(4))


def make_config(order: Sequence[int] | None = None, to_move: int = 0, **kw: Any) -> GameConfig:
    """A config for a hand-made position (tests, protocol): deosil from ``to_move`` by default."""
    if order is None:
        order = tuple((to_move + i) % 4 for i in range(4))
    players = kw.pop("players", 2)
    opts = kw.pop("options", None)
    opts = opts if isinstance(opts, RuleOptions) else parse_options(opts)
    controllers = parse_controllers(kw.pop("controllers", None), order, players)
    return GameConfig(
        order=tuple(order), players=players, controllers=controllers, options=opts, **kw
    )


def kind_name(kind: int) -> str:
    return KIND_NAMES[kind]


__all__ = [
    "ACCEPT",
    "OFFER",
    "REFUSE",
    "RESIGN",
    "SQUARE_INDEX",
    "WITHDRAW",
    "Divination",
    "GameConfig",
    "Outcome",
    "State",
    "make_config",
    "new_game",
]
