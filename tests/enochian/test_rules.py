"""One rule a test: the hand-derived scenarios, enoch's own scenarios, every option both ways."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import moves, play, pos, position, scenarios

from enoch.enochian.geometry import AIR, EARTH, FIRE, SQUARE_INDEX, WATER
from enoch.enochian.state import ACCEPT, OFFER, REFUSE, RESIGN, WITHDRAW, State
from enoch.errors import IllegalMoveError, InputError

S = SQUARE_INDEX


@pytest.mark.parametrize("sc", scenarios(), ids=lambda sc: sc["name"])
def test_shared_scenarios(sc: dict[str, Any]) -> None:
    assert moves(position(sc)) == sorted(sc["expected"])


def _by_name(name: str) -> dict[str, Any]:
    return next(sc for sc in scenarios() if sc["name"] == name)


def man(st: State, square: str) -> tuple[int, int] | None:
    c = st.board[S[square]]
    return None if c < 0 else (c // 9, c % 9)


# --- check, pins and forced king moves ----------------------------------------------------


def test_king_may_not_step_into_check_when_not_in_check() -> None:
    st = pos("air", "air: Ka8; water: Rb1 Kh4")
    assert moves(st) == ["Ka8-a7"]


def test_in_check_without_king_move_any_move_is_legal() -> None:
    # fine point 2: every pseudo-legal move, even those that leave the king attacked
    st = pos("air", "air: Ka8 Nb8 Bb7 Ra7; water: Qc6")
    assert st.in_check(AIR)
    assert set(st.legal_moves()) == set(st.pseudo_moves(AIR))
    assert "Ra7-a1" in moves(st) and "Bb7xc6" in moves(st) and "Nb8xc6" in moves(st)


def test_bishop_never_takes_bishop_queen_never_takes_queen() -> None:
    st = pos("air", "air: Ka8 Bd4 Qe5; water: Bf6 Qc3 Kh1")
    assert "Bd4xf6" not in moves(st) and "Qe5xc3" not in moves(st)
    assert "Bd4xc3" in moves(st) and "Qe5-g7" in moves(st)


# --- frozen armies ----------------------------------------------------------------------


def test_frozen_army_turn_is_skipped() -> None:
    st = pos("air", "air: Ka8; water: Nd4; fire: Kh1; earth: Ka1", frozen="water")
    play(st, "Ka8-b8")
    assert st.army_to_move == FIRE


def test_frozen_men_do_not_attack() -> None:
    st = pos("air", "air: Ka8; water: Rb1; fire: Kh1", frozen="water")
    assert moves(st) == ["Ka8-a7", "Ka8-b7", "Ka8-b8"]


# --- shared thrones ---------------------------------------------------------------------


def test_capturing_a_shared_throne_takes_both() -> None:
    st = pos("air", "air: Ka8 Rh2; water: Kh8 Qh8 Pg5/queen; fire: Ke1; earth: Kc4", shared="water")
    play(st, "Rh2xh8")
    assert man(st, "h8") == (AIR, 4)
    assert st.king_square(WATER) == -1 and st.frozen >> WATER & 1
    assert st.captured_by[WATER] == AIR


def test_partner_leaves_then_king_alone() -> None:
    st = pos("water", "water: Kh8 Rh8; air: Ka8; fire: Kh1; earth: Ka1", shared="water")
    play(st, "Rh8-h5")
    assert not st.shared and man(st, "h8") == (WATER, 0) and man(st, "h5") == (WATER, 4)


# --- throne seizure ---------------------------------------------------------------------


def test_seizure_gives_command_of_live_ally() -> None:
    st = pos("air", "air: Kg2; water: Kh8; fire: Kd4 Pe3/queen; earth: Ka1", players=4)
    play(st, "Kg2-h1")
    assert st.commander[FIRE] == AIR
    play(st, "Kh8-g8")
    assert st.army_to_move == FIRE and st.current_player() == st.config.controllers[AIR]


def test_seizure_ends_when_seizing_king_is_taken() -> None:
    cfg_men = "air: Kc3; water: Rc8 Kh8; fire: Kd6 Pe3/queen; earth: Ka1"
    st = pos("water", cfg_men, players=4, start_turn=True)
    st.commander = [0, 1, AIR, 3]
    play(st, "Rc8xc3")
    assert st.commander[FIRE] == FIRE and st.frozen >> AIR & 1


@pytest.mark.parametrize("revive", [False, True])
def test_option_throne_seizure_revives_frozen(revive: bool) -> None:
    sc = _by_name("throne_seizure_does_not_thaw")
    st = position(sc, options={"throne_seizure_revives_frozen": revive})
    play(st, "Kg2-h1")
    assert bool(st.frozen >> FIRE & 1) is not revive
    play(st, "Kh8-g8")
    if revive:
        assert st.commander[FIRE] == AIR
        assert st.army_to_move == FIRE and moves(st) == ["Pe4-e5"]
    else:
        assert st.army_to_move == EARTH


# --- exchange of prisoners --------------------------------------------------------------


def _exchange_position(players: int = 2, **kw: Any) -> State:
    return pos(
        "fire",
        "air: Pd7/rook; water: Kh5 Pg5/rook; fire: Kh1 Pe2/knight; earth: Pb4/rook",
        frozen="air earth",
        captured_by="air=water earth=fire",
        players=players,
        **kw,
    )


def test_exchange_offer_accepted_returns_both_kings() -> None:
    st = _exchange_position(players=4)
    assert st.exchange_target() == WATER and OFFER in st.legal_actions()
    st.make(OFFER)
    assert st.deciding_army == WATER and st.legal_actions() == [ACCEPT, REFUSE]
    assert st.current_player() == st.config.controllers[WATER]
    assert st.legal_moves() == []
    st.make(ACCEPT)
    assert st.frozen == 0 and st.captured_by == [-1, -1, -1, -1]
    assert st.king_square(AIR) == S["a8"] and st.king_square(EARTH) == S["a1"]
    assert st.army_to_move == FIRE and OFFER not in st.legal_actions()
    assert "Pe2-e3" in moves(st)


def test_exchange_refused_then_move() -> None:
    st = _exchange_position()
    st.make(OFFER)
    st.make(REFUSE)
    assert st.frozen == (1 << AIR) | (1 << EARTH)
    assert st.army_to_move == FIRE and OFFER not in st.legal_actions()
    play(st, "Pe2-e3")
    st.undo()
    st.undo()
    st.undo()
    assert OFFER in st.legal_actions()


def test_returned_king_avoids_attacked_or_occupied_throne() -> None:
    st = pos(
        "fire",
        "air: Pd7/rook; water: Kh5 Ra5; fire: Kh1 Pe2/knight; earth: Nb4",
        frozen="air earth",
        captured_by="air=water earth=fire",
    )
    st.make(OFFER)
    st.make(ACCEPT)
    # a8 is attacked by the water rook on the a-file: nearest safe empty square instead
    assert st.king_square(AIR) == S["b7"]


def test_frozen_captor_cannot_negotiate() -> None:
    st = pos(
        "fire",
        "air: Pd7/rook; water: Pg5/rook; fire: Kh1 Pe2/knight; earth: Pb4/rook",
        frozen="air earth water",
        captured_by="air=water earth=fire water=fire",
    )
    assert st.exchange_target() == -1 and OFFER not in st.legal_actions()
    with pytest.raises(IllegalMoveError):
        st.make(OFFER)


# --- ally king capture ------------------------------------------------------------------


def test_ally_king_capture_commands_without_freezing() -> None:
    st = position(_by_name("ally_king_capture_option"))
    play(st, "Rh3xh5")
    assert not st.frozen and st.commander[FIRE] == AIR and st.king_square(FIRE) == -1
    assert not st.is_terminal()


@pytest.mark.parametrize(
    ("players", "option", "allowed"), [(4, True, True), (4, False, False), (2, True, False)]
)
def test_option_ally_king_capture(players: int, option: bool, allowed: bool) -> None:
    st = position(
        _by_name("ally_king_capture_option"), players=players, options={"ally_king_capture": option}
    )
    assert ("Rh3xh5" in moves(st)) is allowed


def test_ally_king_not_attacked_cannot_be_taken() -> None:
    st = pos("air", "air: Ka8 Rh3; fire: Kh5; water: Kc1; earth: Ka1", players=4)
    assert "Rh3xh5" not in moves(st)


# --- promotion --------------------------------------------------------------------------


@pytest.mark.parametrize("dup", [False, True])
def test_option_allow_duplicate_patron_promotion(dup: bool) -> None:
    sc = _by_name("promotion_waits_while_patron_on_board")
    got = moves(position(sc, options={"allow_duplicate_patron_promotion": dup}))
    assert ("Pc2-c1=Q" in got) is dup and ("Pc2-c1" in got) is not dup


def test_promotes_at_once_to_patron_after_a_pawn_loss() -> None:
    assert "Pc2-c1=Q" in moves(pos("air", "air: Ka8 Pc2/queen Nf5", lost="air=1"))
    assert "Pc2-c1" in moves(pos("air", "air: Ka8 Pc2/queen Nf5"))  # no pawn lost: waits


def test_corner_promotes_to_throne_partner() -> None:
    st = pos("air", "air: Ka8 Pb2/queen Nf5; earth: Na1", lost="air=1")
    assert "Pb2xa1=R" in moves(st) and "Pb2-b1=Q" in moves(st)
    st = pos("air", "air: Ka8 Pb2/queen Nf5; earth: Na1", lost="air=1", partner=(2, 2, 2, 2))
    assert "Pb2xa1=B" in moves(st)


def test_waiting_pawn_promotes_at_start_of_turn_without_using_the_move() -> None:
    st = pos("air", "air: Ka8 Qe5 Pc1/queen; water: Rb5 Kh8", lost="air=1")
    assert man(st, "c1") == (AIR, 5)
    play(st, "Ka8-a7", "Rb5xe5")
    assert st.army_to_move == AIR and man(st, "c1") == (AIR, 1)
    assert st.log[-1] == {"army": "air", "promotion": "Pc1=Q"}
    assert "Qc1-c3" in moves(st)


def test_several_waiting_pawns_promote_in_square_order() -> None:
    st = pos("air", "air: Ka8 Pc1/queen Pe1/queen", lost="air=1")
    assert man(st, "c1") == (AIR, 1) and man(st, "e1") == (AIR, 5)


def test_privileged_pawn_chooses_and_demotes() -> None:
    st = pos("air", "air: Ka8 Qe5 Pc2/knight", lost="air=3")
    assert st.privileged(AIR)
    assert {m for m in moves(st) if m.startswith("Pc2-c1")} == {
        "Pc2-c1=Q",
        "Pc2-c1=R",
        "Pc2-c1=B",
        "Pc2-c1=N",
    }
    play(st, "Pc2-c1=Q")
    assert man(st, "c1") == (AIR, 1) and man(st, "e5") == (AIR, 5)  # queen -> pawn of queen


def test_privileged_king_and_pawn() -> None:
    st = pos("air", "air: Ka8 Pc2/knight", lost="air=3")
    assert len([m for m in moves(st) if m.startswith("Pc2")]) == 4


def test_not_privileged_with_two_pieces() -> None:
    assert not pos("air", "air: Ka8 Qe5 Bd5 Pc2/knight").privileged(AIR)


# --- stalemate, passes, ends ------------------------------------------------------------

STALE = "air: Ka8; water: Rb1 Rh7 Kh5"


def test_stalemate_skips_the_turn() -> None:
    st = pos("air", STALE + "; fire: Ke1")
    assert st.army_to_move == WATER and st.log[-1] == {"army": "air", "skip": "stalemate"}


def test_stalemate_with_ally_out_is_a_draw() -> None:
    st = pos("air", STALE)
    assert st.outcome is not None and st.outcome.reason == "stalemate_ally_out"
    assert st.returns() == [0.0, 0.0]


def test_in_check_without_any_move_passes() -> None:
    st = pos(
        "air",
        "air: Ka8 Pa7/rook Pb7/bishop Nb8; earth: Pa6/rook Pb6/rook Pc6/rook "
        "Pd7/rook; water: Qc8 Kh5",
        frozen="earth",
    )
    assert st.outcome is None and st.army_to_move == WATER
    assert st.log[-1]["skip"] == "no move in check"


def test_team_wins_when_both_enemy_kings_are_taken() -> None:
    st = pos("air", "air: Ka8 Rh2; water: Kh8; earth: Pb4/rook; fire: Ke4", frozen="earth")
    play(st, "Rh2xh8")
    assert st.outcome is not None and st.outcome.winner == 0
    assert st.outcome.reason == "kings_captured" and st.returns() == [1.0, -1.0]
    assert st.legal_moves() == [] and st.current_player() == -1


def test_four_bare_kings_draw() -> None:
    st = pos("air", "air: Ka8; water: Kh8 Nb7; fire: Kh1; earth: Ka1")
    play(st, "Ka8xb7")
    assert st.outcome is not None and st.outcome.reason == "four_bare_kings"


def test_both_kings_of_a_team_bare_draw() -> None:
    st = pos("air", "air: Ka8 Rg1; water: Kh8 Pg7/rook; fire: Kh1 Pe2/rook; earth: Ka1")
    play(st, "Rg1xg7")
    assert st.outcome is not None and st.outcome.reason == "bare_kings"


def test_resign_and_withdraw() -> None:
    st = pos("air", "air: Ka8; water: Kh8; fire: Kh1; earth: Ka1")
    st.make(RESIGN)
    assert st.outcome is not None and st.outcome.winner == 1
    st = pos("air", "air: Ka8 Pc5/rook; water: Kh8; fire: Kh1; earth: Ka1", players=4)
    st.make(WITHDRAW)
    assert st.withdrawn == 1 and st.king_square(AIR) == -1 and st.army_to_move == WATER
    assert st.outcome is None
    play(st, "Kh8-g8", "Kh1-g1")
    assert st.army_to_move == EARTH
    st.make(WITHDRAW)
    play(st, "Kg8-h8")
    st.make(WITHDRAW)  # fire withdraws: actives have no king left
    assert st.outcome is not None and st.outcome.winner == 1
    assert st.outcome.reason == "withdrawal"


def test_undo_restores_everything() -> None:
    st = position(_by_name("king_capture_unpins"))
    before = (st.key(), moves(st), list(st.log))
    play(st, "Na5xb3")
    assert st.frozen
    st.undo()
    assert (st.key(), moves(st), list(st.log)) == before


def test_direction_option() -> None:
    from enoch.enochian.state import new_game

    assert new_game("earth_of_fire").config.order == (FIRE, EARTH, AIR, WATER)
    assert new_game("earth_of_fire", "widdershins").config.order == (FIRE, WATER, AIR, EARTH)


def test_bad_positions_are_input_errors() -> None:
    with pytest.raises(InputError, match="two men"):
        pos("air", "air: Ka8 Qa8")
    with pytest.raises(InputError, match="2 kings"):
        pos("air", "air: Ka8 Kb8")
    with pytest.raises(IllegalMoveError):
        play(pos("air", "air: Ka8"), "Ka8-a6")
