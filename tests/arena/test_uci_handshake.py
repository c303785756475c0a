"""A UCI engine that fails the handshake: its cause reaches the results, the PGN and the log.

Not only "engine was stopped after an earlier failure": the answer that never came (``no uciok
within 10 s``) or the engine's own last stderr line, through ``enoch match`` end to end. The
handshake limit is shortened here so that a test takes a second, not ten.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from enoch.cli import main
from enoch.fide import uci as fide_uci
from enoch.fide.records import read_pgn_games
from tests.arena.helpers import AGENTS

BROKEN = AGENTS / "broken_uci.py"


@pytest.mark.parametrize(
    ("mode", "cause"),
    [
        ("mute", "no uciok within 1 s (UCI handshake)"),
        ("no_readyok", "no readyok within 1 s (UCI handshake)"),
        ("crash", "broken_uci: cannot load the network file"),
    ],
)
def test_handshake_failure_cause_in_results_pgn_and_log(
    mode: str,
    cause: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(fide_uci, "HANDSHAKE_TIMEOUT", 1.0)
    results, pgn, logs = tmp_path / "r.jsonl", tmp_path / "g.pgn", tmp_path / "logs"
    engine = f"uci:{sys.executable} {BROKEN} {mode}"
    status = main(
        [
            "match",
            engine,
            "builtin:random",
            "--games",
            "2",
            "--results",
            str(results),
            "--pgn",
            str(pgn),
            "--log-dir",
            str(logs),
        ]
    )
    assert status == 0, capsys.readouterr().err
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(lines) == 2
    for line in lines:
        assert line["termination"] == "crash"
        assert cause in line["reason"], line["reason"]
        assert "stopped after an earlier failure" not in line["reason"]
    games = read_pgn_games(pgn.read_text())
    assert len(games) == 2
    for game in games:
        assert game.headers["EnochTermination"] == "crash"
        assert cause in game.end().comment, game.end().comment
    logged = sorted(logs.glob("*.jsonl"))
    assert len(logged) == 2
    for path in logged:
        events = [json.loads(line) for line in path.read_text().splitlines()]
        failures = [e for e in events if e["event"] == "answer" and "error" in e]
        assert failures and cause in failures[0]["error"], failures
        assert cause in events[-1]["reason"]
        if mode == "crash":  # the engine's stderr is in the log as well
            assert "cannot load the network file" in failures[0]["stderr"]
