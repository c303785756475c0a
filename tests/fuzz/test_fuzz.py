"""Fuzzing as a habit: generated malformed states, answers, FENs, option values and UCI
command streams through the CLI's entry points, in-process, each held to the contract (exit 0
or 2, one short line on stderr and nothing on stdout for 2, no traceback, bounded time).

The CI run tries a few hundred inputs (the count is printed at the end of the run); the same
targets run far longer under ``-m slow``. An input that ever broke the contract goes into
``tests/data/fuzz/`` (replayed by ``test_corpus.py``).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from enoch.arena.players import Player, Turn
from enoch.arena.referee import GameConfig, play_game
from enoch.enochian.protocol import schema, state_from_json, state_to_json
from enoch.errors import ProtocolError
from enoch.protocol import schema as chess_schema
from tests.fuzz.contract import TRIED, check, run_cli, time_limit
from tests.fuzz.strategies import (
    STARTING_STATE,
    broken,
    encoded,
    fens,
    json_values,
    odd_strings,
    uci_streams,
    valid_states,
)

CI = 40  # examples per target in CI (about 10 targets; the count is printed)
SLOW = 1500  # examples per target under -m slow

SUPPRESS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


def targets(strategy: st.SearchStrategy[Any]) -> Callable[[Callable[..., None]], Any]:
    """Make a CI test and a slow test of one body."""

    def wrap(body: Callable[..., None]) -> Any:
        # CI tries the same inputs every run (derandomized: a red CI is a real regression,
        # not a new find); the slow run explores afresh each time.
        ci = settings(
            max_examples=CI, deadline=None, suppress_health_check=SUPPRESS, derandomize=True
        )(given(strategy)(body))
        slow = pytest.mark.slow(
            settings(max_examples=SLOW, deadline=None, suppress_health_check=SUPPRESS)(
                given(strategy)(body)
            )
        )
        return ci, slow

    return wrap


# ----------------------------------------------------------------------------- chess states

CHESS_SCHEMA = jsonschema.Draft202012Validator(chess_schema("state"))
CHESS_AGENTS = ["builtin:random", "builtin:greedy", "builtin:microchess", "builtin:engine?depth=1"]


def _chess_state(data: tuple[bytes, str]) -> None:
    text, agent = data
    TRIED["chess state"] += 1
    check(run_cli(["agent", "--agent", agent], text))
    check(run_cli(["legal"], text))
    validated = run_cli(["validate"], text)
    check(validated, output_is_problems=True)
    if validated.status == 0:  # what the reader accepts, the shipped schema accepts
        errors = [e.message for e in CHESS_SCHEMA.iter_errors(json.loads(text))][:3]
        assert not errors, f"enoch validate said ok to a state the schema refuses: {errors}"


test_chess_state, test_chess_state_slow = targets(
    st.tuples(encoded(broken(valid_states())), st.sampled_from(CHESS_AGENTS))
)(_chess_state)


# --------------------------------------------------------------------------- enochian states


def _enochian_states() -> list[dict[str, Any]]:
    import random

    from enoch.enochian.spec import available_arrays
    from enoch.enochian.state import Divination, new_game

    out = []
    rng = random.Random(11)
    for i, spec in enumerate(available_arrays()):
        div = Divination(i % 4, 35, i) if i % 3 == 0 else None
        game = new_game(spec.id, players=2 + 2 * (i % 2), divination=div, max_plies=60)
        while not game.is_terminal():
            if rng.random() < 0.15:
                out.append(state_to_json(game, move_time_limit=rng.choice([None, 0.5])))
            game.make(rng.choice(game.legal_actions()))
        out.append(state_to_json(game))
    return out


ENOCHIAN = _enochian_states()
STATE_SCHEMA = jsonschema.Draft202012Validator(schema("state"))


def _enochian_state(text: bytes) -> None:
    TRIED["enochian state"] += 1
    check(run_cli(["enochian", "validate"], text))
    check(run_cli(["agent", "--variant", "enochian", "--agent", "builtin:random"], text))


test_enochian_state, test_enochian_state_slow = targets(encoded(broken(st.sampled_from(ENOCHIAN))))(
    _enochian_state
)


def _reader_held_to_schema(doc: Any) -> None:
    """Whatever the Enochian reader accepts, the shipped schema accepts (the reader may refuse
    more: positions that cannot be, fields that disagree with the position)."""
    TRIED["enochian schema"] += 1
    try:
        with time_limit(20):
            state_from_json(doc)
    except ProtocolError:
        return
    errors = [e.message for e in STATE_SCHEMA.iter_errors(doc)][:3]
    assert not errors, f"the reader accepted a state the schema refuses: {errors}"


test_reader_held_to_schema, test_reader_held_to_schema_slow = targets(
    broken(st.sampled_from(ENOCHIAN))
)(_reader_held_to_schema)


@st.composite
def schema_valid_states(draw: st.DrawFn) -> dict[str, Any]:
    """States of random games (any array, 2 or 4 players, dice or not, any length), with the
    fields the position does not fix set to any value the schema allows."""
    import random

    from enoch.enochian.spec import available_arrays
    from enoch.enochian.state import Divination, new_game

    arrays = available_arrays()
    spec = draw(st.sampled_from(arrays))
    seed = draw(st.integers(0, 2**63 - 1))
    div = Divination(draw(st.integers(0, 3)), 35, seed) if draw(st.booleans()) else None  # d5
    game = new_game(spec.id, players=draw(st.sampled_from([2, 4])), divination=div, max_plies=80)
    rng = random.Random(draw(st.integers(0, 10**6)))
    for _ in range(draw(st.integers(0, 80))):
        if game.is_terminal():
            break
        game.make(rng.choice(game.legal_actions()))
    doc = state_to_json(game)
    armies = st.sampled_from(["air", "water", "fire", "earth"])
    free: dict[str, st.SearchStrategy[Any]] = {
        "move_time_limit": st.floats(min_value=1e-6, max_value=1e6),
        "last_error": st.text(max_size=50),
        "clock": st.fixed_dictionaries(
            {
                "remaining": st.lists(st.floats(-1e6, 1e6), max_size=4),
                "increment": st.floats(0, 1e3),
            },
            optional={"moves_to_go": st.integers(1, 1000)},
        ),
        "array": st.none(),
        "max_plies": st.one_of(st.none(), st.integers(max(doc["ply"], 1), 1_000_000)),
        "history": st.lists(
            st.one_of(
                st.fixed_dictionaries(
                    {"army": armies, "move": st.from_regex(r"\A[KQBNRP][a-h][1-8][-x][a-h][1-8]\Z")}
                ),
                st.fixed_dictionaries({"army": armies, "skip": st.text(max_size=20)}),
                st.fixed_dictionaries(
                    {"army": armies, "action": st.sampled_from(["offer", "refuse", "resign"])}
                ),
                st.fixed_dictionaries(
                    {"army": armies, "promotion": st.from_regex(r"\AP[a-h][1-8]=[QBNR]\Z")}
                ),
            ),
            max_size=5,
        ),
    }
    for key in draw(st.lists(st.sampled_from(sorted(free)), unique=True, max_size=4)):
        doc[key] = draw(free[key])
    for key in draw(st.lists(st.sampled_from(["player", "exchange_possible"]), unique=True)):
        doc.pop(key)
    return doc


def _schema_accepts_reader_accepts(doc: dict[str, Any]) -> None:
    """The reverse: a state the schema accepts, with a real position, the reader accepts."""
    TRIED["enochian schema reverse"] += 1
    STATE_SCHEMA.validate(doc)
    with time_limit(20):
        state_from_json(doc)


test_schema_accepts_reader_accepts, test_schema_accepts_reader_accepts_slow = targets(
    schema_valid_states()
)(_schema_accepts_reader_accepts)


def test_every_written_state_is_accepted_by_both() -> None:
    """The reverse on the states games produce: the schema and the reader accept them all."""
    for doc in ENOCHIAN:
        STATE_SCHEMA.validate(doc)
        back = state_from_json(json.loads(json.dumps(doc)))
        assert state_to_json(back, move_time_limit=doc.get("move_time_limit")) == doc


# ------------------------------------------------------------------------------------- FENs


def _fen(fen: str) -> None:
    TRIED["fen"] += 1
    check(run_cli(["perft", fen, "1"]))
    check(run_cli(["microchess", "explain", fen]))
    check(run_cli(["play", "builtin:random", "--quiet", "--max-plies", "2", "--fen", fen]))


test_fen, test_fen_slow = targets(fens())(_fen)


# ---------------------------------------------------------------------------- option values

FLAGS = [
    "--movetime",
    "--timeout",
    "--grace",
    "--tc",
    "--memory-mb",
    "--max-plies",
    "--retries",
    "--max-answer-bytes",
    "--moves",
]


def _option(data: tuple[str, str]) -> None:
    flag, value = data
    TRIED["option"] += 1
    argv = ["play", "builtin:random", "--quiet", "--max-plies", "2", f"{flag}={value}"]
    if flag == "--max-plies":
        argv = ["play", "builtin:random", "--quiet", f"{flag}={value}", "--movetime", "0.05"]
    run = run_cli(argv)
    check(run)
    if not (value.isascii() and value.isdigit() and 4 < int(value[:3]) <= 12):  # valid, long
        TRIED["option"] += 1
        check(run_cli(["perft", "startpos", value]))
        TRIED["option"] += 1
        check(run_cli(["enochian", "perft", "earth_of_fire", value]))
    TRIED["option"] += 1
    check(run_cli(["agent", "--agent", f"builtin:random?seed={value}"], b"{}"))


test_option, test_option_slow = targets(
    st.tuples(
        st.sampled_from(FLAGS),
        st.one_of(odd_strings, st.integers(-(10**9), 10**9).map(str), st.just("1e400+0")),
    )
)(_option)


TEXT_FLAGS = [
    ["--option", "fen={}"],
    ["--option", "{}=1"],
    ["--option", "moves={}"],
    ["--openings", "{}"],
    ["--variant", "{}"],
    ["--results", "{tmp}/{}"],
    ["--log-dir", "{tmp}/{}"],
    ["--pgn", "{tmp}/{}/x.pgn"],
    ["builtin:{}"],
    ["--variant", "enochian", "--option", "array={}"],
    ["--variant", "enochian", "--option", "ptah={}", "--option", "divination=true"],
]


def _text_option(data: tuple[list[str], str]) -> None:
    """Text flags (paths, names, FENs) given odd or huge text: refused in one short line.
    Paths stay inside a fresh temporary folder, which is also the working folder (".." and
    "/" in a value must not reach anything outside it)."""
    import contextlib
    import tempfile

    template, value = data
    TRIED["text option"] += 1
    with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp):
        inside = value.replace("..", "__")
        extra = [
            part.replace("{tmp}", tmp).replace("{}", inside if "{tmp}" in part else value)
            for part in template
        ]
        agents = extra[:1] if extra[0].startswith("builtin:") else ["builtin:random"]
        flags = extra[1:] if extra[0].startswith("builtin:") else extra
        check(run_cli(["play", *agents, "--quiet", "--max-plies", "2", *flags]))


test_text_option, test_text_option_slow = targets(
    st.tuples(
        st.sampled_from(TEXT_FLAGS),
        st.one_of(odd_strings, st.sampled_from(["x" * 100_000, "a/" * 3000, "..", "/"])),
    ).filter(lambda t: "\x00" not in t[1])
)(_text_option)


def _slow_engine(name: str, value: str) -> bool:
    """An engine option that is valid and asks for a long search (not what is tested here)."""
    try:
        number = float(value)
    except ValueError:
        return False
    return (name == "depth" and number > 3) or (name == "movetime" and number > 0.2)


def _agent_option(data: tuple[str, str, str]) -> None:
    agent, name, value = data
    TRIED["agent option"] += 1
    spec = f"builtin:{agent}?{name}={value}"
    if agent == "engine" and name not in ("depth", "movetime"):
        spec += "&depth=1"
    check(run_cli(["agent", "--agent", spec], json.dumps(STARTING_STATE).encode()))


test_agent_option, test_agent_option_slow = targets(
    st.tuples(
        st.sampled_from(["engine", "random", "microchess"]),
        st.sampled_from(["depth", "movetime", "hash", "threads", "resign", "seed"]),
        st.one_of(odd_strings, st.sampled_from(["0", "1", "-1", "1e400", "99999999999"])),
    ).filter(lambda t: not (t[0] == "engine" and _slow_engine(t[1], t[2])))
)(_agent_option)


# ---------------------------------------------------------------------------------- answers


class Scripted(Player):
    """A seat that answers with the generated text, whatever it is asked."""

    def __init__(self, raw: Any) -> None:
        self.name = "fuzz"
        self.raw = raw

    def ask(self, turn: Turn) -> Any:
        return self.raw


ANSWER_TERMINATIONS = {"invalid_answer", "illegal_move"}


def _answer(data: tuple[Any, str]) -> None:
    raw, variant = data
    TRIED["answer"] += 1
    other = "builtin:random"
    with time_limit(20):
        result = play_game(
            Scripted(raw), other, variant=variant, config=GameConfig(timeout=5), max_plies=6
        )
    json.dumps(result.to_json())  # the results line can be written
    assert len(result.reason) <= 400, result.reason[:200]


def _answers() -> st.SearchStrategy[Any]:
    moves = st.fixed_dictionaries(
        {"from": odd_strings, "to": odd_strings, "promotion": json_values}
    )
    texts = st.one_of(
        st.just('{"from": "e2", "to": "e4", "promotion": null}'),
        moves.map(json.dumps),
        json_values.map(json.dumps),
        odd_strings,
        st.binary(max_size=30),
        st.just("{" * 100_000),
        st.just('{"from": "e2", "to": "e4", "promotion": null, "from": "e2"}'),
        st.just('{"action": "claim_draw", "reason": "' + "x" * 100_000 + '"}'),
    )
    return st.tuples(texts, st.sampled_from(["chess", "enochian"]))


test_answer, test_answer_slow = targets(_answers())(_answer)


# ------------------------------------------------------------------------------------- UCI


def _uci(stream: str) -> None:
    from enoch.engine.uci import run

    TRIED["uci"] += 1
    out = io.StringIO()
    with time_limit(30):
        status = run(io.StringIO(stream), out)
    assert status == 0
    for line in out.getvalue().splitlines():
        assert len(line) < 2000, line[:200]


test_uci, test_uci_slow = targets(uci_streams())(_uci)
