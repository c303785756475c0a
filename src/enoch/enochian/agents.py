"""Built-in Enochian agents: random, greedy and search. Each takes the Enochian state JSON.

They follow ``enoch.agents.base.Agent``: ``name``, ``answer(state) -> answer``, ``close()``,
and a constructor taking options as keyword strings (``seed``, ``movetime``, ``depth``).
"""

from __future__ import annotations

import random
import time
from typing import Any

from enoch._numbers import MAX_SECONDS, parse_float, parse_int
from enoch.enochian.protocol import move_to_json, state_from_json
from enoch.enochian.search import Searcher, evaluate
from enoch.enochian.state import ACCEPT, OFFER, REFUSE, State
from enoch.errors import InputError, ProtocolError, quote


def _num(options: dict[str, str], name: str, default: float, *, lo: float, hi: float) -> float:
    """An option through the one bounded parser (ASCII decimals, finite, in ``[lo, hi]``)."""
    if name not in options:
        return default
    return parse_float(str(options[name]), f"option {name}", lo, hi)


def _read(state: dict[str, Any]) -> State:
    """The state, which must leave something to answer (a finished game does not)."""
    st = state_from_json(state)
    if st.outcome is not None or not st.legal_actions():
        raise ProtocolError("the game is over in this state: nothing to answer")
    return st


class _Base:
    name = "enochian-base"

    def __init__(self, **options: str) -> None:
        known = self._known()
        for k in options:
            if k not in known:
                raise InputError(
                    f"{self.name}: unknown option {quote(k)} (known: {', '.join(known)})"
                )
        self.options = options
        seed = options.get("seed")
        # Unseeded: fresh entropy, so that two agents meet in a different game each time (with
        # a fixed default seed a match or a ladder replays one game per start).
        self.rng = random.Random(None if seed is None else parse_int(str(seed), "option seed"))

    def _known(self) -> tuple[str, ...]:
        return ("seed",)

    def answer(self, state: dict[str, Any]) -> dict[str, Any]:
        st = _read(state)
        if st.pending is not None:
            return {"action": "accept_exchange" if self.accept(st) else "refuse_exchange"}
        return move_to_json(st, self.choose(st))

    def answer_state(self, st: State, fields: dict[str, Any]) -> int:
        """The in-process fast path: the same choice as :meth:`answer`, made on a copy of the
        referee's state (no JSON either way) and given as a native action."""
        if st.pending is not None:
            return ACCEPT if self.accept(st) else REFUSE
        return self.choose(st)

    def accept(self, st: State) -> bool:
        """Accept an exchange when it does not make our team's position worse."""
        team = st.deciding_army % 2
        st.make(ACCEPT)
        yes = evaluate(st, team)
        st.undo()
        st.make(REFUSE)
        no = evaluate(st, team)
        st.undo()
        return yes >= no

    def choose(self, st: State) -> int:
        raise NotImplementedError

    def close(self) -> None:
        """Nothing to release."""


class RandomAgent(_Base):
    """Uniformly random legal move; offers an exchange of prisoners when it can, half the time."""

    name = "enochian-random"

    def answer(self, state: dict[str, Any]) -> dict[str, Any]:
        st = _read(state)
        if st.pending is not None:
            return {"action": self.rng.choice(["accept_exchange", "refuse_exchange"])}
        if OFFER in st.legal_actions() and self.rng.random() < 0.5:
            return {"action": "offer_exchange"}
        return move_to_json(st, self.choose(st))

    def answer_state(self, st: State, fields: dict[str, Any]) -> int:
        if st.pending is not None:
            return self.rng.choice([ACCEPT, REFUSE])
        if OFFER in st.legal_actions() and self.rng.random() < 0.5:
            return OFFER
        return self.choose(st)

    def choose(self, st: State) -> int:
        return self.rng.choice(st.legal_moves())


