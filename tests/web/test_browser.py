"""The page in a real browser: Debian's chromium, headless, driven by Playwright.

Each test plays through the page only (clicks, drags, keys), against a server on 127.0.0.1 at an
ephemeral port, and leaves a screenshot in out/screenshots/ (git-ignored).
"""

from __future__ import annotations

import random
import time
from typing import Any

import chess
import pytest

from tests.web.conftest import LiveServer, live_server, shot

# White castles short at once, and b7 promotes on the next move; black has a lone king.
CASTLE_AND_PROMOTE = "4k3/1P6/8/8/8/8/8/4K2R w K - 0 1"


def square_xy(page: Any, square: str, orientation: str = "white") -> tuple[float, float]:
    box = page.locator("#board cg-board").bounding_box()
    assert box is not None
    f = ord(square[0]) - 97
    r = int(square[1])
    if orientation == "black":
        f, r = 7 - f, 9 - r
    size = box["width"] / 8
    return box["x"] + (f + 0.5) * size, box["y"] + (8 - r + 0.5) * size


def drag(page: Any, a: str, b: str) -> None:
    x0, y0 = square_xy(page, a)
    x1, y1 = square_xy(page, b)
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=4)
    page.mouse.move(x1, y1, steps=4)
    page.mouse.up()


def click_move(page: Any, a: str, b: str) -> None:
    page.mouse.click(*square_xy(page, a))
    page.mouse.click(*square_xy(page, b))


def wait_my_turn(
    page: Any, server: LiveServer, game_id: str, timeout: float = 20
) -> dict[str, Any]:
    """Wait until the page shows that the person is to move, and return the game."""
    page.wait_for_function(
        "() => (document.querySelector('#status')||{}).textContent?.startsWith('Your move') "
        "|| document.querySelector('#result')",
        timeout=timeout * 1000,
    )
    return server.hub.get(game_id).full()  # type: ignore[no-any-return]


def after_move(page: Any, server: LiveServer, game_id: str, plies: int) -> dict[str, Any]:
    """Wait until the person's move (made at ``plies``) and the reply are on the page."""
    page.wait_for_function(
        "n => document.querySelectorAll('#moves span').length >= n "
        "|| document.querySelector('#result')",
        arg=plies + 2,
        timeout=20000,
    )
    return wait_my_turn(page, server, game_id)


def mating_move(moves: list[str]) -> chess.Move:
    """White's move against a lone king: mate if possible, else squeeze the king (fewest
    replies, no stalemate, no repetition, nothing left for the king to take)."""
    board = chess.Board(CASTLE_AND_PROMOTE)
    for uci in moves:
        board.push_uci(uci)
    best: tuple[float, chess.Move] | None = None
    for move in board.legal_moves:
        board.push(move)
        if board.is_checkmate():
            board.pop()
            return move
        replies = list(board.legal_moves)
        score: float = len(replies)
        if board.is_stalemate() or board.is_insufficient_material():
            score = 5000
        if any(board.is_capture(r) for r in replies):
            score += 500
        if board.is_repetition(2):
            score += 2000
        king = board.king(chess.BLACK)
        assert king is not None
        centre = abs(chess.square_file(king) - 3.5) + abs(chess.square_rank(king) - 3.5)
        score -= centre * 0.1
        board.pop()
        if best is None or score < best[0]:
            best = (score, move)
    assert best is not None
    return best[1]


def test_chess_game_by_drag_and_click(server: LiveServer, page: Any) -> None:
    """A whole game against builtin:random through the page: castling by drag, a promotion by
    click and the picker, then mate, shown as the result."""
    page.goto(server.url + "/#/play")
    page.fill("[data-option=fen]", CASTLE_AND_PROMOTE)
    page.fill("#seat0", "human")
    page.fill("#seat1", "builtin:random?seed=7")  # seeded: the same game every run
    page.click("#start")
    page.wait_for_url("**/#/game/*")
    game_id = page.url.rsplit("/", 1)[1]
    page.wait_for_selector("#board cg-board piece")
    wait_my_turn(page, server, game_id)
    shot(page, "play-chess-start")
    drag(page, "e1", "g1")  # castling, by drag
    game = after_move(page, server, game_id, 0)
    assert game["moves"][0] == "e1g1"
    click_move(page, "b7", "b8")  # promotion, by click
    page.wait_for_selector("#promo:not(.hidden)")
    shot(page, "play-chess-promotion")
    page.click("#promo button[data-choice=Q]")
    game = after_move(page, server, game_id, 2)
    assert game["moves"][2] == "b7b8q"
    use_drag = True
    for _ in range(60):
        if game["status"] == "finished":
            break
        move = mating_move(game["moves"])
        a, b = chess.square_name(move.from_square), chess.square_name(move.to_square)
        if use_drag:
            drag(page, a, b)
        else:
            click_move(page, a, b)
        use_drag = not use_drag
        game = after_move(page, server, game_id, game["plies"])
    page.wait_for_selector("#result")
    text = page.inner_text("#result")
    assert "1-0" in text and "checkmate" in text
    final = server.hub.get(game_id).full()
    assert final["result"]["termination"] == "checkmate"
    # the referee's own record agrees with python-chess
    board = chess.Board(CASTLE_AND_PROMOTE)
    for uci in final["moves"]:
        board.push_uci(uci)
    assert board.is_checkmate()
    shot(page, "play-chess-mate")


