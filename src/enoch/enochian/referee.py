"""A self-contained referee for Enochian chess: 2 or 4 agents, one game or a match.

Shaped like the FIDE arena referee: it sends each acting agent the state JSON, validates the
answer strictly, applies it, and ends the game by the rules, by a forfeit (an invalid or
illegal answer, or an agent error, loses for that agent's team), or by the move limit. It
writes a text game record (notation in ``docs/enochian.md``), a JSONL event log (every state
sent, every raw answer, every decision) and returns a result with the winning team and the
termination reason.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from enoch.enochian.geometry import ARMY_NAMES, SQUARE_NAMES, TEAM_NAMES
from enoch.enochian.protocol import answer_to_action, parse_answer, state_to_json
from enoch.enochian.spec import find_array
from enoch.enochian.state import Divination, Outcome, State, new_game
from enoch.errors import InputError


@dataclass
class GameResult:
    """The end of one game, as the results line reports it."""

    winner: str | None  # "actives", "passives" or None for a draw
    reason: str
    plies: int
    agents: list[str]
    verdict: str | None = None
    record: str = ""
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def line(self) -> dict[str, Any]:
        """The results line (one JSON object)."""
        return {"winner": self.winner, "reason": self.reason, "plies": self.plies,
                "agents": self.agents, "verdict": self.verdict,
                "seconds": round(self.seconds, 3), **self.extra}


def _header(st: State, names: Sequence[str]) -> list[str]:
    cfg = st.config
    array = find_array(cfg.array_id).name if cfg.array_id else "custom"
    lines = [f'[Array "{array}"]', f'[Direction "{cfg.direction}"]',
             f'[Players "{cfg.players}"]',
             f'[TurnOrder "{" ".join(ARMY_NAMES[a] for a in cfg.order)}"]']
    for a in cfg.order:
        lines.append(f'[{ARMY_NAMES[a].capitalize()} "{names[cfg.controllers[a]]}"]')
    if cfg.divination is not None:
        d = cfg.divination
        lines.append(f'[Divination "querent {ARMY_NAMES[d.querent]}, ptah '
                     f'{SQUARE_NAMES[d.ptah]}, seed {d.seed}"]')
    opts = {k: v for k, v in st.opts.as_dict().items()
            if v != type(st.opts)().as_dict()[k]}
    if opts:
        lines.append(f'[Options "{json.dumps(opts, sort_keys=True)}"]')
    return lines


def format_record(st: State, names: Sequence[str]) -> str:
    """The text game record: tags, then one numbered line per move, comments in braces."""
    out = _header(st, names)
    result = "*"
    if st.outcome is not None:
        result = "draw" if st.outcome.winner is None else f"{TEAM_NAMES[st.outcome.winner]} win"
        out.append(f'[Result "{result}"]')
        out.append(f'[Termination "{st.outcome.reason}"]')
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


def play_game(agents: Sequence[Any], array: str = "earth_of_fire", direction: str = "deosil",
              options: dict[str, Any] | None = None, players: int | None = None,
              divination: Divination | None = None, max_plies: int | None = 400,
              log: IO[str] | None = None, on_move: Callable[[State], None] | None = None,
              state: State | None = None) -> GameResult:
    """Play one game; ``agents[i]`` answers for player ``i`` (2 teams or 4 armies)."""
    players = players or len(agents)
    if len(agents) != players or players not in (2, 4):
        raise InputError(f"need 2 or 4 agents, one per player, not {len(agents)}")
    st = state or new_game(array, direction, options, players=players, divination=divination,
                           max_plies=max_plies)
    names = [getattr(a, "name", type(a).__name__) for a in agents]
    start = time.perf_counter()

    def event(kind: str, **data: Any) -> None:
        if log is not None:
            log.write(json.dumps({"type": kind, "ply": st.ply, **data}) + "\n")

    event("start", agents=names, array=st.config.array_id, players=players)
    while not st.is_terminal():
        player = st.current_player()
        army = st.deciding_army
        state_json = state_to_json(st)
        event("state", player=player, army=ARMY_NAMES[army], state=state_json)
        t0 = time.perf_counter()
        try:
            raw = agents[player].answer(state_json)
        except Exception as exc:  # any failure of an agent is a forfeit, never a crash
            _forfeit(st, army, f"agent error: {type(exc).__name__}: {exc}")
            event("decision", forfeit=st.outcome.reason if st.outcome else "")
            break
        event("answer", player=player, answer=raw, seconds=round(time.perf_counter() - t0, 4))
        try:
            act = answer_to_action(st, parse_answer(raw))
        except InputError as exc:
            _forfeit(st, army, f"invalid answer from {ARMY_NAMES[army]}: {exc}")
            event("decision", forfeit=st.outcome.reason if st.outcome else "")
            break
        text = st.move_str(act)
        st.make(act)
        event("decision", army=ARMY_NAMES[army], action=text)
        if on_move is not None:
            on_move(st)
    assert st.outcome is not None
    for a in agents:
        a.close()
    result = GameResult(
        winner=None if st.outcome.winner is None else TEAM_NAMES[st.outcome.winner],
        reason=st.outcome.reason, plies=st.ply, agents=names, verdict=st.verdict,
        record=format_record(st, names), seconds=time.perf_counter() - start)
    event("result", **result.line())
    return result


def _forfeit(st: State, army: int, reason: str) -> None:
    st.outcome = Outcome(1 - army % 2, "forfeit: " + reason)


def play_match(make_agents: Callable[[], list[Any]], games: int, arrays: Sequence[str],
               players: int = 2, max_plies: int = 400, log: IO[str] | None = None,
               records: IO[str] | None = None, results: IO[str] | None = None,
               direction: str = "deosil") -> dict[str, float]:
    """A match: agent A and B (two players) swap teams every game; arrays rotate.

    Returns points per agent name (win 1, draw 1/2). With four players the seats rotate.
    """
    points: dict[str, float] = {}
    for g in range(games):
        agents = make_agents()
        shift = g % len(agents)
        seated = agents[shift:] + agents[:shift]
        res = play_game(seated, arrays[g % len(arrays)], direction, players=players,
                        max_plies=max_plies, log=log)
        if records is not None:
            records.write(res.record + "\n")
        if results is not None:
            results.write(json.dumps({"game": g + 1, **res.line()}) + "\n")
        st_teams = _seat_teams(arrays[g % len(arrays)], direction, players)
        for seat, agent in enumerate(seated):
            name = f"{agent.name}#{(seat + shift) % len(agents)}"
            team = TEAM_NAMES[st_teams[seat]]
            pts = 0.5 if res.winner is None else (1.0 if res.winner == team else 0.0)
            points[name] = points.get(name, 0.0) + pts
    return points


def _seat_teams(array: str, direction: str, players: int) -> list[int]:
    st = new_game(array, direction, players=players)
    return [next(a % 2 for a in range(4) if st.config.controllers[a] == p)
            for p in range(players)]
