"""Readers for the two perft file formats in tests/data/perft."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data" / "perft"


def read_epd(name: str) -> list[tuple[str, str, dict[int, int]]]:
    """``FEN ;D1 n ;D2 n ... [;id "x"]`` lines -> (id, fen, {depth: count})."""
    out = []
    for i, line in enumerate((DATA / name).read_text().splitlines()):
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split(";")]
        fen, counts, ident = parts[0], {}, f"{name}:{i + 1}"
        for p in parts[1:]:
            if p.startswith("D"):
                depth, count = p[1:].split()
                counts[int(depth)] = int(count)
            elif p.startswith("id"):
                ident = p[2:].strip().strip('"')
        out.append((ident, fen, counts))
    return out


def read_perft(name: str) -> list[tuple[str, str, dict[int, int]]]:
    """python-chess's ``id / epd / perft d n`` blocks -> (id, fen, {depth: count})."""
    out: list[tuple[str, str, dict[int, int]]] = []
    counts: dict[int, int] = {}
    ident, fen = "", ""
    for line in (DATA / name).read_text().splitlines():
        line = line.strip()
        if line.startswith("id "):
            if fen:
                out.append((ident, fen, counts))
            ident, fen, counts = line[3:], "", {}
        elif line.startswith("epd "):
            fen = line[4:] + " 0 1"
        elif line.startswith("perft "):
            _, depth, count = line.split()
            counts[int(depth)] = int(count)
    if fen:
        out.append((ident, fen, counts))
    return out


def all_positions() -> list[tuple[str, str, dict[int, int]]]:
    """Every standard-chess position. The ``xfen-*`` and ``asymmetrical-and-king-on-h``
    entries of tricky.perft are Chess960 (castling with king or rooks off their standard
    squares), which enoch's FIDE rules core does not play."""
    return [p for p in _everything() if p[0] not in CHESS960]


CHESS960 = {f"xfen-0{i}" for i in range(5)} | {"asymmetrical-and-king-on-h"}


def _everything() -> list[tuple[str, str, dict[int, int]]]:
    return (
        read_epd("cpw_perft_positions.epd")
        + read_epd("perftsuite.epd")
        + read_perft("tricky.perft")
        + read_perft("random.perft")
    )
