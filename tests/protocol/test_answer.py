"""Answers: strict parsing, the lenient mode, and why a well-formed move is illegal."""

from __future__ import annotations

from typing import Any

import pytest

from enoch.errors import IllegalMoveError, ProtocolError
from enoch.protocol import answer_move, move_answer, parse_answer
from enoch.rules import Position, move_uci

GOOD = [
    (
        '{"from": "e2", "to": "e4", "promotion": null}',
        {"from": "e2", "to": "e4", "promotion": None},
    ),
    ('{"from":"d7","to":"d8","promotion":"Q"}', {"from": "d7", "to": "d8", "promotion": "Q"}),
    ('  {"action": "resign"}\n', {"action": "resign"}),
    ('{"action": "offer_draw"}', {"action": "offer_draw"}),
    (
        '{"action": "claim_draw", "reason": "fifty_move_rule"}',
        {"action": "claim_draw", "reason": "fifty_move_rule"},
    ),
    (
        '{"action": "claim_draw", "reason": "threefold_repetition"}',
        {"action": "claim_draw", "reason": "threefold_repetition"},
    ),
]


@pytest.mark.parametrize(("text", "expected"), GOOD)
def test_good_answers(text: str, expected: dict[str, Any]) -> None:
    assert parse_answer(text).to_json() == expected
    assert parse_answer(expected).to_json() == expected


BAD = [
    ("", "answer is empty"),
    ("e2e4", "answer is not valid JSON"),
    (
        '{"from": "e2", "to": "e4", "promotion": null}{"action": "resign"}',
        "text after the JSON value",
    ),
    ('Here is my move: {"from": "e2", "to": "e4", "promotion": null}', "not valid JSON"),
    ('```json\n{"from": "e2", "to": "e4", "promotion": null}\n```', "not valid JSON"),
    ('["e2", "e4"]', "answer must be a JSON object, got an array"),
    ('{"from": "e2", "to": "e4"}', "missing field 'promotion'"),
    ('{"from": "e2", "promotion": null}', "missing field 'to'"),
    (
        '{"from": "e2", "to": "e4", "promotion": null, "comment": "best"}',
        "unexpected key 'comment'",
    ),
    (
        '{"from": "e2", "to": "e9", "promotion": null}',
        'answer.to must be a square like "e4", got "e9"',
    ),
    ('{"from": "E2", "to": "e4", "promotion": null}', "answer.from must be a square"),
    ('{"from": 12, "to": "e4", "promotion": null}', "answer.from must be a square"),
    ('{"from": "e7", "to": "e8", "promotion": "q"}', 'answer.promotion must be null or one of "Q"'),
    ('{"from": "e7", "to": "e8", "promotion": "K"}', "answer.promotion must be null or one of"),
    ('{"from": "e7", "to": "e8", "promotion": ""}', "answer.promotion must be null or one of"),
    ('{"action": "win"}', "answer.action must be one of claim_draw, offer_draw, resign"),
    ('{"action": "claim_draw"}', "answer.reason of claim_draw must be"),
    ('{"action": "claim_draw", "reason": "stalemate"}', "answer.reason of claim_draw must be"),
    ('{"action": "resign", "reason": "lost"}', "unexpected key 'reason' for action 'resign'"),
    ('{"action": "resign", "action": "offer_draw"}', "has the key 'action' twice"),
]


@pytest.mark.parametrize(("text", "message"), BAD, ids=[m for _, m in BAD])
def test_bad_answers_strict(text: str, message: str) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_answer(text)
    assert message in str(info.value)


LENIENT = [
    ('Here is my move: {"from": "e2", "to": "e4", "promotion": null} good luck', "e2e4"),
    ('```json\n{"from": "e2", "to": "e4"}\n```', "e2e4"),
    ('{"from": "e7", "to": "e8", "promotion": "q", "why": "mate"}', "e7e8q"),
    ('{"from": " E2", "to": "e4"}', "e2e4"),
]


@pytest.mark.parametrize(("text", "uci"), LENIENT)
def test_lenient_mode(text: str, uci: str) -> None:
    a = parse_answer(text, lenient=True)
    promo = "" if not a.promotion else "nbrq"[a.promotion - 2]
    from enoch.rules import SQUARE_NAMES

    assert SQUARE_NAMES[a.from_square] + SQUARE_NAMES[a.to_square] + promo == uci


def test_lenient_never_guesses() -> None:
    for text in ["I play e4", '```{"a":1}``` and ```{"b":2}```', '{"to": "e4"}']:
        with pytest.raises(ProtocolError):
            parse_answer(text, lenient=True)


PROMO_FEN = "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"
ILLEGAL = [
    (
        Position.start().fen(),
        {"from": "e3", "to": "e4", "promotion": None},
        "there is no piece on e3",
    ),
    (
        Position.start().fen(),
        {"from": "e7", "to": "e5", "promotion": None},
        "a piece of the side not to move",
    ),
    (
        Position.start().fen(),
        {"from": "e2", "to": "e5", "promotion": None},
        "not a legal move for white",
    ),
    (
        Position.start().fen(),
        {"from": "e1", "to": "g1", "promotion": None},
        "castling is not allowed here",
    ),
    (
        Position.start().fen(),
        {"from": "g1", "to": "f3", "promotion": "Q"},
        "only a pawn can promote",
    ),
    (PROMO_FEN, {"from": "b7", "to": "b8", "promotion": None}, "must promote"),
    (
        "4k3/8/1P6/8/8/8/8/4K3 w - - 0 1",
        {"from": "b6", "to": "b7", "promotion": "Q"},
        "this is not a promotion",
    ),
]


@pytest.mark.parametrize(("fen", "answer", "message"), ILLEGAL, ids=[m for _, _, m in ILLEGAL])
def test_illegal_moves_say_why(fen: str, answer: dict[str, Any], message: str) -> None:
    with pytest.raises(IllegalMoveError, match=message):
        answer_move(Position.from_fen(fen), parse_answer(answer))


def test_every_legal_move_round_trips_through_an_answer() -> None:
    for fen in [Position.start().fen(), PROMO_FEN, "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 2"]:
        pos = Position.from_fen(fen)
        for m in pos.legal_moves():
            assert answer_move(pos, parse_answer(move_answer(m))) == m, move_uci(m)
