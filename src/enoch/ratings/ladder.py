"""The calibrated ladder: built-in agents whose ratings were measured, shipped as data.

``ladder.json`` (chess) holds each rung's rating on the scale of Stockfish 15.1's
``UCI_Elo`` levels, measured by ``bench/ladder.py`` (``bench/ladder.md`` has the table, the
command and why its time control is fair), with the date, the commit and the command that
produced it::

    {"date", "commit", "command", "time_control", "anchor",
     "agents": {"builtin:random": {"rating", "low", "high", "games"}, ...}}

``ladder-enochian.json`` has the same shape for Enochian chess, which has no outside engine to
anchor it: its scale is enoch's own Enochian agents with ``builtin:random`` fixed at 0.

Why data and not constants in code: the numbers are a measurement, redone when an agent
changes; the file says when and how, and ``enoch rate`` and ``enoch leaderboard`` hold these
ratings fixed so that their numbers mean the same thing.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import TypedDict

from enoch.errors import InputError

FILES = {"chess": "ladder.json", "enochian": "ladder-enochian.json"}


class Rung(TypedDict):
    rating: float
    low: float
    high: float
    games: int


class Ladder(TypedDict):
    date: str
    commit: str
    command: str
    time_control: str
    anchor: str
    agents: dict[str, Rung]


def load_ladder(variant: str = "chess") -> Ladder:
    """The shipped ladder of ``variant`` (``chess`` or ``enochian``)."""
    name = FILES.get(variant)
    if name is None:
        raise InputError(f"no rating ladder for {variant!r} (ladders: {', '.join(FILES)})")
    text = resources.files("enoch.ratings").joinpath(name).read_text(encoding="utf-8")
    data: Ladder = json.loads(text)
    return data


def ladder_ratings(ladder: Ladder) -> dict[str, float]:
    """``agent -> rating`` of every rung: the ratings :func:`enoch.ratings.maths.fit` holds
    fixed."""
    return {name: float(rung["rating"]) for name, rung in ladder["agents"].items()}


__all__ = ["FILES", "Ladder", "Rung", "ladder_ratings", "load_ladder"]
