"""Finished games from files for the review page: PGN (with ``[%eval]`` analyses) and results
JSONL lines.

PGN is read by python-chess (the project's PGN library); the moves are then replayed by
enoch's rules core like every other game, and an evaluation comment (``[%eval 0.31]``,
``[%eval #-3]``, as ``enoch analyse`` and lichess write them) becomes the review page's graph.
A results line (``--results``) carries its moves in the game's notation; an Enochian one is
replayed from its array, direction and player count.
"""

from __future__ import annotations

import io
import json
from typing import Any

from enoch.errors import InputError
from enoch.web.feeds import Feed
from enoch.web.views import apply_text, board_view

#: games read from one upload at most
MAX_GAMES = 200
#: a mate in the graph, in centipawns (the analysis convention: 100000 minus the plies)
MATE = 100000


def read_pgn(text: str, make_id: Any) -> list[Feed]:
    import chess.pgn

    out: list[Feed] = []
    stream = io.StringIO(text)
    while len(out) < MAX_GAMES:
        game = chess.pgn.read_game(stream)
        if game is None:
            break
        if game.errors:
            raise InputError(f"PGN game {len(out) + 1}: {game.errors[0]}")
        headers = game.headers
        board = game.board()
        start_fen = board.fen()
        moves: list[str] = []
        evals: list[float | None] = [None]
        for node in game.mainline():
            moves.append(node.move.uci())
            score = node.eval()
            if score is None:
                evals.append(None)
            else:
                evals.append(float(score.white().score(mate_score=MATE)))
        feed = Feed(
            make_id("p"),
            "chess",
            seats=[headers.get("White", "?"), headers.get("Black", "?")],
            source="pgn",
        )
        feed.summary = {"start_fen": start_fen, "event": headers.get("Event")}
        feed.moves = moves
        feed.status = "finished"
        feed.evals = evals if any(e is not None for e in evals) else None
        result = headers.get("Result", "*")
        feed.result = {
            "result": result,
            "termination": headers.get("EnochTermination") or headers.get("Termination"),
            "reason": headers.get("Termination", ""),
            "winner": {"1-0": 0, "0-1": 1}.get(result),
            "points": {"1-0": [1.0, 0.0], "0-1": [0.0, 1.0], "1/2-1/2": [0.5, 0.5]}.get(result),
        }
        positions = feed.position_list()
        if len(positions) != len(moves) + 1:
            raise InputError(f"PGN game {len(out) + 1}: a move the rules core refuses")
        feed.view = positions[-1]
        out.append(feed)
    if not out:
        raise InputError("no game in the PGN text")
    return out


def read_results(text: str, make_id: Any) -> list[Feed]:
    from enoch.game.registry import find_game

    out: list[Feed] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if len(out) >= MAX_GAMES:
            break
        try:
            data = json.loads(line)
        except ValueError:
            raise InputError(f"results line {number}: not JSON") from None
        if not isinstance(data, dict) or not isinstance(data.get("moves"), list):
            raise InputError(f"results line {number}: not a results line (no moves)")
        variant = str(data.get("variant", "chess"))
        seats = [str(s) for s in data.get("seats") or []]
        moves = [str(m) for m in data["moves"]]
        feed = Feed(make_id("r"), variant, seats=seats, source="results")
        feed.moves = moves
        feed.status = "finished"
        feed.result = {
            k: data.get(k)
            for k in ("result", "termination", "reason", "winner", "points", "usage")
            if k in data
        }
        if variant == "chess":
            feed.summary = {"start_fen": data.get("start_fen")}
            positions = feed.position_list()
            if len(positions) != len(moves) + 1:
                raise InputError(f"results line {number}: a move the rules core refuses")
            feed.view = positions[-1]
        else:
            try:
                game = find_game(variant)
                options = {
                    k: data[k] for k in ("array", "direction", "players") if data.get(k) is not None
                }
                state = game.new_state(game.setup(options))
            except InputError as exc:
                raise InputError(f"results line {number}: {exc}") from None
            feed.summary = {"teams": data.get("teams"), **options}
            feed.positions[0] = board_view(state, with_legal=False)
            for text_move in moves:
                if not apply_text(state, text_move):
                    break
                feed.positions[state.ply] = board_view(state, with_legal=False)
            feed.view = feed.positions[max(feed.positions)]
        out.append(feed)
    if not out:
        raise InputError("no results line in the text")
    return out


__all__ = ["read_pgn", "read_results"]
