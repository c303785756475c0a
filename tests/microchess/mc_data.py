"""Shared fixtures for the MicroChess tests: the case file recorded from the original."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CASES_PATH = Path(__file__).resolve().parent.parent / "data" / "microchess" / "cases.jsonl"


def load_cases() -> list[dict[str, Any]]:
    """Every recorded position, in file order."""
    with CASES_PATH.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


CASES = load_cases()
