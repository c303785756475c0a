"""A match's standings from its finished games, with the arena's own statistics.

The numbers are :mod:`enoch.arena.stats`'s (Elo with its 95% interval, LOS, the SPRT's
log-likelihood ratio and bounds, Bradley-Terry ratings), computed from the games the page
follows, so a match run here and a folder another process writes are scored the same way.
Games whose termination is ``abandoned`` (an endpoint that stayed down) count nowhere.
"""

from __future__ import annotations

import math
from typing import Any

from enoch.web.feeds import Feed


def _num(x: float) -> float | None:
    return round(x, 2) if math.isfinite(x) else None


def standings(names: list[str], feeds: list[Feed], sprt: Any = None) -> dict[str, Any]:
    """``score`` (first agent against the rest, two agents), ``crosstable`` and ``ratings``."""
    from enoch.arena.stats import Score, Sprt, ratings

    k = len(names)
    index = {n: i for i, n in enumerate(names)}
    cross = [[[0, 0, 0] for _ in range(k)] for _ in range(k)]  # W/D/L of row against column
    pairs: list[tuple[int, int, float]] = []
    first = Score()
    finished = 0
    for feed in feeds:
        with feed.lock:
            result = dict(feed.result or {})
            seats = list(feed.seats)
            status = feed.status
            teams = feed.summary.get("teams")
        if status != "finished" or result.get("termination") in ("abandoned", "error"):
            continue
        points = result.get("points")
        if not isinstance(points, list) or len(points) != len(seats):
            continue
        finished += 1
        agents = [index.get(s) for s in seats]
        for s in range(len(seats)):
            for t in range(s + 1, len(seats)):
                i, j = agents[s], agents[t]
                if i is None or j is None or i == j:
                    continue
                if teams and len(teams) == len(seats) and teams[s] == teams[t]:
                    continue  # allies in a four-seat game
                p = float(points[s])
                pairs.append((i, j, p))
                col = 0 if p == 1.0 else 2 if p == 0.0 else 1
                cross[i][j][col] += 1
                cross[j][i][2 - col] += 1
        if k == 2 and 0 in agents:
            first.add(float(points[agents.index(0)]))
    out: dict[str, Any] = {"finished": finished, "crosstable": cross}
    if k == 2:
        elo, low, high = first.elo()
        test = sprt or Sprt()
        lower, upper = test.bounds()
        out["score"] = {
            "wins": first.wins,
            "draws": first.draws,
            "losses": first.losses,
            "elo": _num(elo),
            "elo_low": _num(low),
            "elo_high": _num(high),
            "los": round(first.los(), 4),
            "sprt": {
                "elo0": test.elo0,
                "elo1": test.elo1,
                "llr": round(test.llr(first), 3),
                "lower": round(lower, 3),
                "upper": round(upper, 3),
                "given": sprt is not None,
            },
        }
    rated = ratings(names, pairs) if names else {}
    out["ratings"] = {n: {"elo": _num(r), "margin": _num(m)} for n, (r, m) in rated.items()}
    return out


__all__ = ["standings"]
