"""Opening suites for matches: a fixed, balanced book, each opening played with both colours.

A match between two deterministic agents from the start position replays one game; a book
spreads the games over typical positions, and colour-swapped pairs cancel the book's bias
(Sunfish's and every engine tester's method). The shipped suite (``suite.txt``) holds 40
balanced lines from well-known openings, 6 to 10 plies deep.

:func:`load_openings` reads the suite format (``ECO | name | uci moves``), EPD/FEN lines
(one position per line, with an optional ``; name`` or EPD ``id`` opcode), and PGN files
(the main line of each game).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from enoch.errors import InputError, quote
from enoch.rules import STARTING_FEN, Position


@dataclass(frozen=True)
class Opening:
    """A starting point: a FEN and book moves (UCI) played from it before the agents move."""

    name: str
    start_fen: str = STARTING_FEN
    moves: tuple[str, ...] = ()

    def position(self) -> Position:
        pos = Position.from_fen(self.start_fen)
        for text in self.moves:
            pos.make(pos.parse_uci(text))
        return pos


def default_suite() -> list[Opening]:
    """The shipped suite."""
    text = resources.files("enoch.openings").joinpath("suite.txt").read_text(encoding="utf-8")
    return parse_suite(text, "suite.txt")


def parse_suite(text: str, where: str = "openings") -> list[Opening]:
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 3:
            raise InputError(f"{where} line {number}: expected 'ECO | name | moves'")
        eco, name, moves = parts
        opening = Opening(f"{eco} {name}", STARTING_FEN, tuple(moves.split()))
        _check(opening, f"{where} line {number}")
        out.append(opening)
    return out


def _check(opening: Opening, where: str) -> None:
    try:
        opening.position()
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None


def _parse_fen_lines(text: str, where: str) -> list[Opening]:
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        body, _, comment = line.partition(";")
        fields = body.split()
        name = comment.strip()
        if len(fields) >= 6 and fields[4].isdigit() and fields[5].isdigit():
            fen = " ".join(fields[:6])
        else:
            fen = " ".join(fields[:4]) + " 0 1"
            rest = " ".join(fields[4:])
            if 'id "' in rest:
                name = rest.split('id "', 1)[1].split('"', 1)[0]
        opening = Opening(name or f"{where}:{number}", fen, ())
        _check(opening, f"{where} line {number}")
        out.append(opening)
    return out


def _parse_pgn(text: str, where: str) -> list[Opening]:
    import io

    import chess.pgn

    out: list[Opening] = []
    stream = io.StringIO(text)
    while True:
        game = chess.pgn.read_game(stream)
        if game is None:
            break
        if game.errors:
            raise InputError(f"{where}: {game.errors[0]}")
        board = game.board()
        fen = board.fen()
        moves = tuple(m.uci() for m in game.mainline_moves())
        h = game.headers
        name = " ".join(x for x in (h.get("ECO", ""), h.get("Opening", "")) if x)
        opening = Opening(name or f"{where}#{len(out) + 1}", fen, moves)
        _check(opening, f"{where} game {len(out) + 1}")
        out.append(opening)
    return out


def load_openings(path: str | Path) -> list[Opening]:
    """Openings from a file: ``.pgn``, the suite format, or FEN/EPD lines."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read openings file {quote(str(p))}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise InputError(
            f"openings file {quote(str(p))} is not UTF-8 text (byte {exc.start})"
        ) from None
    where = p.name[:60]
    if p.suffix.lower() == ".pgn":
        out = _parse_pgn(text, where)
    elif any("|" in line for line in text.splitlines() if not line.startswith("#")):
        out = parse_suite(text, where)
    else:
        out = _parse_fen_lines(text, where)
    if not out:
        raise InputError(f"openings file {quote(str(p))} holds no opening")
    return out


__all__ = ["Opening", "default_suite", "load_openings", "parse_suite"]
