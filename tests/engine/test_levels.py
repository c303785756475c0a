"""Strength levels: legal, seeded, weaker by design, reachable from the agent and from UCI."""

from __future__ import annotations

import io
import itertools
import random
from typing import Any

import chess
import pytest

from enoch.engine.agent import EngineAgent
from enoch.engine.levels import (
    ELO_MAX,
    ELO_MIN,
    NODES_POINT,
    SOFTMAX_POINTS,
    Level,
    Weakened,
    level_for,
)
from enoch.engine.search import Searcher
from enoch.engine.uci import UciEngine
from enoch.errors import InputError
from enoch.protocol import state_from_fen
from enoch.ratings.ladder import load_ladder
from enoch.rules.position import Position

# White to move can take an undefended queen (d1xd5... e4xd5 here: the pawn takes it).
HUNG_QUEEN = "rnb1kbnr/ppp1pppp/8/3q4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3"


def _uci(answer: dict[str, Any]) -> str:
    promo = answer.get("promotion")
    return f"{answer.get('from')}{answer.get('to')}{promo.lower() if promo else ''}"


def _random_positions(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        board = chess.Board()
        for _ in range(rng.randrange(0, 60)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if not board.is_game_over():
            out.append(board.fen())
    return out


def test_levels_cover_the_range_and_grow_stronger() -> None:
    levels = [level_for(e) for e in range(ELO_MIN, ELO_MAX + 1, 100)]
    assert level_for(ELO_MIN - 500) == level_for(ELO_MIN)
    assert level_for(ELO_MAX).full
    soft = [lv for lv in levels if lv.depth is not None]
    # deeper, or as deep and cooler (fewer and smaller chosen mistakes)
    assert soft and all(
        a.depth < b.depth or (a.depth == b.depth and a.temperature > b.temperature)  # type: ignore[operator]
        for a, b in itertools.pairwise(soft)
    )
    bounded = [lv.nodes for lv in levels if lv.nodes is not None]
    assert bounded == sorted(bounded) and len(set(bounded)) == len(bounded)


def test_the_measured_labels_keep_the_parameters_they_were_measured_with() -> None:
    # each measured point's label gives exactly the parameters the ladder played
    for elo, depth, temperature in SOFTMAX_POINTS:
        assert level_for(elo) == Level(elo, depth, temperature, None)
    assert level_for(NODES_POINT[0]) == Level(NODES_POINT[0], None, 0.0, NODES_POINT[1])
    # and the shipped ladder rates those labels: the rung names are the labels
    ladder = load_ladder("chess")["agents"]
    for elo in [e for e, _, _ in SOFTMAX_POINTS[1:]] + [NODES_POINT[0]]:
        rung = ladder[f"builtin:engine?elo={elo}"]
        # a label is its measured rating, rounded: inside the rung's 95% interval
        assert rung["low"] <= elo <= rung["high"], (elo, rung)


@pytest.mark.parametrize("elo", [0, 600, 1000, 1450, 1800])
def test_every_level_answers_legal_moves(elo: int) -> None:
    agent = EngineAgent(elo=str(elo), seed="3", movetime="0.2")
    try:
        for fen in _random_positions(12, elo):
            answer = agent.answer(state_from_fen(fen))
            if "action" in answer:  # a draw claim or offer, a resignation
                continue
            board = chess.Board(fen)
            assert _uci(answer) in {m.uci() for m in board.legal_moves}, (fen, answer)
    finally:
        agent.close()


def _moves(elo: int, seed: int, fens: list[str]) -> list[str]:
    # no time limit (a depth bound only): a clock could cut the scoring on a loaded machine
    agent = EngineAgent(elo=str(elo), seed=str(seed), depth="5")
    try:
        return [_uci(agent.answer(state_from_fen(f))) for f in fens]
    finally:
        agent.close()


def test_same_seed_same_moves_other_seed_other_moves() -> None:
    fens = _random_positions(15, 7)
    assert _moves(600, 1, fens) == _moves(600, 1, fens)
    assert _moves(600, 1, fens) != _moves(600, 2, fens)


def test_low_levels_make_chosen_mistakes_high_levels_do_not() -> None:
    pos = Position.from_fen(HUNG_QUEEN)
    searcher = Searcher(4)
    scores = searcher.root_scores(pos, 1)
    best = max(scores, key=lambda x: x[1])
    assert best[0] == pos.parse_uci("e4d5")  # the scores see the hung queen

    def share_of_best(elo: int) -> float:
        level = Weakened(elo, seed=5)
        picks = [level.pick(scores)[0] for _ in range(400)]
        return picks.count(best[0]) / len(picks)

    low, mid, high = share_of_best(0), share_of_best(150), share_of_best(1400)
    assert low < mid < high
    assert high > 0.95  # a club player takes the queen
    assert low < 0.9  # a beginner sometimes does not


def test_a_lost_position_does_not_overflow() -> None:
    # every move is mated (scores far below the clip): a choice, not an OverflowError
    scores = [(1, -31990), (2, -31992), (3, -500)]
    assert Weakened(400, seed=1).pick(scores)[0] in (1, 2, 3)
    scores = [(1, -31990), (2, -31980)]
    assert {Weakened(400, seed=k).pick(scores)[0] for k in range(20)} == {1, 2}


def test_root_scores_agree_with_a_plain_search_on_the_best_move() -> None:
    pos = Position.from_fen(HUNG_QUEEN)
    fen = pos.fen()
    searcher = Searcher(4)
    scores = searcher.root_scores(pos, 2)
    assert pos.fen() == fen  # restored
    assert {m for m, _ in scores} == set(pos.legal_moves())
    assert max(scores, key=lambda x: x[1])[0] == pos.parse_uci("e4d5")


@pytest.mark.parametrize("bad", ["abc", "-10", "5000", "1.5"])
def test_bad_elo_is_refused(bad: str) -> None:
    with pytest.raises(InputError):
        EngineAgent(elo=bad)


def test_uci_limit_strength_plays_a_seeded_level() -> None:
    def bestmoves(seed: int) -> list[str]:
        out = io.StringIO()
        engine = UciEngine(out)
        for line in (
            "uci",
            "setoption name UCI_LimitStrength value true",
            "setoption name UCI_Elo value 200",
            f"setoption name Seed value {seed}",
            "ucinewgame",
        ):
            engine.handle(line)
        for fen in _random_positions(10, 11):
            engine.handle(f"position fen {fen}")
            engine.handle("go depth 5")  # no clock: nothing cuts the level's own search
            engine.wait()
        engine.handle("quit")
        lines = out.getvalue().splitlines()
        assert any("UCI_Elo type spin" in line for line in lines)
        return [line.split()[1] for line in lines if line.startswith("bestmove")]

    fens = _random_positions(10, 11)
    first = bestmoves(1)
    assert len(first) == 10
    for fen, move in zip(fens, first, strict=True):
        assert chess.Move.from_uci(move) in chess.Board(fen).legal_moves
    assert first == bestmoves(1)
    assert first != bestmoves(2)
