"""Fixtures of the web tests: the app in a TestClient, a real server on 127.0.0.1 (an ephemeral
port), and Debian's chromium driven by Playwright (its own browser download is not used)."""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from enoch.web.server import Guard, create_app

TOKEN = "test-token"
CHROMIUM = os.environ.get("ENOCH_CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "out" / "screenshots"


@pytest.fixture
def app() -> Iterator[Guard]:
    guard = create_app(token=TOKEN)
    yield guard


@pytest.fixture
def client(app: Guard) -> Iterator[TestClient]:
    with TestClient(app, base_url="http://127.0.0.1") as c:
        c.headers["X-Enoch-Token"] = TOKEN
        yield c


class LiveServer:
    """uvicorn serving an app on 127.0.0.1:0 in a thread."""

    def __init__(self, app: Guard) -> None:
        import uvicorn

        self.app = app
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        sock = self.server.servers[0].sockets[0]
        self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"

    @property
    def hub(self) -> Any:
        return self.app.hub

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(20)


def live_server(**kwargs: Any) -> LiveServer:
    return LiveServer(create_app(token=TOKEN, **kwargs))


@pytest.fixture
def server() -> Iterator[LiveServer]:
    srv = live_server()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        pytest.fail(f"chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs its own event loop; the tests' servers run in threads.
    asyncio.set_event_loop_policy(None)
    with sync_playwright() as pw:
        b = pw.chromium.launch(
            executable_path=CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium"),
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.errors = errors
    try:
        yield pg
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def shot(page: Any, name: str) -> None:
    """A screenshot as a test artifact (out/screenshots/, git-ignored)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
