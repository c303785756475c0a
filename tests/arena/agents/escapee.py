"""An agent whose children escape its process group: ``escapee.py [--jsonl] N [ANSWER]``.

For every state it reads, it forks N children that each call ``setsid()`` (a session and a
process group of their own, out of reach of a kill of the agent's group), close the pipes they
inherited and sleep for an hour; it waits until all N have escaped, then answers ANSWER
(default: resign), or ``hang`` never answers. Forks, not new interpreters: a match can leave
hundreds of them cheaply. It imports nothing from enoch, so that it starts in the interpreter's
own time.
"""

import os
import sys
import time


def escape(n: int) -> None:
    r, w = os.pipe()
    for _ in range(n):
        if os.fork() == 0:
            os.setsid()
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            os.write(w, b"x")
            time.sleep(3600)
            os._exit(0)
    got = 0
    while got < n:
        got += len(os.read(r, n - got))
    os.close(r)
    os.close(w)


def main() -> None:
    args = sys.argv[1:]
    jsonl = args[:1] == ["--jsonl"]
    if jsonl:
        args = args[1:]
    n = int(args[0])
    answer = args[1] if len(args) > 1 else '{"action": "resign"}'
    lines = sys.stdin if jsonl else [sys.stdin.read()]
    for _ in lines:
        escape(n)
        if answer == "hang":
            time.sleep(3600)
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
