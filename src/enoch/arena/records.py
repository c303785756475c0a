"""Game records of every game: results lines and event logs (JSONL), and the game's own
record format (PGN for chess, the text record for Enochian) behind one :class:`RecordWriter`.

Every writer opens its file when it is made, so that a path that cannot be written is an
input error before the first game starts, not a crash after an hour of games.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import IO, Any

from enoch.errors import InputError


def _open(path: Path, mode: str) -> IO[str]:
    try:
        folder = path.parent.is_dir()
    except OSError as exc:  # e.g. a name longer than the file system allows
        raise InputError(f"cannot write {str(path)[:200]}: {exc.strerror or exc}") from None
    if not folder:
        raise InputError(
            f"cannot write {str(path)[:200]}: the folder {str(path.parent)[:200]} does not exist"
        )
    try:
        return open(path, mode, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {str(path)[:200]}: {exc.strerror or exc}") from None


class JsonlWriter:
    """Append JSON lines to a file, one ``write`` per line, thread-safe, flushed each line
    (a match killed half-way leaves a readable file)."""

    def __init__(self, path: str | Path | None, mode: str = "a") -> None:
        self.path = Path(path) if path is not None else None
        self._lock = threading.Lock()
        self._file: IO[str] | None = None
        if self.path is not None:
            self._file = _open(self.path, mode)

    def __call__(self, record: dict[str, Any]) -> None:
        if self._file is None:
            return
        line = json.dumps(record, separators=(",", ":"), default=str)
        with self._lock:
            self._file.write(line + "\n")
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class RecordWriter:
    """Append finished games to a file in the game's record format (``Game.record_text``)."""

    def __init__(self, path: str | Path | None, game: Any, mode: str = "a") -> None:
        self.game = game
        self._lock = threading.Lock()
        self._file: IO[str] | None = None
        if path is not None:
            self._file = _open(Path(path), mode)

    def write(self, result: Any, *, event: str = "enoch game", round_: str = "-") -> None:
        if self._file is None:
            return
        text = self.game.record_text(result, event=event, round_=round_)
        with self._lock:
            self._file.write(text)
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
