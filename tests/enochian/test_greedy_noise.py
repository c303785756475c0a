"""``greedy?noise=P`` and ``search?noise=P``: the Enochian ladder's rungs between the random
agent and greedy, and searchers that do not replay one game."""

from __future__ import annotations

import random

import pytest

from enoch.enochian.agents import GreedyAgent, make_agent
from enoch.enochian.search import evaluate
from enoch.enochian.state import State, new_game
from enoch.errors import InputError


def _positions(n: int) -> list[State]:
    rng = random.Random(5)
    out: list[State] = []
    while len(out) < n:
        st = new_game("earth_of_fire")
        for _ in range(rng.randrange(0, 40)):
            moves = st.legal_moves()
            if not moves or st.outcome is not None:
                break
            st.make(rng.choice(moves))
        if st.outcome is None and st.pending is None and st.legal_moves():
            out.append(st)
    return out


def _best(st: State) -> set[int]:
    """Every move of greedy's best evaluation (it breaks ties at random)."""
    team = st.army_to_move % 2
    values: dict[int, float] = {}
    for m in st.legal_moves():
        st.make(m)
        values[m] = evaluate(st, team)
        st.undo()
    top = max(values.values())
    return {m for m, v in values.items() if v == top}


def _greedy_share(noise: float, positions: list[State]) -> float:
    agent = GreedyAgent(seed="1", noise=str(noise))
    best = [_best(st.copy()) for st in positions]
    hits = sum(
        agent.choose(st.copy()) in b
        for st, b in zip(positions, best, strict=True)
        for _ in range(3)
    )
    return hits / (3 * len(positions))


def test_noise_zero_is_plain_greedy() -> None:
    positions = _positions(12)
    plain, zero = GreedyAgent(seed="4"), GreedyAgent(seed="4", noise="0")
    assert [plain.choose(st.copy()) for st in positions] == [
        zero.choose(st.copy()) for st in positions
    ]


def test_noise_moves_it_towards_random() -> None:
    positions = _positions(30)
    shares = [_greedy_share(p, positions) for p in (0.0, 0.5, 1.0)]
    assert shares[0] == 1.0  # always one of greedy's best moves
    assert shares[0] > shares[1] > shares[2]
    # at noise 1 every move is uniformly random: many different moves are played
    agent = GreedyAgent(seed="2", noise="1")
    st = positions[0]
    assert len({agent.choose(st.copy()) for _ in range(60)}) > 5


@pytest.mark.parametrize("bad", ["1.5", "-0.1", "x", "nan"])
def test_bad_noise_is_refused(bad: str) -> None:
    with pytest.raises(InputError):
        make_agent(f"greedy?noise={bad}")


def test_noisy_searchers_do_not_replay_one_game() -> None:
    from enoch.arena import play_game

    def moves(spec: str) -> tuple[str, ...]:
        result = play_game(spec, spec, variant="enochian", max_plies=40)
        return tuple(result.moves)

    plain = {moves("builtin:search?depth=1") for _ in range(3)}
    noisy = {moves("builtin:search?depth=1&noise=0.2") for _ in range(3)}
    assert len(plain) == 1  # deterministic: the same game every time
    assert len(noisy) == 3
