"""A minimal UCI engine for the tests: it writes every ``setoption`` line it receives to the
file named by its first argument and plays the first legal move (enoch's own generator)."""

from __future__ import annotations

import sys

from enoch.rules import STARTING_FEN, Position, move_uci


def main() -> None:
    log = open(sys.argv[1], "a")  # noqa: SIM115 - kept open for the engine's life
    pos = Position.from_fen(STARTING_FEN)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "uci":
            print("id name fake\nuciok", flush=True)
        elif words[0] == "isready":
            print("readyok", flush=True)
        elif words[0] == "setoption":
            log.write(line.strip() + "\n")
            log.flush()
        elif words[0] == "position":
            rest = line.split(None, 1)[1]
            fen_part, _, moves = rest.partition(" moves ")
            fen = STARTING_FEN if fen_part.strip() == "startpos" else fen_part[4:].strip()
            pos = Position.from_fen(fen)
            for text in moves.split():
                pos.make(next(m for m in pos.legal_moves() if move_uci(m) == text))
        elif words[0] == "go":
            print(f"bestmove {move_uci(pos.legal_moves()[0])}", flush=True)
        elif words[0] == "quit":
            return


if __name__ == "__main__":
    main()
