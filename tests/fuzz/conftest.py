"""Report how many generated inputs the fuzz suite tried in this run."""

from __future__ import annotations

import pytest

from tests.fuzz.contract import TRIED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if TRIED:
        parts = ", ".join(f"{name} {n}" for name, n in sorted(TRIED.items()))
        terminalreporter.write_line(f"fuzz: {sum(TRIED.values())} generated inputs tried ({parts})")
