"""The answer JSON of the agent protocol: a move, a draw claim, a draw offer, or resignation.

Strict by default, as docs/protocol.md fixes it: exactly one JSON object, a move has exactly
the keys ``from``, ``to`` and ``promotion`` (null or one of ``"Q" "R" "B" "N"``), an action has
exactly the keys its kind needs. ``lenient=True`` is for experiments with language-model agents: it
accepts extra keys, a missing or lowercase ``promotion``, and one JSON object inside a Markdown
fence or surrounded by prose. Lenient never guesses a move: the object must still name one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from enoch._json import extract_object, loads_strict
from enoch.errors import IllegalMoveError, ProtocolError, quote
from enoch.protocol.state import _show, _type_name
from enoch.rules import (
    BISHOP,
    KING,
    KNIGHT,
    PAWN,
    PIECE_SYMBOLS,
    QUEEN,
    ROOK,
    SQUARE_INDEX,
    SQUARE_NAMES,
    Move,
    Position,
    move_from,
    move_promotion,
    move_to,
)

PROMOTION_LETTERS = {"Q": QUEEN, "R": ROOK, "B": BISHOP, "N": KNIGHT}
PROMOTION_OF_TYPE = {v: k for k, v in PROMOTION_LETTERS.items()}
CLAIM_REASONS = ("threefold_repetition", "fifty_move_rule")
ACTIONS = ("claim_draw", "offer_draw", "resign")


@dataclass(frozen=True, slots=True)
class Answer:
    """A parsed answer. ``kind`` is ``"move"`` or one of :data:`ACTIONS`."""

    kind: str
    from_square: int = -1
    to_square: int = -1
    promotion: int = 0  # piece type, 0 for none
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        if self.kind == "move":
            return {
                "from": SQUARE_NAMES[self.from_square],
                "to": SQUARE_NAMES[self.to_square],
                "promotion": PROMOTION_OF_TYPE.get(self.promotion),
            }
        if self.kind == "claim_draw":
            return {"action": "claim_draw", "reason": self.reason}
        return {"action": self.kind}


def move_answer(move: Move) -> dict[str, Any]:
    """The answer object for a move (castling as the king's two-square move)."""
    promo = move_promotion(move)
    return {
        "from": SQUARE_NAMES[move_from(move)],
        "to": SQUARE_NAMES[move_to(move)],
        "promotion": PROMOTION_OF_TYPE[promo] if promo else None,
    }


def parse_answer(data: str | bytes | dict[str, Any], *, lenient: bool = False) -> Answer:
    """Parse an answer; :class:`ProtocolError` says exactly what is wrong with it."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ProtocolError("answer is not UTF-8 text") from None
    if isinstance(data, str):
        text = data.strip()
        if lenient and not text.startswith("{"):
            text = extract_object(text)
        data = loads_strict(text, "answer")
    if not isinstance(data, dict):
        raise ProtocolError(f"answer must be a JSON object, got {_type_name(data)}")

    if "action" in data:
        action = data["action"]
        if action not in ACTIONS:
            raise ProtocolError(
                f"answer.action must be one of {', '.join(ACTIONS)}, got {_show(action)}"
            )
        allowed = {"action", "reason"} if action == "claim_draw" else {"action"}
        extra = sorted(set(data) - allowed)
        if extra and not lenient:
            raise ProtocolError(f"answer: unexpected key {quote(extra[0])} for action {action!r}")
        if action == "claim_draw":
            reason = data.get("reason")
            if reason not in CLAIM_REASONS:
                got = _show(reason) if "reason" in data else "nothing"
                raise ProtocolError(
                    'answer.reason of claim_draw must be "threefold_repetition" or '
                    f'"fifty_move_rule", got {got}'
                )
            return Answer("claim_draw", reason=reason)
        return Answer(action)

    for key in ("from", "to"):
        if key not in data:
            raise ProtocolError(f"answer: missing field {key!r} (a move needs from, to, promotion)")
    if "promotion" not in data and not lenient:
        raise ProtocolError("answer: missing field 'promotion' (use null when not promoting)")
    extra = sorted(set(data) - {"from", "to", "promotion"})
    if extra and not lenient:
        raise ProtocolError(
            f"answer: unexpected key {quote(extra[0])} (a move has from, to, promotion)"
        )
    squares = []
    for key in ("from", "to"):
        value = data[key]
        sq = SQUARE_INDEX.get(value) if isinstance(value, str) else None
        if sq is None and lenient and isinstance(value, str):
            sq = SQUARE_INDEX.get(value.strip().lower())
        if sq is None:
            raise ProtocolError(f'answer.{key} must be a square like "e4", got {_show(value)}')
        squares.append(sq)
    promo_value = data.get("promotion")
    promotion = 0
    if promo_value is not None:
        if lenient and isinstance(promo_value, str):
            promo_value = promo_value.strip().upper()
        if not isinstance(promo_value, str) or promo_value not in PROMOTION_LETTERS:
            raise ProtocolError(
                'answer.promotion must be null or one of "Q", "R", "B", "N" (uppercase), '
                f"got {_show(data.get('promotion'))}"
            )
        promotion = PROMOTION_LETTERS[promo_value]
    return Answer("move", squares[0], squares[1], promotion)


def answer_move(position: Position, answer: Answer) -> Move:
    """The legal move an answer names; :class:`IllegalMoveError` says why it is not legal."""
    fr, to, promo = answer.from_square, answer.to_square, answer.promotion
    move = position.find_move(fr, to, promo)
    if move is not None:
        return move
    text = SQUARE_NAMES[fr] + SQUARE_NAMES[to]
    colour = ("white", "black")[position.turn]
    code = position.board[fr]
    if not code:
        raise IllegalMoveError(f"illegal move {text}: there is no piece on {SQUARE_NAMES[fr]}")
    if code >> 3 != position.turn:
        raise IllegalMoveError(
            f"illegal move {text}: {SQUARE_NAMES[fr]} holds {PIECE_SYMBOLS[code]!r}, "
            f"a piece of the side not to move ({colour} is to move)"
        )
    if promo and code & 7 != PAWN:
        raise IllegalMoveError(f"illegal move {text}: only a pawn can promote")
    if position.find_move(fr, to, QUEEN if not promo else 0) is not None:
        if promo:
            raise IllegalMoveError(
                f"illegal move {text}: promotion given, but this is not a promotion"
            )
        raise IllegalMoveError(
            f"illegal move {text}: a pawn reaching the last rank must promote "
            '(promotion "Q", "R", "B" or "N")'
        )
    if code & 7 == KING and abs(to - fr) == 2:
        raise IllegalMoveError(f"illegal move {text}: castling is not allowed here")
    raise IllegalMoveError(f"illegal move {text}: not a legal move for {colour} in this position")
