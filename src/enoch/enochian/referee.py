"""The Enochian referee: 2 or 4 agents of any transport, one game or a match.

Shaped like the FIDE arena referee: it sends each acting agent the state JSON, validates the
answer strictly, applies it, and ends the game by the rules, by a forfeit, or by the move
limit. Agents are ``exec:CMD``, ``jsonl:CMD``, ``http(s)://URL`` (the arena's transports,
:func:`enoch.arena.transport.make_transport`, reused as they are: process groups, memory
limit, answer cap, deadlines, stderr capture, kill on close), ``builtin:enochian-*`` names,
or Python objects with ``answer(state) -> dict``.

A forfeit loses for the agent's team; its termination names it as the FIDE referee does:
``crash`` (the process died, an HTTP error, an in-process agent raised), ``timeout`` (no
answer within ``movetime + grace``, or ``timeout`` without a movetime), ``oversize``,
``invalid_answer`` (not JSON, not of the schema, out of step) and ``illegal_move``. The
referee writes a text game record (notation in ``docs/enochian.md``), a JSONL event log (every
state sent, every raw answer with its time and the agent's stderr, every decision) and returns
a result with the winning team and the termination.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from enoch.arena.transport import Limits, Transport, TransportError, make_transport
from enoch.enochian.geometry import ARMY_NAMES, SQUARE_NAMES, TEAM_NAMES
from enoch.enochian.protocol import answer_to_action, parse_answer, state_to_json
from enoch.enochian.spec import find_array
from enoch.enochian.state import Divination, Outcome, State, new_game
from enoch.errors import IllegalMoveError, InputError

#: how a forfeit ends a game (the FIDE referee's names)
FORFEITS = ("crash", "timeout", "oversize", "invalid_answer", "illegal_move")
DEFAULT_TIMEOUT = 60.0


@dataclass
class GameResult:
    """The end of one game, as the results line reports it."""

    winner: str | None  # "actives", "passives" or None for a draw
    reason: str
    plies: int
    agents: list[str]
    verdict: str | None = None
    termination: str = ""  # the outcome's reason, or the forfeit's kind (FORFEITS)
    record: str = ""
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def line(self) -> dict[str, Any]:
        """The results line (one JSON object)."""
        return {
            "winner": self.winner,
            "termination": self.termination or self.reason,
            "reason": self.reason,
            "plies": self.plies,
            "agents": self.agents,
            "verdict": self.verdict,
            "seconds": round(self.seconds, 3),
            **self.extra,
        }


def _header(st: State, names: Sequence[str]) -> list[str]:
    cfg = st.config
    array = find_array(cfg.array_id).name if cfg.array_id else "custom"
    lines = [
        f'[Array "{array}"]',
        f'[Direction "{cfg.direction}"]',
        f'[Players "{cfg.players}"]',
        f'[TurnOrder "{" ".join(ARMY_NAMES[a] for a in cfg.order)}"]',
    ]
    for a in cfg.order:
        lines.append(f'[{ARMY_NAMES[a].capitalize()} "{names[cfg.controllers[a]]}"]')
    if cfg.divination is not None:
        d = cfg.divination
        lines.append(
            f'[Divination "querent {ARMY_NAMES[d.querent]}, ptah '
            f'{SQUARE_NAMES[d.ptah]}, seed {d.seed}"]'
        )
    opts = {k: v for k, v in st.opts.as_dict().items() if v != type(st.opts)().as_dict()[k]}
    if opts:
        lines.append(f'[Options "{json.dumps(opts, sort_keys=True)}"]')
    return lines


def format_record(st: State, names: Sequence[str], forfeit: str = "") -> str:
    """The text game record: tags, then one numbered line per move, comments in braces."""
    out = _header(st, names)
    result = "*"
    if st.outcome is not None:
        result = "draw" if st.outcome.winner is None else f"{TEAM_NAMES[st.outcome.winner]} win"
        out.append(f'[Result "{result}"]')
        out.append(f'[Termination "{st.outcome.reason}"]')
    if forfeit:
        out.append(f'[Forfeit "{forfeit.replace(chr(34), chr(39))}"]')
    if st.verdict:
        out.append(f'[Verdict "{st.verdict}"]')
    out.append("")
    n = 0
    for e in st.log:
        if "move" in e:
            n += 1
            out.append(f"{n}. {e['army']} {e['move']}")
        elif "action" in e:
            out.append(f"{{{e['army']} {e['action']}}}")
        elif "promotion" in e:
            out.append(f"{{{e['army']} promotes {e['promotion']} at the start of its turn}}")
        elif "skip" in e:
            out.append(f"{{{e['army']} skips: {e['skip']}}}")
        elif e.get("event") == "exchange":
            out.append(f"{{exchange of prisoners: {' and '.join(e['returned'])} kings return}}")
    out.append(result)
    return "\n".join(out) + "\n"


class Seat:
    """One player of a game: ``ask(state, timeout)`` returns the raw answer.

    ``text`` says whether the answer is text to decode as JSON (a program's output) or a Python
    object to validate as it is. Failures raise: a :class:`TransportError` names its forfeit,
    anything else is the agent's crash.
    """

    name = "seat"
    text = False
    timed = True  # False: answers are not held to the time limit (a person at the terminal)
    transport: Transport | None = None

    @property
    def pgids(self) -> list[int]:
        """Process groups this seat started (tests assert none survives)."""
        return list(self.transport.pgids) if self.transport is not None else []

    def start(self) -> None:
        """Start what can be started before the first question (a long-lived process)."""
        if self.transport is not None:
            self.transport.start()

    def ask(self, state: dict[str, Any], timeout: float | None) -> Any:
        raise NotImplementedError

    def stderr(self) -> str:
        """What the agent wrote on stderr during the last question (for the event log)."""
        return self.transport.last_stderr if self.transport is not None else ""

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


class TransportSeat(Seat):
    """``exec:``, ``jsonl:`` and ``http(s)://`` agents, through the arena's transports."""

    text = True

    def __init__(self, name: str, transport: Transport) -> None:
        self.name = name
        self.transport = transport

    def ask(self, state: dict[str, Any], timeout: float | None) -> Any:
        assert self.transport is not None
        return self.transport.request(state, timeout)


class ObjectSeat(Seat):
    """An in-process agent: ``answer(state) -> dict`` (built-ins, the terminal player)."""

    def __init__(self, name: str, agent: Any) -> None:
        self.name = name
        self.agent = agent
        self.timed = not getattr(agent, "untimed", False)

    def ask(self, state: dict[str, Any], timeout: float | None) -> Any:
        return self.agent.answer(state)

    def close(self) -> None:
        close = getattr(self.agent, "close", None)
        if close is not None:
            close()


TRANSPORT_PREFIXES = ("exec:", "jsonl:", "http://", "https://")


def make_seat(agent: Any, *, limits: Limits = Limits(), name: str | None = None) -> Seat:  # noqa: B008
    """A seat from a name (``exec:CMD``, ``jsonl:CMD``, ``http(s)://URL``, ``builtin:`` or a
    bare built-in name such as ``search?movetime=0.5``), an agent object, or a :class:`Seat`."""
    if isinstance(agent, Seat):
        return agent
    if isinstance(agent, str):
        spec = agent.strip()
        if spec.startswith(TRANSPORT_PREFIXES):
            if spec.startswith(("exec:", "jsonl:")) and not spec.partition(":")[2].strip():
                raise InputError(f"agent {spec!r}: empty command")
            return TransportSeat(name or spec, make_transport(spec, limits))
        if spec.startswith("uci:"):
            raise InputError(f"agent {spec!r}: UCI engines play FIDE chess, not Enochian chess")
        from enoch.enochian.agents import make_agent

        built = make_agent(spec)
        return ObjectSeat(name or built.name, built)
    if hasattr(agent, "answer"):
        return ObjectSeat(name or str(getattr(agent, "name", type(agent).__name__)), agent)
    raise InputError(f"cannot make an Enochian player from {agent!r}")


def check_agent_spec(spec: str) -> None:
    """Raise :class:`InputError` now for a name that can never make an agent (bad prefix,
    unknown built-in, bad options), without starting anything."""
    if spec.strip().startswith(TRANSPORT_PREFIXES):
        make_seat(spec)  # builds the transport object only: no process, no connection
    else:
        make_seat(spec).close()


class _Forfeit(Exception):
    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


def _judge(st: State, seat: Seat, raw: Any) -> int:
    """The action an answer names, or :class:`_Forfeit` (invalid answer or illegal move)."""
    data = raw
    if seat.text:
        try:
            data = json.loads(raw)
        except ValueError:
            shown = raw if len(raw) <= 80 else raw[:77] + "..."
            raise _Forfeit("invalid_answer", f"answer is not JSON: {shown!r}") from None
    try:
        answer = parse_answer(data)
    except InputError as exc:
        raise _Forfeit("invalid_answer", str(exc)) from None
    try:
        return answer_to_action(st, answer)
    except IllegalMoveError as exc:
        raise _Forfeit("illegal_move", str(exc)) from None
    except InputError as exc:
        raise _Forfeit("invalid_answer", str(exc)) from None


def play_game(
    agents: Sequence[Any],
    array: str = "earth_of_fire",
    direction: str = "deosil",
    options: dict[str, Any] | None = None,
    players: int | None = None,
    divination: Divination | None = None,
    max_plies: int | None = 400,
    log: IO[str] | None = None,
    on_move: Callable[[State], None] | None = None,
    state: State | None = None,
    movetime: float | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    grace: float = 0.1,
    limits: Limits = Limits(),  # noqa: B008 (frozen)
) -> GameResult:
    """Play one game; ``agents[i]`` answers for player ``i`` (2 teams or 4 armies).

    Agents are names or objects (see :func:`make_seat`). ``movetime``: seconds per answer,
    sent as ``move_time_limit``; an answer later than ``movetime + grace`` is a timeout (the
    transport is cut off at that deadline). Without ``movetime`` every answer still has
    ``timeout`` seconds. Every process an agent started is killed when the game ends, however
    it ends.
    """
    players = players or len(agents)
    if len(agents) != players or players not in (2, 4):
        raise InputError(f"need 2 or 4 agents, one per player, not {len(agents)}")
    if movetime is not None and movetime <= 0:
        raise InputError(f"movetime must be > 0, not {movetime}")
    seats: list[Seat] = []
    try:
        for a in agents:
            seats.append(make_seat(a, limits=limits))
        st = state or new_game(
            array, direction, options, players=players, divination=divination, max_plies=max_plies
        )
        if st.config.players != players:
            raise InputError(f"the position is for {st.config.players} players, not {players}")
        for seat in seats:
            seat.start()
        return _run(st, seats, log, on_move, movetime, timeout, grace)
    finally:
        for seat in seats:
            seat.close()


def _run(
    st: State,
    seats: list[Seat],
    log: IO[str] | None,
    on_move: Callable[[State], None] | None,
    movetime: float | None,
    timeout: float,
    grace: float,
) -> GameResult:
    names = [s.name for s in seats]
    start = time.perf_counter()
    allowed = movetime + grace if movetime is not None else timeout
    detail = ""

    def event(type_: str, **data: Any) -> None:
        if log is not None:
            log.write(json.dumps({"type": type_, "ply": st.ply, **data}) + "\n")

    event(
        "start",
        agents=names,
        array=st.config.array_id,
        players=st.config.players,
        movetime=movetime,
    )
    while not st.is_terminal():
        player = st.current_player()
        army = st.deciding_army
        seat = seats[player]
        state_json = state_to_json(st, movetime if seat.timed else None)
        event("state", player=player, army=ARMY_NAMES[army], state=state_json)
        t0 = time.perf_counter()
        try:
            try:
                raw = seat.ask(state_json, allowed if seat.timed else None)
            except TransportError as exc:
                event(
                    "answer",
                    player=player,
                    error=str(exc),
                    kind=exc.kind,
                    seconds=round(time.perf_counter() - t0, 4),
                    stderr=exc.stderr or seat.stderr(),
                )
                kind = exc.kind if exc.kind in FORFEITS else "crash"
                raise _Forfeit(kind, str(exc)) from None
            except Exception as exc:  # an in-process agent raised: that is its crash
                event("answer", player=player, error=repr(exc), kind="crash")
                raise _Forfeit("crash", f"agent raised {type(exc).__name__}: {exc}") from None
            spent = time.perf_counter() - t0
            event(
                "answer", player=player, answer=raw, seconds=round(spent, 4), stderr=seat.stderr()
            )
            if spent > allowed and seat.timed:
                raise _Forfeit("timeout", f"answered after {spent:.3f} s (limit {allowed:.3f} s)")
            act = _judge(st, seat, raw)
        except _Forfeit as f:
            detail = f"{ARMY_NAMES[army]} ({seat.name}): {f.detail}"
            st.outcome = Outcome(1 - army % 2, f.kind)
            event("decision", army=ARMY_NAMES[army], forfeit=f.kind, reason=detail)
            break
        text = st.move_str(act)
        st.make(act)
        event("decision", army=ARMY_NAMES[army], action=text)
        if on_move is not None:
            on_move(st)
    assert st.outcome is not None
    termination = st.outcome.reason
    result = GameResult(
        winner=None if st.outcome.winner is None else TEAM_NAMES[st.outcome.winner],
        reason=f"forfeit: {detail}" if detail else termination,
        plies=st.ply,
        agents=names,
        verdict=st.verdict,
        termination=termination,
        record=format_record(st, names, detail),
        seconds=time.perf_counter() - start,
    )
    event("result", **result.line())
    return result


def match_schedule(n_agents: int, games: int, arrays: Sequence[str]) -> list[tuple[str, int]]:
    """(array, shift) per game: each array is played ``n_agents`` times in a row, the seats
    rotated by one each time (``seated = agents[shift:] + agents[:shift]``), so every agent
    plays every seat of every array once before the next array."""
    return [(arrays[(g // n_agents) % len(arrays)], g % n_agents) for g in range(games)]


def play_match(
    make_agents: Callable[[], list[Any]],
    games: int,
    arrays: Sequence[str],
    players: int = 2,
    max_plies: int = 400,
    log: IO[str] | None = None,
    records: IO[str] | None = None,
    results: IO[str] | None = None,
    direction: str = "deosil",
    movetime: float | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    limits: Limits = Limits(),  # noqa: B008
    on_game: Callable[[int, GameResult], None] | None = None,
) -> dict[str, float]:
    """A match of 2 or 4 agents (names or objects, made afresh each game by ``make_agents``):
    seats rotate every game and arrays rotate after a full turn of seats
    (:func:`match_schedule`). Returns points per agent (``name#index``; win 1, draw 1/2)."""
    points: dict[str, float] = {}
    for g, (array, shift) in enumerate(match_schedule(players, games, arrays)):
        agents = make_agents()
        if len(agents) != players:
            raise InputError(f"need {players} agents, not {len(agents)}")
        order = list(range(players))
        order = order[shift:] + order[:shift]
        seated = [agents[i] for i in order]
        labels = [_label(agents[i], i) for i in order]
        if log is not None:
            log.write(
                json.dumps({"type": "game", "game": g + 1, "array": array, "seats": labels}) + "\n"
            )
        res = play_game(
            seated,
            array,
            direction,
            players=players,
            max_plies=max_plies,
            log=log,
            movetime=movetime,
            timeout=timeout,
            limits=limits,
        )
        if records is not None:
            records.write(res.record + "\n")
        teams = _seat_teams(array, direction, players)
        for seat, label in enumerate(labels):
            team = TEAM_NAMES[teams[seat]]
            pts = 0.5 if res.winner is None else (1.0 if res.winner == team else 0.0)
            points[label] = points.get(label, 0.0) + pts
        if results is not None:
            results.write(
                json.dumps({"game": g + 1, "array": array, "seats": labels, **res.line()}) + "\n"
            )
        if on_game is not None:
            on_game(g + 1, res)
    return points


def _label(agent: Any, index: int) -> str:
    name = agent if isinstance(agent, str) else getattr(agent, "name", type(agent).__name__)
    return f"{name}#{index}"


def _seat_teams(array: str, direction: str, players: int) -> list[int]:
    st = new_game(array, direction, players=players)
    return [next(a % 2 for a in range(4) if st.config.controllers[a] == p) for p in range(players)]
