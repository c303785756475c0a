"""Replay every input that ever broke the CLI's contract (``tests/data/fuzz/``, one file per
case, with what it broke). Each case says what it must do now: ``expect`` (the exit status),
``stderr`` (a part of the one error line), ``problems`` (``enoch validate``: the problems are
the output), ``max_seconds``; and always the contract of ``tests/fuzz/contract.py``.

A case's ``argv`` and ``stdin`` may hold ``{{TEXT*N}}``: TEXT repeated N times (a 1 MB FEN
stays a small file). ``stdin`` may also be built from a valid state: ``{"base": "chess" or
"enochian", "set": {field: value}, "raw": {field: "JSON text"}, "as_string": true,
"set_option": {...}, "set_man": {...}}``. ``uci`` cases feed the UCI loop; ``answer`` cases
give the referee one answer text.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.fuzz.contract import check, run_cli, time_limit

CORPUS = Path(__file__).resolve().parent.parent / "data" / "fuzz"
CASES = sorted(CORPUS.glob("*.json"))


def expand(text: str) -> str:
    return re.sub(r"\{\{(.+?)\*(\d+)\}\}", lambda m: m.group(1) * int(m.group(2)), text)


def base_state(name: str) -> dict[str, Any]:
    if name == "chess":
        from enoch.protocol import state_from_fen

        return state_from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 3 20")
    from enoch.enochian.protocol import state_to_json
    from enoch.enochian.state import new_game

    return state_to_json(new_game())


def build_stdin(spec: Any) -> bytes:
    if spec is None:
        return b""
    if isinstance(spec, str):
        return expand(spec).encode()
    state = base_state(spec["base"])
    if spec.get("finished"):  # the state of a game that is over
        from enoch.enochian.protocol import state_to_json
        from enoch.enochian.state import new_game

        game = new_game(max_plies=4)
        while not game.is_terminal():
            game.make(sorted(game.legal_actions())[0])
        state = state_to_json(game)
    state.update(spec.get("set", {}))
    state["options"] = {**state.get("options", {}), **spec.get("set_option", {})}
    if spec["base"] == "chess":
        state.pop("options")
    if "set_man" in spec:
        state["men"][0].update(spec["set_man"])
    raw = {key: expand(value) for key, value in spec.get("raw", {}).items()}
    for key in raw:  # numbers JSON allows and Python will not convert: written as text
        state.pop(key)
    text = json.dumps(state)[:-1] + "".join(f', "{k}": {v}' for k, v in raw.items()) + "}"
    text = expand(text)
    if spec.get("as_string"):
        text = json.dumps(text)
    return text.encode()


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_corpus_case(path: Path) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    assert case["broke"], "every case says what it broke"
    if "uci" in case:
        from enoch.engine import uci

        out = io.StringIO()
        with time_limit(30):
            assert uci.run(io.StringIO(expand(case["uci"])), out) == 0
        longest = max(len(line) for line in out.getvalue().splitlines() or [""])
        assert longest <= case.get("max_line", 2000), out.getvalue()[:300]
        return
    if "answer" in case:
        from enoch.arena.referee import GameConfig, play_game
        from tests.fuzz.test_fuzz import Scripted

        with time_limit(30):
            result = play_game(
                Scripted(case["answer"]),
                "builtin:random",
                variant=case["variant"],
                config=GameConfig(timeout=5),
            )
        assert result.termination == case["termination"], result.reason
        return
    argv = [expand(a) for a in case["argv"]]
    run = run_cli(argv, build_stdin(case.get("stdin")))
    check(run, output_is_problems=case.get("problems", False))
    if "expect" in case:
        assert run.status == case["expect"], run.describe()
    if "stderr" in case:
        assert case["stderr"] in run.stderr, run.describe()
    if "max_seconds" in case:
        assert run.seconds < case["max_seconds"], f"{run.seconds:.1f} s: {run.describe()}"


def test_the_corpus_is_small() -> None:
    """Cases are generated from templates, not stored whole (no large data in the repository)."""
    assert CASES and all(p.stat().st_size < 20_000 for p in CASES)
