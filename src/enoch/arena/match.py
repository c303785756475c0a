"""Matches and tournaments of any game: schedule games, run them (in parallel), record them.

Engine-testing practice (Sunfish, cutechess, fishtest): a fixed set of starts (chess openings,
Enochian arrays), each start played once from every seat by every agent (colours swapped for
two seats, seats rotated for four), so the start's bias cancels; results as W/D/L with an Elo
difference, its 95% interval and LOS, and an SPRT that stops the match once it has decided.

The unit of work is a game pair (one start, seats swapped), played in order by one worker, on
any backend (:mod:`enoch.arena.backends`: here, local worker processes, a Dask cluster). Each
game builds its own players from their names inside the worker and closes them at its end, so
an external agent never outlives its game and one agent's crash costs one game (a forfeit), not
the match. A worker that dies costs nothing: the unit is played again from its start (the same
seeds give the same games) and recorded once. This process alone writes the records (results
lines with their ``pair`` and ``attempt``, game records, event logs), in the order games
finish, so a results file can be resumed (``resume``) by a driver that died. Agents given as
Python objects cannot cross a process boundary: they are played one game at a time here.
"""

from __future__ import annotations

import json
import math
import os
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, CancelledError, Future, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from enoch.arena.backends import (
    IN_FLIGHT_PER_SLOT,
    MAX_ATTEMPTS,
    Backend,
    agent_commands,
    game_guard,
    make_backend,
    stopped,
)
from enoch.arena.records import JsonlWriter, RecordWriter
from enoch.arena.referee import GameConfig, GameResult, play_game
from enoch.arena.stats import PairScore, Score, Sprt, ratings
from enoch.arena.transport import resolve_sandbox
from enoch.errors import InputError, quote
from enoch.game.api import Game, Setup, Start
from enoch.game.registry import find_game

UNRATED = ABANDONED = "abandoned"  # the termination no statistic counts (result ``*``)
#: agents that wait on the network, not the CPU: a match of only these (and the cheap
#: ``builtin:random``) runs its games in threads, not processes (see :func:`network_bound`)
NETWORK_PREFIXES = ("llm:", "http://", "https://")
_IN_PROCESS = ("builtin:", "human", *NETWORK_PREFIXES)  # agents that start no process


def network_bound(agents: Sequence[Any]) -> bool:
    """True when the games of these agents wait on the network: at least one ``llm:`` or
    ``http(s)://`` agent and otherwise only ``builtin:random``. Such games run in threads
    (32 at once cost 32 threads, not 32 interpreters on 2 cores)."""
    if not all(isinstance(a, str) for a in agents):
        return False
    specs = [a.strip() for a in agents]
    return any(a.startswith(NETWORK_PREFIXES) for a in specs) and all(
        a.startswith(NETWORK_PREFIXES) or a == "builtin:random" for a in specs
    )


