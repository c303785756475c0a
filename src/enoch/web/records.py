"""Game records for download: the arena's own writers (PGN for chess, the Enochian text record).

A game this server refereed keeps its :class:`~enoch.arena.referee.GameResult`, which the
game writes exactly as ``--record`` would. A watched or imported game has only what its log or
file said; its record is rebuilt from that (a chess game's moves, start and result as PGN).
"""

from __future__ import annotations

from typing import Any

from enoch.web.feeds import Feed


def record_text(feed: Feed) -> tuple[str, str, str]:
    """(text, media type, file suffix) of the game's record."""
    from enoch.arena.referee import GameResult
    from enoch.game.registry import find_game

    game = find_game(feed.variant)
    result = getattr(feed, "result_object", None)
    with feed.lock:
        data = dict(feed.result or {})
        if result is None:
            seats = list(feed.seats) or ["?"] * 2
            extras = dict(feed.summary)
            extras.setdefault("book_plies", len(feed.book))
            result = GameResult(
                variant=feed.variant,
                seats=seats,
                result=str(data.get("result") or "*"),
                termination=str(data.get("termination") or "unfinished"),
                reason=str(data.get("reason") or ""),
                winner=data.get("winner"),
                points=list(data.get("points") or []),
                moves=list(feed.moves),
                extras=extras,
                seat_names=tuple(game.seat_names),
            )
    if feed.variant == "chess":
        if result.result not in ("1-0", "0-1", "1/2-1/2", "*"):
            result.result = "*"
        text = game.record_text(result, event="enoch web", round_="-")
        return text, "application/x-chess-pgn", "pgn"
    text = result.record or _plain(feed, result)
    return text + ("\n" if not text.endswith("\n") else ""), "text/plain; charset=utf-8", "txt"


def _plain(feed: Feed, result: Any) -> str:
    lines = [f"[{feed.variant}] {' / '.join(result.seats)}"]
    for key in ("array", "direction", "players"):
        if key in feed.summary:
            lines.append(f"{key}: {feed.summary[key]}")
    lines.append(" ".join(result.moves))
    lines.append(f"{result.result} ({result.termination}: {result.reason})")
    return "\n".join(lines)


__all__ = ["record_text"]