class GreedyAgent(_Base):
    """The move with the best evaluation one move ahead (ties broken at random); with
    ``noise=P`` a uniformly random legal move instead with probability ``P`` (0 .. 1), which
    places it anywhere between the random agent and itself (the rungs of the Enochian ladder
    between the two: a pairing of random and plain greedy is so one-sided that it measures
    nothing)."""

    name = "enochian-greedy"

    def __init__(self, **options: str) -> None:
        super().__init__(**options)
        self.noise = _num(options, "noise", 0.0, lo=0.0, hi=1.0)

    def _known(self) -> tuple[str, ...]:
        return ("seed", "noise")

    def choose(self, st: State) -> int:
        if self.noise and self.rng.random() < self.noise:
            return self.rng.choice(st.legal_moves())
        return greedy_move(st, self.rng)


def greedy_move(st: State, rng: random.Random) -> int:
    """The move with the best evaluation one move ahead for the side to move, ties at random."""
    team = st.army_to_move % 2
    best: list[int] = []
    best_v = float("-inf")
    for m in st.legal_moves():
        st.make(m)
        v = evaluate(st, team)
        st.undo()
        if v > best_v:
            best, best_v = [m], v
        elif v == best_v:
            best.append(m)
    return rng.choice(best)


class SearchAgent(_Base):
    """Iterative-deepening alpha-beta by team with a transposition table, move ordering and
    quiescence (``movetime`` seconds, ``depth`` plies at most; see ``search.py``); ``noise=P``
    as for greedy. The search itself is deterministic, and an Enochian game has one start, so
    two searchers at fixed depths would replay one game: a little noise makes each game new.

    The clock starts when the state arrives; when the referee sends ``move_time_limit`` the
    agent spends at most 80 % of it (less 20 ms), whatever its own ``movetime``. In divination
    mode the future dice are unknown, so it plays greedily.
    """

    name = "enochian-search"

    def __init__(self, **options: str) -> None:
        super().__init__(**options)
        self.searcher = Searcher(
            movetime=_num(options, "movetime", 1.0, lo=0.001, hi=MAX_SECONDS),
            max_depth=int(_num(options, "depth", 64, lo=1, hi=1000)),
        )
        self.noise = _num(options, "noise", 0.0, lo=0.0, hi=1.0)

    def _known(self) -> tuple[str, ...]:
        return ("seed", "movetime", "depth", "noise")

    def _start_clock(self, state: dict[str, Any]) -> None:
        budget = self.searcher.movetime
        limit = state.get("move_time_limit") if isinstance(state, dict) else None
        if isinstance(limit, int | float) and not isinstance(limit, bool) and limit > 0:
            budget = min(budget, max(0.01, 0.8 * limit - 0.02))
        self._deadline = time.perf_counter() + budget

    def answer(self, state: dict[str, Any]) -> dict[str, Any]:
        self._start_clock(state)
        try:
            return super().answer(state)
        finally:
            self._deadline = None

    def answer_state(self, st: State, fields: dict[str, Any]) -> int:
        self._start_clock(fields)
        try:
            return super().answer_state(st, fields)
        finally:
            self._deadline = None

    _deadline: float | None = None

    def choose(self, st: State) -> int:
        if self.noise and self.rng.random() < self.noise:
            return self.rng.choice(st.legal_moves())
        if st.config.divination is not None:
            return greedy_move(st, self.rng)
        return self.searcher.best_move(st, deadline=self._deadline)[0]


AGENTS: dict[str, type[_Base]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "search": SearchAgent,
}


def make_agent(spec: str) -> Any:
    """``random``, ``greedy?seed=3&noise=0.5``, ``search?movetime=0.5`` (``enochian-`` prefix
    optional)."""
    from urllib.parse import parse_qsl

    name, _, query = spec.partition("?")
    name = name.removeprefix("builtin:").removeprefix("enochian-")
    if name not in AGENTS:
        raise InputError(f"unknown Enochian agent {name!r} (known: {', '.join(AGENTS)})")
    try:
        opts = dict(parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query)))
    except ValueError:
        raise InputError(f"bad agent options {query!r} (expected a=1&b=2)") from None
    return AGENTS[name](**opts)
