"""lichess's judgement maths against values worked out here from the published formulas.

The reference values use the logistic form of Win% (100 / (1 + e^(-k·cp)), the same curve as
lichess's 50 + 50·(2/(1 + e^(-k·cp)) - 1) written another way) and hand-expanded means, so a
slip in the module's algebra (a sign, a clamp, the window, the weights) shows up here."""

from __future__ import annotations

import math

import pytest

from enoch.analysis import judge

K = 0.00368208


def win(cp: float) -> float:
    cp = max(-1000.0, min(1000.0, cp))
    return 100.0 / (1.0 + math.exp(-K * cp))


def acc(drop: float) -> float:
    if drop <= 0:
        return 100.0
    return max(
        0.0,
        min(100.0, 103.1668100711649 * math.exp(-0.04354415386753951 * drop) - 2.166924740191411),
    )


@pytest.mark.parametrize("cp", [-2000, -1000, -300, -100, -15, 0, 15, 100, 300, 1000, 5000])
def test_win_percent_is_lichess_logistic(cp: int) -> None:
    assert judge.win_percent(cp) == pytest.approx(win(cp), abs=1e-9)


def test_win_percent_worked_values() -> None:
    assert judge.win_percent(0) == 50.0
    # e^-0.368208 = 0.691965...: 100 / 1.691965 = 59.1026
    assert judge.win_percent(100) == pytest.approx(59.1026, abs=0.0001)
    assert judge.win_percent(-100) == pytest.approx(100 - 59.1026, abs=0.0001)
    # clamped at ±1000, and a mate counts as the ceiling
    assert judge.win_percent(3000) == judge.win_percent(1000) == pytest.approx(97.54, abs=0.01)
    assert judge.win_percent(judge.MATE_SCORE - 3) == judge.win_percent(1000)
    assert judge.win_percent(-(judge.MATE_SCORE - 2)) == judge.win_percent(-1000)


def test_move_accuracy_worked_values() -> None:
    assert judge.move_accuracy(60.0, 60.0) == 100.0
    assert judge.move_accuracy(40.0, 70.0) == 100.0  # improving is never penalised
    # a drop of 10: 103.16681·e^-0.43544 - 3.16692 + 1 = 64.58
    assert judge.move_accuracy(60.0, 50.0) == pytest.approx(64.58, abs=0.01)
    assert judge.move_accuracy(60.0, 50.0) == pytest.approx(acc(10.0), abs=1e-9)
    # drops of 5, 20 and 40 (worked by hand from the constants)
    assert judge.move_accuracy(55, 50) == pytest.approx(80.82, abs=0.01)
    assert judge.move_accuracy(70, 50) == pytest.approx(41.02, abs=0.01)
    assert judge.move_accuracy(90, 50) == pytest.approx(15.91, abs=0.01)
    assert judge.move_accuracy(100, 0) == 0.0  # clamped


def test_classes_by_the_drop_in_winning_chances() -> None:
    # winning chances drop = 2·(Win% drop)/100: 0 -> -100 cp is 0.182, an inaccuracy
    assert (win(0) - win(-100)) / 50 == pytest.approx(0.1821, abs=1e-3)
    assert judge.judgement(0, -100, white=True) == "inaccuracy"
    # 0 -> -130: 0.235, a mistake; 0 -> -300: 0.502, a blunder
    assert judge.judgement(0, -130, white=True) == "mistake"
    assert judge.judgement(0, -300, white=True) == "blunder"
    # just under the first threshold (drop 0.1 means Win% falls by 5): no judgement
    assert judge.judgement(0, -50, white=True) is None
    # Black's moves are judged from Black's side
    assert judge.judgement(0, 300, white=False) == "blunder"
    assert judge.judgement(0, -300, white=False) is None
    # beyond the ±1000 ceiling nothing changes: a won position stays won
    assert judge.judgement(2500, 1200, white=True) is None


