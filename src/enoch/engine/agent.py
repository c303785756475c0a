"""``builtin:engine``: the engine behind the JSON agent protocol.

Options (all strings, as ``builtin:engine?movetime=0.5&hash=32``):

- ``movetime`` seconds per move (default 1);
- ``hash`` transposition table size in MiB (default 16);
- ``threads`` processes searching each move (default 1): the search and ``threads - 1``
  helpers sharing its table (lazy SMP, see ``engine/smp.py``);
- ``depth`` a fixed search depth; given alone it is the only bound, given with ``movetime``
  both bound the search;
- ``resign`` resign when the score is at or below ``-CP`` centipawns for three answers in a
  row (never resigns without it);
- ``elo`` a strength level, 0 .. 2000 (2000 is full strength): chosen mistakes by a seeded
  softmax over shallow root scores, or a node-bounded search (``engine/levels.py``);
- ``seed`` the generator of a level's chosen mistakes (default: fresh entropy, so that no two
  games repeat; the full-strength engine is deterministic and ignores it).

Draws: a valid claim is made when the search says the position is not better for us (score
below ``CLAIM_MARGIN``); a pending draw offer is accepted when the score is at or below
``-ACCEPT_MARGIN``. One agent keeps its transposition table across the states it answers, so
``enoch agent --jsonl`` keeps what it learnt between the moves of a game.
"""

from __future__ import annotations

from typing import Any

from enoch._numbers import MAX_SECONDS
from enoch.agents.simple import claim_for
from enoch.engine.levels import Weakened, parse_elo
from enoch.engine.search import MAX_THREADS, Limits
from enoch.engine.smp import parallel_searcher
from enoch.errors import InputError, ProtocolError, quote
from enoch.protocol import move_answer, read_state

CLAIM_MARGIN = 50
ACCEPT_MARGIN = 50
# Time kept back for parsing, printing and the transport.
AGENT_OVERHEAD = 0.02


# The largest transposition table an option may ask for, in MiB (64 GiB): more is a typo, and
# asking the operating system for it would fail far from the option that caused it.
MAX_HASH_MB = 65536


def _number(
    name: str,
    value: str,
    *,
    minimum: float,
    maximum: float | None = None,
    integer: bool = False,
) -> float:
    """An option's value through the one bounded parser (ASCII decimals, finite)."""
    from enoch._numbers import parse_float, parse_int

    where = f"builtin:engine: {name}"
    if integer:
        return parse_int(value, where, int(minimum), None if maximum is None else int(maximum))
    return parse_float(value, where, minimum, maximum)


def _positive(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and 0 < x < float("inf")


class EngineAgent:
    """The engine as a protocol agent."""

    name = "engine"
    OPTIONS = ("movetime", "hash", "threads", "depth", "resign", "seed", "elo")

    def __init__(self, **options: str) -> None:
        unknown = sorted(set(options) - set(self.OPTIONS))
        if unknown:
            raise InputError(
                f"builtin:engine has no option {quote(unknown[0])} "
                f"(options: {', '.join(self.OPTIONS)})"
            )
        self.given = set(options)
        self.movetime: float | None = 1.0
        self.depth: int | None = None
        if "depth" in options:
            self.depth = int(_number("depth", options["depth"], minimum=1, integer=True))
            self.movetime = None
        if "movetime" in options:
            self.movetime = _number(
                "movetime", options["movetime"], minimum=0.001, maximum=MAX_SECONDS
            )
        hash_mb = _number("hash", options.get("hash", "16"), minimum=1, maximum=MAX_HASH_MB)
        self.resign: int | None = None
        if "resign" in options:
            self.resign = int(_number("resign", options["resign"], minimum=1, integer=True))
        # Unseeded, a level draws its mistakes from fresh entropy: a ladder rung or any level
        # must not replay one game for each opening (a deterministic opponent of a
        # deterministic rung would meet the same game again and again, and count it each time).
        seed: int | None = None
        if "seed" in options:
            seed = int(_number("seed", options["seed"], minimum=-(2**63), integer=True))
        self.weakened: Weakened | None = None
        if "elo" in options:
            level = Weakened(parse_elo(options["elo"], "builtin:engine"), seed)
            self.weakened = None if level.level.full else level
        threads = int(_number("threads", options.get("threads", "1"), minimum=1, integer=True))
        if threads > MAX_THREADS:
            raise InputError(
                f"builtin:engine: threads must be at most {MAX_THREADS}, got {threads}"
            )
        self.searcher = parallel_searcher(hash_mb, threads)
        self.losing_streak = 0
        self.last_score: int | None = None

    def _limits(self, state: dict[str, Any]) -> Limits:
        """The search bounds: our options, tightened by the referee's optional fields
        ``move_time_limit`` (seconds per answer) and ``clock`` (``{"white": s, "black": s,
        "increment": s, "moves_to_go": n}``), read tolerantly."""
        movetime = self.movetime
        limit: Any = state.get("move_time_limit")
        if _positive(limit):
            movetime = min(movetime, float(limit)) if movetime is not None else float(limit)
        clock = state.get("clock")
        if (
            isinstance(clock, dict)
            and _positive(clock.get("white"))
            and _positive(clock.get("black"))
        ):
            inc = float(clock["increment"]) if _positive(clock.get("increment")) else 0.0
            mtg = clock.get("moves_to_go")
            return Limits(
                depth=self.depth,
                movetime=movetime if "movetime" in self.given else None,
                wtime=float(clock["white"]),
                btime=float(clock["black"]),
                winc=inc,
                binc=inc,
                movestogo=mtg
                if isinstance(mtg, int) and not isinstance(mtg, bool) and mtg > 0
                else None,
            )
        return Limits(depth=self.depth, movetime=movetime)

    def answer(self, state: dict[str, Any]) -> dict[str, Any]:
        parsed = read_state(state)
        pos = parsed.position
        legal = pos.legal_moves()
        if not legal:
            raise ProtocolError(
                "the position has no legal move (the game is over): nothing to answer"
            )
        us = "white" if pos.turn == 0 else "black"
        claim = claim_for(parsed)
        offer = parsed.draw_offer is not None and parsed.draw_offer != us
        if self.weakened is not None:
            move, score = self.weakened.choose(
                self.searcher, pos, self._limits(state), AGENT_OVERHEAD
            )
        else:
            result = self.searcher.think(pos, self._limits(state), overhead=AGENT_OVERHEAD)
            move, score = result.move, result.score
        self.last_score = score
        if claim is not None and score < CLAIM_MARGIN:
            return claim
        if offer and score <= -ACCEPT_MARGIN:
            return {"action": "offer_draw"}
        if self.resign is not None:
            self.losing_streak = self.losing_streak + 1 if score <= -self.resign else 0
            if self.losing_streak >= 3:
                return {"action": "resign"}
        if move not in legal:  # legality is sacred: never print an unverified move
            raise AssertionError(f"builtin:engine chose an illegal move {move}")
        return move_answer(move)

    def close(self) -> None:
        self.searcher.clear()
        self.searcher.close()