@dataclass(frozen=True)
class ScheduledGame:
    index: int  # 1-based, also the PGN Round
    seats: tuple[int, ...]  # the agent (index into the agent list) of each seat
    start: Start
    pair: int = 0  # 1-based: the games of one start with seats swapped (0: no pair)

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
    _pairs: dict[int, tuple[int, dict[int, list[float]], PairScore]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def score(self, player: int, opponent: int | None = None) -> Score:
        """``player``'s games (against ``opponent`` only, if given), one result per game."""
        sc = Score()
        for g, r in self.games:
            if player not in g.seats or r.termination == UNRATED:
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

    def pair_score(self, player: int = 0) -> PairScore:
        """``player``'s complete game pairs of two seats (the pentanomial): a pair with a game
        not yet played or ``abandoned`` does not count. Incremental (games are only ever
        appended), so that an SPRT checked after every game of a long match stays cheap."""
        seen, pending, score = self._pairs.get(player, (0, {}, PairScore()))
        if seen > len(self.games):  # the list was replaced: start again
            seen, pending, score = 0, {}, PairScore()
        for g, r in self.games[seen:]:
            if g.pair and len(g.seats) == 2 and player in g.seats:
                points = pending.setdefault(g.pair, [])
                points.append(
                    math.nan if r.termination == UNRATED else r.points[g.seats.index(player)]
                )
                if len(points) == 2 and not any(map(math.isnan, points)):
                    score.add(sum(points))
        self._pairs[player] = (len(self.games), pending, score)
        return PairScore(list(score.counts))


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
        out.append(ScheduledGame(i + 1, order, start, pair=i // seats + 1))
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
                out.append(ScheduledGame(len(out) + 1, (white, black), opening, pair=k))
    return out


class _Expired(Exception):
    """A game outlived its time limit, or its run was stopped: it is cancelled."""


@dataclass(frozen=True)
class UnitJob:
    """Everything a worker needs to play one unit of work (picklable: it crosses to worker
    processes and Dask workers)."""

    agents: tuple[Any, ...]
    names: tuple[str, ...]
    games: tuple[ScheduledGame, ...]
    variant: str
    setup: Setup
    config: GameConfig
    logs: bool  # collect each game's events for the driver to write
    game_timeout: float | None
    version: str
    run: str  # this run's id (a stop flag on Dask workers)


@dataclass
class Played:
    """One finished game as a worker sends it back."""

    game: int
    attempt: int
    result: GameResult
    events: list[dict[str, Any]] = field(default_factory=list)


def play_unit(job: UnitJob, attempt: int = 1) -> list[Played]:
    """Play a unit's games in order (in a worker or here) and return them; the driver writes
    them. A game past ``game_timeout`` seconds, or of a stopped run, ends at its next move as
    ``abandoned``."""
    import enoch

    if enoch.__version__ != job.version:
        raise InputError(
            f"a worker runs enoch {enoch.__version__}, the driver {job.version}: "
            "install the same version"
        )
    out = []
    for game in job.games:
        events: list[dict[str, Any]] = []
        with game_guard():
            result = _play_one(job, game, events)
        result.seats = [job.names[a] for a in game.seats]
        out.append(Played(game.index, attempt, result, events if job.logs else []))
    return out


def _play_one(job: UnitJob, game: ScheduledGame, events: list[dict[str, Any]]) -> GameResult:
    rules = find_game(job.variant)
    state = rules.new_state(job.setup, game.start)
    deadline = time.monotonic() + job.game_timeout if job.game_timeout else math.inf

    def check(referee: Any, info: dict[str, Any]) -> None:
        if time.monotonic() > deadline:
            raise _Expired(f"the game outlived its limit of {job.game_timeout:g} s")
        if stopped(job.run):
            raise _Expired("the match stopped")

    try:
        return play_game(
            *[job.agents[a] for a in game.seats],
            variant=rules,
            state=state,
            config=job.config,
            log=events.append if job.logs else None,
            on_move=check,
        )
    except _Expired as exc:
        result = GameResult(
            variant=rules.name,
            seats=[job.names[a] for a in game.seats],
            result="*",
            termination="abandoned",
            reason=f"cancelled: {exc}",
            winner=None,
            points=[0.0] * len(game.seats),
            moves=state.moves(),
            extras=state.summary(),
            seat_names=tuple(rules.seat_names),
        )
        events.append(
            {
                "event": "end",
                "ply": state.ply,
                "result": "*",
                "termination": "abandoned",
                "reason": result.reason,
                "winner": None,
                "points": result.points,
            }
        )
        return result


def _units(schedule: Sequence[ScheduledGame]) -> list[tuple[ScheduledGame, ...]]:
    """The schedule cut into units of work: the games of one pair together, in order; a game
    of no pair (``pair == 0``) is a unit of its own."""
    units: dict[Any, list[ScheduledGame]] = {}
    for g in schedule:
        units.setdefault(g.pair or ("game", g.index), []).append(g)
    return [tuple(u) for u in units.values()]


def run_schedule(
    agents: Sequence[Any],
    schedule: Sequence[ScheduledGame],
    *,
    variant: str | Game = "chess",
    setup: Setup | None = None,
    names: Sequence[str] | None = None,
    config: GameConfig | None = None,
    concurrency: int | None = 1,
    backend: str | Backend = "local",
    address: str | None = None,
    dashboard: bool = False,
    game_timeout: float | None = None,
    resume: str | Path | None = None,
    pgn: str | Path | None = None,
    record: str | Path | None = None,
    results: str | Path | None = None,
    log_dir: str | Path | None = None,
    event: str = "enoch match",
    on_result: Callable[[MatchOutcome, ScheduledGame, GameResult], bool] | None = None,
) -> MatchOutcome:
    """Play the games, a unit (a pair) at a time, on ``backend`` (``local``: here or in
    ``concurrency`` worker processes; ``dask``: a local cluster of ``concurrency`` workers, or
    the scheduler at ``address``; or a :class:`Backend`). This process alone writes the
    records, in the order games finish. ``on_result`` returning True stops the schedule:
    queued units are cancelled (on local processes, games already running finish and count).

    ``resume`` names an earlier run's results file: its games are not played again, and new
    lines are appended to it (unless ``results`` names another file)."""
    cfg = config or GameConfig()
    if any(isinstance(a, str) and not a.startswith(_IN_PROCESS) for a in agents):
        # the sandbox probed here, once: workers get limits that need no probe (and so a
        # machine without namespaces hears of it once, not once per worker)
        cfg = replace(cfg, limits=resolve_sandbox(cfg.limits))
    game_rules = find_game(variant) if isinstance(variant, str) else variant
    variant_name = game_rules.name
    setup = setup or game_rules.setup()
    names = list(names) if names is not None else unique_names(agents)
    outcome = MatchOutcome(names)
    if concurrency is not None and concurrency < 1:
        raise InputError("--concurrency must be at least 1")
    if game_timeout is not None and not (game_timeout > 0 and math.isfinite(game_timeout)):
        raise InputError("--game-timeout must be a positive number of seconds")
    by_index = {g.index: g for g in schedule}
    recorded = read_recorded(resume, by_index, names) if resume is not None else {}
    if resume is not None and results is None:
        results = resume
    mode = "a" if resume is not None else "w"
    if log_dir is not None:
        _make_log_dir(Path(log_dir))
    in_process = not all(isinstance(a, str) for a in agents)  # objects cannot be sent away
    own_backend = not isinstance(backend, Backend)
    runner = (
        make_backend(
            backend,
            concurrency,
            address=address,
            dashboard=dashboard,
            in_process=in_process,
            threads=network_bound(agents),
        )
        if isinstance(backend, str)
        else backend
    )
    import enoch

    try:
        runner.check(agent_commands(agents), enoch.__version__)
        record_writer = RecordWriter(record or pgn, game_rules, mode=mode)
        results_writer = JsonlWriter(results, mode=mode)
    except BaseException:
        if own_backend:
            runner.close()
        raise
    for index in sorted(recorded):
        outcome.games.append((by_index[index], recorded[index]))
    run_id = uuid.uuid4().hex[:12]

    def keep(game: ScheduledGame, played: Played) -> bool:
        # The results line last: it is what --resume trusts, so a driver killed in between
        # leaves a game that is played again (its log rewritten), never one half recorded.
        result = played.result
        outcome.games.append((game, result))
        if log_dir is not None:
            _write_log(Path(log_dir), game.index, played)
        record_writer.write(result, event=event, round_=str(game.index))
        line = {
            "game": game.index,
            "pair": game.pair or None,
            "attempt": played.attempt,
            **result.to_json(),
        }
        results_writer(line)
        return bool(on_result and on_result(outcome, game, result))

    def job(unit: tuple[ScheduledGame, ...]) -> UnitJob:
        return UnitJob(
            agents=tuple(agents),
            names=tuple(names),
            games=unit,
            variant=variant_name,
            setup=setup,
            config=cfg,
            logs=log_dir is not None,
            game_timeout=game_timeout,
            version=enoch.__version__,
            run=run_id,
        )

    todo = [
        u
        for u in (tuple(g for g in unit if g.index not in recorded) for unit in _units(schedule))
        if u
    ]
    queue: deque[tuple[tuple[ScheduledGame, ...], int]] = deque((u, 1) for u in todo)
    running: dict[Future[list[Played]], tuple[tuple[ScheduledGame, ...], int]] = {}
    in_flight = IN_FLIGHT_PER_SLOT * runner.slots
    stop = False
    try:
        while queue or running:
            while queue and not stop and len(running) < in_flight:
                unit, attempt = queue.popleft()
                key = f"enoch-{run_id}-{unit[0].pair or unit[0].index}"
                running[runner.submit(play_unit, key, attempt, job(unit))] = (unit, attempt)
            if not running:
                break
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in sorted(done, key=lambda f: running[f][0][0].index):
                unit, attempt = running.pop(fut)
                if fut.cancelled():
                    continue
                try:
                    played = fut.result()
                except CancelledError:
                    continue
                except Exception as exc:
                    if runner.lost(exc) and not stop:
                        if attempt >= MAX_ATTEMPTS:
                            raise InputError(
                                f"game {unit[0].index}: its worker died {attempt} times"
                            ) from None
                        queue.appendleft((unit, attempt + 1))
                        continue
                    raise
                for p in played:
                    if keep(by_index[p.game], p):
                        stop = True
            if stop and (queue or running):
                queue.clear()
                runner.cancel(list(running), run_id)
                if runner.cancels_running:
                    break  # nothing more will come back
        return outcome
    finally:
        try:
            if own_backend:
                runner.close()
        finally:
            results_writer.close()
            record_writer.close()


def _write_log(folder: Path, index: int, played: Played) -> None:
    """A game's event log, written by the driver (one file per game; a replayed game's log is
    that of the attempt that finished)."""
    log = JsonlWriter(folder / f"game-{index:04d}.jsonl", mode="w")
    try:
        for ev in played.events:
            if ev.get("event") == "start":
                ev = {**ev, "game": index, "attempt": played.attempt}
            log(ev)
    finally:
        log.close()


def read_recorded(
    path: str | Path, schedule: dict[int, ScheduledGame], names: Sequence[str]
) -> dict[int, GameResult]:
    """The games an earlier run of this schedule recorded in its results file (for
    ``--resume``). A last line cut short by a killed driver is dropped from the file; a line
    of another match (other agents in the seats, a game not in the schedule) is an error."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}  # nothing recorded yet: a fresh run writing to that file
    except OSError as exc:
        raise InputError(f"--resume {str(path)[:200]}: {exc.strerror or exc}") from None
    if data and not data.endswith(b"\n"):
        keep = data.rfind(b"\n") + 1
        with open(path, "r+b") as f:
            f.truncate(keep)
        data = data[:keep]
    out: dict[int, GameResult] = {}
    for n, raw in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
            index = int(line["game"])
            seats = [str(s) for s in line["seats"]]
        except (ValueError, KeyError, TypeError):
            raise InputError(
                f"--resume {str(path)[:200]}: line {n} is not a results line"
            ) from None
        game = schedule.get(index)
        expected = [names[a] for a in game.seats] if game else None
        if seats != expected:
            raise InputError(
                f"--resume {str(path)[:200]}: line {n} (game {index}) is not a game of this "
                "match (its agents, seats or schedule differ)"
            )
        out[index] = _result_from_line(line)
    return out


def _result_from_line(line: dict[str, Any]) -> GameResult:
    common = {
        "variant",
        "seats",
        "result",
        "termination",
        "reason",
        "winner",
        "points",
        "moves",
        "seconds",
        "plies",
        "game",
        "pair",
        "attempt",
    }
    return GameResult(
        variant=str(line.get("variant", "")),
        seats=[str(s) for s in line["seats"]],
        result=str(line.get("result", "*")),
        termination=str(line.get("termination", "")),
        reason=str(line.get("reason", "")),
        winner=line.get("winner"),
        points=[float(p) for p in line.get("points", [])],
        moves=list(line.get("moves", [])),
        extras={k: v for k, v in line.items() if k not in common},
        seconds=float(line.get("seconds", 0.0)),
    )


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
    schedule. With ``sprt`` (two agents) the match stops as soon as the test decides, on the
    pentanomial of the complete game pairs."""
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
            decision = sprt.decision(outcome.pair_score(0))
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
        if r.termination == UNRATED:
            continue
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
