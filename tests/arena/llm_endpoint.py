"""A scripted OpenAI-compatible chat-completions endpoint on 127.0.0.1 (port 0), for tests and
benchmarks of ``llm:`` agents without a network.

Each request takes the next step of its ``script`` (a list shared by every connection); when
the script is empty the endpoint *plays*: it reads the state JSON from the last user message
and answers with a legal move chosen by the game's random built-in agent, in the format
``style`` says. Everything it saw is kept: each request's body and Authorization header, and
the token counts it reported, so that tests compare the player's accounting with the truth.
"""

from __future__ import annotations

import json
import random
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from enoch.game.registry import find_game


@dataclass
class Step:
    """One scripted reply. ``text``: a completion with this content (``{move}`` is replaced by
    a legal move's JSON); ``status``: an HTTP error with ``headers``/``body``; ``hang``: sleep
    this long before replying; ``raw``: this body as is with status 200; ``huge``: a 200 body
    of that many bytes."""

    text: str | None = None
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    hang: float = 0.0
    raw: bytes | None = None
    huge: int = 0
    reasoning: str | None = None


@dataclass
class Seen:
    body: dict[str, Any]
    authorization: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    status: int = 200
    at: float = field(default_factory=time.monotonic)  # when the request arrived


class Endpoint:
    """``with Endpoint(...) as ep:`` serves on ``ep.base_url`` (``http://127.0.0.1:PORT/v1``)."""

    def __init__(
        self,
        script: list[Step] | None = None,
        *,
        style: str = "bare",
        delay: float = 0.0,
        variant: str = "chess",
        seed: int = 1,
        report_usage: bool = True,
    ) -> None:
        self.script = list(script or [])
        self.style = style
        self.delay = delay
        self.variant = variant
        self.report_usage = report_usage
        self.seen: list[Seen] = []
        self.lock = threading.Lock()
        self.rng = random.Random(seed)
        self._agent = find_game(variant).make_builtin("random", {"seed": str(seed)})
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body are two writes

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                outer._serve(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> Endpoint:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)

    # ------------------------------------------------------------------ totals
    @property
    def requests(self) -> int:
        return len(self.seen)

    def tokens(self) -> tuple[int, int]:
        return (
            sum(s.prompt_tokens for s in self.seen),
            sum(s.completion_tokens for s in self.seen),
        )

    # ------------------------------------------------------------------ serving
    def move(self, body: dict[str, Any]) -> str:
        """A legal answer to the state in the last user message, as JSON text."""
        content = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
        state_text = content.split("state:\n", 1)[1].split("\n\n", 1)[0]
        state = json.loads(state_text)
        state.pop("last_error", None)
        with self.lock:
            answer = self._agent.answer(state)
        return json.dumps(answer)

    def styled(self, move: str) -> str:
        if self.style == "bare":
            return move
        if self.style == "fenced":
            return f"Here is my move.\n```json\n{move}\n```\n"
        if self.style == "prose":
            return f"I looked at the position carefully. My answer is {move} and I stand by it."
        raise ValueError(self.style)

    def _serve(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        body = json.loads(h.rfile.read(length))
        with self.lock:
            step = self.script.pop(0) if self.script else None
            seen = Seen(body, h.headers.get("Authorization"))
            self.seen.append(seen)
        if self.delay:
            time.sleep(self.delay)
        if step is not None and step.hang:
            time.sleep(step.hang)
        if step is not None and step.status is not None:
            seen.status = step.status
            payload = step.body if step.body is not None else b'{"error":{"message":"scripted"}}'
            self._send(h, step.status, payload, step.headers)
            return
        if step is not None and step.raw is not None:
            self._send(h, 200, step.raw, step.headers)
            return
        if step is not None and step.huge:
            self._send(h, 200, b"{" + b" " * step.huge + b"}", {})
            return
        text = self.styled(self.move(body))
        reasoning = None
        if step is not None and step.text is not None:
            text = (
                step.text.replace("{move}", self.move(body)) if "{move}" in step.text else step.text
            )
            reasoning = step.reasoning
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if reasoning is not None:
            message["reasoning_content"] = reasoning
        reply: dict[str, Any] = {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        }
        if self.report_usage:
            seen.prompt_tokens = sum(len(m["content"]) for m in body["messages"]) // 4 + 1
            seen.completion_tokens = len(text) // 4 + 1
            reply["usage"] = {
                "prompt_tokens": seen.prompt_tokens,
                "completion_tokens": seen.completion_tokens,
                "total_tokens": seen.prompt_tokens + seen.completion_tokens,
            }
        self._send(h, 200, json.dumps(reply).encode(), {})

    @staticmethod
    def _send(
        h: BaseHTTPRequestHandler, status: int, payload: bytes, headers: dict[str, str]
    ) -> None:
        try:
            h.send_response(status)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(payload)))
            for k, v in headers.items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(payload)
        except OSError:
            pass  # the client gave up (a deadline): nothing to say
