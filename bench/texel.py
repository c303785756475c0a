"""Texel tuning of the evaluation weights beyond PeSTO's tables, on self-play positions.

Usage::

    python bench/texel.py generate --games 200 --nodes 1000 --out /tmp/texel.epd
    python bench/texel.py tune --data /tmp/texel.epd --seconds 600 --out /tmp/tuned.json
    python bench/texel.py match --weights /tmp/tuned.json --games 100 --nodes 2000

``generate`` plays engine-vs-engine games in this process at a fixed node count per move (so
the games do not depend on the machine's load), from the shipped openings (game ``g`` from
opening ``g mod 40``; from game 40 on with two random plies, seeded by ``g``, after the
opening). Every position after the opening where the side to move is not in check and the move
chosen is quiet is written as ``FEN;result;game`` with the game's result from White's side
(1, 0.5, 0). A game ends by the rules (mate, stalemate, threefold, fifty moves, dead position),
is adjudicated a draw at 200 plies, or a win when the scores agree on at least 1000 cp for 8
plies in a row.

``tune`` keeps the quiet positions (static evaluation equal to the quiescence score), fits the
sigmoid scale ``K`` of ``sigmoid(s) = 1 / (1 + 10^(-K s / 400))`` with the current weights, then
minimises the mean squared error between ``sigmoid(eval)`` and the results by local search:
coordinate descent with the steps ``--steps`` (default 8, 4, 2, 1) on every weight of
``tables.WEIGHTS`` and the passed-pawn ranks. The games are split 80/20 by game number
(``--fold``): the error is minimised on the training part; after each pass over the weights the
held-out error is measured, and the search stops after ``--patience`` passes without a held-out
gain (early stopping: the answer is the pass with the lowest held-out error). The tuned weights
are written as JSON (``{"WEIGHTS": {...}, "PASSED_MG": [...], "PASSED_EG": [...]}``).

``match`` plays the tuned weights against the current ones in this process, at a fixed node
count per move for both sides (the weights are swapped before each move), from the shipped
openings with both colours, and prints W/D/L and the Elo difference with its 95% interval.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from enoch.engine import evaluate as E  # noqa: E402
from enoch.engine import tables as T  # noqa: E402
from enoch.engine.search import INF, Limits, Searcher  # noqa: E402
from enoch.openings import default_suite  # noqa: E402
from enoch.rules import Position  # noqa: E402

Weights = dict[str, Any]


def current_weights() -> Weights:
    return {
        "WEIGHTS": {k: list(v) for k, v in T.WEIGHTS.items()},
        "PASSED_MG": list(T.PASSED_MG),
        "PASSED_EG": list(T.PASSED_EG),
    }


def apply_weights(w: Weights) -> None:
    for k, v in w["WEIGHTS"].items():
        T.WEIGHTS[k] = (int(v[0]), int(v[1]))
    T.PASSED_MG = tuple(int(x) for x in w["PASSED_MG"])
    T.PASSED_EG = tuple(int(x) for x in w["PASSED_EG"])
    E.configure()


def _start(n: int, plies: int) -> Position:
    """Opening ``n`` of the shipped suite (cyclically); from the second round on, ``plies``
    random legal plies (seeded by ``n``) are added after the opening."""
    openings = default_suite()
    op = openings[n % len(openings)]
    pos = Position.from_fen(op.start_fen)
    for m in op.moves:
        pos.make(pos.parse_uci(m))
    if n >= len(openings):
        r = random.Random(n)
        for _ in range(plies):
            legal = pos.legal_moves()
            if not legal or pos.outcome() is not None:
                break
            pos.make(r.choice(sorted(legal)))
    return pos


def play_game(
    pos: Position,
    nodes: int,
    white: Searcher,
    black: Searcher,
    weights: tuple[Weights, Weights] | None = None,
    record: list[str] | None = None,
) -> float:
    """Play from ``pos`` to the end; the result from White's side. With ``weights`` the
    evaluation is switched to White's or Black's weights before each move."""
    white.clear()
    black.clear()
    streak = 0
    last_sign = 0
    ply = 0
    while True:
        out = pos.outcome(claim_draw=True)
        if out is not None:
            return 0.5 if out.winner is None else (1.0 if out.winner == 0 else 0.0)
        if ply >= 200:
            return 0.5
        s = white if pos.turn == 0 else black
        if weights is not None:
            apply_weights(weights[pos.turn])
        r = s.think(pos, Limits(nodes=nodes))
        m = r.move
        white_score = r.score if pos.turn == 0 else -r.score
        sign = 1 if white_score >= 1000 else -1 if white_score <= -1000 else 0
        streak = streak + 1 if sign and sign == last_sign else (1 if sign else 0)
        last_sign = sign
        if streak >= 8:
            return 1.0 if sign > 0 else 0.0
        quiet = not pos.board[(m >> 6) & 63] and not (m >> 12) & 7 and m >> 15 != 1
        if record is not None and quiet and not pos.is_check() and abs(r.score) < 2000:
            record.append(pos.fen())
        pos.make(m)
        ply += 1


def cmd_generate(args: argparse.Namespace) -> int:
    w, b = Searcher(8), Searcher(8)
    t0 = time.perf_counter()
    n = 0
    with open(args.out, "w") as fh:
        for g in range(args.first, args.first + args.games):
            pos = _start(g, 2)  # every game from its own start: self-play is deterministic
            fens: list[str] = []
            res = play_game(pos, args.nodes, w, b, record=fens)
            for f in fens:
                print(f"{f};{res};{g}", file=fh)
            n += len(fens)
            fh.flush()
            print(
                f"game {g}: {res} ({len(fens)} positions, total {n}, "
                f"{time.perf_counter() - t0:.0f} s)",
                flush=True,
            )
    return 0


# ---------------------------------------------------------------------- tuning


def _params(w: Weights) -> list[tuple[str, str, int]]:
    out = []
    for k in w["WEIGHTS"]:
        out.append(("WEIGHTS", k, 0))
        if k != "king_attack":  # its endgame half is unused
            out.append(("WEIGHTS", k, 1))
    for i in range(1, 7):
        out.append(("PASSED_MG", "", i))
        out.append(("PASSED_EG", "", i))
    return out


def _get(w: Weights, p: tuple[str, str, int]) -> int:
    table, key, i = p
    return int(w["WEIGHTS"][key][i]) if table == "WEIGHTS" else int(w[table][i])


def _set(w: Weights, p: tuple[str, str, int], v: int) -> None:
    table, key, i = p
    if table == "WEIGHTS":
        w["WEIGHTS"][key][i] = v
    else:
        w[table][i] = v


class Data:
    def __init__(self, rows: list[tuple[Position, int, float]]) -> None:
        self.rows = rows

    def scores(self) -> list[int]:
        out = []
        for pos, psq, _ in self.rows:
            e = E.evaluate(pos, psq)
            out.append(e if pos.turn == 0 else -e)
        return out

    def error(self, k: float, scores: list[int] | None = None) -> float:
        if scores is None:
            scores = self.scores()
        tot = 0.0
        for s, (_, _, r) in zip(scores, self.rows, strict=True):
            x = -k * s / 400.0
            p = 1.0 / (1.0 + 10.0**x) if x < 300 else 0.0
            tot += (r - p) ** 2
        return tot / max(1, len(self.rows))


def load(path: str, fold: int = 4) -> tuple[Data, Data, int]:
    """Quiet positions (static eval == quiescence score), split 80/20 by game number."""
    searcher = Searcher(1)
    train: list[tuple[Position, int, float]] = []
    test: list[tuple[Position, int, float]] = []
    total = 0
    for line in Path(path).read_text().splitlines():
        if not line.strip():
            continue
        fen, res, game = line.rsplit(";", 2)
        total += 1
        pos = Position.from_fen(fen)
        psq = E.psq_score(pos)
        searcher.pos = pos
        static = E.evaluate(pos, psq)
        q = searcher._qsearch(-INF, INF, 0, psq, False)
        if q != static:
            continue
        (test if int(game) % 5 == fold else train).append((pos, psq, float(res)))
    return Data(train), Data(test), total


def fit_k(data: Data) -> float:
    scores = data.scores()
    lo, hi = 0.1, 5.0
    for _ in range(40):
        a = lo + (hi - lo) / 3
        b = hi - (hi - lo) / 3
        if data.error(a, scores) < data.error(b, scores):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


def cmd_tune(args: argparse.Namespace) -> int:
    t0 = time.perf_counter()
    train, test, total = load(args.data, args.fold)
    print(
        f"{total} positions, {len(train.rows)} quiet for training, {len(test.rows)} held out "
        f"({time.perf_counter() - t0:.0f} s)",
        flush=True,
    )
    w = current_weights()
    k = fit_k(train)
    best = train.error(k)
    start_train, start_test = best, test.error(k)
    print(f"K = {k:.3f}; error before: train {start_train:.6f}, held-out {start_test:.6f}")
    params = _params(w)
    deadline = time.perf_counter() + args.seconds
    # Early stopping: the data is small (a few hundred games, positions of one game are
    # correlated), so a pass over all weights is kept only while it also lowers the held-out
    # error; the best held-out weights are the answer.
    best_w = json.loads(json.dumps(w))
    best_test = start_test
    worse = 0
    for step in args.steps:
        improved = True
        while improved and time.perf_counter() < deadline and worse < args.patience:
            improved = False
            for p in params:
                if time.perf_counter() >= deadline:
                    break
                v = _get(w, p)
                for d in (step, -step):
                    _set(w, p, v + d)
                    apply_weights(w)
                    e = train.error(k)
                    if e < best:
                        best = e
                        improved = True
                        break
                    _set(w, p, v)
                apply_weights(w)
            e_test = test.error(k)
            print(f"pass (step {step}): train {best:.6f}, held-out {e_test:.6f}", flush=True)
            if e_test < best_test:
                best_test = e_test
                best_w = json.loads(json.dumps(w))
                worse = 0
            else:
                worse += 1
    w = best_w
    apply_weights(w)
    print(
        f"error after: train {train.error(k):.6f}, held-out {test.error(k):.6f} "
        f"(before: {start_train:.6f}, {start_test:.6f}; K = {k:.3f})"
    )
    Path(args.out).write_text(json.dumps(w, indent=1) + "\n")
    print(json.dumps(w))
    return 0


# ---------------------------------------------------------------------- match


def cmd_match(args: argparse.Namespace) -> int:
    from enoch.arena.stats import Score

    base = current_weights()
    tuned = json.loads(Path(args.weights).read_text())
    score = Score()
    a, b = Searcher(8), Searcher(8)
    for g in range(args.games):
        pos = _start(g // 2, 2)  # each start with both colours
        tuned_white = g % 2 == 0
        ws = (tuned, base) if tuned_white else (base, tuned)
        res = play_game(pos, args.nodes, a, b, weights=ws)
        pts = res if tuned_white else 1.0 - res
        score.add(pts)
        elo, lo, hi = score.elo()
        print(
            f"game {g + 1}: tuned {'white' if tuned_white else 'black'}: {pts} | "
            f"+{score.wins} ={score.draws} -{score.losses} Elo {elo:+.0f} [{lo:+.0f}, {hi:+.0f}]",
            flush=True,
        )
    apply_weights(base)
    elo, lo, hi = score.elo()
    print(
        f"tuned vs current: {score.games} games at {args.nodes} nodes/move, +{score.wins} "
        f"={score.draws} -{score.losses}, score {score.fraction:.3f}, Elo {elo:+.0f} "
        f"(95%: {lo:+.0f} .. {hi:+.0f})"
    )
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--games", type=int, default=200)
    g.add_argument("--first", type=int, default=0, help="number of the first game")
    g.add_argument("--nodes", type=int, default=1000)
    g.add_argument("--out", required=True)
    t = sub.add_parser("tune")
    t.add_argument("--data", required=True)
    t.add_argument("--seconds", type=float, default=600)
    t.add_argument("--steps", type=lambda x: [int(v) for v in x.split(",")], default=[8, 4, 2, 1])
    t.add_argument("--fold", type=int, default=4, help="held out: games with number % 5 == fold")
    t.add_argument("--patience", type=int, default=2, help="passes without held-out gain")
    t.add_argument("--out", required=True)
    m = sub.add_parser("match")
    m.add_argument("--weights", required=True)
    m.add_argument("--games", type=int, default=100)
    m.add_argument("--nodes", type=int, default=2000)
    args = ap.parse_args()
    return {"generate": cmd_generate, "tune": cmd_tune, "match": cmd_match}[args.cmd](args)


if __name__ == "__main__":
    raise SystemExit(main())
