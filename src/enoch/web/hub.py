"""The server's games and matches, and the streams that carry them to open pages.

Why threads and the arena's own loops. Every game the page starts is an ordinary arena game —
:class:`enoch.arena.referee.Referee` with players from :func:`enoch.arena.players.make_player`
— in a thread of its own; a person is one more :class:`~enoch.arena.players.Player` whose
``ask`` waits on a queue that the page's POST fills, and the referee judges that answer like any
agent's. Matches and tournaments are :func:`enoch.arena.match.run_match` /
``run_tournament`` with an event-log folder, followed by the same folder watcher that
``enoch serve --watch DIR`` uses for another process's match: one path, tested twice.

Nothing here depends on a page being open: games and matches run in the server's threads, so a
closed tab ends nothing a match needs. A person's seat waits at most :data:`HUMAN_IDLE` seconds
for an answer when no clock runs (then it forfeits on time), so an abandoned game frees its slot.

Streams: each page holds one server-sent-event stream, subscribed to topics (``game:ID``,
``match:ID``, ``games``); a thread publishes through ``loop.call_soon_threadsafe`` into each
subscriber's bounded queue, and a subscriber too slow to drain it is dropped (its page
reconnects and refetches).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import secrets
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from enoch.arena.players import Player, Turn
from enoch.arena.transport import AgentCrash, AgentTimeout
from enoch.errors import InputError
from enoch.web.feeds import Feed

#: seconds a person's seat waits for an answer when no clock runs (then: timeout)
HUMAN_IDLE = 1800.0
#: events a slow page may have pending before it is dropped (it reconnects and refetches)
QUEUE_SIZE = 2000
#: finished games kept in memory for the review page (oldest dropped first)
MAX_FINISHED = 1000
#: how often the folder watcher looks for new log lines (seconds)
WATCH_INTERVAL = 0.1
#: agent names that start a process or reach the network: only with --allow-commands
COMMAND_PREFIXES = ("exec:", "jsonl:", "uci:", "http://", "https://")


class Refused(Exception):
    """A request the server refuses: ``status`` is the HTTP status, the message its reason."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class WebHuman(Player):
    """A person at the page: ``ask`` waits for the answer the page POSTs."""

    def __init__(self, name: str, feed: Feed, seat: int, publish: Any) -> None:
        self.name = name
        self.feed = feed
        self.seat = seat
        self.publish = publish
        self.answers: queue.Queue[Any] = queue.Queue(maxsize=1)
        self.turn: Turn | None = None
        self.closed = False
        self.timed = True

    def ask(self, turn: Turn) -> Any:
        while True:  # an answer left from an earlier turn is not this turn's
            try:
                self.answers.get_nowait()
            except queue.Empty:
                break
        self.turn = turn
        with self.feed.lock:
            self.feed.waiting = self.seat
        self.publish(self.feed)
        limit = turn.timeout if turn.timeout is not None else HUMAN_IDLE
        limit = min(limit, HUMAN_IDLE)
        try:
            answer = self.answers.get(timeout=limit)
        except queue.Empty:
            raise AgentTimeout(f"no answer from the page within {limit:.0f} s") from None
        finally:
            self.turn = None
            with self.feed.lock:
                self.feed.waiting = None
        if answer is _CLOSED:
            raise AgentCrash("the server stopped the game")
        return answer

    def close(self) -> None:
        self.closed = True
        with contextlib.suppress(queue.Full):
            self.answers.put_nowait(_CLOSED)


_CLOSED = object()


class _Stopped(Exception):
    """Raised in a game's thread when the server stops."""


@dataclass
class Subscriber:
    topics: set[str]
    queue: asyncio.Queue[dict[str, Any] | None]
    loop: asyncio.AbstractEventLoop
    dropped: bool = False


