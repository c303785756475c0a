"""The search agent: transposition table, move ordering, quiescence, the deadline.

No test depends on the machine's speed: searches are bounded by depth with a budget far too
large to matter, or given a deadline that has already passed.
"""

from __future__ import annotations

import random

import pytest
from helpers import pos

from enoch.enochian.agents import SearchAgent
from enoch.enochian.geometry import NKINDS
from enoch.enochian.protocol import state_to_json
from enoch.enochian.search import VALUES, VICTIM, Searcher, evaluate
from enoch.enochian.state import move_kind, move_to, new_game

LONG = 600.0  # a budget no depth-limited test comes near


def test_quiescence_sees_the_recapture() -> None:
    # Air's rook may take a pawn that Water's rook defends: one ply says yes, the
    # quiescence search (captures past the horizon) says no
    st = pos("air", "air: Ka8 Rd1; water: Kh8 Pd5/rook Rd7; fire: Kh2 Nh4; earth: Kf4 Na4")
    naive = Searcher(LONG, max_depth=1, quiescence=False)
    assert st.move_str(naive.best_move(st)[0]) == "Rd1xd5"
    wise = Searcher(LONG, max_depth=1)
    assert st.move_str(wise.best_move(st)[0]) != "Rd1xd5"


def test_captures_come_first_most_valuable_victim_then_least_valuable_attacker() -> None:
    rng = random.Random(5)
    checked = 0
    for array in ("earth_of_fire", "air_of_water", "fire_of_earth"):
        st = new_game(array, players=4)
        while not st.is_terminal() and st.ply < 120:
            moves = st.legal_moves()
            ordered = Searcher(LONG)._ordered(st, moves, 0)
            assert sorted(ordered) == sorted(moves)
            keys = []
            for m in ordered:
                victim = st.board[move_to(m)]
                if victim < 0:
                    break
                keys.append((-VICTIM[victim % NKINDS], VALUES[move_kind(m)]))
            assert keys == sorted(keys)  # victims down, attackers up
            assert all(st.board[move_to(m)] < 0 for m in ordered[len(keys) :])
            checked += len(keys)
            st.make(rng.choice(moves))
    assert checked > 20


@pytest.mark.parametrize("array", ["earth_of_fire", "water_of_water"])
def test_search_restores_the_state_and_the_table_saves_nodes(array: str) -> None:
    st = new_game(array)
    key, stack = st.key(), len(st._stack)
    with_tt = Searcher(LONG, max_depth=4)
    m1, _ = with_tt.best_move(st)
    assert (st.key(), len(st._stack)) == (key, stack)
    cold = with_tt.nodes
    assert len(with_tt.tt) > 0
    m2, _ = with_tt.best_move(st)  # the table is kept between moves: a warm search is cheap
    assert with_tt.nodes < cold / 2 and m2 == m1
    without = Searcher(LONG, max_depth=4, tt=False)
    m3, _ = without.best_move(st)
    assert (st.key(), len(st._stack)) == (key, stack)
    assert with_tt.depth_reached == without.depth_reached == 4 and m3 in st.legal_moves()


def test_a_spent_deadline_still_gives_a_legal_move_and_a_clean_state() -> None:
    st = new_game("air_of_air")
    key = st.key()
    s = Searcher(LONG)
    m, _ = s.best_move(st, deadline=0.0)  # the deadline passed long ago
    assert m in st.legal_moves() and st.key() == key and s.depth_reached <= 1


def test_fixed_depth_search_agrees_with_plain_minimax_at_depth_two() -> None:
    # a small position: the full-width value at depth 2 (plus quiescence off) must match
    st = pos("air", "air: Ka8 Rd4 Nb3; water: Kh8 Re5 Pg6/rook; fire: Kh1 Qc2; earth: Ka1 Bf7")

    def minimax(depth: int) -> float:
        if depth == 0 or st.outcome is not None or not st.legal_moves():
            return evaluate(st, 0)
        vals = []
        for m in st.legal_moves():
            st.make(m)
            vals.append(minimax(depth - 1))
            st.undo()
        return max(vals) if st.army_to_move % 2 == 0 else min(vals)

    s = Searcher(LONG, max_depth=2, quiescence=False)
    _, v = s.best_move(st)
    assert v == minimax(2)


def test_agent_takes_its_budget_from_move_time_limit() -> None:
    agent = SearchAgent(movetime="600", depth="2")
    ans = agent.answer(state_to_json(new_game("fire_of_fire"), move_time_limit=5))
    assert set(ans) >= {"from", "to", "promotion"}
    assert agent.searcher.depth_reached == 2
