"""Targeted rules tests: each FIDE rule on a small position, checked by hand."""

from __future__ import annotations

import pytest

from enoch.errors import FenError
from enoch.rules import STARTING_FEN, Position, move_uci


def uci_set(fen: str) -> set[str]:
    return {move_uci(m) for m in Position.from_fen(fen).legal_moves()}


def test_en_passant_horizontal_pin_is_illegal_and_not_part_of_the_position() -> None:
    # Black just played c7-c5. bxc6 would remove b5 and c5 and expose the king on a5 to h5.
    fen = "8/8/8/KPp4r/8/8/8/7k w - c6 0 2"
    pos = Position.from_fen(fen)
    assert "b5c6" not in uci_set(fen)
    assert not pos.has_legal_ep()
    # FIDE 9.2.3: an en passant capture that is not legal does not make the position differ.
    assert pos.fen() == "8/8/8/KPp4r/8/8/8/7k w - - 0 2"
    assert pos.fen(en_passant="always").split()[3] == "c6"
    assert pos.key == Position.from_fen("8/8/8/KPp4r/8/8/8/7k w - - 0 2").key


def test_en_passant_legal_changes_the_key() -> None:
    with_ep = Position.from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2")
    without = Position.from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - - 0 2")
    assert "e5d6" in {move_uci(m) for m in with_ep.legal_moves()}
    assert with_ep.key != without.key


def test_en_passant_capturing_the_checking_pawn() -> None:
    # d7-d5 gives check to the king on e4; exd6 e.p. removes the checker.
    moves = uci_set("8/8/8/3pP3/4K3/8/8/k7 w - d6 0 2")
    assert "e5d6" in moves


@pytest.mark.parametrize(
    ("fen", "castle", "allowed"),
    [
        ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", {"e1g1", "e1c1"}, True),
        (
            "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1".replace("4k3", "4k3").replace(
                "8/8/8/8/8/8", "8/8/8/8/8/5r2"
            ),
            {"e1g1"},
            False,
        ),  # through f1
        ("4k3/8/8/8/8/8/6r1/R3K2R w KQ - 0 1", {"e1g1"}, False),  # into g1? g2 rook attacks g1
        ("4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1", {"e1g1", "e1c1"}, False),  # out of check
        (
            "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1".replace("8/8/8/8/8/8/8", "8/8/8/8/8/8/1r6"),
            {"e1c1"},
            True,
        ),  # rook passes b1 attacked: fine
        ("4k3/8/8/8/8/8/8/RN2K2R w KQ - 0 1", {"e1c1"}, False),  # b1 occupied
    ],
)
def test_castling_rules(fen: str, castle: set[str], allowed: bool) -> None:
    moves = uci_set(fen)
    assert castle <= moves if allowed else not (castle & moves)


def test_promotions_to_every_piece() -> None:
    moves = uci_set("8/P7/8/8/8/8/8/k1K5 w - - 0 1")
    assert {"a7a8q", "a7a8r", "a7a8b", "a7a8n"} <= moves
    assert "a7a8" not in moves


def test_double_check_only_king_moves() -> None:
    # The rook on e8 and the knight on d3 both give check: only the king may move.
    pos = Position.from_fen("4r2k/8/8/8/8/3n4/3P1P2/3QKB2 w - - 0 2")
    assert bin(pos.checkers()).count("1") == 2
    assert all(pos.board[m & 63] & 7 == 6 for m in pos.legal_moves())


@pytest.mark.parametrize(
    ("fen", "dead"),
    [
        ("8/8/8/8/8/8/8/K6k w - - 0 1", True),  # K v K
        ("8/8/8/8/8/8/8/KB5k w - - 0 1", True),  # K+B v K
        ("8/8/8/8/8/8/8/KN5k w - - 0 1", True),  # K+N v K
        ("8/8/8/8/8/8/8/KNN4k w - - 0 1", False),  # K+N+N v K is alive
        ("8/8/8/8/8/8/6b1/KB5k w - - 0 1", True),  # bishops on one colour (b1, g2: both light)
        ("8/8/8/8/8/8/5b2/KB5k w - - 0 1", False),  # opposite colours: mate is possible
        ("8/8/8/8/8/8/1P6/K6k w - - 0 1", False),  # a pawn can promote
        ("8/8/8/8/8/8/8/KBB4k w - - 0 1", False),  # bishops on b1 (light) and c1 (dark) can mate
        ("8/8/8/8/8/8/8/KB1B3k w - - 0 1", True),  # bishops on b1 and d1: both light
    ],
)
def test_dead_positions(fen: str, dead: bool) -> None:
    assert Position.from_fen(fen).is_insufficient_material() is dead