@dataclass
class MatchRun:
    """A match or tournament (run here, or watched in a folder)."""

    id: str
    kind: str  # match, tournament, watch
    variant: str
    names: list[str]
    folder: Path
    sprt: Any = None
    status: str = "running"
    games: OrderedDict[int, Feed] = field(default_factory=OrderedDict)
    planned: int | None = None
    error: str | None = None
    stopped_by_sprt: str | None = None


class Hub:
    """Every game and match of this server, and the open streams."""

    def __init__(
        self,
        *,
        allow_commands: bool = False,
        max_games: int = 16,
        max_matches: int = 2,
        data_dir: str | Path | None = None,
    ) -> None:
        self.allow_commands = allow_commands
        self.max_games = max_games
        self.max_matches = max_matches
        self.games: OrderedDict[str, Feed] = OrderedDict()
        self.matches: dict[str, MatchRun] = {}
        self.humans: dict[str, list[WebHuman]] = {}
        self.live_states: dict[str, Any] = {}
        self.players: dict[str, list[Player]] = {}
        self.subscribers: list[Subscriber] = []
        self.lock = threading.RLock()
        self.stopping = threading.Event()
        self.threads: list[threading.Thread] = []
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if data_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="enoch-serve-")
            data_dir = self._tmp.name
        self.data_dir = Path(data_dir)

    # ------------------------------------------------------------------ streams
    def subscribe(self, topics: set[str]) -> Subscriber:
        loop = asyncio.get_running_loop()
        sub = Subscriber(topics, asyncio.Queue(maxsize=QUEUE_SIZE), loop)
        with self.lock:
            self.subscribers.append(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        with self.lock, contextlib.suppress(ValueError):
            self.subscribers.remove(sub)

    def broadcast(self, topics: tuple[str, ...], message: dict[str, Any]) -> None:
        with self.lock:
            subs = list(self.subscribers)
        for sub in subs:
            if sub.dropped or not (sub.topics & set(topics) or "*" in sub.topics):
                continue
            with contextlib.suppress(RuntimeError):  # its loop closed
                sub.loop.call_soon_threadsafe(_offer, sub, message)

    def publish(self, feed: Feed, message: dict[str, Any] | None = None) -> None:
        if message is None:
            with feed.lock:
                message = feed._message()
        topics = ("game:" + feed.id, "games") + (("match:" + feed.match,) if feed.match else ())
        self.broadcast(topics, message)

    # ------------------------------------------------------------------ games
    def check_agents(self, specs: list[str], game: Any) -> None:
        from enoch.arena.players import HUMAN, check_agent

        for spec in specs:
            if not isinstance(spec, str) or not spec.strip():
                raise Refused(400, "every seat needs an agent name")
            if len(spec) > 500:
                raise Refused(400, "agent name longer than 500 characters")
            if spec.strip().startswith(COMMAND_PREFIXES) and not self.allow_commands:
                raise Refused(
                    403,
                    f"agent {spec[:60]!r} starts a process or reaches the network: the server "
                    "must be started with --allow-commands",
                )
            if spec.strip() == HUMAN:
                continue
            try:
                check_agent(spec, game)
            except InputError as exc:
                raise Refused(400, str(exc)) from None

    def running_games(self) -> int:
        with self.lock:
            return sum(1 for f in self.games.values() if f.status != "finished" and f.match is None)

    def new_id(self, prefix: str) -> str:
        return prefix + secrets.token_hex(4)

    def start_game(self, request: dict[str, Any]) -> Feed:
        """Start one game from a validated request (see the OpenAPI ``NewGame``)."""
        from enoch.arena.players import HUMAN, make_player
        from enoch.arena.referee import Referee
        from enoch.game.registry import find_game

        if self.stopping.is_set():
            raise Refused(409, "the server is stopping")
        try:
            game = find_game(str(request.get("variant", "chess")))
        except InputError as exc:
            raise Refused(400, str(exc)) from None
        options = request.get("options") or {}
        max_plies = request.get("max_plies")
        if "openings" in options:
            raise Refused(400, "option openings names a file on the server: not from the page")
        try:
            setup = game.setup(options, max_plies=max_plies or game.default_max_plies)
            if request.get("state") is not None:
                from enoch.web.views import state_from_log

                state = state_from_log(game.name, request["state"])
                if state.is_terminal():
                    raise Refused(400, "that state is already over")
            else:
                state = game.new_state(setup)
        except InputError as exc:
            raise Refused(400, str(exc)) from None
        except (ValueError, TypeError, KeyError, IndexError, RecursionError) as exc:
            raise Refused(400, f"bad start state: {type(exc).__name__}") from None
        seats = [str(s).strip() for s in request.get("seats") or []]
        if len(seats) != state.seats:
            raise Refused(
                400, f"{game.name} with these options has {state.seats} seats, not {len(seats)}"
            )
        self.check_agents(seats, game)
        config = _game_config(request)
        with self.lock:
            if self.running_games() >= self.max_games:
                raise Refused(
                    429, f"{self.max_games} games are running already (the server's limit)"
                )
            feed = Feed(self.new_id("g"), game.name, seats=seats, options=dict(options))
            feed.humans = [i for i, s in enumerate(seats) if s == HUMAN]
            self.games[feed.id] = feed
            self._trim()
        players: list[Player] = []
        humans: list[WebHuman] = []
        try:
            for seat, spec in enumerate(seats):
                if spec == HUMAN:
                    name = (
                        "you" if len(feed.humans) == 1 else f"you ({game.seat_name(setup, seat)})"
                    )
                    human = WebHuman(name, feed, seat, self.publish)
                    # a person is held to the game's clocks, never to the agents' move time
                    human.timed = config.tc is not None
                    humans.append(human)
                    players.append(human)
                else:
                    players.append(make_player(spec, game, limits=config.limits))
        except InputError as exc:
            for p in players:
                with contextlib.suppress(Exception):
                    p.close()
            with self.lock:
                self.games.pop(feed.id, None)
            raise Refused(400, str(exc)) from None
        self.humans[feed.id] = humans
        self.live_states[feed.id] = state
        self.players[feed.id] = players

        def log(event: dict[str, Any]) -> None:
            if self.stopping.is_set() and event.get("event") != "end":
                raise _Stopped  # ends the game through the referee's cleanup
            message = feed.ingest(event, live=state)
            if message is not None:
                self.publish(feed, message)

        referee = Referee(state, players, config=config, log=log)

        def run() -> None:
            try:
                result = referee.play()
                feed.result_object = result  # type: ignore[attr-defined]
                self.publish(feed, feed.finish(result.to_json()))
            except Exception as exc:  # stopped, or an internal failure: end the feed, say why
                stopped = isinstance(exc, _Stopped)
                with feed.lock:
                    feed.status = "finished"
                    feed.result = {
                        "result": "*",
                        "termination": "abandoned" if stopped else "error",
                        "reason": "the server stopped"
                        if stopped
                        else f"{type(exc).__name__}: {exc}"[:300],
                    }
                self.publish(feed)
            finally:
                for p in players:
                    with contextlib.suppress(Exception):
                        p.close()
                self.humans.pop(feed.id, None)
                self.live_states.pop(feed.id, None)
                self.players.pop(feed.id, None)

        thread = threading.Thread(target=run, name=f"enoch-game-{feed.id}", daemon=True)
        self.threads.append(thread)
        thread.start()
        return feed

    def answer(self, game_id: str, seat: int | None, answer: Any) -> dict[str, Any]:
        """A person's answer for the seat the game waits on; checked by the game now (a
        misclick is not a forfeit), then judged by the referee like any agent's answer."""
        from enoch.game.api import Refusal

        feed = self.get(game_id)
        humans = self.humans.get(game_id) or []
        with feed.lock:
            waiting = feed.waiting
            if feed.status == "finished":
                raise Refused(409, "the game is over")
            if waiting is None:
                raise Refused(409, "the game is not waiting for a person's answer now")
            if seat is not None and seat != waiting:
                raise Refused(409, f"it is seat {waiting}'s turn, not seat {seat}'s")
            human = next((h for h in humans if h.seat == waiting), None)
            if human is None or human.turn is None:
                raise Refused(409, "the game is not waiting for a person's answer now")
            state = self.live_states.get(game_id)
            if state is not None:
                verdict = state.judge(answer)
                if isinstance(verdict, Refusal) and verdict.kind != "rule":
                    raise Refused(422, verdict.reason)
            try:
                human.answers.put_nowait(answer)
            except queue.Full:
                raise Refused(409, "an answer for this turn is already on its way") from None
            human.turn = None  # one answer a turn: a second POST now gets 409
        return {"accepted": True, "seat": waiting}

    def get(self, game_id: str) -> Feed:
        with self.lock:
            feed = self.games.get(game_id)
            if feed is None:
                for run in self.matches.values():
                    for f in run.games.values():
                        if f.id == game_id:
                            return f
                raise Refused(404, f"no game {game_id[:40]!r}")
            return feed

    def all_games(self) -> list[Feed]:
        with self.lock:
            out = list(self.games.values())
            for run in self.matches.values():
                out.extend(run.games.values())
        return out

    def _trim(self) -> None:
        finished = [k for k, f in self.games.items() if f.status == "finished"]
        for key in finished[: max(0, len(finished) - MAX_FINISHED)]:
            self.games.pop(key, None)

    # ------------------------------------------------------------------ matches
    def start_match(self, request: dict[str, Any]) -> MatchRun:
        from enoch.arena.match import run_match, run_tournament, unique_names
        from enoch.arena.stats import Sprt
        from enoch.game.registry import find_game

        if self.stopping.is_set():
            raise Refused(409, "the server is stopping")
        kind = str(request.get("kind") or "match")
        try:
            game = find_game(str(request.get("variant", "chess")))
            # (no max_plies: the game's own default, Enochian 400)
            setup = game.setup(request.get("options") or {}, max_plies=request.get("max_plies"))
            agents = [str(a).strip() for a in request.get("agents") or []]
            if "human" in agents:
                raise Refused(400, "a match is between agents: play a person in a single game")
            self.check_agents(agents, game)
            sprt = Sprt.parse(str(request["sprt"])) if request.get("sprt") else None
        except InputError as exc:
            raise Refused(400, str(exc)) from None
        config = _game_config(request)
        with self.lock:
            running = sum(1 for r in self.matches.values() if r.status == "running")
            if running >= self.max_matches:
                raise Refused(429, f"{self.max_matches} matches are running already")
            match_id = self.new_id("m")
            folder = self.data_dir / match_id
            folder.mkdir(parents=True)
            run = MatchRun(match_id, kind, game.name, unique_names(agents), folder, sprt)
            self.matches[match_id] = run
        games = int(request.get("games") or 2)
        rounds = int(request.get("rounds") or 1)
        concurrency = int(request.get("concurrency") or 1)
        run.planned = games if kind == "match" else None
        watcher = FolderWatcher(self, run)

        def on_result(outcome: Any, scheduled: Any, result: Any) -> bool:
            watcher.poll()  # the log's last lines first
            feed = run.games.get(scheduled.index)
            if feed is not None:
                self.publish(feed, feed.finish({"game": scheduled.index, **result.to_json()}))
            self.broadcast(("match:" + run.id, "games"), self.match_message(run))
            return self.stopping.is_set()

        def play() -> None:
            try:
                if kind == "tournament":
                    run_tournament(
                        agents,
                        variant=game,
                        setup=setup,
                        rounds=rounds,
                        gauntlet=bool(request.get("gauntlet")),
                        config=config,
                        concurrency=concurrency,
                        log_dir=run.folder,
                        results=run.folder / "results.jsonl",
                        on_result=on_result,
                    )
                else:
                    outcome = run_match(
                        *agents,
                        variant=game,
                        setup=setup,
                        games=games,
                        sprt=sprt,
                        config=config,
                        concurrency=concurrency,
                        log_dir=run.folder,
                        results=run.folder / "results.jsonl",
                        on_result=on_result,
                    )
                    run.stopped_by_sprt = outcome.stopped_by_sprt
            except Exception as exc:
                run.error = f"{type(exc).__name__}: {exc}"[:300]
            finally:
                watcher.poll()
                run.status = "finished"
                self.broadcast(("match:" + run.id, "games"), self.match_message(run))

        if kind == "tournament":
            try:
                from enoch.arena.match import tournament_schedule
                from enoch.game.api import Start

                gauntlet = bool(request.get("gauntlet"))
                run.planned = len(
                    tournament_schedule(len(agents), rounds, [Start("-")], gauntlet=gauntlet)
                )
            except InputError as exc:
                with self.lock:
                    self.matches.pop(match_id, None)
                raise Refused(400, str(exc)) from None
        elif len(agents) != game.seats(setup):
            with self.lock:
                self.matches.pop(match_id, None)
            raise Refused(
                400, f"a {game.name} match here needs {game.seats(setup)} agents, not {len(agents)}"
            )
        watcher.start()
        thread = threading.Thread(target=play, name=f"enoch-match-{match_id}", daemon=True)
        self.threads.append(thread)
        thread.start()
        return run

    def watch_folder(self, folder: str | Path) -> MatchRun:
        """Follow the event logs another ``enoch match --log-dir`` writes into ``folder``."""
        path = Path(folder)
        if not path.is_dir():
            raise InputError(f"--watch {str(path)[:200]}: not a folder")
        run = MatchRun("watch", "watch", "chess", [], path)
        with self.lock:
            self.matches[run.id] = run
        watcher = FolderWatcher(self, run, follow=True)
        watcher.start()
        return run

    def get_match(self, match_id: str) -> MatchRun:
        with self.lock:
            run = self.matches.get(match_id)
        if run is None:
            raise Refused(404, f"no match {match_id[:40]!r}")
        return run

    def match_message(self, run: MatchRun) -> dict[str, Any]:
        from enoch.web.standings import standings

        with self.lock:
            feeds = list(run.games.values())
        out = {
            "type": "match",
            "id": run.id,
            "kind": run.kind,
            "variant": run.variant,
            "status": run.status,
            "names": list(run.names),
            "planned": run.planned,
            "error": run.error,
            "stopped_by_sprt": run.stopped_by_sprt,
            "games": [f.brief() for f in feeds],
            "sent_at": time.time(),
        }
        out.update(standings(run.names, feeds, run.sprt))
        return out

    # ------------------------------------------------------------------ imports
    def add_finished(self, feed: Feed) -> None:
        with self.lock:
            self.games[feed.id] = feed
            self._trim()

    def stop(self, wait: float = 5.0) -> None:
        """Stop: every person's seat is released (its game ends), matches stop scheduling."""
        self.stopping.set()
        deadline = time.monotonic() + wait
        while True:
            # a person's seat is released, an agent's processes stopped; again until the games
            # are over (an agent started just now may not be its transport's current one yet)
            for players in list(self.players.values()):
                for p in players:
                    with contextlib.suppress(Exception):
                        p.close()
            alive = [t for t in self.threads if t.is_alive()]
            if not alive or time.monotonic() >= deadline:
                break
            alive[0].join(min(0.2, max(0.0, deadline - time.monotonic())))
        for t in list(self.threads):
            t.join(max(0.0, deadline - time.monotonic()))
        if self._tmp is not None:
            with contextlib.suppress(OSError):
                self._tmp.cleanup()


def _game_config(request: dict[str, Any]) -> Any:
    """How a game or match asked for by the page is refereed: its time control checked (a
    bad one is a 400, and no clock past what the page can show)."""
    from enoch.arena.clock import TimeControl
    from enoch.arena.referee import GameConfig

    tc = None
    if request.get("tc"):
        try:
            tc = TimeControl.parse(str(request["tc"]))
        except InputError as exc:
            raise Refused(400, str(exc)) from None
        if not (tc.base < 1e7 and tc.increment < 1e6):
            raise Refused(400, "time control too long")
    return GameConfig(
        movetime=request.get("movetime"),
        tc=tc,
        timeout=float(request.get("timeout") or 60.0),
        retries=int(request.get("retries") or 0),
    )


def _offer(sub: Subscriber, message: dict[str, Any]) -> None:
    if sub.dropped:
        return
    try:
        sub.queue.put_nowait(message)
    except asyncio.QueueFull:
        sub.dropped = True
        with contextlib.suppress(asyncio.QueueFull):
            sub.queue.get_nowait()
            sub.queue.put_nowait(None)  # tells the stream to end


class FolderWatcher:
    """Reads new lines of ``game-NNNN.jsonl`` event logs into a match's feeds."""

    def __init__(self, hub: Hub, run: MatchRun, *, follow: bool = False) -> None:
        self.hub = hub
        self.run = run
        self.follow = follow  # a watched folder: the watcher never ends by itself
        self.offsets: dict[Path, int] = {}
        self.partial: dict[Path, bytes] = {}
        self.finished: set[Path] = set()  # logs whose game ended: looked at only now and then
        self.polls = 0
        self.lock = threading.Lock()

    def start(self) -> None:
        thread = threading.Thread(target=self._loop, name=f"enoch-watch-{self.run.id}", daemon=True)
        thread.start()

    def _loop(self) -> None:
        while not self.hub.stopping.is_set():
            self.poll()
            if not self.follow and self.run.status == "finished":
                self.poll()
                return
            time.sleep(WATCH_INTERVAL)

    def poll(self) -> None:
        with self.lock:
            try:
                files = sorted(self.run.folder.glob("game-*.jsonl"))
            except OSError:
                return
            self.polls += 1
            recheck = self.polls % 50 == 0  # a finished log rewritten by a new match
            for path in files:
                if path in self.finished and not recheck:
                    continue
                self._read(path)

    def _read(self, path: Path) -> None:
        try:
            size = os.path.getsize(path)
        except OSError:
            return
        offset = self.offsets.get(path, 0)
        if size < offset:  # the file was rewritten (a new match in the same folder)
            offset = 0
            self.partial.pop(path, None)
            self.run.games.pop(_index(path), None)
        if size == offset:
            return
        with open(path, "rb") as fh:
            fh.seek(offset)
            data = fh.read(size - offset)
        self.offsets[path] = offset + len(data)
        data = self.partial.pop(path, b"") + data
        lines = data.split(b"\n")
        if lines[-1]:
            self.partial[path] = lines[-1]
        index = _index(path)
        run = self.run
        feed = run.games.get(index)
        changed = False
        for line in lines[:-1]:
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if not isinstance(event, dict):
                continue
            if feed is None:
                variant = str(event.get("variant") or run.variant)
                if event.get("event") == "start":
                    run.variant = variant
                feed = Feed(f"{run.id}-{index:04d}", variant, match=run.id, source=run.kind)
                with self.hub.lock:
                    run.games[index] = feed
                    run.games = OrderedDict(sorted(run.games.items()))
            if event.get("event") == "start":
                for name in event.get("seats") or []:
                    if str(name) not in run.names and run.kind == "watch":
                        run.names.append(str(name))
            message = feed.ingest(event)
            if message is not None:
                self.hub.publish(feed, message)
            if event.get("event") in ("start", "end"):
                changed = True
            if event.get("event") == "end":
                self.finished.add(path)
            elif event.get("event") == "start":
                self.finished.discard(path)
        if changed:
            self.hub.broadcast(("match:" + run.id, "games"), self.hub.match_message(run))


def _index(path: Path) -> int:
    digits = "".join(ch for ch in path.stem if ch.isdigit())
    return int(digits) if digits else 0


__all__ = ["COMMAND_PREFIXES", "HUMAN_IDLE", "Feed", "FolderWatcher", "Hub", "MatchRun", "Refused"]
