"""A match between two UCI engines through python-chess, for engines the arena cannot configure
(e.g. Stockfish with ``UCI_LimitStrength``).

Usage::

    python bench/engine_match.py --games 20 --tc 10+0.1 \\
        --a "enoch uci" --b /usr/games/stockfish --b-option UCI_LimitStrength=true \\
        --b-option UCI_Elo=1800

Openings: the shipped suite (``enoch.openings``), each played with both colours (game ``g`` plays
opening ``g // 2``; ``--first`` continues a run with the next openings). Prints
W/D/L from A's side, the score and the Elo difference with a 95% interval (the arena's
statistics). A game over 300 plies is adjudicated a draw.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

import chess
import chess.engine

ROOT = Path(__file__).resolve().parent.parent


def _options(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        k, _, v = item.partition("=")
        out[k] = v
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", default="enoch uci")
    ap.add_argument("--b", required=True)
    ap.add_argument("--a-option", action="append", default=[])
    ap.add_argument("--b-option", action="append", default=[])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--tc", default="10+0.1", help="base+increment in seconds")
    ap.add_argument("--pgn", help="append the games to this PGN file")
    ap.add_argument(
        "--first", type=int, default=0, help="number of the first game (skips openings)"
    )
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    from enoch.arena.stats import Score
    from enoch.openings import default_suite

    base_s, _, inc_s = args.tc.partition("+")
    base, inc = float(base_s), float(inc_s or 0)
    openings = default_suite()
    score = Score()
    a = chess.engine.SimpleEngine.popen_uci(shlex.split(args.a))
    b = chess.engine.SimpleEngine.popen_uci(shlex.split(args.b))
    try:
        a.configure(_options(args.a_option))
        b.configure(_options(args.b_option))
        for g in range(args.first, args.first + args.games):
            opening = openings[(g // 2) % len(openings)]
            board = chess.Board(opening.start_fen)
            for m in opening.moves:
                board.push_uci(m)
            a_white = g % 2 == 0
            clocks = [base, base]
            while not board.is_game_over(claim_draw=True) and board.ply() < 300:
                engine = a if (board.turn == chess.WHITE) == a_white else b
                side = 0 if board.turn == chess.WHITE else 1
                limit = chess.engine.Limit(
                    white_clock=clocks[0], black_clock=clocks[1], white_inc=inc, black_inc=inc
                )
                t0 = time.perf_counter()
                result = engine.play(board, limit)
                clocks[side] += inc - (time.perf_counter() - t0)
                if clocks[side] < 0 or result.move is None:
                    break
                board.push(result.move)
            outcome = board.outcome(claim_draw=True)
            if outcome is None:
                loser_white = clocks[0] < 0 or (clocks[1] >= 0 and board.turn == chess.WHITE)
                if clocks[0] < 0 or clocks[1] < 0:
                    winner: bool | None = not loser_white
                else:
                    winner = None
            else:
                winner = outcome.winner
            pts = 0.5 if winner is None else (1.0 if winner == a_white else 0.0)
            score.add(pts)
            elo, lo, hi = score.elo()
            print(
                f"game {g + 1}: {'A' if a_white else 'B'} white, {opening.name}: "
                f"{pts} for A ({board.ply()} plies) | +{score.wins} ={score.draws} "
                f"-{score.losses}  Elo {elo:+.0f} [{lo:+.0f}, {hi:+.0f}]",
                flush=True,
            )
            if args.pgn:
                game = chess.pgn.Game.from_board(board)
                game.headers["White"] = args.a if a_white else args.b
                game.headers["Black"] = args.b if a_white else args.a
                # Draws by claim (threefold, fifty moves) and time losses are not in the board's
                # own result: write the scored one.
                game.headers["Result"] = (
                    "1/2-1/2" if winner is None else "1-0" if winner == chess.WHITE else "0-1"
                )
                if outcome is None and winner is not None:
                    game.headers["Termination"] = "time forfeit"
                with open(args.pgn, "a") as fh:
                    print(game, file=fh, end="\n\n")
    finally:
        a.quit()
        b.quit()
    elo, lo, hi = score.elo()
    print(
        f"A vs B: {score.games} games, +{score.wins} ={score.draws} -{score.losses}, "
        f"score {score.fraction:.3f}, Elo {elo:+.0f} (95%: {lo:+.0f} .. {hi:+.0f})"
    )
    return 0


if __name__ == "__main__":
    import chess.pgn

    raise SystemExit(main())
