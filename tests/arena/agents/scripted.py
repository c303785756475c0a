"""A scripted agent for the referee's tests: ``scripted.py [--jsonl] PLAN_JSON``.

PLAN maps a ply (the length of ``position_history``) to a list of steps; step ``k`` answers the
``k``-th question of that turn (k counts a pending ``last_error`` and the agent's own standing
draw offer, so exec and jsonl modes agree). Plies without a plan get a random legal move
(seeded by the ply, so games are repeatable). A step is an answer object, or one of:
``{"raw": TEXT}`` print TEXT as is; ``{"do": "crash"}`` exit 3 after writing to stderr;
``{"do": "hang"}`` sleep; ``{"do": "giant"}`` write 1 MB; ``{"do": "grandchild"}`` leave a
child holding stdout open, then answer randomly; ``{"do": "two_lines"}`` answer twice;
``{"do": "claim"}`` claim threefold or fifty moves when the claim is valid, else move.
"""

import json
import os
import random
import subprocess
import sys
import time
from typing import Any

from enoch.protocol import move_answer, parse_state


def random_answer(state: dict[str, Any], ply: int) -> dict[str, Any]:
    moves = parse_state(state).position.legal_moves()
    return move_answer(random.Random(ply).choice(moves))


def respond(state: dict[str, Any], plan: dict[str, list[dict[str, Any]]]) -> str:
    ply = len(state["position_history"])
    k = int(bool(state.get("last_error"))) + int(state.get("draw_offer") == state["turn"])
    steps = plan.get(str(ply), [])
    step = steps[k] if k < len(steps) else None
    if step is None:
        return json.dumps(random_answer(state, ply))
    if "raw" in step:
        raw = step["raw"]
        assert isinstance(raw, str)
        return raw
    do = step.get("do")
    if do == "crash":
        sys.stderr.write("scripted agent: deliberate crash\n")
        sys.stderr.flush()
        os._exit(3)
    if do == "hang":
        time.sleep(3600)
    if do == "giant":
        return "[" + "0," * 500_000 + "0]"
    if do == "grandchild":
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
        return json.dumps(random_answer(state, ply))
    if do == "two_lines":
        answer = json.dumps(random_answer(state, ply))
        return answer + "\n" + answer
    if do == "claim":
        pos = parse_state(state).position
        if pos.repetition_count() >= 3:
            return json.dumps({"action": "claim_draw", "reason": "threefold_repetition"})
        if pos.halfmove >= 100:
            return json.dumps({"action": "claim_draw", "reason": "fifty_move_rule"})
        return json.dumps(random_answer(state, ply))
    return json.dumps(step)


def main() -> None:
    args = sys.argv[1:]
    jsonl = args[:1] == ["--jsonl"]
    if jsonl:
        args = args[1:]
    plan: dict[str, list[dict[str, Any]]] = json.loads(args[0]) if args else {}
    if not jsonl:
        sys.stdout.write(respond(json.loads(sys.stdin.read()), plan))
        sys.stdout.flush()
        return
    for line in sys.stdin:
        sys.stdout.write(respond(json.loads(line), plan) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
