"""Shared helpers for the engine tests."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data" / "tactics"


def fens(name: str) -> list[str]:
    return [line.strip() for line in (DATA / name).read_text().splitlines() if line.strip()]
