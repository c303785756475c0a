"""Matches and tournaments of any game: schedule games, run them (in parallel), record them.

Engine-testing practice (Sunfish, cutechess, fishtest): a fixed set of starts (chess openings,
Enochian arrays), each start played once from every seat by every agent (colours swapped for
two seats, seats rotated for four), so the start's bias cancels; results as W/D/L with an Elo
difference, its 95% interval and LOS, and an SPRT that stops the match once it has decided.

Games run in worker processes when ``concurrency > 1`` (the referee is CPU-bound Python: threads
would share one core). Each game builds its own players from their names inside the worker and
closes them at its end, so an external agent never outlives its game and one agent's crash
costs one game, not the match. Agents given as Python objects cannot cross a process boundary:
they are played one game at a time in this process.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from enoch.arena.records import JsonlWriter, RecordWriter
from enoch.arena.referee import GameConfig, GameResult, play_game
from enoch.arena.stats import Score, Sprt, ratings
from enoch.errors import InputError, quote
from enoch.game.api import Game, Setup, Start
from enoch.game.registry import find_game


@dataclass(frozen=True)
class ScheduledGame:
    index: int  # 1-based, also the PGN Round
    seats: tuple[int, ...]  # the agent (index into the agent list) of each seat
    start: Start

    @property
    def white(self) -> int:
        return self.seats[0]

    @property
    def black(self) -> int:
        return self.seats[1]


@dataclass
class MatchOutcome:
    """What a match or tournament produced."""

    names: list[str]
    games: list[tuple[ScheduledGame, GameResult]] = field(default_factory=list)
    stopped_by_sprt: str | None = None

    def score(self, player: int, opponent: int | None = None) -> Score:
        """``player``'s games (against ``opponent`` only, if given), one result per game."""
        sc = Score()
        for g, r in self.games:
            if player not in g.seats:
                continue
            seat = g.seats.index(player)
            if opponent is not None:
                if opponent not in g.seats:
                    continue
                teams = r.extras.get("teams")
                if teams and teams[seat] == teams[g.seats.index(opponent)]:
                    continue  # an ally in a four-seat game, not an opponent
            sc.add(r.points[seat])
        return sc


def unique_names(agents: Sequence[Any]) -> list[str]:
    """Display names; the same agent twice becomes ``NAME`` and ``NAME#2``."""
    names: list[str] = []
    for a in agents:
        base = a if isinstance(a, str) else str(getattr(a, "name", None) or type(a).__name__)
        name = base
        k = 2
        while name in names:
            name = f"{base}#{k}"
            k += 1
        names.append(name)
    return names


