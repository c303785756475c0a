"""PGN records of chess games (through python-chess's PGN writer).

PGN follows the standard: the Seven Tag Roster, ``FEN``/``SetUp`` for a non-standard start,
``TimeControl``, ``PlyCount`` and ``Termination`` with the PGN standard's values (``normal``,
``time forfeit``, ``rules infraction``, ``abandoned``). enoch's precise termination
(``checkmate``, ``fifty_moves``, ``crash`` ...) is in the ``EnochTermination`` tag and the
human-readable reason in a comment of its own just before the result, so engine-testing
tools and people both read it. Each agent move carries its thinking time as ``[%emt]`` and,
with clocks, the remaining time as ``[%clk]``; book moves carry the comment ``book``. The
reason is never merged into the last move's comment: a game that ends right after its opening
(an agent that crashes on its first question) would otherwise read ``{ book white forfeits:
... }``, the opening's mark and the verdict in one. python-chess keeps one comment per move,
so :func:`pgn_text` writes the reason with its own exporter.
"""

from __future__ import annotations

import datetime
import io
from typing import Any

from enoch.arena.referee import GameResult

_PGN_TERMINATION = {
    "timeout": "time forfeit",
    "illegal_move": "rules infraction",
    "invalid_answer": "rules infraction",
    "crash": "abandoned",
    "abandoned": "abandoned",
}


def _hms(seconds: float) -> str:
    ms = round(seconds * 1000)
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    return f"{h}:{m:02d}:{rest / 1000:06.3f}"


def to_pgn_game(
    game: GameResult,
    *,
    event: str = "enoch game",
    site: str = "enoch arena",
    round_: str = "-",
    date: datetime.date | None = None,
) -> Any:
    """A ``chess.pgn.Game`` of the result (python-chess builds and checks the SAN)."""
    import chess
    import chess.pgn

    board = chess.Board(game.start_fen)
    pgn = chess.pgn.Game()
    headers = pgn.headers
    headers["Event"] = event
    headers["Site"] = site
    headers["Date"] = (date or datetime.date.today()).strftime("%Y.%m.%d")
    headers["Round"] = round_
    headers["White"] = game.white
    headers["Black"] = game.black
    headers["Result"] = game.result
    if game.start_fen != chess.STARTING_FEN:
        pgn.setup(board)
    if game.opening:
        headers["Opening"] = game.opening
    headers["TimeControl"] = game.time_control or "-"
    headers["PlyCount"] = str(game.plies)
    headers["Termination"] = _PGN_TERMINATION.get(game.termination, "normal")
    headers["EnochTermination"] = game.termination
    node: Any = pgn
    for i, text in enumerate(game.moves):
        move = chess.Move.from_uci(text)
        node = node.add_variation(move)
        k = i - game.book_plies
        if k < 0:
            node.comment = "book"
            continue
        parts = []
        if k < len(game.times):
            parts.append(f"[%emt {_hms(game.times[k])}]")
        if game.clocks is not None and k < len(game.clocks):
            parts.append(f"[%clk {_hms(max(game.clocks[k], 0.0))}]")
        # Written as text: python-chess's set_emt/set_clock round to whole seconds, and engine
        # games need milliseconds. python-chess's emt()/clock() read these back.
        node.comment = " ".join(parts)
    return pgn


def pgn_text(game: GameResult, **tags: Any) -> str:
    """The PGN of one game: :func:`to_pgn_game` and the reason as a comment of its own."""
    import chess.pgn

    class Exporter(chess.pgn.StringExporter):
        def visit_result(self, result: str) -> None:
            reason = game.reason.replace("}", "").strip()  # as python-chess does
            if reason:
                self.write_token("{ " + reason + " } ")
            super().visit_result(result)

    return str(to_pgn_game(game, **tags).accept(Exporter(columns=None))) + "\n\n"


def read_pgn_games(text: str) -> list[Any]:
    """Every game of a PGN text (for tests and tools)."""
    import chess.pgn

    out: list[Any] = []
    stream = io.StringIO(text)
    while True:
        game = chess.pgn.read_game(stream)
        if game is None:
            return out
        out.append(game)
