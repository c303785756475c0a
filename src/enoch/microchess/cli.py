"""``enoch microchess ...``: the 1976 evaluator from the command line.

Only argparse is imported at module level, so that registering these commands costs nothing
when another command runs.
"""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``microchess explain FEN [--json]``."""
    parser = sub.add_parser(
        "microchess",
        help="the 1976 MicroChess evaluator, faithful to the byte",
        description="The 1976 MicroChess move evaluator, faithful to the byte.",
    )
    inner = parser.add_subparsers(dest="microchess_command", metavar="SUBCOMMAND")
    inner.required = True
    explain = inner.add_parser(
        "explain",
        help="every candidate move with its 17 counters and score",
        description=(
            "Show every candidate move of the side to move in the original's generation order, "
            "with its 17 counters, its value before the overrides, its final score, and the "
            "move the original would choose (or that it would make none)."
        ),
    )
    explain.add_argument("fen", nargs="+", metavar="FEN", help="the position (quoted or not)")
    explain.add_argument("--json", action="store_true", help="print one JSON object")
    explain.set_defaults(func=handler)


def handler(args: argparse.Namespace) -> int:
    """Run ``explain``; a bad FEN raises FenError, which the top-level CLI maps to exit 2."""
    from enoch.microchess.explain import explain_fen, render_text, to_json

    ex = explain_fen(" ".join(args.fen))
    if args.json:
        sys.stdout.write(json.dumps(to_json(ex)) + "\n")
    else:
        sys.stdout.write(render_text(ex))
    return 0
