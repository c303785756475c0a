"""Assigning men to slots, and following them through a game."""

from __future__ import annotations

import chess

from enoch.microchess.slots import BLACK, WHITE, Placement, assign, parse_placement, track


def sq(name: str) -> int:
    return chess.parse_square(name)


def placement(fen: str) -> Placement:
    return parse_placement(fen.split()[0])


def play(*ucis: str) -> list[tuple[Placement, int]]:
    board = chess.Board()
    chain = [(placement(board.fen()), WHITE)]
    for uci in ucis:
        board.push_uci(uci)
        chain.append((placement(board.fen()), WHITE if board.turn else BLACK))
    return chain


def test_start_position_slots() -> None:
    men = assign(placement(chess.STARTING_FEN))
    white = [chess.square_name(s) if s is not None else None for s in men.slots[WHITE]]
    assert white == [
        "e1", "d1", "h1", "a1", "f1", "c1", "g1", "b1",
        "h2", "a2", "g2", "b2", "f2", "c2", "d2", "e2",
    ]  # fmt: skip
    assert men.slots[BLACK][0] == sq("e8") and men.slots[BLACK][2] == sq("h8")
    assert not men.unplaced


def test_rook_on_home_square_claims_its_slot_first() -> None:
    # The a1 rook comes first in square order but h1 is the KR's home: h1 -> 2, a1 -> 3.
    # A rook off its home squares fills the remaining slot.
    men = assign(placement("4k3/8/8/8/8/8/8/R3K2R w - - 0 1"))
    assert men.slots[WHITE][2:4] == [sq("h1"), sq("a1")]
    men = assign(placement("4k3/8/8/8/8/8/R7/4K2R w - - 0 1"))
    assert men.slots[WHITE][2:4] == [sq("h1"), sq("a2")]
    men = assign(placement("4k3/8/8/8/8/8/R6R/4K3 w - - 0 1"))
    assert men.slots[WHITE][2:4] == [sq("a2"), sq("h2")]  # neither home: slot order


def test_bishops_go_by_square_colour() -> None:
    # White KB (slot 4, f1) lives on light squares, QB (slot 5, c1) on dark ones.
    men = assign(placement("4k3/8/8/8/8/8/8/B3K2B w - - 0 1"))  # a1 dark, h1 light
    assert men.slots[WHITE][4:6] == [sq("h1"), sq("a1")]
    # Two bishops on dark squares: the first takes the dark slot, the other what is left.
    men = assign(placement("4k3/8/8/8/8/8/8/B1B1K3 w - - 0 1"))
    assert men.slots[WHITE][4:6] == [sq("c1"), sq("a1")]
    # For Black the colours swap: f8 is dark, c8 light.
    men = assign(placement("b3k3/8/8/8/8/8/8/4K3 b - - 0 1"))  # a8 is light
    assert men.slots[BLACK][4:6] == [None, sq("a8")]


def test_pawns_take_their_file_then_fill() -> None:
    # Doubled c-pawns: c2 takes the c slot (13); c3 fills the first free slot (8, the h slot).
    men = assign(placement("4k3/8/8/8/8/2P5/2P5/4K3 w - - 0 1"))
    assert men.slots[WHITE][13] == sq("c2")
    assert men.slots[WHITE][8] == sq("c3")


def test_excess_men_are_unplaced() -> None:
    men = assign(placement("4k3/8/8/8/8/8/Q7/Q3K3 w - - 0 1"))
    assert men.slots[WHITE][1] == sq("a1")
    assert men.unplaced == [(sq("a2"), "Q")]
    assert men.placement() == placement("4k3/8/8/8/8/8/Q7/Q3K3 w - - 0 1")


def test_tracking_keeps_slots_through_captures() -> None:
    # 1.e4 d5 2.exd5: the e-pawn keeps slot 15 on the d-file; black's d-pawn slot empties.
    men = track(play("e2e4", "d7d5", "e4d5"))
    assert men.slots[WHITE][15] == sq("d5")
    assert men.slots[BLACK][14] is None  # the d7 pawn was taken


def test_tracking_castling_and_en_passant_and_promotion() -> None:
    chain = play(
        "e2e4", "g8f6", "e4e5", "d7d5", "e5d6",  # en passant
        "e7e6", "g1f3", "f8e7", "f1e2", "e8g8",  # black castles
        "e1g1", "b8c6", "d6c7", "e7d6", "c7d8q",  # white castles, promotes on d8
    )  # fmt: skip
    men = track(chain)
    w, b = men.slots
    assert w[0] == sq("g1") and w[2] == sq("f1")  # K and KR after O-O
    assert b[0] == sq("g8") and b[2] == sq("f8")
    assert b[14] is None  # the d-pawn taken en passant
    assert w[15] is None  # the e-pawn promoted...
    assert w[1] == sq("d1")  # ... but slot 1 holds the old queen,
    assert men.unplaced == [(sq("d8"), "Q")]  # so the new one has no slot
    assert b[1] is None  # black's queen was taken on d8


def test_promoted_piece_takes_a_free_slot_of_its_kind() -> None:
    chain = play(
        "e2e4", "g8f6", "e4e5", "d7d5", "e5d6", "e7e6", "d6c7", "f8e7",
        "d1g4", "f6g4", "c7d8q",
    )  # fmt: skip
    men = track(chain)
    assert men.slots[WHITE][1] == sq("d8") and not men.unplaced


def test_tracking_gives_a_freed_slot_to_an_unplaced_man() -> None:
    chain = play(
        "e2e4", "g8f6", "e4e5", "d7d5", "e5d6", "e7e6", "d6c7", "f8e7", "c7b8q", "e8g8",
    )  # fmt: skip
    men = track(chain)
    assert men.slots[WHITE][1] == sq("d1") and men.unplaced == [(sq("b8"), "Q")]
    chain += play("e2e4", "g8f6", "e4e5", "d7d5", "e5d6", "e7e6", "d6c7", "f8e7", "c7b8q",
                  "e8g8", "d1g4", "f6g4")[-2:]  # fmt: skip
    men = track(chain)
    # The original queen is taken: the promoted one moves into slot 1.
    assert men.slots[WHITE][1] == sq("b8") and not men.unplaced


def test_gap_in_history_restarts_assignment() -> None:
    chain = play("e2e4", "e7e5")
    chain.append((placement("4k3/8/8/8/8/8/8/R3K2R w - - 0 1"), WHITE))
    men = track(chain)
    assert men == assign(placement("4k3/8/8/8/8/8/8/R3K2R w - - 0 1"))
