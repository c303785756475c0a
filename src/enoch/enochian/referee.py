"""Enochian games through the arena's one referee: the text game record, and the
``play_game`` / ``play_match`` shortcuts of earlier versions.

There is no Enochian referee of its own any more: :mod:`enoch.enochian.game` puts the rules
behind the game API and :func:`enoch.arena.referee.play_game` referees Enochian games exactly
as it referees chess (the same transports, clocks, retries, forfeits, results and logs). The
functions here only translate the Enochian keyword arguments of earlier versions.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, Any

from enoch.arena.transport import Limits
from enoch.enochian.geometry import ARMY_NAMES, SQUARE_NAMES, TEAM_NAMES
from enoch.enochian.spec import find_array
from enoch.enochian.state import Divination, State
from enoch.errors import InputError

if TYPE_CHECKING:
    from enoch.arena.referee import GameResult

DEFAULT_TIMEOUT = 60.0


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


def _options(
    array: str,
    direction: str,
    options: dict[str, Any] | None,
    players: int,
    divination: Divination | None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"array": array, "direction": direction, "players": players}
    out.update(options or {})
    if divination is not None:
        out.update(
            divination=True,
            querent=ARMY_NAMES[divination.querent],
            ptah=SQUARE_NAMES[divination.ptah],
            seed=divination.seed,
        )
    return out


def _writer(log: IO[str] | None) -> Callable[[dict[str, Any]], None] | None:
    if log is None:
        return None

    def write(event: dict[str, Any]) -> None:
        log.write(json.dumps(event, default=str) + "\n")

    return write


def _bare(agent: Any) -> Any:
    """Earlier versions took built-ins by their bare names (``search?movetime=0.5``)."""
    if isinstance(agent, str) and not agent.startswith(
        ("builtin:", "exec:", "jsonl:", "http://", "https://", "uci:", "human")
    ):
        return "builtin:" + agent.strip()
    return agent


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
    retries: int = 0,
) -> GameResult:
    """One Enochian game through the arena's referee; ``agents[i]`` answers for player ``i``
    (2 teams or 4 armies). ``state``: a ready position instead of an array's start."""
    from enoch.arena.referee import GameConfig
    from enoch.arena.referee import play_game as arena_play
    from enoch.enochian.game import EnochianState
    from enoch.game.registry import find_game

    players = players or len(agents)
    if len(agents) != players or players not in (2, 4):
        raise InputError(f"need 2 or 4 agents, one per player, not {len(agents)}")
    if movetime is not None and not movetime > 0:
        raise InputError(f"movetime must be > 0, not {movetime}")
    game = find_game("enochian")
    ready = None
    if state is not None:
        if state.config.players != players:
            raise InputError(f"the position is for {state.config.players} players, not {players}")
        ready = EnochianState(game, state)  # type: ignore[arg-type]
    config = GameConfig(
        movetime=movetime, timeout=timeout, grace=grace, limits=limits, retries=retries
    )

    def moved(referee: Any, info: dict[str, Any]) -> None:
        if on_move is not None:
            on_move(referee.state.st)

    return arena_play(
        *[_bare(a) for a in agents],
        variant=game,
        options=None if ready else _options(array, direction, options, players, divination),
        state=ready,
        max_plies=max_plies,
        config=config,
        log=_writer(log),
        on_move=moved if on_move is not None else None,
    )


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
    """A match of 2 or 4 agents through the arena (seats rotate every game, arrays after a
    full turn of seats). Returns points per agent (``name#index``; win 1, draw 1/2)."""
    from enoch.arena.match import run_match
    from enoch.arena.referee import GameConfig
    from enoch.game.api import Start
    from enoch.game.registry import find_game

    agents = [_bare(a) for a in make_agents()]
    if len(agents) != players:
        raise InputError(f"need {players} agents, not {len(agents)}")
    game = find_game("enochian")
    setup = game.setup({"direction": direction, "players": players}, max_plies=max_plies)
    labels = [_label(a, i) for i, a in enumerate(agents)]
    write = _writer(log)

    def after(outcome: Any, sched: Any, res: GameResult) -> bool:
        if write is not None:
            write({"event": "game", "game": sched.index, "seats": res.seats, **res.to_json()})
        if records is not None:
            records.write((res.record or "") + "\n")
        if results is not None:
            results.write(json.dumps({"game": sched.index, **res.to_json()}) + "\n")
        if on_game is not None:
            on_game(sched.index, res)
        return False

    points = dict.fromkeys(labels, 0.0)
    starts = [Start(find_array(a).id, find_array(a).id) for a in arrays]
    for g in range(games):  # agents made afresh for each game, as earlier versions did
        fresh = agents if g == 0 else [_bare(a) for a in make_agents()]
        outcome = run_match(
            *fresh,
            variant=game,
            setup=setup,
            games=1,
            first=g,
            starts=starts,
            on_result=after,
            names=labels,
            config=GameConfig(movetime=movetime, timeout=timeout, limits=limits),
        )
        for i, label in enumerate(labels):
            points[label] += outcome.score(i).points
    return points


def _label(agent: Any, index: int) -> str:
    name = agent if isinstance(agent, str) else getattr(agent, "name", type(agent).__name__)
    return f"{name}#{index}"
