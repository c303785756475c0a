"""``uci:CMD``: a UCI engine as a player.

The referee's state becomes ``position fen START moves ...`` (the engine sees the real game,
so its own repetition detection works), then ``go movetime`` or ``go wtime/btime/winc/binc``.
``bestmove`` is turned into the protocol's answer object; the raw ``bestmove`` line is what a
malformed reply is judged by. UCI has no draw claims or offers: an engine only ever moves.
The engine runs under the same process-group, memory and output limits as every external agent.
"""

from __future__ import annotations

import contextlib
import re
import time
from typing import Any
from urllib.parse import parse_qsl

from enoch.arena.players import Player, Raw, Turn
from enoch.arena.transport import (
    AgentCrash,
    AgentProcess,
    AgentTimeout,
    Limits,
    TransportError,
)
from enoch.rules import STARTING_FEN, move_uci

HANDSHAKE_TIMEOUT = 10.0
_PROMO = {"q": "Q", "r": "R", "b": "B", "n": "N"}


_QUERY = re.compile(r"[^\s?=&]+=[^\s?&]*(?:&[^\s?=&]+=[^\s?&]*)*")


def parse_uci_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``uci:CMD?Name=Value&...``: the command and the UCI options to set after ``uciok``.

    Why a query string: a match names each player by one string (as ``builtin:NAME?opts``
    does), and a limited-strength Stockfish (``UCI_LimitStrength``, ``UCI_Elo``) is the usual
    opponent. Names with spaces are written with ``+`` or ``%20`` (``Skill+Level=5``). A ``?``
    only starts options when everything after the last one is ``Name=Value`` pairs, so a
    command that merely contains a ``?`` is left alone.
    """
    body = spec[4:] if spec.startswith("uci:") else spec
    cmd, sep, query = body.rpartition("?")
    if not sep or not cmd.strip() or not _QUERY.fullmatch(query):
        return body, {}
    return cmd, dict(parse_qsl(query, keep_blank_values=True))


class UciPlayer(Player):
    """A UCI engine, started on the first question and stopped with the game."""

    def __init__(
        self,
        name: str,
        cmd: str,
        limits: Limits = Limits(),  # noqa: B008
        options: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self.cmd = cmd
        self.limits = limits
        self.options = options or {}
        self.proc: AgentProcess | None = None
        self._pgids: list[int] = []
        self._stderr = ""
        self.engine_name = ""
        self._failure = ""  # why the engine was stopped, for every later question

    def _line(self, deadline: float | None) -> str:
        assert self.proc is not None
        # A line may be long (``info`` with a PV), but never without bound.
        return self.proc.read_line(deadline, self.limits.max_answer_bytes)

    def _expect(self, word: str, deadline: float) -> None:
        while True:
            line = self._line(deadline)
            if line.startswith("id name "):
                self.engine_name = line[8:]
            if line == word:
                return

    def _start(self) -> AgentProcess:
        if self.proc is None:
            self.proc = AgentProcess(self.cmd, self.limits)
            self._pgids.append(self.proc.pgid)
            deadline = time.monotonic() + HANDSHAKE_TIMEOUT
            awaited = "uciok"
            try:
                self.proc.send(b"uci\n")
                self._expect("uciok", deadline)
                for key, value in self.options.items():
                    self.proc.send(f"setoption name {key} value {value}\n".encode())
                self.proc.send(b"ucinewgame\nisready\n")
                awaited = "readyok"
                self._expect("readyok", deadline)
            except TransportError as exc:
                # The cause, said once here, is what the results, the PGN and the log carry
                # (every later question repeats it): which answer never came, and the last
                # line the engine wrote on stderr (often the real reason: a missing file).
                self._stderr = self.proc.stderr_tail()
                self.proc.kill()
                tail = self._stderr.strip().splitlines()
                said = f"; stderr: {tail[-1][:200]}" if tail else ""
                if isinstance(exc, AgentTimeout):
                    cause = f"no {awaited} within {HANDSHAKE_TIMEOUT:g} s (UCI handshake){said}"
                else:
                    cause = f"UCI handshake failed before {awaited}: {exc}{said}"
                raise AgentCrash(cause, self._stderr) from None
        return self.proc

    def start(self) -> None:
        """The handshake happens before the clocks run; a failure is reported by ``ask``
        (with its cause: "no uciok in time" must reach the results, not only "stopped")."""
        try:
            self._start()
        except TransportError as exc:
            self._failure = str(exc)

    def ask(self, turn: Turn) -> Raw:
        from enoch.fide.game import ChessState

        if self.proc is not None and self.proc.closed:
            raise AgentCrash(self._failure or "engine was stopped after an earlier failure")
        try:
            proc = self._start()
        except TransportError as exc:
            self._failure = str(exc)
            raise
        state = turn.state
        assert isinstance(state, ChessState)
        start = state.start_fen
        pos_cmd = "position startpos" if start == STARTING_FEN else f"position fen {start}"
        if state.move_list:
            pos_cmd += " moves " + " ".join(move_uci(m) for m in state.move_list)
        if turn.remaining is not None:
            w, b = (max(int(t * 1000), 0) for t in turn.remaining[:2])
            inc = int(turn.increment * 1000)
            go = f"go wtime {w} btime {b} winc {inc} binc {inc}"
            if turn.moves_to_go:
                go += f" movestogo {turn.moves_to_go}"
        elif turn.movetime is not None:
            go = f"go movetime {max(1, int(turn.movetime * 1000))}"
        else:
            go = "go depth 8"
        proc.send(f"{pos_cmd}\n{go}\n".encode())
        deadline = None if turn.timeout is None else time.monotonic() + turn.timeout
        try:
            while True:
                line = self._line(deadline)
                if line.startswith("bestmove"):
                    break
        except AgentTimeout:
            self._stderr = proc.stderr_tail()
            proc.kill()
            raise
        self._stderr = proc.stderr_tail()
        return bestmove_answer(line)

    def stderr(self) -> str:
        return self._stderr

    @property
    def pgids(self) -> list[int]:
        return list(self._pgids)

    def close(self) -> None:
        if self.proc is not None:
            if not self.proc.closed:
                self.proc.send(b"quit\n")
                # the engine is being stopped anyway: any failure here is moot
                with contextlib.suppress(Exception):
                    self.proc.read_until(lambda b: False, time.monotonic() + 0.2)
            self.proc.finish(grace=0.2)


def bestmove_answer(line: str) -> Raw:
    """``bestmove e7e8q ponder ...`` as an answer object; anything else stays text (invalid)."""
    parts = line.split()
    if len(parts) < 2:
        return line
    text = parts[1]
    if len(text) in (4, 5) and text[:4].isalnum():
        answer: dict[str, Any] = {"from": text[:2], "to": text[2:4], "promotion": None}
        if len(text) == 5:
            if text[4] not in _PROMO:
                return line
            answer["promotion"] = _PROMO[text[4]]
        return answer
    return line
