"""The HTTP API through Starlette's test client (and a real server on 127.0.0.1 for streams)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from starlette.testclient import TestClient

from enoch.web.api import MAX_BODY
from enoch.web.feeds import Feed
from enoch.web.server import create_app
from enoch.web.standings import standings
from tests.web.conftest import TOKEN, LiveServer

PROMOTE = "4k3/1P6/8/8/8/8/8/4K2R w K - 0 1"


def wait(client: TestClient, path: str, pred: Any, timeout: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        data: dict[str, Any] = client.get(path).json()
        if pred(data):
            return data
        assert time.monotonic() < deadline, f"timed out waiting on {path}: {data}"
        time.sleep(0.03)


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------- safety
def test_state_changes_need_the_token(client: TestClient) -> None:
    body = {"seats": ["builtin:random", "builtin:random"]}
    r = client.post("/api/games", json=body, headers={"X-Enoch-Token": "wrong"})
    assert r.status_code == 403 and "X-Enoch-Token" in r.json()["error"]
    del client.headers["X-Enoch-Token"]
    assert client.post("/api/games", json=body).status_code == 403
    # reading needs no token
    assert client.get("/api/games").status_code == 200


def test_the_page_carries_the_token(client: TestClient) -> None:
    page = client.get("/").text
    assert f'<meta name="enoch-token" content="{TOKEN}">' in page


def test_cross_origin_and_foreign_host_refused(client: TestClient) -> None:
    r = client.post(
        "/api/games",
        json={"seats": ["builtin:random", "builtin:random"]},
        headers={"Origin": "http://evil.example"},
    )
    assert r.status_code == 403
    r = client.get("/api/games", headers={"Host": "evil.example:8000"})
    assert r.status_code == 421


def test_body_size_limit(client: TestClient) -> None:
    big = {"format": "pgn", "text": "x" * (MAX_BODY + 10)}
    r = client.post("/api/import", content=json.dumps(big))
    assert r.status_code == 413 and "error" in r.json()


def test_bad_bodies_are_4xx_with_a_reason(client: TestClient) -> None:
    for body, status in [
        (b"not json", 400),
        (b"[]", 400),
        (b'{"seats": []}', 400),
        (b'{"seats": ["builtin:random"], "extra": 1}', 400),
        (b'{"seats": ["builtin:random", "builtin:nosuch"]}', 400),
        (b'{"seats": ["builtin:random", "builtin:random"], "tc": "garbage"}', 400),
        (b'{"seats": ["builtin:random", "builtin:random"], "variant": "go"}', 400),
        (b'{"seats": ["builtin:random"], "options": {"fen": "zz"}}', 400),
        (b'{"seats": ["a", "b"], "options": {"openings": "/etc/passwd"}}', 400),
    ]:
        r = client.post("/api/games", content=body)
        assert r.status_code == status, (body, r.text)
        assert r.json()["error"]
    assert client.get("/api/games/nosuch").status_code == 404
    assert client.get("/api/nothing").status_code == 404
    assert client.get("/api/nothing").json()["error"]


def test_commands_only_with_allow_commands(client: TestClient) -> None:
    for agent in ("exec:ls", "jsonl:ls", "uci:stockfish", "http://127.0.0.1:9/move"):
        r = client.post("/api/games", json={"seats": [agent, "builtin:random"]})
        assert r.status_code == 403, agent
        assert "--allow-commands" in r.json()["error"]
    allowed = create_app(token=TOKEN, allow_commands=True)
    with TestClient(allowed, base_url="http://127.0.0.1") as c:
        c.headers["X-Enoch-Token"] = TOKEN
        agent = f"exec:{sys.executable} -m enoch agent --agent builtin:random"
        r = c.post("/api/games", json={"seats": [agent, "builtin:random"], "max_plies": 4})
        assert r.status_code == 201, r.text
        game = wait(c, f"/api/games/{r.json()['id']}", lambda g: g["status"] == "finished")
        assert game["result"]["termination"] == "move_limit"
        assert game["entries"][0]["raw"].startswith("{")


def test_games_at_once_are_limited() -> None:
    app = create_app(token=TOKEN, max_games=1)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        c.headers["X-Enoch-Token"] = TOKEN
        first = new_game(c, seats=["human", "builtin:random"])
        r = c.post("/api/games", json={"seats": ["human", "builtin:random"]})
        assert r.status_code == 429
        c.post(f"/api/games/{first['id']}/answer", json={"answer": {"action": "resign"}})
        wait(c, f"/api/games/{first['id']}", lambda g: g["status"] == "finished")
        new_game(c, seats=["human", "builtin:random"])


# ---------------------------------------------------------------------------- playing
def test_a_person_plays_through_the_referee(client: TestClient) -> None:
    game = new_game(client, seats=["human", "builtin:random"], options={"fen": PROMOTE})
    gid = game["id"]
    path = f"/api/games/{gid}"
    g = wait(client, path, lambda g: g["waiting"] == 0)
    # legal targets come from the rules core: every promotion, castling
    legal = g["view"]["legal"]
    assert {"from": "b7", "to": "b8", "promotion": "N"} in legal
    assert {"from": "e1", "to": "g1", "promotion": None} in legal
    assert {"action": "offer_draw"} in legal and {"action": "resign"} in legal
    # a misclick is refused with the referee's reason and costs nothing
    r = client.post(
        path + "/answer", json={"answer": {"from": "e1", "to": "e3", "promotion": None}}
    )
    assert r.status_code == 422 and "illegal" in r.json()["error"]
    r = client.post(path + "/answer", json={"seat": 1, "answer": {"action": "resign"}})
    assert r.status_code == 409
    r = client.post(path + "/answer", json={"answer": {"from": "b7", "to": "b8", "promotion": "Q"}})
    assert r.status_code == 202
    g = wait(client, path, lambda g: g["plies"] >= 2 and g["waiting"] == 0)
    assert g["moves"][0] == "b7b8q"
    assert g["entries"][0]["raw"] == '{"from":"b7","to":"b8","promotion":"Q"}'
    assert g["entries"][0]["decisions"] == [{"decision": "move", "action": "b7b8q"}]
    # an offer: the same seat then moves; a second offer in one turn is not offered
    assert (
        client.post(path + "/answer", json={"answer": {"action": "offer_draw"}}).status_code == 202
    )
    g = wait(client, path, lambda g: g["view"]["draw_offer"] == "white" and g["waiting"] == 0)
    assert {"action": "offer_draw"} not in g["view"]["legal"]
    assert client.post(path + "/answer", json={"answer": {"action": "resign"}}).status_code == 202
    g = wait(client, path, lambda g: g["status"] == "finished")
    assert g["result"]["result"] == "0-1" and g["result"]["termination"] == "resignation"
    assert client.post(path + "/answer", json={"answer": {"action": "resign"}}).status_code == 409
    pgn = client.get(path + "/record")
    assert pgn.headers["content-type"].startswith("application/x-chess-pgn")
    assert "1. b8=Q" in pgn.text and '[Result "0-1"]' in pgn.text
    positions = client.get(path + "/positions").json()["positions"]
    assert positions[0]["fen"].startswith("4k3/1P6") and len(positions) == g["plies"] + 1


def test_clocks_run_for_the_person(client: TestClient) -> None:
    game = new_game(client, seats=["human", "builtin:random"], tc="0.5+0")
    g = wait(client, f"/api/games/{game['id']}", lambda g: g["status"] == "finished")
    assert g["result"]["termination"] in ("timeout", "insufficient_material")
    assert g["result"]["result"] in ("0-1", "1/2-1/2")


def test_the_agents_move_time_does_not_bind_the_person(client: TestClient) -> None:
    game = new_game(client, seats=["human", "builtin:random"], movetime=0.05)
    path = f"/api/games/{game['id']}"
    wait(client, path, lambda g: g["waiting"] == 0)
    time.sleep(0.5)  # ten times the agents' move time
    r = client.post(
        path + "/answer", json={"answer": {"from": "e2", "to": "e4", "promotion": None}}
    )
    assert r.status_code == 202
    g = wait(client, path, lambda g: g["plies"] >= 2 or g["status"] == "finished")
    assert g["status"] == "running" and g["moves"][0] == "e2e4"
    client.post(path + "/answer", json={"answer": {"action": "resign"}})


def test_enochian_four_players_view(client: TestClient) -> None:
    from enoch.game.registry import find_game

    game = new_game(
        client,
        variant="enochian",
        options={"players": 4, "divination": True},
        seats=["human", "builtin:random", "builtin:random", "builtin:random"],
    )
    g = wait(client, f"/api/games/{game['id']}", lambda g: g["waiting"] == 0)
    view = g["view"]
    assert view["kind"] == "enochian"
    assert view["thrones"] == {"air": "a8", "water": "h8", "fire": "h1", "earth": "a1"}
    assert view["divination"]["die"] is not None
    rules = find_game("enochian")
    state = rules.new_state(rules.setup({"players": 4, "divination": True}))
    moves = [m for m in view["legal"] if "from" in m]
    assert len(moves) == len([a for a in state.legal_actions() if a < (1 << 24)])
    r = client.post(f"/api/games/{game['id']}/answer", json={"answer": moves[0]})
    assert r.status_code == 202
    g = wait(client, f"/api/games/{game['id']}", lambda g: g["plies"] >= 1)
    assert g["moves"][0][1:3] == moves[0]["from"]


def test_match_and_standings(client: TestClient) -> None:
    r = client.post(
        "/api/matches", json={"agents": ["builtin:greedy", "builtin:random"], "games": 2}
    )
    assert r.status_code == 201, r.text
    mid = r.json()["id"]
    m = wait(client, f"/api/matches/{mid}", lambda m: m["status"] == "finished", 120)
    assert m["error"] is None and m["finished"] == 2
    sc = m["score"]
    assert sc["wins"] + sc["draws"] + sc["losses"] == 2
    assert m["crosstable"][0][1] == [sc["wins"], sc["draws"], sc["losses"]]
    assert all(g["result"]["points"] for g in m["games"])
    # every game of the match is a game the page can open and review
    g = client.get(f"/api/games/{m['games'][0]['id']}").json()
    assert g["moves"] and g["entries"]
    assert len(client.get(f"/api/games/{g['id']}/positions").json()["positions"]) > 1


def test_abandoned_games_count_nowhere() -> None:
    feeds = []
    for points, termination in (([1.0, 0.0], "checkmate"), ([0.5, 0.5], "abandoned")):
        f = Feed("x", "chess", seats=["a", "b"])
        f.status = "finished"
        f.result = {"points": points, "termination": termination}
        feeds.append(f)
    out = standings(["a", "b"], feeds)
    assert out["finished"] == 1
    assert (out["score"]["wins"], out["score"]["draws"]) == (1, 0)


def test_watch_a_folder_another_process_writes(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    app = create_app(token=TOKEN, watch=str(folder))
    with TestClient(app, base_url="http://127.0.0.1") as c:
        command = [sys.executable, "-m", "enoch", "match", "builtin:greedy", "builtin:random"]
        command += ["--games", "2", "--log-dir", str(folder)]
        proc = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        m = wait(c, "/api/matches/watch", lambda m: m["finished"] == 2)
        assert m["names"] == ["builtin:greedy", "builtin:random"]
        assert m["score"]["wins"] + m["score"]["draws"] + m["score"]["losses"] == 2
        g = c.get(f"/api/games/{m['games'][0]['id']}").json()
        assert g["status"] == "finished" and g["view"]["fen"]
        assert g["result"]["termination"]
        pgn = c.get(f"/api/games/{g['id']}/record").text
        assert "[White " in pgn


def test_import_pgn_with_evals_and_results(client: TestClient) -> None:
    pgn = '[White "a"]\n[Black "b"]\n[Result "*"]\n\n1. e4 { [%eval 0.25] } e5 { [%eval #-2] } *\n'
    r = client.post("/api/import", json={"format": "pgn", "text": pgn})
    assert r.status_code == 201
    g = client.get(f"/api/games/{r.json()['games'][0]['id']}").json()
    assert g["evals"] == [None, 25.0, -99998.0]
    bad = client.post("/api/import", json={"format": "pgn", "text": "1. e5 *"})
    assert bad.status_code == 400
    line = json.dumps(
        {"variant": "enochian", "seats": ["a", "b"], "moves": [], "array": "earth_of_fire"}
    )
    r = client.post("/api/import", json={"format": "results", "text": line})
    assert r.status_code == 201
    assert client.post("/api/import", json={"format": "results", "text": "{"}).status_code == 400


def test_openapi_lists_the_api(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    assert spec["openapi"].startswith("3.")
    for path in ("/api/games", "/api/games/{id}/answer", "/api/matches", "/api/events"):
        assert path in spec["paths"]


# ---------------------------------------------------------------------------- streams
def _read_events(
    url: str, out: list[dict[str, Any]], opened: threading.Event, stop: threading.Event
) -> None:
    with httpx.Client(timeout=30) as http, http.stream("GET", url) as response:
        for line in response.iter_lines():
            opened.set()  # the server's first line ("retry:") says the stream is subscribed
            if line.startswith("data: "):
                out.append(json.loads(line[6:]))
            if stop.is_set():
                return


def test_events_stream_a_game_and_a_closed_tab_ends_nothing(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url, headers={"X-Enoch-Token": TOKEN}, timeout=30) as http:
        events: list[dict[str, Any]] = []
        opened, stop = threading.Event(), threading.Event()
        reader = threading.Thread(
            target=_read_events,
            args=(f"{server.url}/api/events?topics=games", events, opened, stop),
            daemon=True,
        )
        reader.start()
        assert opened.wait(30), "the event stream did not open"
        r = http.post(
            "/api/matches", json={"agents": ["builtin:greedy", "builtin:random"], "games": 2}
        )
        assert r.status_code == 201
        mid = r.json()["id"]
        deadline = time.monotonic() + 60
        while not any(
            e.get("type") == "game" and e.get("match") == mid and e.get("moved_at") for e in events
        ):
            assert time.monotonic() < deadline, "no move arrived on the stream"
            time.sleep(0.05)
        stop.set()  # the tab closes; the match goes on
        deadline = time.monotonic() + 120
        while http.get(f"/api/matches/{mid}").json()["status"] != "finished":
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert http.get(f"/api/matches/{mid}").json()["finished"] == 2
        board = next(e for e in events if e.get("type") == "game" and e.get("view"))
        assert board["view"]["kind"] == "chess"


def test_stopping_the_server_ends_its_games_and_their_agents() -> None:
    from tests.processes import live_processes

    marker = "enoch-web-stop-test-sleeper"
    agent = f"exec:{sys.executable} -c 'import time; time.sleep(60)  # {marker}'"
    app = create_app(token=TOKEN, allow_commands=True)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        c.headers["X-Enoch-Token"] = TOKEN
        game = new_game(c, seats=[agent, "builtin:random"], timeout=120)
        deadline = time.monotonic() + 30
        while not live_processes((marker,)):
            assert time.monotonic() < deadline, "the agent did not start"
            time.sleep(0.05)
    # the app stopped (its lifespan ended): the game is over and its agent is gone
    assert app.hub is not None
    feed = app.hub.get(game["id"])
    assert feed.status == "finished"
    deadline = time.monotonic() + 10
    while live_processes((marker,)):
        assert time.monotonic() < deadline, "the agent outlived the server's stop"
        time.sleep(0.05)