def test_draw_offer_and_resignation(server: LiveServer, page: Any) -> None:
    page.goto(server.url + "/#/play")
    page.fill("#seat0", "human")
    page.fill("#seat1", "builtin:random")
    page.click("#start")
    page.wait_for_url("**/#/game/*")
    game_id = page.url.rsplit("/", 1)[1]
    wait_my_turn(page, server, game_id)
    page.click("button[data-action=offer_draw]")
    page.wait_for_selector("#draw-offer")  # the offer stands; white still moves
    assert "white offers a draw" in page.inner_text("#draw-offer")
    # a second offer in the same turn is not offered by the page
    assert page.locator("button[data-action=offer_draw]").count() == 0
    drag(page, "e2", "e4")
    after_move(page, server, game_id, 0)
    game = server.hub.get(game_id).full()
    decisions = [d["decision"] for e in game["entries"] for d in e["decisions"]]
    assert "draw_offered" in decisions
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("button[data-action=resign]")
    page.wait_for_selector("#result")
    assert "0-1" in page.inner_text("#result") and "resignation" in page.inner_text("#result")
    shot(page, "play-chess-resigned")


def test_watch_engine_match_live(server: LiveServer, page: Any) -> None:
    page.goto(server.url + "/#/watch")
    page.fill("#match-form textarea[name=agents]", "builtin:engine?movetime=0.05\nbuiltin:greedy")
    page.fill("#match-form input[name=games]", "2")
    page.click("#start-match")
    page.wait_for_url("**/#/match/*")
    page.wait_for_selector("#match-grid .mini .cg-wrap", timeout=20000)
    shot(page, "watch-match-running")
    page.wait_for_function(
        "() => document.querySelector('#match-status')?.textContent.includes('2 of 2 games "
        "finished') && document.querySelector('#match-status').textContent.includes('finished')"
        " && !document.querySelector('#match-status').textContent.includes('running')",
        timeout=120000,
    )
    wdl = page.inner_text("#wdl")
    assert "W " in wdl and "Elo" in wdl and "LOS" in wdl
    assert page.locator("#sprt").count() == 1
    assert page.locator("#crosstable").count() == 1
    live = page.evaluate("window.__enoch.boards")
    assert live > 0, "no board update reached the page while the match ran"
    shot(page, "watch-match-finished")


def _frozen_enochian_state() -> dict[str, Any]:
    """An Enochian 4-player position with a frozen army (seeded random play)."""
    from enoch.game.registry import find_game

    game = find_game("enochian")
    rng = random.Random(0)
    st = game.new_state(game.setup({"players": 4}))
    for _ in range(600):
        data = st.to_json(0)
        if data["frozen"] and not st.is_terminal():
            return data
        st.apply(rng.choice(st.legal_actions()))
    raise AssertionError("no frozen army in 600 random plies")


