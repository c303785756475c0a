"""A game-agnostic misbehaving agent for the referee's failure tests: ``misbehave.py MODE [TEXT]``.

It reads the state JSON on stdin (any game: it never looks inside) and then, by MODE:
``crash`` exit 3 after writing to stderr; ``hang`` sleep an hour; ``garbage`` print "hello";
``dupkeys`` print a JSON object with the key ``"from"`` twice; ``oversize`` print 200 kB;
``grandchild`` start a child that holds stdout open and sleeps, then print garbage and exit;
``nan`` print ``{"a": NaN}``; ``trailing`` print a valid JSON object and text after it;
``say`` print TEXT as is.

It imports nothing from enoch, so that it starts in the interpreter's own time.
"""

import json
import os
import subprocess
import sys
import time


def main() -> None:
    mode = sys.argv[1]
    json.loads(sys.stdin.read())  # the state: any game's, read whole and ignored
    out = sys.stdout
    if mode == "crash":
        sys.stderr.write("misbehave: deliberate crash\n")
        sys.stderr.flush()
        os._exit(3)
    elif mode == "hang":
        time.sleep(3600)
    elif mode == "garbage":
        out.write("hello\n")
    elif mode == "dupkeys":
        out.write('{"from": "e2", "from": "e4", "to": "e4", "promotion": null}\n')
    elif mode == "oversize":
        out.write("x" * 200_000)
    elif mode == "grandchild":
        # the child inherits stdout and keeps it open for an hour: the referee must not wait
        # for EOF, and must kill it with the agent's process group
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
        out.write("hello\n")
    elif mode == "nan":
        out.write('{"a": NaN}\n')
    elif mode == "trailing":
        out.write('{"action": "resign"} and then some text\n')
    elif mode == "say":
        out.write(sys.argv[2])
    else:
        sys.stderr.write(f"misbehave: unknown mode {mode!r}\n")
        sys.exit(2)
    out.flush()


if __name__ == "__main__":
    main()
