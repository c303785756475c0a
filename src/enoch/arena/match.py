"""Matches and tournaments: schedule games, run them (in parallel processes), record them.

Engine-testing practice (Sunfish, cutechess, fishtest): a fixed opening book, each opening
played twice with colours swapped (so the book's bias cancels), results as W/D/L with an Elo
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

from enoch.arena.records import JsonlWriter, PgnWriter
from enoch.arena.referee import GameConfig, GameResult, play_game
from enoch.arena.stats import Score, Sprt, ratings
from enoch.errors import InputError
from enoch.openings import Opening, default_suite


@dataclass(frozen=True)
class ScheduledGame:
    index: int  # 1-based, also the PGN Round
    white: int  # index into the agent list
    black: int
    opening: Opening


@dataclass
class MatchOutcome:
    """What a match or tournament produced."""

    names: list[str]
    games: list[tuple[ScheduledGame, GameResult]] = field(default_factory=list)
    stopped_by_sprt: str | None = None

    def score(self, player: int, opponent: int | None = None) -> Score:
        sc = Score()
        for g, r in self.games:
            if player not in (g.white, g.black):
                continue
            other = g.black if g.white == player else g.white
            if opponent is not None and other != opponent:
                continue
            sc.add(_points(r, player == g.white))
        return sc


def _points(result: GameResult, as_white: bool) -> float:
    if result.winner is None:
        return 0.5
    return 1.0 if (result.winner == 0) == as_white else 0.0


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


def match_schedule(games: int, openings: Sequence[Opening], first: int = 0) -> list[ScheduledGame]:
    """Agent 0 against agent 1: opening ``i // 2``, colours alternating.

    ``first`` skips that many games of the schedule, so that a long match can be played in
    several runs (a 200-game match at 60+0.6 takes hours) with the openings and colours it
    would have had in one run."""
    if games < 1:
        raise InputError("--games must be at least 1")
    if first < 0:
        raise InputError("--first must not be negative")
    out = []
    for i in range(first, first + games):
        opening = openings[(i // 2) % len(openings)]
        white, black = (0, 1) if i % 2 == 0 else (1, 0)
        out.append(ScheduledGame(i + 1, white, black, opening))
    return out


def tournament_schedule(
    n_agents: int, rounds: int, openings: Sequence[Opening], *, gauntlet: bool = False
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
                out.append(ScheduledGame(len(out) + 1, white, black, opening))
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
        result = play_game(
            agents[game.white],
            agents[game.black],
            start_fen=game.opening.start_fen,
            book_moves=game.opening.moves,
            opening=game.opening.name,
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
    result.white = names[game.white]
    result.black = names[game.black]
    return result


def run_schedule(
    agents: Sequence[Any],
    schedule: Sequence[ScheduledGame],
    *,
    names: Sequence[str] | None = None,
    config: GameConfig | None = None,
    concurrency: int = 1,
    pgn: str | Path | None = None,
    results: str | Path | None = None,
    log_dir: str | Path | None = None,
    event: str = "enoch match",
    on_result: Callable[[MatchOutcome, ScheduledGame, GameResult], bool] | None = None,
) -> MatchOutcome:
    """Play the games; ``on_result`` returning True stops the schedule (games already running
    finish and count)."""
    cfg = config or GameConfig()
    names = list(names) if names is not None else unique_names(agents)
    outcome = MatchOutcome(names)
    pgn_writer = PgnWriter(pgn, mode="w")
    results_writer = JsonlWriter(results, mode="w")
    log_path = str(log_dir) if log_dir is not None else None
    if concurrency < 1:
        raise InputError("--concurrency must be at least 1")
    if not all(isinstance(a, str) for a in agents):
        concurrency = 1  # Python objects cannot be sent to worker processes

    def record(game: ScheduledGame, result: GameResult) -> bool:
        outcome.games.append((game, result))
        pgn_writer.write(result, event=event, round_=str(game.index))
        line = {"game": game.index, **result.to_json()}
        results_writer(line)
        return bool(on_result and on_result(outcome, game, result))

    try:
        if concurrency == 1:
            for game in schedule:
                result = _play_scheduled(agents, names, game, cfg, log_path)
                if record(game, result):
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
                    fut = pool.submit(_play_scheduled, agents, names, game, cfg, log_path)
                    running[fut] = game
                if not running:
                    break
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in sorted(done, key=lambda f: running[f].index):
                    game = running.pop(fut)
                    if fut.cancelled():
                        continue
                    if record(game, fut.result()):
                        stop = True
                if stop:
                    queue.clear()
                    for fut in running:
                        fut.cancel()
        return outcome
    finally:
        results_writer.close()


def run_match(
    a: Any,
    b: Any,
    *,
    games: int = 2,
    first: int = 0,
    openings: Sequence[Opening] | None = None,
    sprt: Sprt | None = None,
    on_result: Callable[[MatchOutcome, ScheduledGame, GameResult], bool] | None = None,
    **kwargs: Any,
) -> MatchOutcome:
    """A match of ``games`` games between ``a`` and ``b`` (see :func:`run_schedule` for the
    rest), starting ``first`` games into the schedule. With ``sprt`` the match stops as soon as
    the test decides."""
    book = list(openings) if openings is not None else default_suite()
    schedule = match_schedule(games, book, first)

    def after(outcome: MatchOutcome, game: ScheduledGame, result: GameResult) -> bool:
        stop = bool(on_result and on_result(outcome, game, result))
        if sprt is not None:
            decision = sprt.decision(outcome.score(0))
            if decision is not None:
                outcome.stopped_by_sprt = decision
                return True
        return stop

    return run_schedule([a, b], schedule, on_result=after, **kwargs)


def run_tournament(
    agents: Sequence[Any],
    *,
    rounds: int = 1,
    gauntlet: bool = False,
    openings: Sequence[Opening] | None = None,
    **kwargs: Any,
) -> MatchOutcome:
    book = list(openings) if openings is not None else default_suite()
    schedule = tournament_schedule(len(agents), rounds, book, gauntlet=gauntlet)
    kwargs.setdefault("event", "enoch tournament")
    return run_schedule(agents, schedule, **kwargs)


def tournament_ratings(outcome: MatchOutcome) -> dict[str, tuple[float, float]]:
    games = [(g.white, g.black, _points(r, True)) for g, r in outcome.games]
    return ratings(outcome.names, games)


def start_positions(fen: str | None, openings_file: str | None) -> list[Opening] | None:
    """The openings a CLI match uses: one FEN, a file, or (None) the shipped suite."""
    if fen is not None and openings_file is not None:
        raise InputError("give --fen or --openings, not both")
    if fen is not None:
        from enoch.rules import Position

        Position.from_fen(fen)
        return [Opening("FEN", fen, ())]
    if openings_file is not None:
        from enoch.openings import load_openings

        return load_openings(openings_file)
    return None


def iter_results(outcome: MatchOutcome) -> Iterable[GameResult]:
    return (r for _, r in outcome.games)
