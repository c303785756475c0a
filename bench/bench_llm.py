"""``llm:`` agents: the transport's own cost per move, and many games at once.

Two measures, each against an OpenAI-compatible endpoint on 127.0.0.1 that runs in a process
of its own (so that its work does not share the referee's interpreter):

- **cost per move**: :meth:`LlmPlayer.ask` on the start position, again and again, against an
  endpoint that answers at once with a canned completion. The time is everything the agent
  adds to a model's own latency: the prompt (state JSON, views), the HTTP exchange on the
  kept-alive connection, reading the completion, taking the JSON object out of the text.
  Median and p95 in ms, with no views and with every chess view (fen, ascii, legal, history);
- **concurrency**: games ``llm:`` against ``builtin:random`` (chess from the start, 20 plies: 10
  answers of the model each) against an endpoint that takes ``--latency`` seconds (200 ms) per
  answer and plays legal moves (tests/arena/llm_endpoint.py). First one game alone gives one
  game's rate; then ``--games`` games with ``--concurrency`` 32 (threads: the match is
  network-bound) give games/s, compared with the ideal, 32 times one game's rate.

    python bench/bench_llm.py [--moves 300] [--latency 0.2] [--concurrency 32] [--games 64]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.arena.llm_endpoint

CANNED = json.dumps(
    {
        "id": "bench",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": 'I will open with the king\'s pawn.\n```json\n{"from": "e2", '
                    '"to": "e4", "promotion": null}\n```',
                },
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 900, "completion_tokens": 30, "total_tokens": 930},
    }
).encode()


def canned_server(port_out: Any) -> None:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(CANNED)))
            self.end_headers()
            self.wfile.write(CANNED)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port_out.send(server.server_address[1])
    server.serve_forever()


def playing_server(port_out: Any, latency: float) -> None:
    from tests.arena.llm_endpoint import Endpoint

    with Endpoint(delay=latency) as ep:
        port_out.send(ep.server.server_address[1])
        while True:
            time.sleep(3600)


def start(target: Any, *args: Any) -> tuple[multiprocessing.Process, int]:
    ctx = multiprocessing.get_context("spawn")
    ours, theirs = ctx.Pipe()
    proc = ctx.Process(target=target, args=(theirs, *args), daemon=True)
    proc.start()
    port = int(ours.recv())
    return proc, port


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cost_per_move(moves: int) -> None:
    from enoch.arena.llm import LlmPlayer, parse_spec
    from enoch.arena.players import Turn
    from enoch.game.registry import find_game

    proc, port = start(canned_server)
    try:
        game = find_game("chess")
        for views in ("none", "fen,ascii,legal,history"):
            spec = parse_spec(f"llm:bench?base_url=http://127.0.0.1:{port}/v1&views={views}")
            player = LlmPlayer("bench", spec, game)
            state = game.new_state(game.setup())
            times = []
            for i in range(moves + 20):
                turn = Turn(state=state, seat=0, fields={}, timeout=10.0)
                t0 = time.perf_counter()
                answer = player.ask(turn)
                dt = time.perf_counter() - t0
                if i >= 20:  # warm-up: the connection, the imports
                    times.append(dt * 1000)
            assert json.loads(answer)["to"] == "e4"
            player.close()
            print(
                f"cost per move, views={views}: median {statistics.median(times):.2f} ms, "
                f"p95 {percentile(times, 0.95):.2f} ms ({moves} answers; endpoint in another "
                "process answering at once)"
            )
    finally:
        proc.kill()
        proc.join()


def concurrency(latency: float, workers: int, games: int) -> None:
    from enoch.arena.match import run_match
    from enoch.arena.referee import GameConfig
    from enoch.game.registry import find_game

    proc, port = start(playing_server, latency)
    try:
        agent = f"llm:bench?base_url=http://127.0.0.1:{port}/v1&views=none"
        game = find_game("chess")
        setup = game.setup({"fen": "startpos"}, max_plies=20)
        config = GameConfig(timeout=30)
        cpu = [0.0]  # this process's CPU seconds per game, of the last run

        def run(n: int, k: int) -> tuple[float, int]:
            cpu0 = time.process_time()
            t0 = time.perf_counter()
            outcome = run_match(
                agent,
                "builtin:random",
                variant=game,
                setup=setup,
                games=n,
                config=config,
                concurrency=k,
            )
            dt = time.perf_counter() - t0
            cpu[0] = (time.process_time() - cpu0) / n
            answers = 0
            for sched, result in outcome.games:
                assert result.termination == "move_limit", result.reason
                seat = sched.seats.index(0)
                answers += result.usage[seat]["requests"] if result.usage else 0
            return dt, answers

        one, answers = run(2, 1)
        rate1 = 2 / one
        print(
            f"one game at a time: {rate1:.3f} games/s ({answers / 2:.0f} model answers per game, "
            f"{latency * 1000:.0f} ms each)"
        )
        many, answers = run(games, workers)
        rate = games / many
        ideal = workers * rate1
        print(
            f"{workers} games at once: {rate:.2f} games/s over {games} games; ideal "
            f"{ideal:.2f} games/s ({workers} x one game's rate): {100 * rate / ideal:.0f}% "
            f"of ideal; the referee's process used {cpu[0] * 1000:.1f} ms of CPU per game"
        )
    finally:
        proc.kill()
        proc.join()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=300)
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--games", type=int, default=64)
    args = ap.parse_args()
    cost_per_move(args.moves)
    concurrency(args.latency, args.concurrency, args.games)


if __name__ == "__main__":
    main()
