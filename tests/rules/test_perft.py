"""Perft: every position of tests/data/perft at every depth up to ~200,000 nodes (CI), deeper
counts under the ``slow`` marker. Both counters are checked: make/unmake at every node on the
small depths, bulk counting on all of them."""

from __future__ import annotations

import pytest

from enoch.rules import Position, perft, perft_bulk

from .perft_data import all_positions

CI_LIMIT = 200_000
SLOW_LIMIT = 5_000_000
POSITIONS = all_positions()


def test_data_is_complete() -> None:
    # Guard against a reader silently dropping files: the suites hold about 1,860 positions.
    assert len(POSITIONS) > 1800
    assert all(counts for _, _, counts in POSITIONS)


@pytest.mark.parametrize(("ident", "fen", "counts"), POSITIONS, ids=[p[0] for p in POSITIONS])
def test_perft(ident: str, fen: str, counts: dict[int, int]) -> None:
    pos = Position.from_fen(fen)
    start_fen, start_key = pos.fen(), pos.key
    for depth, expected in sorted(counts.items()):
        if expected > CI_LIMIT:
            break
        assert perft_bulk(pos, depth) == expected, f"bulk perft({depth})"
        if expected <= 20_000:
            assert perft(pos, depth) == expected, f"perft({depth}) with make/unmake"
    # make/unmake left the position exactly as it was.
    assert pos.fen() == start_fen and pos.key == start_key and not pos.stack


SLOW = [
    (ident, fen, d, n)
    for ident, fen, counts in POSITIONS[:140]
    for d, n in counts.items()
    if CI_LIMIT < n <= SLOW_LIMIT
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("ident", "fen", "depth", "expected"), SLOW, ids=[f"{s[0]}-d{s[2]}" for s in SLOW]
)
def test_perft_deep(ident: str, fen: str, depth: int, expected: int) -> None:
    assert perft_bulk(Position.from_fen(fen), depth) == expected


def test_chess960_entries_are_rejected_with_a_castling_error() -> None:
    # The excluded entries are excluded for exactly one reason: standard chess forbids them.
    from enoch.errors import FenError

    from .perft_data import CHESS960, _everything

    excluded = [p for p in _everything() if p[0] in CHESS960]
    assert len(excluded) == len(CHESS960)
    for _, fen, _ in excluded:
        with pytest.raises(FenError, match="castling right"):
            Position.from_fen(fen)
