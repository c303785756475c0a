"""``enoch leaderboard``: one table over any results files, for every agent and both games.

Input is what the arena writes (``--results``: one JSON line per game) read tolerantly: lines
from before ``variant``, ``seats`` or ``usage`` existed are understood (a chess line names its
agents by ``white``/``black``, its points follow from ``result``), and a PGN file of chess games
is read as results too. A game whose termination is ``abandoned`` (the agent's endpoint stayed
down) says nothing about strength and is skipped by every figure, as everywhere in enoch.

Per agent and game: games and W/D/L; a rating with its 95% interval from one maximum-likelihood
Bradley-Terry fit over every game of that game's pool (four-seat games count every pair of
opposing seats, as tournaments do), anchored to the calibrated ladder when ladder agents took
part (else the pool's mean is 0: a rating is only comparable within one table); illegal and
invalid answers per 1,000 moves; seconds and tokens per move and the cost. Those last come
from ``usage`` (per seat: requests, retries, illegal, invalid, tokens, seconds, cost) where a
line has it; without it illegal and invalid answers are the forfeits the line records, seconds
come from per-move ``times`` when the line has them, and what cannot be known is None (—).
With ``analyse`` each chess game is replayed and judged by :mod:`enoch.analysis`: the agent's
average centipawn loss over its moves and its mean accuracy over its games.
"""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from enoch.errors import InputError

# A results file larger than this is refused (a wrong file, not a results file).
MAX_FILE_BYTES = 256 << 20
# The table's width when printed to a pipe or a file.
PIPE_WIDTH = 160
# Terminations that say nothing about strength: skipped by every figure.
UNRATED = frozenset({"abandoned"})
_RESULT_POINTS = {"1-0": [1.0, 0.0], "0-1": [0.0, 1.0], "1/2-1/2": [0.5, 0.5]}
_FORFEITS = {"illegal_move": "illegal", "invalid_answer": "invalid"}


def fit(
    games: list[tuple[str, str, float]], fixed: dict[str, float]
) -> dict[str, tuple[float, float, float]]:
    """Maximum likelihood with the ``fixed`` (ladder) agents held, draws as half, 95%
    intervals from the likelihood (:func:`enoch.ratings.maths.fit`); with no ladder agent
    present the ratings centre on 0."""
    from enoch.ratings.maths import fit as ml_fit

    return ml_fit(games, fixed)


def ladder_ratings(variant: str) -> dict[str, float]:
    """The calibrated ladder's ratings of ``variant`` by agent name ({} without a ladder).

    Read through ``enoch.ratings.ladder.load_ladder(variant)`` when that module is installed
    (issue 23's ladder data); a missing module or a game without a ladder means no anchor."""
    try:
        module = importlib.import_module("enoch.ratings.ladder")
    except ImportError:
        return {}
    try:
        data = module.load_ladder(variant)
    except InputError:
        return {}
    return {str(k): float(v["rating"]) for k, v in data.get("agents", {}).items()}


