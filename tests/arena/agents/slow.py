"""A slow, repeatable agent for the backend tests: ``slow.py SECONDS [TAG]`` (JSONL).

Each answer waits SECONDS, then plays a random legal move seeded by the ply, so a game replayed
from its start is the same game. TAG only marks the command line (a test finds the process).
"""

import json
import random
import sys
import time
from typing import Any

from enoch.protocol import move_answer, parse_state


def random_answer(state: dict[str, Any], ply: int) -> dict[str, Any]:
    moves = parse_state(state).position.legal_moves()
    return move_answer(random.Random(ply).choice(moves))


def main() -> None:
    delay = float(sys.argv[1])
    for line in sys.stdin:
        state = json.loads(line)
        time.sleep(delay)
        sys.stdout.write(json.dumps(random_answer(state, len(state["position_history"]))) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
