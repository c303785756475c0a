"""Differential test against python-chess, the independent oracle, on more than 20,000
positions reached by seeded play of three kinds: uniformly random, capture-biased (to reach
sparse endgames, promotions and dead positions), and repetition-biased (pieces shuffled back
and forth, to reach threefold and fivefold repetitions).

Compared at every position: the legal move set, check, checkmate, stalemate, dead position
(insufficient material), the automatic outcome, repetition counts (3 and 5), fifty-move
claimability, the FEN (written, and read back), and that two positions have the same Zobrist
key exactly when python-chess calls them the same position.
"""

from __future__ import annotations

import random
from collections import Counter

import chess
import pytest

from enoch.rules import Position, move_uci

TERMINATION_NAMES = {
    chess.Termination.CHECKMATE: "checkmate",
    chess.Termination.STALEMATE: "stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "insufficient_material",
    chess.Termination.SEVENTYFIVE_MOVES: "seventyfive_moves",
    chess.Termination.FIVEFOLD_REPETITION: "fivefold_repetition",
}


def _pick(
    rng: random.Random, board: chess.Board, moves: list[chess.Move], style: str
) -> chess.Move:
    if style == "capture":
        captures = [m for m in moves if board.is_capture(m) or m.promotion]
        if captures and rng.random() < 0.85:
            return rng.choice(captures)
    elif style == "repeat" and len(board.move_stack) >= 2 and rng.random() < 0.85:
        last = board.move_stack[-2]
        back = chess.Move(last.to_square, last.from_square)
        if back in moves:
            return back
    return rng.choice(moves)


def _play_and_compare(
    seed: int, style: str, max_plies: int, seen: dict[int, object], stats: dict[str, int]
) -> int:
    rng = random.Random(seed)
    board = chess.Board()
    pos = Position.start()
    checked = 0
    for _ in range(max_plies):
        checked += 1
        fen = board.fen()
        assert pos.fen() == fen
        assert Position.from_fen(fen).fen() == fen
        ours = sorted(move_uci(m) for m in pos.legal_moves())
        theirs = sorted(m.uci() for m in board.legal_moves)
        assert ours == theirs, fen
        assert pos.count_legal() == len(theirs), fen
        assert pos.is_check() == board.is_check(), fen
        assert pos.is_checkmate() == board.is_checkmate(), fen
        assert pos.is_stalemate() == board.is_stalemate(), fen
        assert pos.is_insufficient_material() == board.is_insufficient_material(), fen
        for colour in (chess.WHITE, chess.BLACK):
            assert pos.has_insufficient_material(
                0 if colour else 1
            ) == board.has_insufficient_material(colour), fen
        rep = pos.repetition_count()
        assert (rep >= 2) == board.is_repetition(2), fen
        assert (rep >= 3) == board.is_repetition(3), fen
        assert (rep >= 5) == board.is_fivefold_repetition(), fen
        assert pos.can_claim_fifty() == board.is_fifty_moves(), fen
        outcome = board.outcome()
        ours_outcome = pos.outcome()
        if outcome is None:
            assert ours_outcome is None, fen
        else:
            assert ours_outcome is not None, fen
            assert ours_outcome.termination == TERMINATION_NAMES[outcome.termination], fen
            assert ours_outcome.result == outcome.result(), fen
        # Same key <=> same position in FIDE's sense (python-chess's transposition key).
        tkey = board._transposition_key()
        if pos.key in seen:
            assert seen[pos.key] == tkey, fen
        seen[pos.key] = tkey
        stats["threefold"] += rep >= 3
        stats["ep"] += any(board.is_en_passant(m) for m in board.legal_moves)
        stats["castle"] += any(board.is_castling(m) for m in board.legal_moves)
        stats["promotion"] += any(m.promotion for m in board.legal_moves)
        stats["check"] += board.is_check()
        if outcome is not None:
            stats[TERMINATION_NAMES[outcome.termination]] += 1
            break
        move = _pick(rng, board, list(board.legal_moves), style)
        board.push(move)
        pos.make(pos.parse_uci(move.uci()))
    # Unmake all the way back reproduces every earlier FEN.
    while board.move_stack:
        board.pop()
        pos.unmake()
        assert pos.fen() == board.fen()
    assert pos.key == Position.start().key
    return checked


@pytest.mark.parametrize("style", ["random", "capture", "repeat"])
def test_differential_against_python_chess(style: str) -> None:
    seen: dict[int, object] = {}
    stats: Counter[str] = Counter()
    positions = 0
    seed = {"random": 1000, "capture": 2000, "repeat": 3000}[style]
    while positions < 7_000:
        positions += _play_and_compare(seed, style, 400, seen, stats)
        seed += 1
    assert positions >= 7_000
    # The walk really visits what it claims to test.
    expected = {
        "random": ["check", "castle", "ep", "promotion", "checkmate", "insufficient_material"],
        "capture": ["promotion", "insufficient_material", "ep"],
        "repeat": ["threefold", "fivefold_repetition"],
    }[style]
    for what in expected:
        assert stats[what] > 0, (what, dict(stats))


def test_repetition_styles_reach_the_claims() -> None:
    """The repetition-biased games do reach threefold and fivefold (else the test is empty)."""
    rng = random.Random(7)
    board = chess.Board()
    reached = set()
    for _ in range(400):
        if board.is_repetition(3):
            reached.add(3)
        if board.is_fivefold_repetition():
            reached.add(5)
            break
        board.push(_pick(rng, board, list(board.legal_moves), "repeat"))
    assert reached == {3, 5}