@dataclass
class ResultLine:
    """One game, from a results line or a PGN game."""

    source: str  # file:line, for messages
    variant: str
    seats: list[str]
    points: list[float]
    termination: str
    moves: list[str]
    start_fen: str | None = None
    teams: list[Any] | None = None
    usage: list[dict[str, Any]] | None = None
    times: list[float] | None = None

    @property
    def black_first(self) -> bool:
        return self.start_fen is not None and self.start_fen.split(" ")[1:2] == ["b"]

    def seat_moves(self) -> list[float]:
        """Moves made by each seat: counted for chess, shared out evenly otherwise."""
        n = len(self.seats)
        plies = len(self.moves)
        if self.variant == "chess" and n == 2:
            first = float((plies + 1) // 2)  # moves of the side that moves first
            if self.black_first:
                return [plies - first, first]
            return [first, plies - first]
        return [plies / n] * n

    def seat_times(self) -> list[float] | None:
        if self.times is None or self.variant != "chess" or len(self.seats) != 2:
            return None
        out = [0.0, 0.0]
        for i, t in enumerate(self.times):
            out[(i + (1 if self.black_first else 0)) % 2] += t
        return out


def _number(x: Any) -> TypeGuard[int | float]:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _parse_line(obj: Any, where: str) -> ResultLine:
    if not isinstance(obj, dict):
        raise InputError(f"{where}: not a JSON object")
    variant = obj.get("variant", "chess")
    if not isinstance(variant, str):
        raise InputError(f"{where}: variant is not a string")
    seats = obj.get("seats")
    if seats is None and "white" in obj and "black" in obj:
        seats = [obj["white"], obj["black"]]
    if not isinstance(seats, list) or len(seats) < 2 or not all(isinstance(s, str) for s in seats):
        raise InputError(f"{where}: no agents (neither seats nor white and black)")
    points = obj.get("points")
    if points is None and len(seats) == 2:
        points = _RESULT_POINTS.get(str(obj.get("result")))
        if points is None:
            raise InputError(f"{where}: no points and no result 1-0, 0-1 or 1/2-1/2")
    if (
        not isinstance(points, list)
        or len(points) != len(seats)
        or not all(_number(p) and 0 <= p <= 1 for p in points)
    ):
        raise InputError(f"{where}: points must be one number 0..1 per seat")
    moves = obj.get("moves", [])
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise InputError(f"{where}: moves must be a list of strings")
    usage = obj.get("usage")
    if usage is not None and (
        not isinstance(usage, list)
        or len(usage) != len(seats)
        or not all(isinstance(u, dict) for u in usage)
    ):
        raise InputError(f"{where}: usage must be one object per seat")
    times = obj.get("times")
    if times is not None and (
        not isinstance(times, list) or not all(_number(t) and t >= 0 for t in times)
    ):
        times = None  # a figure we can do without
    start_fen = obj.get("start_fen")
    teams = obj.get("teams")
    return ResultLine(
        source=where,
        variant=variant,
        seats=list(seats),
        points=[float(p) for p in points],
        termination=str(obj.get("termination", "")),
        moves=list(moves),
        start_fen=start_fen if isinstance(start_fen, str) and start_fen else None,
        teams=teams if isinstance(teams, list) and len(teams) == len(seats) else None,
        usage=usage,
        times=[float(t) for t in times] if times is not None else None,
    )


def _read_pgn(path: Path) -> list[ResultLine]:
    from enoch.analysis.analyse import read_pgn

    out = []
    for i, game in enumerate(read_pgn(path), 1):
        h = game.headers
        points = _RESULT_POINTS.get(h.get("Result", "*"))
        if points is None:
            continue  # an unfinished game rates nobody
        termination = h.get("EnochTermination") or h.get("Termination", "")
        out.append(
            ResultLine(
                source=f"{str(path)[:200]}: game {i}",
                variant="chess",
                seats=[h.get("White", "?"), h.get("Black", "?")],
                points=list(points),
                termination=termination,
                moves=[m.uci() for m in game.mainline_moves()],
                start_fen=game.board().fen(),
            )
        )
    return out


def read_results(paths: Iterable[str | Path]) -> list[ResultLine]:
    """Every game of the files (results JSONL, or chess PGN by its ``.pgn`` suffix)."""
    games: list[ResultLine] = []
    for path in map(Path, paths):
        name = str(path)[:200]
        if path.suffix.lower() == ".pgn":
            games.extend(_read_pgn(path))
            continue
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                raise InputError(f"{name}: larger than {MAX_FILE_BYTES >> 20} MiB")
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot read {name}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise InputError(f"{name}: not UTF-8 text (a results file is JSON lines)") from None
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            where = f"{name}:{number}"
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError):
                raise InputError(f"{where}: not a JSON line (a results file?)") from None
            games.append(_parse_line(obj, where))
    if not games:
        raise InputError("no games in the results files")
    return games


@dataclass
class Row:
    """One agent in one game."""

    agent: str
    variant: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    moves: float = 0.0
    illegal: int = 0
    invalid: int = 0
    seconds: float = 0.0
    timed_moves: float = 0.0  # the moves ``seconds`` covers
    tokens: int = 0
    token_moves: float = 0.0  # the moves ``tokens`` covers
    cost: float | None = None
    rating: float | None = None
    low: float | None = None
    high: float | None = None
    losses_cp: list[int] = field(default_factory=list)  # centipawn loss of every judged move
    accuracies: list[float] = field(default_factory=list)  # per analysed game

    def per_1000(self, n: int) -> float | None:
        return 1000.0 * n / self.moves if self.moves else None

    @property
    def seconds_per_move(self) -> float | None:
        return self.seconds / self.timed_moves if self.timed_moves else None

    @property
    def tokens_per_move(self) -> float | None:
        return self.tokens / self.token_moves if self.token_moves else None

    @property
    def acpl(self) -> float | None:
        return sum(self.losses_cp) / len(self.losses_cp) if self.losses_cp else None

    @property
    def accuracy(self) -> float | None:
        return sum(self.accuracies) / len(self.accuracies) if self.accuracies else None

    def to_json(self) -> dict[str, Any]:
        def r(x: float | None, d: int = 1) -> float | None:
            return None if x is None else round(x, d)

        return {
            "agent": self.agent,
            "variant": self.variant,
            "rating": r(self.rating),
            "low": r(self.low),
            "high": r(self.high),
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "moves": round(self.moves),
            "illegal_per_1000": r(self.per_1000(self.illegal), 2),
            "invalid_per_1000": r(self.per_1000(self.invalid), 2),
            "seconds_per_move": r(self.seconds_per_move, 4),
            "tokens_per_move": r(self.tokens_per_move),
            "cost": r(self.cost, 6),
            "acpl": r(self.acpl),
            "accuracy": r(self.accuracy),
        }


