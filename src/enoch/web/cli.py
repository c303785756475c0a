"""``enoch serve``: the web page on this machine.

Imports nothing heavy at module level (Starlette and uvicorn load only when the command runs),
so ``enoch agent`` keeps its cold start.
"""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "serve",
        help="the web page: play, watch and review games in a browser",
        description="Serve the web page (default http://127.0.0.1:8000/). It listens on "
        "127.0.0.1 unless --host says otherwise; agents that start processes or reach the "
        "network need --allow-commands.",
    )
    p.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: %(default)s)"
    )
    p.add_argument("--port", type=int, default=8000, help="port (default: %(default)s; 0: any)")
    p.add_argument(
        "--watch",
        metavar="DIR",
        help="follow the event logs another 'enoch match --log-dir DIR' writes",
    )
    p.add_argument(
        "--allow-commands",
        action="store_true",
        help="let the page use exec:, jsonl:, uci: and http(s):// agents (they run programs "
        "or reach the network as you)",
    )
    p.add_argument(
        "--max-games",
        type=int,
        default=16,
        metavar="N",
        help="games the page may run at once (default: %(default)s)",
    )
    p.set_defaults(func=_serve)


def _serve(args: argparse.Namespace) -> int:
    from pathlib import Path

    from enoch.errors import InputError

    if not 0 <= args.port <= 65535:
        raise InputError(f"--port {args.port}: must be 0..65535")
    if args.max_games < 1:
        raise InputError("--max-games must be at least 1")
    if args.watch is not None and not Path(args.watch).is_dir():
        raise InputError(f"--watch {args.watch[:200]}: not a folder")
    try:
        from enoch.web.server import serve
    except ImportError as exc:  # pragma: no cover - a broken install
        raise InputError(f"enoch serve needs starlette and uvicorn ({exc})") from None

    def ready(port: int) -> None:
        shown = f"[{args.host}]" if ":" in args.host else args.host
        sys.stderr.write(f"enoch serve: http://{shown}:{port}/ (Ctrl-C stops)\n")
        if args.host not in ("127.0.0.1", "localhost", "::1"):
            sys.stderr.write(
                "enoch serve: listening beyond this machine: anyone who can reach it and load "
                "the page can start games\n"
            )
        sys.stderr.flush()

    serve(
        args.host,
        args.port,
        allow_commands=args.allow_commands,
        watch=args.watch,
        max_games=args.max_games,
        ready=ready,
    )
    return 0
