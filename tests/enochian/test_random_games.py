"""Long random games (2 and 4 players, divination on and off) where every invariant holds.

Also cross-checks the move sets of the fast engine against the reference generator at
positions reached by random play, where the rules get interesting (captures, promotions,
frozen armies, skipped turns).
"""

from __future__ import annotations

import random

import pytest
import reference as R

from enoch.enochian.geometry import ARMY_NAMES, KIND_NAMES, SQUARE_INDEX, SQUARE_NAMES, THRONES
from enoch.enochian.spec import available_arrays
from enoch.enochian.state import (
    ACCEPT,
    OFFER,
    REFUSE,
    Z_MEN,
    Divination,
    State,
    new_game,
)

IDS = [a.id for a in available_arrays()]


def check_invariants(st: State, before: State | None, prev: dict[str, int]) -> None:
    per_sq: dict[int, list[tuple[int, int]]] = {}
    z = 0
    for s, a, k in st.men():
        per_sq.setdefault(s, []).append((a, k))
        z ^= Z_MEN[a * 9 + k][s]
    assert z == st.zkey
    for s, here in per_sq.items():
        if len(here) > 1:
            a = here[0][0]
            assert len(here) == 2 and s == THRONES[a] and st.shared >> a & 1, SQUARE_NAMES[s]
            assert {k for _, k in here} >= {0}
    # the shared bit only ever clears
    assert st.shared & ~prev["shared"] == 0
    for a in range(4):
        occ = 0
        for k in range(9):
            occ |= st.bb[a * 9 + k]
        assert occ == st.occ[a]
    for s in range(64):
        owners = [a for a in range(4) if st.occ[a] >> s & 1]
        assert len(owners) <= 1
        assert (st.board[s] >= 0) == bool(owners)


def play_random(
    array: str,
    players: int,
    seed: int,
    divination: bool = False,
    max_plies: int = 400,
    cross_check: int = 0,
) -> State:
    rng = random.Random(seed)
    div = (
        Divination(querent=rng.randrange(4), ptah=SQUARE_INDEX["d5"], seed=seed)
        if divination
        else None
    )
    st = new_game(
        array,
        rng.choice(["deosil", "widdershins"]),
        players=players,
        divination=div,
        max_plies=max_plies,
    )
    checked = 0
    steps = 0
    while not st.is_terminal():
        steps += 1
        assert steps < 5 * max_plies
        prev = {"shared": st.shared}
        acts = st.legal_actions()
        assert acts, "a live game always has an action"
        if (
            cross_check
            and checked < cross_check
            and players == 2
            and not divination
            and st.pending is None
            and rng.random() < 0.3
        ):
            assert_same_as_reference(st)
            checked += 1
        if st.pending is not None:
            assert set(acts) == {ACCEPT, REFUSE}
        a = rng.choice(acts)
        if OFFER in acts and rng.random() < 0.5:
            a = OFFER
        mover = st.deciding_army
        frozen_men = {(s, x, k) for s, x, k in st.men() if st.frozen >> x & 1}
        order = st.config.order
        idx = st.turn_idx
        st.make(a)
        if a < OFFER:
            # frozen men never move (a prisoner exchange thaws, which moves are never)
            now = {(s, x, k) for s, x, k in st.men() if st.frozen >> x & 1}
            assert frozen_men - now <= {m for m in frozen_men if m[0] == a >> 6 & 63}
            assert not any(m[0] == a >> 6 & 63 for m in frozen_men)
            # turn order: every army between the mover and the next was skipped
            if not st.is_terminal():
                j = (idx + 1) % 4
                while order[j] != st.army_to_move:
                    j = (j + 1) % 4
                assert mover == order[idx]
        check_invariants(st, None, prev)
        if rng.random() < 0.05 and st._stack:
            k = st.key()
            st.undo()
            st.make(a)
            assert st.key() == k
    assert st.outcome is not None
    return st


def to_reference(st: State) -> R.Pos:
    men: dict[str, list[R.Man]] = {}
    for s, a, k in st.men():
        men.setdefault(SQUARE_NAMES[s], []).append(
            R.Man(ARMY_NAMES[a], KIND_NAMES[k], KIND_NAMES[k - 4] if k >= 5 else None)
        )
    return R.Pos(
        men=men,
        to_move=ARMY_NAMES[st.army_to_move],
        order=[ARMY_NAMES[a] for a in st.config.order],
        partner=KIND_NAMES[st.config.partner[0]],
        frozen={ARMY_NAMES[a] for a in range(4) if st.frozen >> a & 1},
        lost={ARMY_NAMES[a]: st.pawns_lost[a] for a in range(4)},
    )


def assert_same_as_reference(st: State) -> None:
    ref = to_reference(st)
    want = sorted(R.notation(ref, m) for m in R.legal(ref))
    got = sorted(st.move_str(m) for m in st.legal_moves())
    assert got == want, st.describe()


@pytest.mark.parametrize("seed", range(16))
def test_random_two_player_games(seed: int) -> None:
    play_random(IDS[seed % 16], 2, seed, cross_check=6)


@pytest.mark.parametrize("seed", range(16))
def test_random_four_player_games(seed: int) -> None:
    play_random(IDS[(seed * 5) % 16], 4, 100 + seed)


@pytest.mark.parametrize(("seed", "players"), [(s, 2 + 2 * (s % 2)) for s in range(8)])
def test_random_divination_games(seed: int, players: int) -> None:
    st = play_random(IDS[(seed * 3) % 16], players, 200 + seed, divination=True)
    assert st.verdict in (None, "success", "failure")


def test_games_end_by_rule_not_only_by_limit() -> None:
    reasons = {
        play_random(IDS[s % 16], 2, 300 + s, max_plies=3000).outcome.reason  # type: ignore[union-attr]
        for s in range(3)
    }
    assert reasons - {"move_limit"}


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(60))
def test_random_soak(seed: int) -> None:
    play_random(
        IDS[seed % 16],
        2 + 2 * (seed % 2),
        1000 + seed,
        divination=seed % 3 == 0,
        max_plies=2000,
        cross_check=20,
    )