@dataclass
class Leaderboard:
    rows: list[Row]
    scales: dict[str, str]  # per game: how its ratings are anchored
    skipped: int  # abandoned games
    analysed: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "agents": [r.to_json() for r in self.rows],
            "scales": self.scales,
            "abandoned_skipped": self.skipped,
            "analysed": self.analysed,
        }


def pairwise(game: ResultLine) -> list[tuple[str, str, float]]:
    """The game as results between pairs of agents on opposite teams (as tournaments rate)."""
    out = []
    n = len(game.seats)
    for s in range(n):
        for t in range(s + 1, n):
            a, b = game.seats[s], game.seats[t]
            if a == b:
                continue
            opposed = game.teams is None or game.teams[s] != game.teams[t]
            if opposed or game.points[s] != game.points[t]:
                out.append((a, b, game.points[s]))
    return out


def _usage_int(u: dict[str, Any], key: str) -> int | None:
    v = u.get(key)
    return int(v) if _number(v) else None


def _account(row: Row, game: ResultLine, seat: int, moves: float) -> None:
    p = game.points[seat]
    row.games += 1
    if p == 1.0:
        row.wins += 1
    elif p == 0.0:
        row.losses += 1
    else:
        row.draws += 1
    usage = game.usage[seat] if game.usage is not None else None
    if usage is not None:
        row.illegal += _usage_int(usage, "illegal") or 0
        row.invalid += _usage_int(usage, "invalid") or 0
        seconds = usage.get("seconds")
        if _number(seconds):
            row.seconds += float(seconds)
            row.timed_moves += moves
        pt, ct = _usage_int(usage, "prompt_tokens"), _usage_int(usage, "completion_tokens")
        if pt is not None or ct is not None:
            row.tokens += (pt or 0) + (ct or 0)
            row.token_moves += moves
        cost = usage.get("cost")
        if _number(cost):
            row.cost = (row.cost or 0.0) + float(cost)
    else:
        kind = _FORFEITS.get(game.termination)
        lowest = min(game.points)
        if kind is not None and p == lowest and game.points.count(lowest) == 1:
            setattr(row, kind, getattr(row, kind) + 1)
        times = game.seat_times()
        if times is not None:
            row.seconds += times[seat]
            row.timed_moves += moves


def build(
    games: list[ResultLine],
    *,
    analyse: bool = False,
    engine: str = "builtin:engine",
    nodes: int | None = None,
    progress: Callable[[int], Callable[[int, int], None]] | None = None,
) -> Leaderboard:
    """The leaderboard of ``games`` (``progress(game_index)`` gives each analysed game's
    per-position callback)."""
    rated = [g for g in games if g.termination not in UNRATED]
    skipped = len(games) - len(rated)
    rows: dict[tuple[str, str], Row] = {}
    for game in rated:
        per_seat = game.seat_moves()
        for seat, agent in enumerate(game.seats):
            key = (game.variant, agent)
            row = rows.setdefault(key, Row(agent=agent, variant=game.variant))
            _account(row, game, seat, per_seat[seat])
            row.moves += per_seat[seat]
    scales: dict[str, str] = {}
    for variant in sorted({g.variant for g in rated}):
        pairs = [p for g in rated if g.variant == variant for p in pairwise(g)]
        ladder = ladder_ratings(variant)
        present = sorted({n for a, b, _ in pairs for n in (a, b)} & set(ladder))
        fixed = {a: ladder[a] for a in present}
        scales[variant] = (
            f"anchored to the ladder ({', '.join(present)})" if present else "pool mean 0"
        )
        if not pairs:
            continue
        for agent, (rating, low, high) in fit(pairs, fixed).items():
            rated_row = rows.get((variant, agent))
            if rated_row is not None:  # a fit may also return anchors that played no game here
                rated_row.rating, rated_row.low, rated_row.high = rating, low, high
    if analyse:
        _analyse(rated, rows, engine, nodes, progress)
    order = sorted(
        rows.values(),
        key=lambda r: (
            r.variant != "chess",
            r.variant,
            -(r.rating if r.rating is not None else -1e9),
        ),
    )
    return Leaderboard(rows=order, scales=scales, skipped=skipped, analysed=analyse)


