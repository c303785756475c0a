"""The web page's speed: referee move to viewer, server CPU per move streamed, page load.

Usage: python bench/bench_web.py [--games 10] [--viewers 20] [--browsers 3] [--seconds 20]

What it does. It starts ``enoch serve --port 0`` as its own process on 127.0.0.1 (so that its
CPU time can be read from /proc), opens ``--viewers`` server-sent-event streams (each following
every game, as the Watch page's list does), and ``--browsers`` real headless chromium pages on
game pages, then starts ``--games`` chess games whose two seats are the page's person. This
script answers for both seats through the HTTP API (a random legal move from the view, after
``--pace`` seconds), so the games move at a steady rate without an engine's search competing
for the CPU with the server: the figures are the server's own path (POST, referee, event log,
stream), not an engine's.

Measured:
- *referee to viewer*: each stream message carries ``moved_at`` (the wall time at which the
  referee took the move); a viewer's latency is its receipt time minus that;
- *referee to board*: the browser pages record, after chessground has drawn the new position,
  ``Date.now() - moved_at`` (``window.__enoch.latencies``);
- *server CPU per move streamed*: the server process's user+system CPU seconds over the run,
  divided by the moves played, and by the messages delivered to viewers;
- *page load*: time from navigation to the Play form being usable, over 5 loads.
Both clocks are this machine's wall clock. Results are noisy on a shared machine: say so.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

import httpx


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def start_server() -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "enoch", "serve", "--port", "0", "--max-games", "64"],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not match:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return proc, f"http://127.0.0.1:{match.group(1)}"


async def viewer(url: str, latencies: list[float], counter: list[int], stop: asyncio.Event) -> None:
    async with (
        httpx.AsyncClient(timeout=None) as http,
        http.stream("GET", url + "/api/events?topics=games") as response,
    ):
        async for line in response.aiter_lines():
            if stop.is_set():
                return
            if not line.startswith("data: "):
                continue
            now = time.time()
            msg = json.loads(line[6:])
            counter[0] += 1
            if msg.get("type") == "game" and msg.get("moved_at") and msg.get("waiting") is None:
                latencies.append(now - msg["moved_at"])


async def driver(
    url: str, token: str, games: int, pace: float, stop: asyncio.Event, moves: list[int]
) -> None:
    """Start the games and answer for both seats of each, from the event stream (no polling:
    the server's CPU is spent on the games and their viewers only)."""
    rng = random.Random(1)
    headers = {"X-Enoch-Token": token}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=30) as http:
        answered: dict[str, int] = {}
        tasks: set[asyncio.Task[None]] = set()

        async def new() -> None:
            r = await http.post("/api/games", json={"seats": ["human", "human"], "max_plies": 2000})
            r.raise_for_status()

        async def answer(gid: str, legal: list[dict[str, Any]]) -> None:
            await asyncio.sleep(pace)
            r = await http.post(f"/api/games/{gid}/answer", json={"answer": rng.choice(legal)})
            if r.status_code == 202:
                moves[0] += 1

        try:
            await follow(http, games, new, answer, answered, tasks, stop)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


async def follow(
    http: httpx.AsyncClient,
    games: int,
    new: Any,
    answer: Any,
    answered: dict[str, int],
    tasks: set[asyncio.Task[None]],
    stop: asyncio.Event,
) -> None:
    async with http.stream("GET", "/api/events?topics=games", timeout=None) as response:
        for _ in range(games):
            await new()
        async for line in response.aiter_lines():
            if stop.is_set():
                return
            if not line.startswith("data: "):
                continue
            msg = json.loads(line[6:])
            if msg.get("type") != "game" or msg.get("match"):
                continue
            gid = msg["id"]
            if msg["status"] == "finished":
                if answered.pop(gid, None) is not None:
                    tasks.add(asyncio.create_task(new()))
                continue
            if msg.get("waiting") is None or answered.get(gid) == msg["plies"]:
                continue
            answered[gid] = msg["plies"]
            legal = [m for m in (msg.get("view") or {}).get("legal", []) if "from" in m]
            if legal:
                task = asyncio.create_task(answer(gid, legal))
                tasks.add(task)
                task.add_done_callback(tasks.discard)


