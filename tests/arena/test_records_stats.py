"""Records and figures a reader can trust: the forfeit reason in a PGN comment of its own, and
an Elo line for a few games that neither prints ``-0.0`` nor claims ``± 0.0``."""

from __future__ import annotations

import math
import re
import sys

import pytest

from enoch.arena import play_game
from enoch.arena.stats import Score, signed
from enoch.cli import main
from enoch.fide.records import pgn_text, read_pgn_games
from tests.arena.helpers import AGENTS

CRASH = f"exec:{sys.executable} {AGENTS / 'misbehave.py'} crash"


def movetext(pgn: str) -> str:
    return "\n".join(line for line in pgn.splitlines() if not line.startswith("["))


def test_forfeit_after_the_book_is_not_merged_into_the_book_comment() -> None:
    result = play_game(CRASH, "builtin:random", book_moves=("e2e4", "e7e5"))
    assert result.termination == "crash"
    text = movetext(pgn_text(result))
    # the last book move keeps its own comment; the reason follows in a comment of its own
    assert re.search(
        r"1\.\.\. e5 \{ book \} \{ white forfeits: [^{}]*exit status 3[^{}]* \} 0-1", text
    ), text
    games = read_pgn_games(pgn_text(result))
    assert [m.uci() for m in games[0].mainline_moves()] == ["e2e4", "e7e5"]


def test_reason_after_an_agent_move_is_its_own_comment_too() -> None:
    result = play_game("builtin:random?seed=3", "builtin:random?seed=4", max_plies=3)
    assert result.termination == "move_limit"
    text = movetext(pgn_text(result))
    assert re.search(r"\{ \[%emt [0-9:.]+\] \} \{ [^{}]*\} 1/2-1/2", text), text


def test_a_forfeit_before_any_move_and_braces_in_the_reason() -> None:
    bad = f"exec:{sys.executable} {AGENTS / 'misbehave.py'} say '{{\"x\": 1}}'"
    result = play_game(bad, "builtin:random")
    assert result.termination == "invalid_answer"
    text = movetext(pgn_text(result)).strip()
    assert text.startswith("{ white forfeits") and text.endswith("} 0-1"), text
    assert text.count("{") == text.count("}") == 1  # a brace in the reason cannot end it
    assert read_pgn_games(pgn_text(result))[0].comment.startswith("white forfeits")


@pytest.mark.parametrize(
    ("score", "shown"),
    [
        (Score(draws=2), "0.0"),
        (Score(wins=1, losses=1), "0.0"),
        (Score(wins=30, draws=40, losses=30), "0.0"),
        (Score(wins=3, draws=1), "+"),
        (Score(losses=3, draws=1), "-"),
    ],
)
def test_elo_is_never_minus_zero(score: Score, shown: str) -> None:
    e = score.elo()[0]
    assert math.copysign(1.0, e) == 1.0 or e < 0
    assert signed(e).startswith(shown)
    assert signed(e) not in ("-0.0", "+0.0")


def test_few_games_get_an_honest_interval() -> None:
    """Two draws do not prove equality to ± 0: the interval is wide, and it narrows as the
    same draw rate is seen over more games."""
    widths = []
    for n in (2, 20, 200, 2000):
        e, lo, hi = Score(draws=n).elo()
        assert e == 0.0 and lo < 0 < hi and math.isclose(-lo, hi)
        widths.append(hi - lo)
    assert widths[0] > 400  # two games: hundreds of Elo either way
    assert widths == sorted(widths, reverse=True)
    assert widths[-1] < 30  # 2000 draws: the pseudo-games no longer matter much
    # with many mixed results the interval is the usual normal one
    sc = Score(wins=300, draws=400, losses=300)
    e, lo, hi = sc.elo()
    plain = 1.959964 * math.sqrt(sc.variance() / sc.games)
    assert math.isclose(hi, -400 * math.log10(1 / (0.5 + plain) - 1), rel_tol=0.01)


def test_match_of_two_draws_prints_zero_and_a_real_interval(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        main(["match", "builtin:random", "builtin:random", "--games", "2", "--max-plies", "1"]) == 0
    )
    out = capsys.readouterr().out
    assert "move_limit 2" in out
    assert "-0.0" not in out and "± 0.0" not in out, out
    assert re.search(r"(?<![+-])0\.0 ± \d{3}\.\d", out), out
