"""``enoch rate``: an adaptive gauntlet against the calibrated ladder.

The agent plays the ladder's rungs (built-in agents whose ratings were measured, see
:mod:`enoch.ratings.ladder`) in pairs of games, one opening from both colours (one start from
both seats in Enochian), and after every pair its rating is fitted again by maximum likelihood
with the rungs held at their ratings (:func:`enoch.ratings.maths.fit`).

Why adaptive: a game says most about a rating when the expected score is near one half (the
information of one game is ``p (1 - p)``, largest at ``p = 1/2``): a game against an opponent
400 points away carries a third of it. So each pair is played against the rung nearest the
current estimate; of the two rungs around the estimate the one met less often, so that one
rung's quirks do not make the whole rating. The first pair is played against the middle rung.
``bench/rate_sim.py`` measures what this saves against a fixed round-robin over the ladder.

Each game is played by the arena (:func:`enoch.arena.match.run_match`), so every agent the
arena knows can be rated, under the arena's containment and time rules; games whose
termination is ``abandoned`` (an agent's endpoint stayed down) do not count.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from enoch.arena.match import run_match
from enoch.arena.players import check_agent
from enoch.arena.referee import GameConfig, GameResult
from enoch.errors import InputError
from enoch.game.registry import find_game
from enoch.ratings.ladder import Ladder, ladder_ratings, load_ladder
from enoch.ratings.maths import fit

# The rated agent's name inside the fit (never a rung's name, even when a rung is rated).
SUBJECT = "\x00agent"
MAX_GAMES = 10_000


@dataclass
class Opponent:
    agent: str
    rating: float
    wins: int = 0
    draws: int = 0
    losses: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "rating": round(self.rating, 1),
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
        }


@dataclass
class Rating:
    """What ``enoch rate`` found."""

    agent: str
    variant: str
    rating: float
    low: float
    high: float
    games: int
    scale: str
    opponents: list[Opponent] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "variant": self.variant,
            "rating": round(self.rating, 1),
            "low": round(self.low, 1),
            "high": round(self.high, 1),
            "games": self.games,
            "scale": self.scale,
            "opponents": [o.to_json() for o in self.opponents if o.wins + o.draws + o.losses],
        }


def scale_text(ladder: Ladder, variant: str) -> str:
    if variant == "enochian":
        return (
            "enoch's Enochian agents with builtin:random fixed at 0 "
            f"(no outside anchor; ladder of {ladder['date']})"
        )
    return f"{ladder['anchor']} (ladder of {ladder['date']}, {ladder['commit']})"


def next_opponent(estimate: float, rungs: dict[str, float], played: dict[str, int]) -> str:
    """The rung to play next: of the rung just below and the rung just above ``estimate``
    (the nearest two), the one played less (the nearer on a tie)."""
    ordered = sorted(rungs, key=lambda n: (abs(rungs[n] - estimate), n))
    below = [n for n in ordered if rungs[n] <= estimate][:1]
    above = [n for n in ordered if rungs[n] > estimate][:1]
    candidates = below + above
    return min(candidates, key=lambda n: (played.get(n, 0), abs(rungs[n] - estimate), n))


def rate(
    agent: str,
    *,
    variant: str = "chess",
    games: int = 20,
    config: GameConfig | None = None,
    ladder: Ladder | None = None,
    concurrency: int = 1,
    on_game: Callable[[int, str, GameResult, tuple[float, float, float]], None] | None = None,
    results: Callable[[dict[str, Any]], None] | None = None,
) -> Rating:
    """Rate ``agent`` (any arena name) with ``games`` games against ``variant``'s ladder.

    ``on_game(done, opponent, result, (rating, low, high))`` is called after each game with
    the estimate so far; ``results`` receives each game's results line."""
    if not 1 <= games <= MAX_GAMES:
        raise InputError(f"--games must be 1 .. {MAX_GAMES}, got {games}")
    rules = find_game(variant)
    agent = agent.strip()
    check_agent(agent, rules)
    setup = rules.setup(max_plies=rules.default_max_plies)  # as the CLI: Enochian 400
    if rules.seats(setup) != 2:
        raise InputError(f"enoch rate plays two-seat games ({rules.name} has more here)")
    ladder = ladder if ladder is not None else load_ladder(rules.name)
    rungs = ladder_ratings(ladder)
    for name in rungs:
        check_agent(name, rules)
    starts = rules.starts(setup)
    cfg = config or GameConfig()
    opponents = {n: Opponent(n, r) for n, r in sorted(rungs.items(), key=lambda x: x[1])}
    played: dict[str, int] = {}
    record: list[tuple[str, str, float]] = []
    ordered = sorted(rungs.values())
    estimate = (ordered[(len(ordered) - 1) // 2] + ordered[len(ordered) // 2]) / 2
    current = (estimate, float("-inf"), float("inf"))
    done = 0
    pair = 0
    while done < games:
        opp = next_opponent(estimate, rungs, played)
        n = min(2, games - done)
        outcome = run_match(
            agent,
            opp,
            variant=rules,
            setup=setup,
            games=n,
            first=2 * pair,
            starts=starts,
            names=[agent, opp if opp != agent else f"{opp}#2"],
            config=cfg,
            concurrency=min(concurrency, n),
        )
        pair += 1
        for sched, result in outcome.games:
            done += 1
            played[opp] = played.get(opp, 0) + 1
            line = {"game": done, **result.to_json()}
            if results is not None:
                results(line)
            if result.termination != "abandoned":
                seat = sched.seats.index(0)
                points = float(result.points[seat])
                record.append((SUBJECT, opp, points))
                o = opponents[opp]
                if points == 1.0:
                    o.wins += 1
                elif points == 0.0:
                    o.losses += 1
                else:
                    o.draws += 1
            if record:
                current = fit(record, rungs)[SUBJECT]
                estimate = current[0]
            if on_game is not None:
                on_game(done, opp, result, current)
    rating, low, high = current
    return Rating(
        agent=agent,
        variant=rules.name,
        rating=rating,
        low=low,
        high=high,
        games=len(record),
        scale=scale_text(ladder, rules.name),
        opponents=list(opponents.values()),
    )


__all__ = ["Opponent", "Rating", "next_opponent", "rate", "scale_text"]