def test_seventyfive_moves_and_checkmate_precedence() -> None:
    pos = Position.from_fen("7k/8/8/8/8/8/8/K5R1 w - - 150 200")
    outcome = pos.outcome()
    assert outcome is not None and outcome.termination == "seventyfive_moves"
    # A mate on the move that reaches 150 is a mate.
    pos = Position.from_fen("7k/8/6K1/8/8/8/8/R7 w - - 149 200")
    pos.make(pos.parse_uci("a1a8"))
    assert pos.halfmove == 150
    outcome = pos.outcome()
    assert outcome is not None and outcome.termination == "checkmate" and outcome.winner == 0


def test_repetition_counting_through_play() -> None:
    pos = Position.start()
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    for i in range(8):
        pos.make(pos.parse_uci(shuffle[i % 4]))
    assert pos.repetition_count() == 3
    assert pos.can_claim_threefold()
    outcome = pos.outcome(claim_draw=True)
    assert outcome is not None and outcome.termination == "threefold_repetition"
    assert pos.outcome() is None
    for i in range(8):
        pos.make(pos.parse_uci(shuffle[i % 4]))
    outcome = pos.outcome()
    assert pos.repetition_count() == 5
    assert outcome is not None and outcome.termination == "fivefold_repetition"


def test_castling_rights_loss_makes_positions_differ() -> None:
    pos = Position.from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    for uci in ["e1f1", "e8f8", "f1e1", "f8e8"]:
        pos.make(pos.parse_uci(uci))
    # Same placement as the start, but the rights are gone: not a repetition.
    assert pos.repetition_count() == 1
    assert pos.fen().split()[2] == "-"


@pytest.mark.parametrize(
    ("fen", "message"),
    [
        ("", "expected 6 space-separated fields"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0", "expected 6"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "8 ranks"),
        ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "unknown piece symbol '9'"),
        ("rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "two digits in a row"),
        ("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 7 has 7 squares"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "unknown piece symbol 'X'"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side-to-move field"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1", "castling field"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w kqKQ - 0 1", "order KQkq"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq z9 0 1", "en passant field"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", "halfmove clock"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "fullmove number 0"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1", "white has no king"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w kq - 0 1", "white has 2 kings"),
        (
            "rnbqkbnP/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR w KQq - 0 1",
            "pawn on the first or last rank",
        ),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", "castling right K"),
        ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e4 0 1", "not on rank 3"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq e3 0 1", "no double step can explain"),
        ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 5 3", "pawn has just moved"),
        ("4k3/8/8/8/8/8/8/4K2R w - - 30 10", "more than the 18 half-moves"),
        ("4k2R/8/8/8/8/8/8/4K3 w - - 0 1", "side not to move (black) is in check"),
        ("PPPPPPPP/PPPPPPPP/8/8/8/8/8/K6k w - - 0 1", "pawn"),
    ],
)
def test_fen_errors_name_the_problem(fen: str, message: str) -> None:
    with pytest.raises(FenError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Position.from_fen(fen)


def test_start_position_round_trip_and_copy() -> None:
    pos = Position.from_fen(STARTING_FEN)
    assert pos.fen() == STARTING_FEN
    clone = pos.copy()
    clone.make(clone.parse_uci("e2e4"))
    assert pos.fen() == STARTING_FEN
    assert clone.fen() == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    assert clone.fen(en_passant="always").split()[3] == "e3"


def test_null_move_round_trip() -> None:
    pos = Position.from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2")
    key, fen = pos.key, pos.fen()
    pos.make_null()
    assert pos.turn == 1 and pos.ep == -1 and pos.key != key
    pos.unmake_null()
    assert pos.key == key and pos.fen() == fen
