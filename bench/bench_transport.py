"""Transport overhead per move for ``jsonl`` and ``exec`` agents (median and 95th percentile).

The agent is a minimal Python script that answers every state with a fixed move without any
chess work, so the figure is the transport's own cost: serialising the state, the pipe round
trip, (for exec) starting a Python process, and the referee-side reading with deadlines and
caps. The state sent is a real mid-game state with a 40-position history.

Each figure is taken with the agents in their PID namespace (the default, ``sandbox``) and
without (``--no-sandbox``, ``bare``), plus the start latency of a jsonl agent (process start to
its first answer): what the sandbox costs is the difference.

    python bench/bench_transport.py [--moves 300] [--starts 30]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from enoch.arena.transport import ExecTransport, JsonlTransport, Limits
from enoch.protocol import make_state
from enoch.rules import Position

AGENT = (
    "import sys\n"
    'answer = \'{"from": "e2", "to": "e4", "promotion": null}\'\n'
    "if '--jsonl' in sys.argv:\n"
    "    for line in sys.stdin:\n"
    "        sys.stdout.write(answer + '\\n'); sys.stdout.flush()\n"
    "else:\n"
    "    sys.stdin.read(); sys.stdout.write(answer)\n"
)


def sample_state() -> dict:
    pos = Position.start()
    history = []
    import random

    rng = random.Random(5)
    for _ in range(40):
        history.append(pos.position_fen())
        pos.make(rng.choice(pos.legal_moves()))
    return make_state(pos, history)


def measure(transport, state: dict, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        transport.request(state, 10.0)
        out.append(time.perf_counter() - t0)
    transport.close()
    return out


def report(name: str, times: list[float]) -> None:
    times = sorted(times)
    p95 = times[int(0.95 * (len(times) - 1))]
    print(
        f"{name:20s} median {1000 * statistics.median(times):7.3f} ms   "
        f"p95 {1000 * p95:7.3f} ms   ({len(times)} samples)"
    )


def start_once(state: dict, limits: Limits) -> float:
    """Seconds from starting a jsonl agent to its first answer (then it is closed)."""
    t0 = time.perf_counter()
    t = JsonlTransport([sys.executable, "-S", "-c", AGENT, "--jsonl"], limits)
    t.request(state, 10.0)
    elapsed = time.perf_counter() - t0
    t.close()
    return elapsed


def exec_once(state: dict, limits: Limits) -> float:
    t = ExecTransport([sys.executable, "-S", "-c", AGENT], limits)
    t0 = time.perf_counter()
    t.request(state, 10.0)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=300)
    ap.add_argument("--starts", type=int, default=30)
    args = ap.parse_args()
    state = sample_state()
    modes = (("sandbox", Limits()), ("bare", Limits(sandbox=False)))
    for label, limits in modes:
        jsonl = JsonlTransport([sys.executable, "-c", AGENT, "--jsonl"], limits)
        measure(jsonl, state, 5)  # warm-up (process start) not counted
        jsonl = JsonlTransport([sys.executable, "-c", AGENT, "--jsonl"], limits)
        jsonl.request(state, 10.0)
        report(f"jsonl {label}", measure(jsonl, state, args.moves))
    # Process starts alternate between the modes, so that a busy machine (a shared CI runner)
    # weighs on both alike rather than on whichever ran second.
    execs: dict[str, list[float]] = {label: [] for label, _ in modes}
    starts: dict[str, list[float]] = {label: [] for label, _ in modes}
    for _ in range(max(args.moves // 5, 20)):
        for label, limits in modes:
            execs[label].append(exec_once(state, limits))
    for _ in range(args.starts):
        for label, limits in modes:
            starts[label].append(start_once(state, limits))
    for label, _ in modes:
        report(f"exec {label}", execs[label])
    for label, _ in modes:
        report(f"jsonl start {label}", starts[label])


if __name__ == "__main__":
    main()
