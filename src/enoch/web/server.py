"""The web application: Starlette routes over the :class:`~enoch.web.hub.Hub`, served by uvicorn.

Why these guards. The server runs on a person's machine and can start games whose agents are
programs, so a web page from anywhere else must not be able to drive it:

- it listens on 127.0.0.1 unless told otherwise, and refuses a ``Host`` header that names
  another machine (a DNS-rebinding page would send its own name);
- every state-changing request carries the page's token in ``X-Enoch-Token``: the token is
  written into the page the server sends, which another origin cannot read, and the custom
  header cannot be sent cross-origin without a CORS preflight that this server never grants;
- no agent that starts a process or reaches the network (``exec:``, ``jsonl:``, ``uci:``,
  ``http(s)://``) unless the server was started with ``--allow-commands``;
- request bodies are limited (:data:`enoch.web.api.MAX_BODY`), games and matches at once too,
  and every bad request is a 4xx with a JSON reason (``{"error": ...}``), never a 500.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from enoch.errors import InputError
from enoch.web.api import MAX_BODY, check, openapi
from enoch.web.hub import Hub, Refused

#: seconds between keep-alive comments on an idle event stream
KEEPALIVE = 15.0
#: hosts the server answers to besides the one it was started on
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")
_UNSAFE = ("POST", "PUT", "PATCH", "DELETE")


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class Guard:
    """ASGI middleware: host check, token on state-changing requests, body size limit."""

    def __init__(self, app: ASGIApp, token: str, hosts: tuple[str, ...]) -> None:
        self.app = app
        self.token = token
        self.hosts = hosts
        self.hub: Hub | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        if self.hosts and name not in self.hosts:
            await _error(421, f"this server answers only to {', '.join(self.hosts)}")(
                scope, receive, send
            )
            return
        if scope["method"] in _UNSAFE:
            origin = headers.get("origin")
            if origin is not None and origin.split("//", 1)[-1] != host:
                await _error(403, "cross-origin request refused")(scope, receive, send)
                return
            if not secrets.compare_digest(headers.get("x-enoch-token", ""), self.token):
                await _error(403, "missing or wrong X-Enoch-Token (reload the page)")(
                    scope, receive, send
                )
                return
            length = headers.get("content-length")
            if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
                await _error(413, f"request body over {MAX_BODY} bytes")(scope, receive, send)
                return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > MAX_BODY:
                    raise _TooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await _error(413, f"request body over {MAX_BODY} bytes")(scope, receive, send)


class _TooLarge(Exception):
    pass


async def _body(request: Request, schema: str) -> dict[str, Any]:
    raw = await request.body()
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise Refused(400, "the body is not JSON") from None
    problem = check(data, {"$ref": f"#/components/schemas/{schema}"})
    if problem:
        raise Refused(400, problem)
    assert isinstance(data, dict)
    return data


def _wrap(
    handler: Callable[[Request, Hub], Awaitable[Response]], hub: Hub
) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request, hub)
        except Refused as exc:
            return _error(exc.status, str(exc))
        except InputError as exc:
            return _error(400, str(exc))

    return endpoint


# ---------------------------------------------------------------------------- handlers
async def variants(request: Request, hub: Hub) -> Response:
    from enoch.game.options import options_schema
    from enoch.game.registry import find_game, game_names

    out = []
    for name in game_names():
        game = find_game(name)
        setup = game.setup()
        out.append(
            {
                "name": game.name,
                "title": game.title,
                "options": options_schema(game.options),
                "seats_option": game.seats_option,
                "seats": game.seats(setup),
                "seat_names": [game.seat_name(setup, s) for s in range(game.seats(setup))],
                "builtins": sorted(game.builtins),
                "prefixes": list(game.prefixes),
            }
        )
    return JSONResponse({"games": out, "allow_commands": hub.allow_commands})


async def list_games(request: Request, hub: Hub) -> Response:
    return JSONResponse({"games": [f.brief() for f in hub.all_games()]})


async def new_game(request: Request, hub: Hub) -> Response:
    data = await _body(request, "NewGame")
    feed = await asyncio.to_thread(hub.start_game, data)
    return JSONResponse(feed.brief(), status_code=201)


async def one_game(request: Request, hub: Hub) -> Response:
    return JSONResponse(hub.get(request.path_params["id"]).full())


async def positions(request: Request, hub: Hub) -> Response:
    feed = hub.get(request.path_params["id"])
    return JSONResponse({"positions": await asyncio.to_thread(feed.position_list)})


async def record(request: Request, hub: Hub) -> Response:
    from enoch.web.records import record_text

    feed = hub.get(request.path_params["id"])
    text, media, suffix = await asyncio.to_thread(record_text, feed)
    name = f"enoch-{feed.id}.{suffix}"
    return Response(
        text, media_type=media, headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


async def answer(request: Request, hub: Hub) -> Response:
    data = await _body(request, "Answer")
    out = hub.answer(request.path_params["id"], data.get("seat"), data["answer"])
    return JSONResponse(out, status_code=202)


async def list_matches(request: Request, hub: Hub) -> Response:
    with hub.lock:
        runs = list(hub.matches.values())
    return JSONResponse({"matches": [hub.match_message(r) for r in runs]})


async def new_match(request: Request, hub: Hub) -> Response:
    data = await _body(request, "NewMatch")
    run = await asyncio.to_thread(hub.start_match, data)
    return JSONResponse(hub.match_message(run), status_code=201)


async def one_match(request: Request, hub: Hub) -> Response:
    return JSONResponse(hub.match_message(hub.get_match(request.path_params["id"])))


async def import_games(request: Request, hub: Hub) -> Response:
    from enoch.web.imports import read_pgn, read_results

    data = await _body(request, "Import")
    reader = read_pgn if data["format"] == "pgn" else read_results
    feeds = await asyncio.to_thread(reader, data["text"], hub.new_id)
    for feed in feeds:
        hub.add_finished(feed)
    return JSONResponse({"games": [f.brief() for f in feeds]}, status_code=201)


async def events(request: Request, hub: Hub) -> Response:
    text = request.query_params.get("topics", "games")
    if len(text) > 4000:
        raise Refused(400, "too many topics")
    topics = {t.strip() for t in text.split(",") if t.strip()}
    if len(topics) > 200 or any(len(t) > 80 for t in topics):
        raise Refused(400, "too many topics, or one too long")
    sub = hub.subscribe(topics or {"games"})

    async def stream() -> AsyncIterator[str]:
        try:
            yield "retry: 1000\n\n"
            while True:
                try:
                    message = await asyncio.wait_for(sub.queue.get(), KEEPALIVE)
                except TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                if message is None:
                    return
                yield f"data: {json.dumps(message, separators=(',', ':'))}\n\n"
        finally:
            hub.unsubscribe(sub)

    return StreamingResponse(
        stream(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


# ---------------------------------------------------------------------------- the app
def _static_dir() -> Path:
    return Path(str(resources.files("enoch.web") / "static"))


def create_app(
    *,
    allow_commands: bool = False,
    watch: str | None = None,
    max_games: int = 16,
    max_matches: int = 2,
    hosts: tuple[str, ...] = LOCAL_HOSTS,
    token: str | None = None,
) -> Guard:
    """The application (``hosts``: the Host names it answers to; empty: any)."""
    hub = Hub(allow_commands=allow_commands, max_games=max_games, max_matches=max_matches)
    token = token or secrets.token_urlsafe(24)
    static = _static_dir()
    page = (static / "index.html").read_text(encoding="utf-8")

    async def index(request: Request) -> Response:
        html = page.replace("__ENOCH_TOKEN__", token)
        return HTMLResponse(html, headers={"Cache-Control": "no-store"})

    async def spec(request: Request) -> Response:
        return JSONResponse(openapi())

    async def pieces(request: Request) -> Response:
        from enoch.web.pieces import army_pieces

        return JSONResponse(army_pieces(), headers={"Cache-Control": "max-age=3600"})

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        hub.stopping.clear()  # an app may be started again (test clients do)
        if watch is not None and "watch" not in hub.matches:
            hub.watch_folder(watch)
        yield
        await asyncio.to_thread(hub.stop)

    def api(path: str, handler: Any, methods: list[str]) -> Route:
        return Route(path, _wrap(handler, hub), methods=methods)

    routes = [
        Route("/", index),
        Route("/openapi.json", spec),
        Route("/pieces/enochian.json", pieces),
        api("/api/variants", variants, ["GET"]),
        api("/api/games", list_games, ["GET"]),
        api("/api/games", new_game, ["POST"]),
        api("/api/games/{id}", one_game, ["GET"]),
        api("/api/games/{id}/positions", positions, ["GET"]),
        api("/api/games/{id}/record", record, ["GET"]),
        api("/api/games/{id}/answer", answer, ["POST"]),
        api("/api/matches", list_matches, ["GET"]),
        api("/api/matches", new_match, ["POST"]),
        api("/api/matches/{id}", one_match, ["GET"]),
        api("/api/import", import_games, ["POST"]),
        api("/api/events", events, ["GET"]),
        Mount("/static", StaticFiles(directory=static), name="static"),
    ]

    async def not_found(request: Request, exc: Exception) -> Response:
        code = getattr(exc, "status_code", 404)
        detail = getattr(exc, "detail", "not found")
        return _error(code, str(detail))

    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={404: not_found, 405: not_found},
    )
    guard = Guard(app, token, hosts)
    guard.hub = hub
    return guard


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    allow_commands: bool = False,
    watch: str | None = None,
    max_games: int = 16,
    ready: Callable[[int], None] | None = None,
) -> None:
    """Run the server until interrupted (``port`` 0: any free port, told to ``ready``)."""
    import uvicorn

    hosts = LOCAL_HOSTS if host in ("127.0.0.1", "localhost", "::1") else ()
    app = create_app(allow_commands=allow_commands, watch=watch, max_games=max_games, hosts=hosts)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    if ready is not None:
        original = server.startup

        async def startup(sockets: Any = None) -> None:
            await original(sockets)
            for srv in server.servers:
                for sock in srv.sockets:
                    ready(sock.getsockname()[1])
                    return

        server.startup = startup  # type: ignore[method-assign]
    server.run()


__all__ = ["Guard", "create_app", "serve"]
