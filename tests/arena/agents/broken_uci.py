"""A UCI engine that fails the handshake: ``broken_uci.py MODE``.

``mute`` reads commands and never answers (no ``uciok``); ``no_readyok`` says ``uciok`` but
never ``readyok``; ``crash`` writes a reason to stderr and exits 1 on ``uci``; ``escape``
first starts a child that calls ``setsid()`` and sleeps, then is mute. It imports nothing from
enoch, so that it starts in the interpreter's own time.
"""

import os
import sys
import time


def main() -> None:
    mode = sys.argv[1]
    if mode == "escape":
        r, w = os.pipe()
        if os.fork() == 0:
            os.setsid()
            os.write(w, b"x")
            time.sleep(3600)
            os._exit(0)
        os.read(r, 1)
    for line in sys.stdin:
        word = line.strip()
        if mode == "crash" and word == "uci":
            sys.stderr.write("broken_uci: cannot load the network file\n")
            sys.exit(1)
        if mode == "no_readyok" and word == "uci":
            print("id name broken\nuciok", flush=True)


if __name__ == "__main__":
    main()
