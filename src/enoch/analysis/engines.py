"""The engines that judge moves: enoch's own, in-process, or any UCI engine.

Both answer one question for a position: its score from White's side (centipawns, a mate in
``n`` plies as ``±(100000 - n)``) and the engine's best move, at a fixed node budget.

Why nodes and not time: a node budget gives the same judgement on every machine and on every
run (the search is deterministic for a given position, history and table), so an annotated
game can be reproduced and a test can rely on it; time would judge the same move differently on
a loaded machine. enoch's engine searches in this process (no start-up, no protocol); its
transposition table is kept through a game (later positions reuse what earlier searches found)
and cleared at the start of each game, so a game's analysis does not depend on the games
before it in the file.

A UCI engine runs under the arena's containment (its own process group, the memory limit,
deadlines): it is started once, given ``ucinewgame`` per game, and its whole group is killed
when the analysis ends, however it ends.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Protocol

from enoch.analysis.judge import MATE_SCORE
from enoch.errors import InputError

if TYPE_CHECKING:
    import chess

# Transposition table of the in-process engine, MiB.
DEFAULT_HASH_MB = 16
# A UCI engine's handshake, and its answer to one node-bounded search, must come within these.
UCI_HANDSHAKE_SECONDS = 10.0
UCI_SEARCH_SECONDS = 60.0


class Evaluator(Protocol):
    name: str

    def new_game(self) -> None: ...

    def evaluate(self, board: chess.Board) -> tuple[int, str | None]:
        """(score from White's side, best move in UCI or None) of a position with moves."""
        ...

    def close(self) -> None: ...


def terminal_score(board: chess.Board) -> int | None:
    """The score of a finished game's last position: a checkmate, or 0 for a dead draw."""
    if board.is_checkmate():
        return -MATE_SCORE if board.turn else MATE_SCORE
    if board.is_stalemate() or board.is_insufficient_material():
        return 0
    return None


def _white(score_stm: int, white_to_move: bool) -> int:
    return score_stm if white_to_move else -score_stm


class BuiltinEvaluator:
    """enoch's engine in this process, bounded by nodes."""

    def __init__(self, nodes: int, hash_mb: float = DEFAULT_HASH_MB) -> None:
        from enoch.engine.search import Searcher

        self.name = "enoch engine"
        self.nodes = nodes
        self.searcher = Searcher(hash_mb)

    def new_game(self) -> None:
        self.searcher.clear()

    def evaluate(self, board: chess.Board) -> tuple[int, str | None]:
        from enoch.engine.search import MATE, MATE_BOUND, Limits
        from enoch.rules.position import Position, move_uci

        done = terminal_score(board)
        if done is not None:
            return done, None
        # The real history (for repetitions), replayed from the game's first position.
        pos = Position.from_fen(board.root().fen())
        for move in board.move_stack:
            pos.make(pos.parse_uci(move.uci()))
        result = self.searcher.think(pos, Limits(nodes=self.nodes))
        score = result.score
        if score > MATE_BOUND:
            score = MATE_SCORE - (MATE - score)
        elif score < -MATE_BOUND:
            score = -(MATE_SCORE - (MATE + score))
        return _white(score, board.turn), move_uci(result.move)

    def close(self) -> None:
        self.searcher.close()


def parse_info_score(line: str) -> int | None:
    """The score of a UCI ``info`` line, from the side to move, in enoch's mate format."""
    parts = line.split()
    if "score" not in parts or "lowerbound" in parts or "upperbound" in parts:
        return None
    if "multipv" in parts:
        i = parts.index("multipv")
        if i + 1 < len(parts) and parts[i + 1] != "1":
            return None
    i = parts.index("score")
    try:
        kind, value = parts[i + 1], int(parts[i + 2])
    except (IndexError, ValueError):
        return None
    if kind == "cp":
        return max(-(MATE_SCORE // 2), min(MATE_SCORE // 2, value))
    if kind == "mate":
        if value > 0:
            return MATE_SCORE - (2 * value - 1)
        return -(MATE_SCORE - (-2 * value))
    return None


class UciEvaluator:
    """Any UCI engine (``uci:CMD?Option=Value``), bounded by ``go nodes``."""

    def __init__(self, spec: str, nodes: int) -> None:
        from enoch.arena.transport import AgentProcess, TransportError
        from enoch.fide.uci import parse_uci_spec

        cmd, self.options = parse_uci_spec(spec)
        self.name = spec
        self.nodes = nodes
        try:
            self.proc = AgentProcess(cmd)
        except TransportError as exc:
            raise InputError(f"--engine {spec[:200]}: {exc}") from None
        try:
            deadline = time.monotonic() + UCI_HANDSHAKE_SECONDS
            self.proc.send(b"uci\n")
            self._until("uciok", deadline)
            for key, value in self.options.items():
                self.proc.send(f"setoption name {key} value {value}\n".encode())
        except TransportError as exc:
            self.close()
            raise InputError(f"--engine {spec[:200]}: no UCI handshake ({exc})") from None
        except InputError:
            self.close()
            raise

    def _line(self, deadline: float) -> str:
        return self.proc.read_line(deadline, cap=1 << 20)

    def _until(self, word: str, deadline: float) -> list[str]:
        lines = []
        while True:
            line = self._line(deadline)
            lines.append(line)
            if line == word or line.startswith(word + " "):
                return lines

    def new_game(self) -> None:
        from enoch.arena.transport import TransportError

        try:
            self.proc.send(b"ucinewgame\nisready\n")
            self._until("readyok", time.monotonic() + UCI_HANDSHAKE_SECONDS)
        except TransportError as exc:
            raise InputError(f"--engine {self.name[:200]}: {exc}") from None

    def evaluate(self, board: chess.Board) -> tuple[int, str | None]:
        from enoch.arena.transport import TransportError

        done = terminal_score(board)
        if done is not None:
            return done, None
        root = board.root()
        cmd = (
            "position startpos" if root.fen() == root.starting_fen else f"position fen {root.fen()}"
        )
        if board.move_stack:
            cmd += " moves " + " ".join(m.uci() for m in board.move_stack)
        try:
            self.proc.send(f"{cmd}\ngo nodes {self.nodes}\n".encode())
            lines = self._until("bestmove", time.monotonic() + UCI_SEARCH_SECONDS)
        except TransportError as exc:
            raise InputError(f"--engine {self.name[:200]}: {exc}") from None
        score = None
        for line in lines:
            found = parse_info_score(line) if line.startswith("info ") else None
            if found is not None:
                score = found
        parts = lines[-1].split()
        best = parts[1] if len(parts) > 1 and parts[1] != "(none)" else None
        if score is None:
            raise InputError(f"--engine {self.name[:200]}: no score before {lines[-1][:80]!r}")
        return _white(score, board.turn), best

    def close(self) -> None:
        proc = getattr(self, "proc", None)
        if proc is None or proc.closed:
            return
        import contextlib

        with contextlib.suppress(Exception):
            proc.send(b"quit\n")
        proc.finish(grace=0.2)


def make_evaluator(spec: str, nodes: int) -> Evaluator:
    """``builtin:engine`` (the default, ``?hash=MB`` optional) or ``uci:CMD?Option=Value``."""
    if nodes < 1:
        raise InputError(f"--nodes must be at least 1, got {nodes}")
    if spec.startswith("uci:"):
        if not spec[4:].strip():
            raise InputError("--engine uci: needs a command (uci:stockfish)")
        return UciEvaluator(spec, nodes)
    name, _, query = spec.partition("?")
    if name not in ("builtin:engine", "builtin:search"):
        raise InputError(f"--engine must be builtin:engine or uci:CMD, got {spec[:200]!r}")
    hash_mb: float = DEFAULT_HASH_MB
    for part in filter(None, query.split("&")):
        key, eq, value = part.partition("=")
        if key != "hash" or not eq:
            raise InputError(f"--engine builtin:engine takes only hash=MB, got {part[:100]!r}")
        try:
            hash_mb = float(value)
        except ValueError:
            raise InputError(
                f"--engine builtin:engine: hash must be a number, got {value!r}"
            ) from None
        if not 1 <= hash_mb <= 4096:
            raise InputError(f"--engine builtin:engine: hash must be 1..4096 MiB, got {value}")
    return BuiltinEvaluator(nodes, hash_mb)
