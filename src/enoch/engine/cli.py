"""``enoch uci``: register the engine's command (imports the engine only when run)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "uci",
        help="the engine as a UCI engine (for GUIs, match runners, bots)",
        description="Speak UCI on stdin/stdout: uci, isready, ucinewgame, setoption (Hash, "
        "Move Overhead), position, go (movetime, wtime/btime/winc/binc/movestogo, depth, "
        "nodes, infinite), stop, quit.",
    )
    p.set_defaults(func=_uci)


def _uci(args: argparse.Namespace) -> int:
    from enoch.engine.uci import run

    return run()
