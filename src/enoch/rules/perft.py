"""Perft: count the leaf nodes of the legal move tree, the standard test of a move generator.

Two counters, because they measure different things: :func:`perft` makes and unmakes every
move down to the leaves (the cost a search pays), :func:`perft_bulk` counts the last ply's
moves without making them (the generator's raw speed).
"""

from __future__ import annotations

from enoch.rules.position import Position, move_uci

# The deepest count asked for. Depth 12 from the start is 6e16 paths, years of work for any
# program; the sparsest position of the standard suites is past a trillion at depth 10. A
# limit above every count that can finish, and far below Python's recursion limit.
MAX_PERFT_DEPTH = 12


def perft(pos: Position, depth: int) -> int:
    """Leaf count with make/unmake at every node, the leaves included."""
    if depth == 0:
        return 1
    moves = pos.legal_moves()
    if depth == 1:
        n = 0
        make = pos.make
        unmake = pos.unmake
        for m in moves:
            make(m)
            n += 1
            unmake()
        return n
    n = 0
    for m in moves:
        pos.make(m)
        n += perft(pos, depth - 1)
        pos.unmake()
    return n


def perft_bulk(pos: Position, depth: int) -> int:
    """Leaf count, counting (not making) the moves at the last ply."""
    if depth == 0:
        return 1
    if depth == 1:
        return pos.count_legal()
    n = 0
    make = pos.make
    unmake = pos.unmake
    for m in pos.legal_moves():
        make(m)
        n += perft_bulk(pos, depth - 1)
        unmake()
    return n


def divide(pos: Position, depth: int) -> list[tuple[str, int]]:
    """Per-root-move counts (UCI, count), sorted by move text, to find a generator bug fast."""
    out = []
    for m in pos.legal_moves():
        pos.make(m)
        out.append((move_uci(m), perft_bulk(pos, depth - 1) if depth > 1 else 1))
        pos.unmake()
    return sorted(out)