def test_enochian_four_players_with_a_frozen_army(server: LiveServer, page: Any) -> None:
    state = _frozen_enochian_state()
    me = state["player"]
    seats = ["builtin:random"] * 4
    seats[me] = "human"
    page.goto(server.url + "/#/play")
    token = page.get_attribute("meta[name=enoch-token]", "content")
    created = page.evaluate(
        """async ([seats, state, token]) => {
            const r = await fetch('/api/games', {method: 'POST', headers: {'Content-Type':
              'application/json', 'X-Enoch-Token': token}, body: JSON.stringify({variant:
              'enochian', seats, state})});
            return await r.json();
        }""",
        [seats, state, token],
    )
    game_id = created["id"]
    page.goto(server.url + f"/#/game/{game_id}")
    page.wait_for_selector(".ebox image.man")
    wait_my_turn(page, server, game_id)
    frozen = state["frozen"][0]
    assert page.locator(f".ebox image.man.frozen[data-army={frozen}]").count() > 0
    assert page.locator(f"[data-frozen={frozen}]").count() >= 0  # shown beside its seat
    assert page.locator(".ebox [data-throne]").count() == 4
    game = server.hub.get(game_id).full()
    move = next(m for m in game["view"]["legal"] if m.get("from"))
    army = game["view"]["to_act"]
    page.click(f".ebox rect[data-click={move['from']}]")
    page.wait_for_selector(".ebox circle.dest")
    page.click(f".ebox rect[data-click={move['to']}]")
    if page.locator("#promo:not(.hidden)").count():
        page.click("#promo button >> nth=0")
    deadline = time.monotonic() + 20
    while True:
        game = server.hub.get(game_id).full()
        mine = [
            d
            for e in game["entries"]
            if e["seat"] == me
            for d in e["decisions"]
            if d["decision"] == "move"
        ]
        if mine:
            break
        assert time.monotonic() < deadline, "the person's Enochian move did not reach the referee"
        time.sleep(0.05)
    assert mine[0]["action"][1:3] == move["from"]
    assert army not in state["frozen"]
    # the next move of the same army by drag
    game = wait_my_turn(page, server, game_id)
    if game["status"] != "finished":
        move = next(m for m in game["view"]["legal"] if m.get("from") and "kind" not in m)
        a = page.locator(f".ebox rect[data-click={move['from']}]").bounding_box()
        b = page.locator(f".ebox rect[data-click={move['to']}]").bounding_box()
        assert a is not None and b is not None
        page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
        page.mouse.down()
        page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=5)
        page.mouse.up()
        if page.locator("#promo:not(.hidden)").count():
            page.click("#promo button >> nth=0")
        deadline = time.monotonic() + 20
        while True:
            game = server.hub.get(game_id).full()
            moved = [
                d["action"]
                for e in game["entries"]
                if e["seat"] == me
                for d in e["decisions"]
                if d["decision"] == "move"
            ]
            if len(moved) >= 2 or game["status"] == "finished":
                break
            assert time.monotonic() < deadline, "the dragged Enochian move did not arrive"
            time.sleep(0.05)
        if game["status"] != "finished":
            assert moved[1][1:3] == move["from"] and moved[1][4:6] == move["to"]
    page.wait_for_timeout(300)
    shot(page, "play-enochian-four")


def test_review_steps_through_a_game(server: LiveServer, page: Any) -> None:
    pgn = (
        '[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n'
        "1. e4 { [%eval 0.3] } e5 { [%eval 0.2] } 2. Qh5 { [%eval 0.0] } Nc6 { [%eval 0.1] } "
        "3. Bc4 { [%eval 0.2] } Nf6 { [%eval 5.0] } 4. Qxf7# { [%eval #0] } 1-0\n"
    )
    page.goto(server.url + "/#/review")
    page.wait_for_selector("#import-form")
    page.fill("#import-text", pgn)
    page.click("#import-form button[type=submit]")
    page.wait_for_url("**/#/review/*/*")
    page.wait_for_selector("#evalgraph")
    assert "ply 7 of 7" in page.inner_text("#review-ply")
    page.keyboard.press("Home")
    assert "ply 0 of 7" in page.inner_text("#review-ply")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert "ply 2 of 7" in page.inner_text("#review-ply")
    assert page.url.endswith("/2")
    page.click("#review-moves span[data-ply='5']")
    assert "ply 5 of 7" in page.inner_text("#review-ply")
    # a link to a game and ply opens there
    game_id = page.url.split("/")[-2]
    page.goto(server.url + f"/#/review/{game_id}/3")
    page.wait_for_function(
        "() => document.querySelector('#review-ply')?.textContent.startsWith('ply 3 of 7')"
    )
    pieces = page.locator("#main cg-board piece").count()
    assert pieces == 32
    download = page.get_attribute("#download", "href")
    assert download == f"/api/games/{game_id}/record"
    shot(page, "review")


@pytest.mark.parametrize("path", ["/#/play", "/#/watch", "/#/review"])
def test_pages_load(path: str, page: Any) -> None:
    srv = live_server()
    try:
        page.goto(srv.url + path)
        page.wait_for_selector("main form")
        shot(page, "page-" + path.rsplit("/", 1)[1])
    finally:
        srv.stop()
