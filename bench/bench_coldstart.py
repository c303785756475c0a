"""Cold-start latency of ``enoch agent --agent builtin:random``: a fresh process per state,
as an ``exec:`` referee runs it. Wall time from spawn to exit, median and worst of N runs.

Run:  python bench/bench_coldstart.py [-n 30]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time

from enoch.protocol import state_from_fen

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=30)
    args = parser.parse_args()
    state = json.dumps(state_from_fen(KIWIPETE)).encode()
    commands = {
        "enoch agent --agent builtin:random": [
            shutil.which("enoch") or "enoch",
            "agent",
            "--agent",
            "builtin:random",
        ],
        "python -m enoch agent (random)": [
            sys.executable,
            "-m",
            "enoch",
            "agent",
            "--agent",
            "builtin:random",
        ],
        "python -c pass (interpreter floor)": [sys.executable, "-c", "pass"],
    }
    for label, cmd in commands.items():
        times = []
        for _ in range(args.n):
            start = time.perf_counter()
            subprocess.run(cmd, input=state, capture_output=True, check=True)
            times.append((time.perf_counter() - start) * 1000)
        print(f"{label:<38} median {statistics.median(times):6.1f} ms   worst {max(times):6.1f} ms")


if __name__ == "__main__":
    main()
