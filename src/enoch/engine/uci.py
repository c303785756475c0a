"""``enoch uci``: the engine as a UCI engine.

The main thread reads commands; ``go`` starts the search on a worker thread so that ``stop``,
``isready`` and ``quit`` are answered while it thinks. Every ``bestmove`` is a legal move of the
position its ``go`` searched.

The reader never waits for a search to end by itself: a ``go infinite`` ends only with
``stop``, so a GUI that sends ``position`` or ``go`` during one and then ``quit`` would
otherwise never be heard again. ``position`` does not touch the running search (it searches
a copy); ``go``, ``setoption`` and ``ucinewgame``, which need the engine idle, end the running
search first as ``stop`` does (its ``bestmove`` is printed: every ``go`` gets exactly one).

``UCI_LimitStrength`` with ``UCI_Elo`` (the standard options, as Stockfish has them) play a
strength level of ``engine/levels.py``; ``Seed`` seeds its chosen mistakes, so that a game
between fixed seeds can be replayed.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import IO

from enoch import __version__
from enoch._numbers import parse_float
from enoch.engine.levels import ELO_MAX, ELO_MIN, Weakened
from enoch.engine.search import MAX_THREADS, Limits, SearchResult, format_score, pv_text
from enoch.engine.smp import parallel_searcher
from enoch.errors import EnochError, InputError, quote
from enoch.rules.position import Position, move_uci

ENGINE_NAME = f"enoch {__version__}"
HASH_DEFAULT, HASH_MIN, HASH_MAX = 16, 1, 1024
OVERHEAD_DEFAULT = 30
ELO_DEFAULT = 1500
_GO_NUMBERS = ("wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "movetime")


class UciEngine:
    def __init__(self, out: IO[str] | None = None) -> None:
        self.out = out if out is not None else sys.stdout
        self.lock = threading.Lock()
        self.searcher = parallel_searcher(HASH_DEFAULT)
        self.position = Position.start()
        self.overhead_ms = OVERHEAD_DEFAULT
        self.thread: threading.Thread | None = None
        self.info_depth = 0
        self.limit_strength = False
        self.elo = ELO_DEFAULT
        self.seed = 0
        self.weakened: Weakened | None = None

    def send(self, line: str) -> None:
        with self.lock:
            self.out.write(line + "\n")
            self.out.flush()

    # ------------------------------------------------------------------ commands

    def handle(self, line: str) -> bool:
        """Handle one command line; False after ``quit``."""
        parts = line.split()
        if not parts:
            return True
        cmd, args = parts[0], parts[1:]
        if cmd == "uci":
            self.send(f"id name {ENGINE_NAME}")
            self.send("id author enoch developers")
            self.send(
                f"option name Hash type spin default {HASH_DEFAULT} min {HASH_MIN} max {HASH_MAX}"
            )
            self.send(
                f"option name Move Overhead type spin default {OVERHEAD_DEFAULT} min 0 max 5000"
            )
            self.send(f"option name Threads type spin default 1 min 1 max {MAX_THREADS}")
            self.send("option name Clear Hash type button")
            self.send("option name UCI_LimitStrength type check default false")
            self.send(
                f"option name UCI_Elo type spin default {ELO_DEFAULT} min {ELO_MIN} max {ELO_MAX}"
            )
            self.send("option name Seed type spin default 0 min 0 max 2147483647")
            self.send("uciok")
        elif cmd == "isready":
            self.send("readyok")
        elif cmd == "ucinewgame":
            self.stop()
            self.searcher.clear()
            self.position = Position.start()
            self.weakened = None  # each game's chosen mistakes from the seed afresh
        elif cmd == "setoption":
            self.stop()
            self.setoption(args)
        elif cmd == "position":
            self.set_position(args)
        elif cmd == "go":
            self.stop()
            self.go(args)
        elif cmd == "stop":
            self.stop()
        elif cmd == "ponderhit":
            pass
        elif cmd == "quit":
            self.stop()
            self.searcher.close()
            return False
        elif cmd == "d":
            self.send(str(self.position))
            self.send(f"Fen: {self.position.fen()}")
        else:
            self.send(f"info string unknown command {cmd}")
        return True

    def setoption(self, args: list[str]) -> None:
        text = " ".join(args)
        if not text.startswith("name "):
            self.send("info string setoption needs 'name'")
            return
        name, _, value = text[5:].partition(" value ")
        name = name.strip().lower()
        value = value.strip()
        try:
            if name == "hash":
                mb = max(HASH_MIN, min(HASH_MAX, int(value)))
                self.searcher.set_hash(mb)
            elif name == "threads":
                self.searcher.set_threads(max(1, min(MAX_THREADS, int(value))))
            elif name == "move overhead":
                self.overhead_ms = max(0, min(5000, int(value)))
            elif name == "clear hash":
                self.searcher.clear()
            elif name == "uci_limitstrength":
                if value.lower() not in ("true", "false"):
                    raise ValueError(value)
                self.limit_strength = value.lower() == "true"
                self.weakened = None
            elif name == "uci_elo":
                self.elo = max(ELO_MIN, min(ELO_MAX, int(value)))
                self.weakened = None
            elif name == "seed":
                self.seed = max(0, int(value))
                self.weakened = None
            else:
                self.send(f"info string unknown option {name}")
        except ValueError:
            self.send(f"info string bad value {quote(value)} for option {quote(name)}")

    def set_position(self, args: list[str]) -> None:
        try:
            if "moves" in args:
                i = args.index("moves")
                head, moves = args[:i], args[i + 1 :]
            else:
                head, moves = args, []
            if head and head[0] == "startpos":
                pos = Position.start()
            elif head and head[0] == "fen":
                pos = Position.from_fen(" ".join(head[1:]))
            else:
                self.send("info string position needs startpos or fen")
                return
            for text in moves:
                pos.make(pos.parse_uci(text))
        except EnochError as exc:
            self.send(f"info string bad position: {exc}")
            return
        # The search works on its own copy with the game's history of keys (repetitions).
        self.position = pos

    def go(self, args: list[str]) -> None:
        opts: dict[str, float] = {}
        infinite = False
        i = 0
        while i < len(args):
            a = args[i]
            if a == "infinite":
                infinite = True
            elif a == "ponder":
                pass
            elif a in _GO_NUMBERS and i + 1 < len(args):
                try:  # the one bounded parser: 1e400, nan or 5000 digits are not a bound
                    opts[a] = parse_float(args[i + 1], a, -1e12, 1e12)
                except InputError as exc:
                    self.send(f"info string ignored: {exc}")
                i += 1
            i += 1
        ms = 0.001
        limits = Limits(
            depth=int(opts["depth"]) if "depth" in opts else None,
            nodes=int(opts["nodes"]) if "nodes" in opts else None,
            movetime=opts["movetime"] * ms if "movetime" in opts else None,
            wtime=opts["wtime"] * ms if "wtime" in opts else None,
            btime=opts["btime"] * ms if "btime" in opts else None,
            winc=opts.get("winc", 0.0) * ms,
            binc=opts.get("binc", 0.0) * ms,
            movestogo=int(opts["movestogo"]) if "movestogo" in opts else None,
            infinite=infinite,
        )
        if (
            not infinite
            and limits.depth is None
            and limits.nodes is None
            and limits.movetime is None
            and limits.wtime is None
            and limits.btime is None
        ):
            limits.infinite = True  # bare "go": think until "stop"
        pos = self.position.copy()
        self.searcher.stop_flag = False
        self.thread = threading.Thread(target=self._run, args=(pos, limits), daemon=True)
        self.thread.start()

    def _run(self, pos: Position, limits: Limits) -> None:
        legal = pos.legal_moves()
        if not legal:
            self.send("info string no legal move")
            self.send("bestmove 0000")
            return
        self.info_depth = 0
        if self.limit_strength:
            if self.weakened is None:  # a new level or seed: its generator starts afresh
                self.weakened = Weakened(self.elo, self.seed)
            if not self.weakened.level.full:
                move, score = self.weakened.choose(
                    self.searcher, pos, limits, self.overhead_ms / 1000
                )
                self.send(f"info depth 1 score {format_score(score)} pv {move_uci(move)}")
                if limits.infinite:
                    while not self.searcher.stop_flag:
                        time.sleep(0.005)
                self.send(f"bestmove {move_uci(move if move in legal else legal[0])}")
                return
        result = self.searcher.think(
            pos, limits, overhead=self.overhead_ms / 1000, on_info=self._info
        )
        if result.depth > self.info_depth:  # a helper's deeper iteration gave the move
            self._info(result)
        if limits.infinite:
            # UCI: in infinite mode the best move is printed only after "stop".
            while not self.searcher.stop_flag:
                time.sleep(0.005)
        move = result.move if result.move in legal else legal[0]
        self.send(f"bestmove {move_uci(move)}")

    def _info(self, r: SearchResult) -> None:
        self.info_depth = r.depth
        nps = int(r.nodes / r.time) if r.time > 0 else 0
        self.send(
            f"info depth {r.depth} seldepth {r.seldepth} score {format_score(r.score)} "
            f"nodes {r.nodes} nps {nps} time {int(r.time * 1000)} pv {pv_text(r.pv)}"
        )

    def stop(self) -> None:
        self.searcher.stop_flag = True
        self.wait()

    def wait(self) -> None:
        if self.thread is not None:
            self.thread.join()
            self.thread = None


def run(inp: IO[str] | None = None, out: IO[str] | None = None) -> int:
    engine = UciEngine(out)
    source = inp if inp is not None else sys.stdin
    for line in source:
        if not engine.handle(line.strip()):
            break
    else:
        engine.stop()
        engine.searcher.close()
    return 0