def match_schedule(
    games: int, starts: Sequence[Start], first: int = 0, seats: int = 2
) -> list[ScheduledGame]:
    """Agents ``0 .. seats-1`` in rotation: start ``i // seats``, and in game ``i`` agent
    ``k`` sits in seat ``(k - i) % seats`` (two seats: colours alternate, agent 0 white first).

    ``first`` skips that many games of the schedule, so that a long match can be played in
    several runs (a 200-game match at 60+0.6 takes hours) with the starts and seats it would
    have had in one run."""
    if games < 1:
        raise InputError("--games must be at least 1")
    if first < 0:
        raise InputError("--first must not be negative")
    if not starts:
        raise InputError("no start positions to play")
    out = []
    for i in range(first, first + games):
        start = starts[(i // seats) % len(starts)]
        shift = i % seats
        order = tuple((s + shift) % seats for s in range(seats))
        out.append(ScheduledGame(i + 1, order, start))
    return out


def tournament_schedule(
    n_agents: int, rounds: int, openings: Sequence[Start], *, gauntlet: bool = False
) -> list[ScheduledGame]:
    """Round robin (every pair) or gauntlet (agent 0 against each other agent); per round
    every pairing plays one opening with both colours."""
    if n_agents < 2:
        raise InputError("a tournament needs at least two agents")
    if rounds < 1:
        raise InputError("--rounds must be at least 1")
    pairs = (
        [(0, j) for j in range(1, n_agents)]
        if gauntlet
        else [(i, j) for i in range(n_agents) for j in range(i + 1, n_agents)]
    )
    out: list[ScheduledGame] = []
    k = 0
    for _ in range(rounds):
        for i, j in pairs:
            opening = openings[k % len(openings)]
            k += 1
            for white, black in ((i, j), (j, i)):
                out.append(ScheduledGame(len(out) + 1, (white, black), opening))
    return out


class _Terminated(BaseException):
    """Raised in a worker by SIGTERM, so that the game's ``finally`` blocks stop its agents."""


_IN_GAME = False


def _on_sigterm(signum: int, frame: Any) -> None:
    if _IN_GAME:
        raise _Terminated
    os._exit(128 + signum)


def _worker_init(parent: int) -> None:
    """Workers must not outlive the match.

    Killing only the parent (``kill PID``, a CI step timing out) would otherwise leave each
    worker playing its game to the end, with its engines, on the cores the next benchmark
    wants. On Linux the kernel sends the worker SIGTERM when the parent dies; SIGTERM ends the
    game through its cleanup (the agents' process groups are killed) and then the worker."""
    signal.signal(signal.SIGTERM, _on_sigterm)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(128 + int(signal.SIGTERM))


def _play_scheduled(
    agents: Sequence[Any],
    names: Sequence[str],
    game: ScheduledGame,
    variant: str,
    setup: Setup,
    config: GameConfig,
    log_dir: str | None,
) -> GameResult:
    """Play one scheduled game (in a worker process or here). In a worker, SIGTERM during
    the game unwinds it (its agents are stopped, its log closed) and then ends the worker."""
    global _IN_GAME
    log: JsonlWriter | None = None
    if log_dir is not None:
        log = JsonlWriter(Path(log_dir) / f"game-{game.index:04d}.jsonl", mode="w")
    _IN_GAME = True
    terminated = False
    try:
        rules = find_game(variant)
        result = play_game(
            *[agents[a] for a in game.seats],
            variant=rules,
            state=rules.new_state(setup, game.start),
            config=config,
            log=log,
        )
    except _Terminated:
        terminated = True
    finally:
        _IN_GAME = False
        if log is not None:
            log.close()
    if terminated:
        os._exit(128 + int(signal.SIGTERM))
    result.seats = [names[a] for a in game.seats]
    return result


def run_schedule(
    agents: Sequence[Any],
    schedule: Sequence[ScheduledGame],
    *,
    variant: str | Game = "chess",
    setup: Setup | None = None,
    names: Sequence[str] | None = None,
    config: GameConfig | None = None,
    concurrency: int = 1,
    pgn: str | Path | None = None,
    record: str | Path | None = None,
    results: str | Path | None = None,
    log_dir: str | Path | None = None,
    event: str = "enoch match",
    on_result: Callable[[MatchOutcome, ScheduledGame, GameResult], bool] | None = None,
) -> MatchOutcome:
    """Play the games; ``on_result`` returning True stops the schedule (games already running
    finish and count)."""
    cfg = config or GameConfig()
    game_rules = find_game(variant) if isinstance(variant, str) else variant
    variant_name = game_rules.name
    setup = setup or game_rules.setup()
    names = list(names) if names is not None else unique_names(agents)
    outcome = MatchOutcome(names)
    if concurrency < 1:
        raise InputError("--concurrency must be at least 1")
    log_path = str(log_dir) if log_dir is not None else None
    if log_dir is not None:
        _make_log_dir(Path(log_dir))
    record_writer = RecordWriter(record or pgn, game_rules, mode="w")
    results_writer = JsonlWriter(results, mode="w")
    if not all(isinstance(a, str) for a in agents):
        concurrency = 1  # Python objects cannot be sent to worker processes

    def keep(game: ScheduledGame, result: GameResult) -> bool:
        outcome.games.append((game, result))
        record_writer.write(result, event=event, round_=str(game.index))
        line = {"game": game.index, **result.to_json()}
        results_writer(line)
        return bool(on_result and on_result(outcome, game, result))

    try:
        if concurrency == 1:
            for game in schedule:
                result = _play_scheduled(agents, names, game, variant_name, setup, cfg, log_path)
                if keep(game, result):
                    break
            return outcome
        ctx = multiprocessing.get_context("spawn")  # no fork of a threaded parent
        # Two games in flight per worker: one playing, one queued, so that a worker never
        # idles while the parent records a result and submits the next game (with one in
        # flight, 2 workers gave only 1.5x on short games). Queued games are cancelled when
        # the schedule stops; games already running finish and count.
        in_flight = 2 * concurrency
        with ProcessPoolExecutor(
            max_workers=concurrency,
            mp_context=ctx,
            initializer=_worker_init,
            initargs=(os.getpid(),),
        ) as pool:
            queue = list(schedule)
            running: dict[Future[GameResult], ScheduledGame] = {}
            stop = False
            while queue or running:
                while queue and not stop and len(running) < in_flight:
                    game = queue.pop(0)
                    fut = pool.submit(
                        _play_scheduled, agents, names, game, variant_name, setup, cfg, log_path
                    )
                    running[fut] = game
                if not running:
                    break
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in sorted(done, key=lambda f: running[f].index):
                    game = running.pop(fut)
                    if fut.cancelled():
                        continue
                    if keep(game, fut.result()):
                        stop = True
                if stop:
                    queue.clear()
                    for fut in running:
                        fut.cancel()
        return outcome
    finally:
        results_writer.close()
        record_writer.close()


def _make_log_dir(path: Path) -> None:
    """The log folder: made if its parent exists (a typo in a parent is an error, not a tree
    of new folders), checked writable before any game starts."""
    try:
        exists = path.is_dir()
        parent = path.parent.is_dir()
    except OSError as exc:  # e.g. a name longer than the file system allows
        raise InputError(f"--log-dir {quote(str(path))}: {exc.strerror or exc}") from None
    if not exists:
        if not parent:
            raise InputError(f"--log-dir {str(path)[:200]}: its parent folder does not exist")
        try:
            path.mkdir()
        except OSError as exc:
            raise InputError(f"--log-dir {quote(str(path))}: {exc.strerror or exc}") from None
    if not os.access(path, os.W_OK):
        raise InputError(f"--log-dir {str(path)[:200]}: not writable")


def run_match(
    *agents: Any,
    variant: str | Game = "chess",
    setup: Setup | None = None,
    games: int = 2,
    first: int = 0,
    starts: Sequence[Start] | None = None,
    sprt: Sprt | None = None,
    on_result: Callable[[MatchOutcome, ScheduledGame, GameResult], bool] | None = None,
    **kwargs: Any,
) -> MatchOutcome:
    """A match of ``games`` games between ``agents``, one per seat, rotating seats over the
    game's starts (see :func:`run_schedule` for the rest), starting ``first`` games into the
    schedule. With ``sprt`` (two agents) the match stops as soon as the test decides."""
    rules = find_game(variant) if isinstance(variant, str) else variant
    setup = setup or rules.setup()
    seats = rules.seats(setup)
    if len(agents) != seats:
        raise InputError(
            f"a {rules.name} match with these options needs {seats} agents, not {len(agents)}"
        )
    if sprt is not None and seats != 2:
        raise InputError("an SPRT needs a game of two seats")
    book = list(starts) if starts is not None else rules.starts(setup)
    schedule = match_schedule(games, book, first, seats)

    def after(outcome: MatchOutcome, game: ScheduledGame, result: GameResult) -> bool:
        stop = bool(on_result and on_result(outcome, game, result))
        if sprt is not None:
            decision = sprt.decision(outcome.score(0))
            if decision is not None:
                outcome.stopped_by_sprt = decision
                return True
        return stop

    return run_schedule(
        list(agents), schedule, variant=rules, setup=setup, on_result=after, **kwargs
    )


def run_tournament(
    agents: Sequence[Any],
    *,
    variant: str | Game = "chess",
    setup: Setup | None = None,
    rounds: int = 1,
    gauntlet: bool = False,
    starts: Sequence[Start] | None = None,
    **kwargs: Any,
) -> MatchOutcome:
    """Every pair of agents (or the first against each other, ``gauntlet``) plays each round
    one start from both seats. Games of two seats only."""
    rules = find_game(variant) if isinstance(variant, str) else variant
    setup = setup or rules.setup()
    if rules.seats(setup) != 2:
        raise InputError(f"a tournament needs a game of two seats ({rules.name} has more here)")
    book = list(starts) if starts is not None else rules.starts(setup)
    schedule = tournament_schedule(len(agents), rounds, book, gauntlet=gauntlet)
    kwargs.setdefault("event", "enoch tournament")
    return run_schedule(agents, schedule, variant=rules, setup=setup, **kwargs)


def pairwise_games(outcome: MatchOutcome) -> list[tuple[int, int, float]]:
    """Every game as results between pairs of agents on opposite teams: ``(i, j, points of
    i)`` (one per game for two seats; every opposing pair for four)."""
    out: list[tuple[int, int, float]] = []
    for g, r in outcome.games:
        n = len(g.seats)
        for s in range(n):
            for t in range(s + 1, n):
                if r.points[s] != r.points[t] or _opposed(r, s, t):
                    out.append((g.seats[s], g.seats[t], r.points[s]))
    return out


def _opposed(result: GameResult, s: int, t: int) -> bool:
    teams = result.extras.get("teams")
    if not teams:
        return True
    return bool(teams[s] != teams[t])


def tournament_ratings(outcome: MatchOutcome) -> dict[str, tuple[float, float]]:
    """Bradley-Terry ratings of every agent (mean 0) with a 95% margin."""
    return ratings(outcome.names, pairwise_games(outcome))


def iter_results(outcome: MatchOutcome) -> Iterable[GameResult]:
    return (r for _, r in outcome.games)
