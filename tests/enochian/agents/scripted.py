"""A scripted Enochian agent for the referee's tests: ``scripted.py [--jsonl] PLAN_JSON``.

PLAN maps a ply (the state's ``ply``) to a step; plies without a plan get a capture-first move
(the most valuable man it can take, a king above all, ties and quiet moves chosen at random,
seeded by the ply, so games are short and repeatable). Exchange offers addressed to it are
accepted. A step is an answer object, or one of: ``{"raw": TEXT}`` print TEXT as is;
``{"do": "crash"}`` exit 3 after writing to stderr; ``{"do": "hang"}`` sleep; ``{"do":
"giant"}`` write 1 MB; ``{"do": "grandchild"}`` leave a child holding stdout open, then move;
``{"do": "illegal"}`` name a move that is not legal.
"""

import json
import os
import random
import subprocess
import sys
import time
from typing import Any

from enoch.enochian.protocol import move_to_json, state_from_json
from enoch.enochian.state import move_to

VALUE = {"king": 100, "rook": 5, "bishop": 4, "knight": 3, "queen": 3, "pawn": 1}


def capture_first(state: dict[str, Any]) -> dict[str, Any]:
    st = state_from_json(state)
    if st.pending is not None:
        return {"action": "accept_exchange"}
    moves = st.legal_moves()
    rng = random.Random(state["ply"])
    taken = {m["square"]: VALUE[m["kind"]] for m in reversed(state["men"])}

    def gain(m: int) -> int:
        from enoch.enochian.geometry import SQUARE_NAMES

        return taken.get(SQUARE_NAMES[move_to(m)], 0)

    best = max(gain(m) for m in moves)
    return move_to_json(st, rng.choice([m for m in moves if gain(m) == best]))


def respond(state: dict[str, Any], plan: dict[str, Any]) -> str:
    step = plan.get(str(state["ply"]))
    if step is None:
        return json.dumps(capture_first(state))
    if "raw" in step:
        return str(step["raw"])
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
        return json.dumps(capture_first(state))
    if do == "illegal":
        return json.dumps({"from": "a1", "to": "h8", "promotion": None})
    return json.dumps(step)


def main() -> None:
    args = sys.argv[1:]
    jsonl = args[:1] == ["--jsonl"]
    if jsonl:
        args = args[1:]
    plan = json.loads(args[0]) if args else {}
    if not jsonl:
        sys.stdout.write(respond(json.loads(sys.stdin.read()), plan))
        sys.stdout.flush()
        return
    for line in sys.stdin:
        sys.stdout.write(respond(json.loads(line), plan) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