def _analyse(
    games: list[ResultLine],
    rows: dict[tuple[str, str], Row],
    engine: str,
    nodes: int | None,
    progress: Callable[[int], Callable[[int, int], None]] | None,
) -> None:
    import chess

    from enoch.analysis import DEFAULT_NODES
    from enoch.analysis.analyse import analyse_moves
    from enoch.analysis.engines import make_evaluator

    chess_games = [g for g in games if g.variant == "chess" and len(g.seats) == 2]
    evaluator = make_evaluator(engine, nodes or DEFAULT_NODES)
    try:
        for i, game in enumerate(chess_games, 1):
            try:
                board = chess.Board(game.start_fen or chess.STARTING_FEN)
                moves = [chess.Move.from_uci(m) for m in game.moves]
            except ValueError as exc:
                raise InputError(f"{game.source}: {exc}") from None
            try:
                result = analyse_moves(
                    board, moves, evaluator, progress=progress(i) if progress else None
                )
            except InputError as exc:
                raise InputError(f"{game.source}: {exc}") from None
            for seat, white in ((0, True), (1, False)):
                row = rows[("chess", game.seats[seat])]
                row.losses_cp.extend(m.loss for m in result.side(white))
                acc = result.white_accuracy if white else result.black_accuracy
                if acc is not None:
                    row.accuracies.append(acc)
    finally:
        evaluator.close()


def render(board: Leaderboard, console: Any = None) -> None:
    """The table, printed with rich."""
    from rich.console import Console
    from rich.table import Table

    if console is None:
        # A pipe gets whole lines rather than an 80-column wrap.
        console = Console() if Console().is_terminal else Console(width=PIPE_WIDTH)
    variants = sorted({r.variant for r in board.rows})
    dash = "—"

    def num(x: float | None, fmt: str) -> str:
        return dash if x is None else format(x, fmt)

    table = Table(title="enoch leaderboard")
    table.add_column("#", justify="right")
    table.add_column("agent", no_wrap=True)
    if len(variants) > 1:
        table.add_column("game")
    table.add_column("rating (95%)", justify="right")
    table.add_column("games", justify="right")
    table.add_column("W/D/L", justify="right")
    table.add_column("illegal/1k", justify="right")
    table.add_column("invalid/1k", justify="right")
    table.add_column("s/move", justify="right")
    table.add_column("tokens/move", justify="right")
    table.add_column("cost", justify="right")
    if board.analysed:
        table.add_column("ACPL", justify="right")
        table.add_column("accuracy", justify="right")
    rank: dict[str, int] = {}
    for row in board.rows:
        rank[row.variant] = rank.get(row.variant, 0) + 1
        if row.rating is None or row.low is None or row.high is None:
            rating = dash
        elif math.isfinite(row.low) and math.isfinite(row.high):
            rating = f"{row.rating:.0f} ({row.low:.0f}..{row.high:.0f})"
        else:
            rating = f"{row.rating:.0f}"
        cells = [str(rank[row.variant]), row.agent]
        if len(variants) > 1:
            cells.append(row.variant)
        cells += [
            rating,
            str(row.games),
            f"{row.wins}/{row.draws}/{row.losses}",
            num(row.per_1000(row.illegal), ".1f"),
            num(row.per_1000(row.invalid), ".1f"),
            num(row.seconds_per_move, ".3f"),
            num(row.tokens_per_move, ".0f"),
            num(row.cost, ".4f"),
        ]
        if board.analysed:
            cells += [
                num(row.acpl, ".0f"),
                num(row.accuracy, ".1f") + ("%" if row.accuracy is not None else ""),
            ]
        table.add_row(*cells)
    console.print(table)
    notes = [f"{v}: ratings {board.scales.get(v, 'pool mean 0')}" for v in variants]
    if board.skipped:
        notes.append(f"{board.skipped} abandoned game(s) skipped")
    console.print("; ".join(notes))
