"""Make ``src/`` importable when enoch is not installed (``pytest tests/enochian`` from a clone)."""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import enoch  # noqa: F401
except ImportError:  # pragma: no cover
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
