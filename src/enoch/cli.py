"""The ``enoch`` command: a thin layer over the library.

Each part of enoch contributes its subcommands through a small ``cli`` module with a
``register(subparsers)`` function. Those modules import nothing heavy at module level, so that
``enoch agent`` answers fast from a cold start; the work is imported inside each handler.

Exit status: 0 on success, 2 for bad input (one line on stderr, nothing on stdout), 1 for an
internal failure. No traceback reaches the user unless ``ENOCH_DEBUG=1`` is set.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

# One line per part that has commands. Order is the order of ``enoch --help``.
_PARTS = [
    "enoch.arena.cli",  # play (the main job), match, tournament
    "enoch.agents.cli",
    "enoch.engine.cli",
    "enoch.protocol.cli",
    "enoch.rules.cli",
    "enoch.microchess.cli",
    "enoch.enochian.cli",
    "enoch.web.cli",  # serve
    "enoch.analysis.cli",  # analyse, leaderboard
    "enoch.ratings.cli",  # rate
]


class _Parser(argparse.ArgumentParser):
    """argparse exits with status 2 on usage errors already; keep its message to one line."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="enoch", description="A chess system for AI agents.")
    from enoch import __version__

    parser.add_argument("--version", action="version", version=f"enoch {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in _PARTS:
        importlib.import_module(name).register(sub)
    return parser


# The longest error line printed. Messages quote at most a short prefix of what they refuse
# (enoch.errors.quote); this is the backstop that keeps the promise of one short line.
MAX_ERROR_CHARS = 1000


def _one_line(message: str) -> str:
    message = " ".join(message.splitlines())
    if len(message) > MAX_ERROR_CHARS:
        message = message[: MAX_ERROR_CHARS - 3] + "..."
    return message


def main(argv: Sequence[str] | None = None) -> int:
    from enoch.errors import InputError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = args.func(args)
    except InputError as exc:
        sys.stderr.write(f"enoch: error: {_one_line(str(exc))}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("enoch: interrupted\n")
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. ``| head``); nothing useful left to say.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except Exception as exc:
        if os.environ.get("ENOCH_DEBUG"):
            raise
        sys.stderr.write(f"enoch: internal error: {type(exc).__name__}: {_one_line(str(exc))}\n")
        return 1
    return int(status or 0)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