def browsers(url: str, ids: list[str], out: dict[str, Any], ready: threading.Event) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(
            executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox"]
        )
        loads = []
        page = b.new_page()
        for _ in range(5):
            t0 = time.perf_counter()
            page.goto(url + "/#/play")
            page.wait_for_selector("#play-form #start")
            loads.append(time.perf_counter() - t0)
        page.close()
        out["load"] = loads
        pages = []
        for gid in ids:
            p = b.new_page()
            p.goto(f"{url}/#/game/{gid}")
            p.wait_for_selector("#board cg-board")
            pages.append(p)
        ready.set()
        while not out.get("stop"):
            for p in pages:
                p.wait_for_timeout(100)  # lets the pages run their event loops
        lat: list[float] = []
        for p in pages:
            lat.extend(p.evaluate("window.__enoch.latencies"))
        out["board"] = lat
        b.close()


async def run(args: argparse.Namespace) -> None:
    proc, url = start_server()
    try:
        page = httpx.get(url + "/").text
        token = re.search(r'name="enoch-token" content="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        stop = asyncio.Event()
        latencies: list[float] = []
        counter = [0]
        views = [
            asyncio.create_task(viewer(url, latencies, counter, stop)) for _ in range(args.viewers)
        ]
        await asyncio.sleep(0.5)
        moves = [0]
        drive = asyncio.create_task(driver(url, token, args.games, args.pace, stop, moves))
        await asyncio.sleep(1.0)
        games = httpx.get(url + "/api/games").json()["games"]
        ids = [g["id"] for g in games][: args.browsers]
        browser_out: dict[str, Any] = {}
        ready = threading.Event()
        thread = threading.Thread(target=browsers, args=(url, ids, browser_out, ready))
        if args.browsers:
            thread.start()
            await asyncio.to_thread(ready.wait, 120)
        cpu0, moves0, msgs0, lat0 = cpu_seconds(proc.pid), moves[0], counter[0], len(latencies)
        t0 = time.perf_counter()
        await asyncio.sleep(args.seconds)
        elapsed = time.perf_counter() - t0
        cpu = cpu_seconds(proc.pid) - cpu0
        played = moves[0] - moves0
        delivered = counter[0] - msgs0
        window = latencies[lat0:]
        browser_out["stop"] = True
        stop.set()
        if args.browsers:
            await asyncio.to_thread(thread.join, 60)
        for task in [*views, drive]:
            task.cancel()
        await asyncio.gather(*views, drive, return_exceptions=True)
    finally:
        proc.terminate()
        proc.wait(10)
    ms = 1000.0
    print(
        f"games {args.games}, viewers {args.viewers} (SSE), browser pages {args.browsers}, "
        f"{elapsed:.1f} s, pace {args.pace} s per answer"
    )
    print(
        f"moves played: {played} ({played / elapsed:.1f}/s); messages delivered to viewers: "
        f"{delivered} ({delivered / elapsed:.0f}/s)"
    )
    print(
        f"referee -> viewer (SSE received): median {statistics.median(window) * ms:.1f} ms, "
        f"p95 {pct(window, 0.95) * ms:.1f} ms, n={len(window)}"
    )
    board = browser_out.get("board") or []
    if board:
        print(
            f"referee -> browser board drawn: median {statistics.median(board) * ms:.1f} ms, "
            f"p95 {pct(board, 0.95) * ms:.1f} ms, n={len(board)}"
        )
    print(
        f"server CPU: {cpu:.2f} s = {cpu / max(played, 1) * ms:.2f} ms per move, "
        f"{cpu / max(delivered, 1) * ms:.3f} ms per message delivered"
    )
    loads = browser_out.get("load") or []
    if loads:
        print(
            f"page load (navigation to a usable Play form): median "
            f"{statistics.median(loads) * ms:.0f} ms, first {loads[0] * ms:.0f} ms"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--viewers", type=int, default=20)
    p.add_argument("--browsers", type=int, default=3)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--pace", type=float, default=0.2, help="seconds before each answer")
    asyncio.run(run(p.parse_args()))


if __name__ == "__main__":
    main()
