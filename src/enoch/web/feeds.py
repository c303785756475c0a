"""A game as the page sees it, built from the referee's event log, live or from a file.

Why from the event log. The referee already writes everything a viewer wants to see — each
state sent, each raw answer with its time and stderr, each decision (a move, a retry, a refused
claim), the end — as the lines of ``--log-dir`` (``docs/schema/events.schema.json``). A
:class:`Feed` reads exactly those lines, whether they come from the server's own referee (its
``log`` callback, the live state beside it) or from the files another ``enoch match --log-dir``
process is writing (the state rebuilt from the logged JSON). So a game played here, a game of a
match run here and a game watched in another process's folder are one thing to the page.

A feed is written by one thread (its referee, or the folder watcher) and read by the server's
request handlers: its lock guards both. :meth:`Feed.ingest` returns the message to broadcast to
the page's event stream (or None when the line changes nothing a viewer sees).
"""

from __future__ import annotations

import threading
import time
from typing import Any

from enoch.game.api import State
from enoch.web.views import apply_text, board_view, state_from_log

#: longest raw answer or stderr kept per entry (a hostile agent's megabyte stays out of pages)
MAX_TEXT = 2000
#: answers kept per game in the move list beside the board (a long game keeps the last ones)
MAX_ENTRIES = 4000


def _short(text: Any) -> Any:
    if isinstance(text, str) and len(text) > MAX_TEXT:
        return text[:MAX_TEXT] + f"... ({len(text)} characters)"
    return text


