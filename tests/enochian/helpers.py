"""Shared helpers of the Enochian tests: build positions from the scenario notation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from enoch.enochian.geometry import ARMY_INDEX, ARMY_NAMES, BASE_KIND, SQUARE_INDEX
from enoch.enochian.state import State, make_config

DATA = Path(__file__).resolve().parent.parent / "data" / "enochian"


def scenarios() -> list[dict[str, Any]]:
    scenarios: list[dict[str, Any]] = json.loads((DATA / "scenarios.json").read_text())["scenarios"]
    return scenarios


def arrays_yaml() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((DATA / "arrays.yaml").read_text())
    return data


def position(sc: dict[str, Any], **config: Any) -> State:
    """A state from a scenario entry (scenarios.json notation), options from the entry."""
    tm = ARMY_INDEX[sc["to_move"]]
    players = config.pop("players", 4 if sc.get("ally_king_capture") else 2)
    partner = sc.get("partner", {})
    cfg = make_config(
        to_move=tm,
        players=players,
        options=config.pop("options", None),
        partner=tuple(BASE_KIND[partner.get(a, "rook")] for a in ARMY_NAMES),
        **config,
    )
    men = [
        (SQUARE_INDEX[m[0]], ARMY_INDEX[m[1]], m[2], m[3] if m[2] == "pawn" else None)
        for m in sc["men"]
    ]
    return State.from_men(
        cfg,
        men,
        tm,
        frozen=[ARMY_INDEX[a] for a in sc.get("frozen", [])],
        shared=[ARMY_INDEX[a] for a in sc.get("shared", [])],
        pawns_lost=[sc.get("pawns_lost", {}).get(a, 0) for a in ARMY_NAMES],
    )


def moves(st: State) -> list[str]:
    return sorted(st.move_str(m) for m in st.legal_moves())


def pos(
    to_move: str,
    men: str,
    *,
    frozen: str = "",
    shared: str = "",
    lost: str = "",
    captured_by: str = "",
    players: int = 2,
    options: dict[str, Any] | None = None,
    order: str = "",
    start_turn: bool = True,
    **config: Any,
) -> State:
    """A position from a compact text: ``"air: Ka8 Qd5 Pc2/queen; fire: Pc4/rook"``.

    ``frozen``/``shared``: army names; ``lost``: ``"air=1 fire=2"``; ``captured_by``:
    ``"air=water"`` (whose king was taken by whom); ``order``: turn order, default deosil
    from the army to move.
    """
    letters = {"K": "king", "Q": "queen", "B": "bishop", "N": "knight", "R": "rook", "P": "pawn"}
    rows = []
    for part in men.split(";"):
        army, _, items = part.partition(":")
        for item in items.split():
            name, _, patron = item.partition("/")
            rows.append(
                (
                    SQUARE_INDEX[name[1:3]],
                    ARMY_INDEX[army.strip()],
                    letters[name[0]],
                    patron or None,
                )
            )
    lost_n = [0, 0, 0, 0]
    for kv in lost.split():
        k, _, v = kv.partition("=")
        lost_n[ARMY_INDEX[k]] = int(v)
    cap = [-1, -1, -1, -1]
    for kv in captured_by.split():
        k, _, v = kv.partition("=")
        cap[ARMY_INDEX[k]] = ARMY_INDEX[v]
    tm = ARMY_INDEX[to_move]
    order_t = tuple(ARMY_INDEX[a] for a in order.split()) if order else None
    cfg = make_config(order=order_t, to_move=tm, players=players, options=options, **config)
    return State.from_men(
        cfg,
        rows,
        tm,
        frozen=[ARMY_INDEX[a] for a in frozen.split()],
        shared=[ARMY_INDEX[a] for a in shared.split()],
        pawns_lost=lost_n,
        captured_by=cap,
        start_turn=start_turn,
    )


def play(st: State, *texts: str) -> State:
    for t in texts:
        st.make(st.parse_move(t))
    return st
