"""Every arena test must leave no agent process behind."""

from __future__ import annotations

import contextlib
import os
from typing import Any

import pytest

from tests.arena.helpers import live_processes


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Any:
    yield
    left = live_processes()
    for pid, _ in left:  # clean up so one failure does not cascade, then fail
        with contextlib.suppress(OSError):
            os.kill(pid, 9)
    assert not left, f"processes left behind: {left}"