class Feed:
    """One game: its seats, board, per-answer entries, moves, clocks and result."""

    def __init__(
        self,
        game_id: str,
        variant: str,
        *,
        seats: list[str] | None = None,
        match: str | None = None,
        source: str = "server",
        options: dict[str, Any] | None = None,
    ) -> None:
        self.id = game_id
        self.variant = variant
        self.seats: list[str] = list(seats or [])
        self.match = match
        self.source = source
        self.options = dict(options or {})
        self.summary: dict[str, Any] = {}
        self.status = "waiting"
        self.view: dict[str, Any] | None = None
        self.entries: list[dict[str, Any]] = []
        self.moves: list[str] = []
        self.book: list[str] = []
        self.positions: dict[int, dict[str, Any]] = {}
        self.clock: dict[str, Any] | None = None
        self.to_move: int | None = None
        self.waiting: int | None = None  # the human seat the server waits on
        self.humans: list[int] = []
        self.result: dict[str, Any] | None = None
        self.evals: list[float | None] | None = None
        self.created = time.time()
        self.seq = 0
        self.moved_at: float | None = None  # wall time of the referee's last move
        self.lock = threading.RLock()
        self._replay: State | None = None  # rebuilt from logged states (watched games)
        self._published = 0  # entries already sent on the stream

    # ------------------------------------------------------------------ reading the log
    def ingest(self, event: dict[str, Any], live: State | None = None) -> dict[str, Any] | None:
        """Take one event-log line (``live``: the referee's own state, else rebuilt)."""
        with self.lock:
            kind = event.get("event")
            if kind == "start":
                self.status = "running"
                self.seats = [str(s) for s in event.get("seats", self.seats)]
                self.book = [str(m) for m in event.get("book") or []]
                self.moves = list(self.book)
                self.summary = {
                    k: v
                    for k, v in event.items()
                    if k not in ("event", "ply", "seats", "book", "variant")
                }
                return self._message()
            if kind == "state":
                seat = int(event.get("player", 0))
                self.to_move = seat
                data = event.get("state") or {}
                if isinstance(data, dict):
                    clock = data.get("clock")
                    self.clock = (
                        {"clock": clock, "seat": seat, "at": time.time()}
                        if isinstance(clock, dict)
                        else None
                    )
                state = live
                if state is None:
                    try:
                        state = self._replay = state_from_log(self.variant, data)
                    except Exception:  # a line we cannot read: keep the last board
                        state = None
                if state is not None:
                    self.view = board_view(state)
                    self.positions[state.ply] = _no_legal(self.view)
                return self._message()
            if kind == "answer":
                entry: dict[str, Any] = {
                    "ply": event.get("ply"),
                    "seat": event.get("player"),
                    "elapsed": event.get("elapsed"),
                    "decisions": [],
                }
                if "raw" in event:
                    raw = event["raw"]
                    entry["raw"] = _short(raw if isinstance(raw, str) else _json(raw))
                if "error" in event:
                    entry["error"] = _short(event["error"])
                    entry["kind"] = event.get("kind")
                if event.get("stderr"):
                    entry["stderr"] = _short(event["stderr"])
                for key in ("usage", "tokens", "prompt_tokens", "completion_tokens"):
                    if key in event:  # language-model agents may log their tokens per answer
                        entry[key] = event[key]
                self.entries.append(entry)
                if len(self.entries) > MAX_ENTRIES:
                    del self.entries[: len(self.entries) - MAX_ENTRIES]
                    self._published = 0
                return None
            if kind == "decision":
                decision = {k: event[k] for k in ("decision", "action", "reason") if k in event}
                for entry in reversed(self.entries):
                    if entry.get("seat") == event.get("player"):
                        entry["decisions"].append(decision)
                        break
                if event.get("decision") == "move" and "action" in event:
                    self.moves.append(str(event["action"]))
                    self.moved_at = time.time()
                    if live is None and self._replay is not None:
                        apply_text(self._replay, str(event["action"]))
                    return None  # the next state line carries the new board
                return self._message()
            if kind == "end":
                self.status = "finished"
                self.waiting = None
                self.result = {
                    k: event.get(k) for k in ("result", "termination", "reason", "winner", "points")
                }
                state = live if live is not None else self._replay
                if state is not None:
                    self.view = board_view(state, with_legal=False)
                    self.positions[state.ply] = self.view
                elif self.view is not None:
                    self.view = _no_legal(self.view)
                return self._message()
            return None

    def finish(self, result: dict[str, Any]) -> dict[str, Any]:
        """The results line of the finished game (adds what the log lacks: ``usage``)."""
        with self.lock:
            merged = dict(self.result or {})
            merged.update(
                {k: v for k, v in result.items() if k not in ("moves", "seats", "variant")}
            )
            self.result = merged
            self.status = "finished"
            return self._message()

    # ------------------------------------------------------------------ what the page reads
    def _message(self) -> dict[str, Any]:
        self.seq += 1
        new = self.entries[self._published :]
        first = self._published
        self._published = len(self.entries)
        out = self.brief()
        out.update(
            {
                "type": "game",
                "seq": self.seq,
                "view": self.view,
                "moves": len(self.moves),
                "last_move": self.moves[-1] if self.moves else None,
                "entries_from": first,
                "entries": new,
                "moved_at": self.moved_at,
                "sent_at": time.time(),
            }
        )
        return out

    def brief(self) -> dict[str, Any]:
        """What lists of games show."""
        with self.lock:
            return {
                "id": self.id,
                "variant": self.variant,
                "seats": list(self.seats),
                "status": self.status,
                "match": self.match,
                "source": self.source,
                "result": self.result,
                "plies": len(self.moves),
                "clock": self.clock,
                "to_move": self.to_move,
                "waiting": self.waiting,
                "humans": list(self.humans),
                "created": self.created,
            }

    def full(self) -> dict[str, Any]:
        """Everything about the game (``GET /api/games/{id}``)."""
        with self.lock:
            out = self.brief()
            out.update(
                {
                    "seq": self.seq,
                    "view": self.view,
                    "moves": list(self.moves),
                    "book": list(self.book),
                    "entries": list(self.entries),
                    "summary": dict(self.summary),
                    "options": dict(self.options),
                    "evals": self.evals,
                }
            )
            return out

    def position_list(self) -> list[dict[str, Any] | None]:
        """The board after each ply, 0 (the start) to the last, for the review page."""
        with self.lock:
            if self.variant == "chess":
                return _chess_positions(self.summary.get("start_fen"), self.moves)
            if not self.positions:
                return []
            last = max(self.positions)
            out: list[dict[str, Any] | None] = []
            for ply in range(last + 1):
                out.append(self.positions.get(ply))
            return out


def _no_legal(view: dict[str, Any]) -> dict[str, Any]:
    out = dict(view)
    out["legal"] = []
    return out


def _json(value: Any) -> str:
    import json

    return json.dumps(value, separators=(",", ":"), default=str)


def _chess_positions(start_fen: Any, moves: list[str]) -> list[dict[str, Any] | None]:
    from enoch.fide.game import ChessState
    from enoch.game.registry import find_game
    from enoch.rules import STARTING_FEN

    game = find_game("chess")
    try:
        state = ChessState(game, str(start_fen or STARTING_FEN))  # type: ignore[arg-type]
    except Exception:
        return []
    out: list[dict[str, Any] | None] = [board_view(state, with_legal=False)]
    for text in moves:
        if not apply_text(state, text):
            break
        out.append(board_view(state, with_legal=False))
    return out


__all__ = ["Feed"]
