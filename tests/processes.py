"""Process checks shared by every test that starts agent programs: none may be left behind."""

from __future__ import annotations

import contextlib
import os
import uuid

# Every process this test run starts inherits this variable, so that the checks below see only
# this run's processes: two test runs on one machine (two checkouts, CI beside a developer)
# must not kill or blame each other's agents.
SESSION_VAR = "ENOCH_TEST_SESSION"
SESSION = os.environ.setdefault(SESSION_VAR, uuid.uuid4().hex)
_TAG = f"{SESSION_VAR}={SESSION}".encode()


def _ours(pid: str) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return _TAG in f.read().split(b"\0")
    except OSError:
        return False


def live_processes(markers: tuple[str, ...]) -> list[tuple[int, str]]:
    """Non-zombie processes of this test run whose command line contains one of ``markers``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and any(m in cmd for m in markers) and _ours(entry):
            found.append((int(entry), cmd))
    return found


def group_alive(pgid: int) -> bool:
    """Whether any non-zombie process is in process group ``pgid``."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def reap_and_assert_none_left(markers: tuple[str, ...]) -> None:
    """Kill leftovers (so one failure does not cascade), then fail if there were any."""
    left = live_processes(markers)
    for pid, _ in left:
        with contextlib.suppress(OSError):
            os.kill(pid, 9)
    assert not left, f"processes left behind: {left}"