def test_classes_with_mates() -> None:
    mate_for_black = -(judge.MATE_SCORE - 3)  # Black mates in 3 plies
    mate_for_white = judge.MATE_SCORE - 5
    # walking into a forced mate: a blunder, softened when already lost
    assert judge.judgement(50, mate_for_black, white=True) == "blunder"
    assert judge.judgement(-800, mate_for_black, white=True) == "mistake"
    assert judge.judgement(-1200, mate_for_black, white=True) == "inaccuracy"
    # letting a forced mate slip: a blunder, softened when still winning
    assert judge.judgement(mate_for_white, 300, white=True) == "blunder"
    assert judge.judgement(mate_for_white, 800, white=True) == "mistake"
    assert judge.judgement(mate_for_white, 1200, white=True) == "inaccuracy"
    assert judge.judgement(mate_for_white, mate_for_black, white=True) == "blunder"
    # a slower mate is no judgement; nor is mating
    assert judge.judgement(mate_for_white, judge.MATE_SCORE - 9, white=True) is None
    assert judge.judgement(mate_for_white, judge.MATE_SCORE, white=True) is None
    # Black letting White's mate slip is good for Black, not a mistake
    assert judge.judgement(mate_for_white, 300, white=False) is None


def test_classify_and_loss() -> None:
    assert judge.classify(0, -300, True, engine_choice=True) == "best"
    assert judge.classify(0, -300, True, engine_choice=False) == "blunder"
    assert judge.classify(0, -10, True, engine_choice=False) == "good"
    assert judge.centipawn_loss(50, -250, white=True) == 300
    assert judge.centipawn_loss(50, -250, white=False) == 0
    assert judge.centipawn_loss(-40, 60, white=False) == 100
    assert judge.centipawn_loss(judge.MATE_SCORE - 1, 0, white=True) == 1000  # ceiled


def test_game_accuracy_one_bad_move() -> None:
    # Two moves: White drops 0 -> -300, Black keeps it. White's accuracy is that move's.
    white, black = judge.game_accuracy([0, -300, -300])
    assert white == pytest.approx(acc(50.0 - win(-300)), abs=1e-9)
    assert white == pytest.approx(32.4, abs=0.1)
    assert black == 100.0


def test_game_accuracy_weighted_and_harmonic() -> None:
    # Four moves, window 2: each move's weight is the standard deviation of its two Win%
    # values (half their difference), clamped to 0.5..12.
    scores = [0, -200, -100, -400, -400]
    w = [win(s) for s in scores]
    weights = [max(0.5, min(12.0, abs(w[i] - w[i + 1]) / 2)) for i in range(4)]
    accs = [acc(w[0] - w[1]), acc((100 - w[1]) - (100 - w[2])), acc(w[2] - w[3]), 100.0]
    expect = []
    for side in (0, 1):
        a = accs[side::2]
        ws = weights[side::2]
        weighted = sum(x * y for x, y in zip(a, ws, strict=True)) / sum(ws)
        harmonic = len(a) / sum(1 / max(1.0, x) for x in a)
        expect.append((weighted + harmonic) / 2)
    got = judge.game_accuracy(scores)
    assert got == pytest.approx(tuple(expect), abs=1e-9)
    assert got[0] < 60 < got[1]


def test_game_accuracy_black_first_and_empty() -> None:
    # A game from a position with Black to move: the first move is Black's.
    white, black = judge.game_accuracy([0, 300, 300], white_first=False)
    assert black == pytest.approx(acc(win(300) - 50.0), abs=1e-9)
    assert white == 100.0
    assert all(math.isnan(x) for x in judge.game_accuracy([0]))


def test_mate_words() -> None:
    mate_for_black = -(judge.MATE_SCORE - 3)
    assert judge.mate_words(50, mate_for_black, white=True) == "Checkmate is now unavoidable"
    assert judge.mate_words(judge.MATE_SCORE - 5, 300, white=True) == (
        "Lost forced checkmate sequence"
    )
    assert judge.mate_words(0, -300, white=True) is None
    assert judge.mate_words(50, mate_for_black, white=False) is None  # Black is mating
