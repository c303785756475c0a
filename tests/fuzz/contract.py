"""The CLI's promise, checked in-process: run ``enoch.cli.main`` on an argument list and a
stdin, with a time bound, and judge what it did.

The contract (README, "Bad input"): exit status 0, or 2 with exactly one short line on stderr
and nothing on stdout; never a traceback, never an internal error (status 1), never a hang.
``enoch validate`` is the one command whose stdout *is* the list of problems (status 2).
"""

from __future__ import annotations

import contextlib
import io
import signal
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import FrameType

# The longest a single input may take before it counts as a hang (seconds). Generous: the
# machine is shared, and the slowest legitimate input here (a state near the size limit) takes
# a few seconds.
TIME_LIMIT = 20.0
# The longest error line allowed: a message quotes at most a short prefix of what it refuses
# (and a state's summary names at most three problems).
MAX_ERROR_LINE = 500

#: generated inputs tried in this session, by fuzz target (reported at the end of the run)
TRIED: Counter[str] = Counter()


class Hang(BaseException):
    """Raised in the main thread when an input runs past the time limit (a BaseException, so
    that the CLI's ``except Exception`` cannot turn it into an internal error)."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    def alarm(signum: int, frame: FrameType | None) -> None:
        raise Hang(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@dataclass
class Run:
    argv: list[str]
    status: int
    stdout: str
    stderr: str
    seconds: float

    def describe(self) -> str:
        return (
            f"enoch {' '.join(a[:60] for a in self.argv)[:300]} -> {self.status}; "
            f"stderr {self.stderr[:300]!r}; stdout {self.stdout[:100]!r}"
        )


def run_cli(argv: Sequence[str], stdin: bytes = b"", limit: float = TIME_LIMIT) -> Run:
    """``enoch ARGV < stdin`` in this process, stdout and stderr captured."""
    from enoch.cli import main

    out, err = io.BytesIO(), io.BytesIO()
    fake_in = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8", errors="strict")
    fake_out = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    fake_err = io.TextIOWrapper(err, encoding="utf-8", write_through=True)
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = fake_in, fake_out, fake_err
    start = time.perf_counter()
    try:
        with time_limit(limit):
            try:
                status = main(list(argv))
            except SystemExit as exc:  # argparse's usage errors
                status = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        fake_out.flush()
        fake_err.flush()
    return Run(
        list(argv),
        status,
        out.getvalue().decode("utf-8", "replace"),
        err.getvalue().decode("utf-8", "replace"),
        time.perf_counter() - start,
    )


def check(run: Run, *, output_is_problems: bool = False) -> None:
    """Assert the contract (see the module docstring)."""
    what = run.describe()
    assert run.status in (0, 2), f"status {run.status}: {what}"
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr, what
    if run.status == 2 and not output_is_problems:
        assert run.stdout == "", f"stdout on an error: {what}"
        lines = run.stderr.splitlines()
        assert len(lines) == 1, f"{len(lines)} lines on stderr: {what}"
        assert len(lines[0]) <= MAX_ERROR_LINE, f"an error line of {len(lines[0])} chars: {what}"
        assert lines[0].startswith("enoch"), what
    if output_is_problems:
        assert run.stderr == "", what
