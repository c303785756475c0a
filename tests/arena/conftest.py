"""Every arena test must leave no agent process behind."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.arena.helpers import MARKERS
from tests.processes import reap_and_assert_none_left


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    yield
    reap_and_assert_none_left(MARKERS)
