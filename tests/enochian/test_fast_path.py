"""The in-process fast path (``answer_state`` on a copy of the rules state) plays the same games
as the JSON path, and an agent cannot change the referee's state through it."""

from __future__ import annotations

from typing import Any

import pytest

from enoch.arena import play_game
from enoch.arena.players import ObjectPlayer, Player
from enoch.enochian.agents import GreedyAgent, RandomAgent
from enoch.enochian.players import StatePlayer
from enoch.enochian.state import State, new_game


def _game(players: list[Player], options: dict[str, Any]) -> tuple[list[str], str, str]:
    r = play_game(*players, variant="enochian", options=options, max_plies=160)
    return r.moves, r.result, r.termination


@pytest.mark.parametrize(
    "options",
    [
        {"array": "earth_of_fire"},
        {"array": "air_of_water", "players": 4},
        {"array": "water_of_fire", "divination": "on", "seed": 5},
    ],
)
@pytest.mark.parametrize("kind", [RandomAgent, GreedyAgent])
def test_fast_path_plays_the_json_paths_games(kind: type[Any], options: dict[str, Any]) -> None:
    seats = 4 if options.get("players") == 4 else 2
    fast = [StatePlayer(f"a{i}", kind(seed=str(i))) for i in range(seats)]
    slow: list[Player] = [ObjectPlayer(f"a{i}", kind(seed=str(i))) for i in range(seats)]
    a, b = _game(list(fast), options), _game(slow, options)
    assert a == b
    assert len(a[0]) > 20


def test_builtins_take_the_fast_path() -> None:
    from enoch.arena.players import make_player
    from enoch.game import find_game

    game = find_game("enochian")
    for name in ("random", "greedy", "search"):
        assert isinstance(make_player(f"builtin:{name}", game), StatePlayer)


class Vandal:
    """Plays a legal move after wrecking the copy it was given."""

    def answer_state(self, st: State, fields: dict[str, Any]) -> int:
        move = st.legal_moves()[0]
        st.make(move)
        st.board[:] = [-1] * 64
        st.bb[:] = [0] * len(st.bb)
        return move


def test_agent_gets_a_copy() -> None:
    st = new_game("earth_of_fire")
    copy = st.copy()
    key, board = st.zkey, list(st.board)
    move = copy.legal_moves()[0]
    copy.make(move)
    copy.board[:] = [-1] * 64
    assert (st.zkey, st.board, st.ply) == (key, board, 0)
    copy.undo()
    r = play_game(Vandal(), "builtin:random?seed=1", variant="enochian", max_plies=40)
    assert r.termination == "move_limit"  # every Vandal move was judged on the true board


def test_library_games_have_the_games_ply_limit() -> None:
    """Without max_plies a library game takes the game's default (Enochian: 400), as the CLI
    does: two agents that never finish cannot run forever."""
    from enoch.game import find_game

    game = find_game("enochian")
    assert game.default_max_plies == 400
    assert game.setup().max_plies == 400
    assert game.setup(max_plies=30).max_plies == 30
    assert find_game("chess").setup().max_plies is None  # chess ends by its own rules
    r = play_game("builtin:random?seed=4", "builtin:random?seed=5", variant="enochian")
    assert r.plies <= 400
