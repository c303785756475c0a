"""What the page draws: a board view of a game state, and the legal answers of the seat to move.

Why here and not in JavaScript. The page has no rules of its own (no JavaScript chess library):
every legal target it highlights, every promotion it offers, every army it shows frozen comes
from enoch's rules core through the game API, so chess and Enochian are shown the same way and
the page can never disagree with the referee. The view is plain JSON:

- ``board``: chess ``{"fen", "check"}`` (chessground reads the FEN); Enochian ``{"men",
  "thrones", "frozen", ...}`` (the page's own SVG board: two men may share a throne);
- ``legal``: the protocol answers the seat to move may give, each with ``from``/``to`` for the
  board (a move) or ``action`` (an offer, a claim), exactly the JSON a person's click sends
  back, which the referee then judges like any agent's answer.

A state can be the live one (the server's own games) or rebuilt from an event log's ``state``
line (``--watch DIR``, another process's match): :func:`state_from_log` turns the logged
protocol JSON back into a game state, so both paths share one view.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from enoch.game.api import State

#: chess answers that are not moves, as the page offers them (claims only when they hold)
_CHESS_ACTIONS = {
    -1: {"action": "offer_draw"},
    -2: {"action": "claim_draw", "reason": "threefold_repetition"},
    -3: {"action": "claim_draw", "reason": "fifty_move_rule"},
}


def board_view(state: State, *, with_legal: bool = True) -> dict[str, Any]:
    """The board of ``state`` and (``with_legal``) what the seat to move may answer."""
    name = state.game.name
    if name == "chess":
        return _chess_view(state, with_legal)
    if name == "enochian":
        return _enochian_view(state, with_legal)
    # a game without a board view of its own: its protocol JSON, no legal hints
    seat = 0 if state.is_terminal() else state.current_seat()
    return {"kind": "json", "state": state.to_json(seat), "legal": []}


def _chess_view(state: Any, with_legal: bool) -> dict[str, Any]:
    from enoch.rules import move_uci

    pos = state.pos
    check = _chess_king_square(pos) if pos.is_check() else None
    last = move_uci(state.move_list[-1]) if state.move_list else None
    out: dict[str, Any] = {
        "kind": "chess",
        "fen": pos.fen(),
        "turn": "white" if pos.turn == 0 else "black",
        "check": check,
        "last": [last[:2], last[2:4]] if last else None,
        "draw_offer": state.draw_offer_field(),
        "legal": [],
    }
    if with_legal and not state.is_terminal():
        legal: list[dict[str, Any]] = []
        for act in state.legal_actions():
            if act >= 0:
                text = move_uci(act)
                legal.append(
                    {"from": text[:2], "to": text[2:4], "promotion": text[4:].upper() or None}
                )
            elif act in _CHESS_ACTIONS:
                legal.append(dict(_CHESS_ACTIONS[act]))
        legal.append({"action": "resign"})
        out["legal"] = legal
    return out


def _chess_king_square(pos: Any) -> str | None:
    """The square of the side to move's king (it is in check)."""
    fen_board = pos.board_fen()
    king = "K" if pos.turn == 0 else "k"
    rank = 8
    for row in fen_board.split("/"):
        file = 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
                continue
            if ch == king:
                return "abcdefgh"[file] + str(rank)
            file += 1
        rank -= 1
    return None


def _enochian_view(state: Any, with_legal: bool) -> dict[str, Any]:
    from enoch.enochian.geometry import ARMY_NAMES, SQUARE_NAMES, THRONES
    from enoch.enochian.protocol import move_to_json

    st = state.st
    data = state.to_json(0)
    last = None
    for entry in reversed(data["history"]):
        if "move" in entry:
            text = str(entry["move"])
            last = [text[1:3], text[4:6]]
            break
    out: dict[str, Any] = {
        "kind": "enochian",
        "men": data["men"],
        "thrones": {ARMY_NAMES[a]: SQUARE_NAMES[THRONES[a]] for a in range(4)},
        "frozen": data["frozen"],
        "withdrawn": data["withdrawn"],
        "shared_thrones": data["shared_thrones"],
        "to_move": data["to_move"],
        "to_act": data["to_act"],
        "controllers": data["controllers"],
        "commanders": data["commanders"],
        "turn_order": data["turn_order"],
        "divination": data["divination"],
        "exchange_offer": data["exchange_offer"],
        "exchange_possible": data["exchange_possible"],
        "last": last,
        "legal": [],
    }
    if with_legal and not state.is_terminal():
        legal = [move_to_json(st, m) for m in st.legal_actions()]
        if not any(a.get("action") == "resign" for a in legal):
            legal.append({"action": "resign"})
        out["legal"] = legal
    return out


def state_from_log(variant: str, data: Mapping[str, Any]) -> State:
    """A game state rebuilt from the protocol JSON an event log's ``state`` line holds (the
    referee's own fields dropped). Raises :class:`enoch.errors.InputError` on a bad one."""
    from enoch.game.registry import find_game

    game = find_game(variant)
    if game.name == "chess":
        from enoch.fide.game import ChessState
        from enoch.protocol import parse_state

        body = {
            k: v for k, v in data.items() if k not in ("last_error", "clock", "move_time_limit")
        }
        body["position_history"] = []  # the board needs no repetition counts (and stays O(1))
        parsed = parse_state(dict(body))
        return ChessState(game, parsed.position.fen())  # type: ignore[arg-type]
    if game.name == "enochian":
        from enoch.enochian.game import EnochianGame
        from enoch.enochian.protocol import STATE_KEYS, state_from_json

        body = {k: v for k, v in data.items() if k in STATE_KEYS}
        assert isinstance(game, EnochianGame)
        return game.state_from(state_from_json(body))
    from enoch.errors import InputError

    raise InputError(f"cannot show {variant!r} games")


def apply_text(state: State, text: str) -> bool:
    """Apply a move written in the game's notation (an event log's action); False when it is
    not legal there (the log and the board disagree: the next state line resyncs)."""
    from enoch.errors import IllegalMoveError, InputError

    try:
        if state.game.name == "chess":
            move = state.pos.parse_uci(text)  # type: ignore[attr-defined]
            state.apply(move)
            return True
        if state.game.name == "enochian":
            state.apply(state.st.parse_move(text))  # type: ignore[attr-defined]
            return True
    except (IllegalMoveError, InputError, ValueError):
        return False
    return False


def answer_from_text(state: State, text: str) -> Any:
    """The protocol answer JSON for an action written in notation (tests, replays)."""
    if state.game.name == "chess":
        return {"from": text[:2], "to": text[2:4], "promotion": text[4:].upper() or None}
    from enoch.enochian.protocol import move_to_json

    st = state.st  # type: ignore[attr-defined]
    return move_to_json(st, st.parse_move(text))


__all__ = ["answer_from_text", "apply_text", "board_view", "state_from_log"]
