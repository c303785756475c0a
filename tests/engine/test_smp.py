"""Lazy SMP: helper processes share the table; a helper's deeper completed iteration decides."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import chess
import chess.engine
import pytest

from enoch.engine.search import MATE, Limits, Searcher
from enoch.engine.smp import HelperPool, parallel_searcher
from enoch.protocol import state_from_fen
from enoch.rules import Position, move_uci
from tests.builtins import make_builtin

from .helpers import fens
from .test_uci import _enoch_uci


@pytest.fixture
def searcher() -> Iterator[Searcher]:
    s = parallel_searcher(4, threads=2)
    yield s
    s.close()


def _pool(s: Searcher) -> HelperPool:
    assert isinstance(s.pool, HelperPool)
    return s.pool


def test_helpers_search_and_the_answer_is_legal(searcher: Searcher) -> None:
    for fen in fens("sunfish_mate2.fen")[:12]:
        searcher.clear()
        r = searcher.think(Position.from_fen(fen), Limits(depth=6), overhead=0.0)
        assert r.score == MATE - 3, fen
        board = chess.Board(fen)
        board.push_uci(move_uci(r.move))
        # Mate in two: after our move, every reply allows mate in one.
        for reply in list(board.legal_moves):
            board.push(reply)
            assert any(_mates(board, m) for m in board.legal_moves), (fen, reply)
            board.pop()
    pool = _pool(searcher)
    r = searcher.think(Position.start(), Limits(movetime=0.4), overhead=0.0)
    assert chess.Move.from_uci(move_uci(r.move)) in chess.Board().legal_moves
    helper_nodes = pool.nodes()
    assert helper_nodes > 0, "the helper did not search"
    assert r.nodes == searcher.nodes + helper_nodes
    depth, move, _, _ = pool.deepest()
    assert depth > 0 and move in Position.start().legal_moves()
    assert r.depth >= depth  # the answer is from the deepest completed iteration


def _mates(board: chess.Board, move: chess.Move) -> bool:
    board.push(move)
    mate = board.is_checkmate()
    board.pop()
    return mate


def test_a_dead_helper_costs_speed_not_the_answer(searcher: Searcher) -> None:
    searcher.think(Position.start(), Limits(movetime=0.2), overhead=0.0)
    pool = _pool(searcher)
    pool.procs[0].kill()
    pool.procs[0].join()
    for fen in (chess.STARTING_FEN, *fens("sunfish_mate2.fen")[:3]):
        r = searcher.think(Position.from_fen(fen), Limits(movetime=0.2), overhead=0.0)
        assert chess.Move.from_uci(move_uci(r.move)) in chess.Board(fen).legal_moves
    assert pool.conns == []


def test_close_ends_the_helpers_and_a_later_search_starts_new_ones() -> None:
    s = parallel_searcher(2, threads=2)
    procs = list(_pool(s).procs)
    s.close()
    assert s.pool is None and not any(p.is_alive() for p in procs)
    r = s.think(Position.start(), Limits(movetime=0.2), overhead=0.0)
    assert s.pool is not None and r.move in Position.start().legal_moves()
    s.set_threads(1)
    assert s.pool is None


def test_agent_with_threads_answers_and_releases_its_helpers() -> None:
    agent = make_builtin("builtin:engine?movetime=0.2&threads=2&hash=2")
    answer = agent.answer(state_from_fen(chess.STARTING_FEN))
    assert chess.Move.from_uci(answer["from"] + answer["to"]) in chess.Board().legal_moves
    procs = list(_pool(agent.searcher).procs)
    agent.close()
    assert not any(p.is_alive() for p in procs)


def test_uci_threads_option_end_to_end() -> None:
    with chess.engine.SimpleEngine.popen_uci(_enoch_uci()) as engine:
        threads_max = engine.options["Threads"].max
        assert threads_max is not None and threads_max >= 2
        engine.configure({"Threads": 2, "Hash": 4})
        board = chess.Board()
        for _ in range(6):
            info = engine.analyse(board, chess.engine.Limit(time=0.2))
            move = info["pv"][0]
            assert move in board.legal_moves
            board.push(move)
        assert info["nodes"] > 0


def test_a_forgotten_searcher_does_not_leave_helpers_behind() -> None:
    s = parallel_searcher(2, threads=2)
    procs = list(_pool(s).procs)
    del s
    gc.collect()
    for p in procs:
        p.join(timeout=5)
    assert not any(p.is_alive() for p in procs)


def test_the_search_alone_cannot_start_helpers() -> None:
    # search.py never imports smp: more than one thread needs a factory of helpers.
    with pytest.raises(ValueError, match="helpers"):
        Searcher(2, threads=2)
    s = Searcher(2)
    with pytest.raises(ValueError, match="helpers"):
        s.set_threads(2)
    assert s.threads == 1 and s.pool is None
