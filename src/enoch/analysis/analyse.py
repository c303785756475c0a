"""``enoch analyse``: every move of a game judged by an engine, as lichess judges it.

Each position of a game (the first, and the one after every move) is searched once at a
fixed node budget; a move's evaluation before is its position's score and after is the next
one's, so the two are measured alike and a move is judged by the difference only. From those
scores :mod:`enoch.analysis.judge` gives the centipawn loss, the class and the accuracy.

Output: the annotated PGN as lichess exports one: ``{ [%eval 0.35] }`` or ``{ [%eval #-3] }``
after each move; for an inaccuracy, mistake or blunder the glyph ``?!``, ``?`` or ``??``, the
comment ``{ (0.17 → -10.01) Blunder. exd5 was best. }`` and the engine's move as a variation
(lichess gives its whole line; enoch's judge returns the move). Or the JSON of
:meth:`GameAnalysis.to_json`.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from enoch.analysis import judge
from enoch.errors import InputError

if TYPE_CHECKING:
    import chess
    import chess.pgn

    from enoch.analysis.engines import Evaluator

# The glyph lichess writes after a judged move (PGN NAGs 6, 2, 4).
GLYPHS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
NAGS = {"inaccuracy": 6, "mistake": 2, "blunder": 4}
# Lines of annotated movetext are wrapped at this width (the PGN standard's limit is 255).
PGN_WIDTH = 80
# A PGN file larger than this is refused (a mistake, not a game collection to judge in Python).
MAX_PGN_BYTES = 64 << 20

Progress = Callable[[int, int], None]  # (positions done in this game, positions in it)


@dataclass
class MoveJudgement:
    ply: int  # the game's ply (1 = White's first move; a FEN's move number counts)
    move: str  # SAN
    uci: str
    eval_before: int  # from White's side; a mate in n plies is ±(100000 - n)
    eval_after: int
    loss: int  # centipawns the mover lost (scores clamped to ±1000)
    cls: str  # best, good, inaccuracy, mistake, blunder
    accuracy: float
    best: str | None  # the engine's choice (SAN) in the position before

    @property
    def white(self) -> bool:
        return self.ply % 2 == 1

    def to_json(self) -> dict[str, Any]:
        return {
            "ply": self.ply,
            "move": self.move,
            "eval_before": self.eval_before,
            "eval_after": self.eval_after,
            "loss": self.loss,
            "class": self.cls,
        }


def _rounded(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else round(x, 1)


@dataclass
class GameAnalysis:
    white: str
    black: str
    moves: list[MoveJudgement]
    white_acpl: float | None
    black_acpl: float | None
    white_accuracy: float | None
    black_accuracy: float | None
    headers: dict[str, str] = field(default_factory=dict)
    start_fen: str = ""
    result: str = "*"
    evaluations: list[int] = field(default_factory=list)  # every position's score

    def to_json(self) -> dict[str, Any]:
        return {
            "white": self.white,
            "black": self.black,
            "moves": [m.to_json() for m in self.moves],
            "white_acpl": _rounded(self.white_acpl),
            "black_acpl": _rounded(self.black_acpl),
            "white_accuracy": _rounded(self.white_accuracy),
            "black_accuracy": _rounded(self.black_accuracy),
        }

    def side(self, white: bool) -> list[MoveJudgement]:
        return [m for m in self.moves if m.white == white]


def analyse_moves(
    board: chess.Board,
    moves: Iterable[chess.Move],
    evaluator: Evaluator,
    *,
    white: str = "?",
    black: str = "?",
    progress: Progress | None = None,
) -> GameAnalysis:
    """Judge ``moves`` played from ``board`` (a position without history)."""
    board = board.copy(stack=False)
    moves = list(moves)
    white_first = board.turn
    # Plies as the game counts them (from the FEN's move number): odd plies are White's.
    first_ply = 2 * (board.fullmove_number - 1) + (0 if white_first else 1)
    evaluator.new_game()
    scores: list[int] = []
    bests: list[str | None] = []
    sans: list[str] = []
    for i in range(len(moves) + 1):
        score, best = evaluator.evaluate(board)
        scores.append(score)
        best_san = None
        if best is not None:
            try:
                best_san = board.san(board.parse_uci(best))
            except ValueError:
                best_san = None
        bests.append(best_san)
        if progress is not None:
            progress(i + 1, len(moves) + 1)
        if i < len(moves):
            move = moves[i]
            if not board.is_legal(move):
                raise InputError(f"ply {i + 1}: {move.uci()} is not legal in {board.fen()}")
            sans.append(board.san(move))
            board.push(move)
    judged: list[MoveJudgement] = []
    for i, move in enumerate(moves):
        mover_white = (i % 2 == 0) == white_first
        before, after = scores[i], scores[i + 1]
        wb, wa = judge.win_percent(before), judge.win_percent(after)
        acc = (
            judge.move_accuracy(wb, wa) if mover_white else judge.move_accuracy(100 - wb, 100 - wa)
        )
        judged.append(
            MoveJudgement(
                ply=first_ply + i + 1,
                move=sans[i],
                uci=move.uci(),
                eval_before=before,
                eval_after=after,
                loss=judge.centipawn_loss(before, after, mover_white),
                cls=judge.classify(before, after, mover_white, bests[i] == sans[i]),
                accuracy=acc,
                best=bests[i],
            )
        )
    wacc, bacc = judge.game_accuracy(scores, white_first)

    def acpl(side: bool) -> float | None:
        losses = [m.loss for m in judged if m.white == side]
        return sum(losses) / len(losses) if losses else None

    return GameAnalysis(
        white=white,
        black=black,
        moves=judged,
        white_acpl=acpl(True),
        black_acpl=acpl(False),
        white_accuracy=None if math.isnan(wacc) else wacc,
        black_accuracy=None if math.isnan(bacc) else bacc,
        evaluations=scores,
    )


def read_pgn(path: str | Path) -> list[chess.pgn.Game]:
    """Every game of a PGN file with moves; a file that is not a chess PGN, or one with an
    illegal move, is an input error (one line, not python-chess's log)."""
    import chess.pgn

    class QuietBuilder(chess.pgn.GameBuilder[chess.pgn.Game]):
        def handle_error(self, error: Exception) -> None:
            self.game.errors.append(error)

    p = Path(path)
    try:
        if p.stat().st_size > MAX_PGN_BYTES:
            raise InputError(f"{str(p)[:200]}: larger than {MAX_PGN_BYTES >> 20} MiB")
        text = p.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise InputError(f"cannot read {str(p)[:200]}: {exc.strerror or exc}") from None
    if "\x00" in text or text.count("\ufffd") > 8:
        raise InputError(f"{str(p)[:200]}: not a PGN text file")
    games: list[chess.pgn.Game] = []
    stream = io.StringIO(text)
    while True:
        try:
            game = chess.pgn.read_game(stream, Visitor=QuietBuilder)
        except (ValueError, RecursionError) as exc:
            raise InputError(f"{str(p)[:200]}: game {len(games) + 1}: {exc}") from None
        if game is None:
            break
        where = f"{str(p)[:200]}: game {len(games) + 1}"
        variant = game.headers.get("Variant", "Standard")
        if variant.lower() not in ("standard", "chess", "from position", ""):
            raise InputError(f"{where}: variant {variant[:40]!r} (only chess is analysed)")
        if game.errors:
            raise InputError(f"{where}: {str(game.errors[0])[:200]}")
        if game.next() is not None:  # a game without moves has nothing to judge
            games.append(game)
    if not games:
        raise InputError(f"{str(p)[:200]}: no chess game with moves in the file")
    return games


def analyse_pgn_game(
    game: chess.pgn.Game, evaluator: Evaluator, progress: Progress | None = None
) -> GameAnalysis:
    h = game.headers
    result = analyse_moves(
        game.board(),
        game.mainline_moves(),
        evaluator,
        white=h.get("White", "?"),
        black=h.get("Black", "?"),
        progress=progress,
    )
    result.headers = dict(h)
    result.start_fen = game.board().fen()
    result.result = h.get("Result", "*")
    return result


# ------------------------------------------------------------------ annotated PGN


def eval_text(score: int) -> str:
    """lichess's ``[%eval]`` value (and its words in a comment): pawns with two decimals, or
    ``#N``/``#-N`` in moves."""
    if judge.is_mate(score):
        moves = (judge.mate_plies(score) + 1) // 2
        return f"#{moves}" if score > 0 else f"#-{moves}"
    return f"{score / 100:.2f}"


def _wrap(tokens: list[str]) -> list[str]:
    lines: list[str] = []
    line = ""
    for tok in tokens:
        if line and len(line) + 1 + len(tok) > PGN_WIDTH:
            lines.append(line)
            line = tok
        else:
            line = f"{line} {tok}" if line else tok
    if line:
        lines.append(line)
    return lines


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _comment(text: str) -> str:
    return "{ " + text.replace("}", ")") + " }"


def annotated_pgn(analysis: GameAnalysis, annotator: str) -> str:
    """The game as PGN with lichess's annotations (evaluations, glyphs, judged moves named)."""
    headers = dict(analysis.headers) or {
        "Event": "?",
        "Site": "?",
        "Date": "????.??.??",
        "Round": "?",
        "White": analysis.white,
        "Black": analysis.black,
        "Result": analysis.result,
    }
    headers["Annotator"] = annotator
    out = [f'[{k} "{_escape(str(v))}"]' for k, v in headers.items()]
    tokens: list[str] = []

    def side(name: str, acpl: float | None, acc: float | None) -> str:
        if acpl is None or acc is None:
            return f"{name}: no moves"
        return f"{name}: ACPL {acpl:.0f}, accuracy {acc:.0f}%"

    tokens.append(
        _comment(
            side("White", analysis.white_acpl, analysis.white_accuracy)
            + "; "
            + side("Black", analysis.black_acpl, analysis.black_accuracy)
        )
    )
    for k, m in enumerate(analysis.moves):
        number = (m.ply + 1) // 2
        if m.white:
            tokens.append(f"{number}.")
        elif k == 0 or tokens[-1][-1] in "})":  # after a comment or a line, the number again
            tokens.append(f"{number}...")
        tokens.append(m.move + GLYPHS.get(m.cls, ""))
        if abs(m.eval_after) != judge.MATE_SCORE:  # no evaluation of a checkmate
            tokens.append(_comment(f"[%eval {eval_text(m.eval_after)}]"))
        if m.cls in GLYPHS:
            # lichess's words: "(0.17 → -10.01) Blunder. exd5 was best." (a mate is named as
            # such: "Checkmate is now unavoidable."), then that move as a line
            said = judge.mate_words(m.eval_before, m.eval_after, m.white) or m.cls.capitalize()
            words = f"({eval_text(m.eval_before)} → {eval_text(m.eval_after)}) {said}."
            if m.best is not None:
                words += f" {m.best} was best."
            tokens.append(_comment(words))
            if m.best is not None:
                tokens.append(f"( {number}{'.' if m.white else '...'} {m.best} )")
    tokens.append(analysis.result)
    return "\n".join(out) + "\n\n" + "\n".join(_wrap(tokens)) + "\n\n"
