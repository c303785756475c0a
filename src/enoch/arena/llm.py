"""Language-model agents: ``llm:MODEL?base_url=URL&api_key_env=NAME&...`` plays any game.

Why a player of its own rather than an ``http://`` transport. A chat endpoint is not an agent
of the protocol: it wants a conversation, not a state; it answers in prose; it fails in ways
that are not chess (rate limits, overloaded servers, dropped connections) and it bills by the
token. So this player speaks the OpenAI-compatible chat-completions API (OpenAI, vLLM,
llama.cpp's server, Ollama, LM Studio and most hosted providers serve it) and turns it into
the arena's one question, "your answer to this state":

- the system prompt is the game's rulebook (:meth:`enoch.game.api.Game.rulebook`, the text of
  ``enoch rulebook``), or the user's own (``system=FILE``); the user message is the state JSON
  exactly as the protocol defines it, then the views asked for (``views=``), each labelled;
- the answer is the one JSON object in the model's text (bare, fenced or in prose:
  :func:`enoch._json.extract_one_object`); none, or two different ones, is an invalid answer.
  The referee then judges it as strictly as any other agent's answer;
- a refused answer keeps the conversation going: the model's text, then the referee's reason
  (the state's ``last_error``), so that ``--retries`` gives the model a chance to correct
  itself; a new turn starts a new conversation (the state carries everything);
- the endpoint's failures are retried with backoff (``Retry-After`` honoured) inside the
  move's deadline; when the deadline passes with the endpoint still failing, the game is
  ``abandoned`` (nobody's fault, not rated), also when the deadline falls during a retry; a
  first request that hangs until the deadline is the agent's ``timeout``, as for any agent; a
  rejected key (401/403) or an unknown model (404) stops the run as an input error;
- the API key is read from the environment at the request and is never stored in a message:
  every error text is scrubbed of it, and it cannot reach a log, a record or a traceback;
- requests per minute (``rpm=``) are paced per endpoint for every game of the process, so a
  match of 32 games in threads shares one limit.

The standard library's ``http.client`` does the HTTP (imported lazily: the cold start of
``enoch agent`` is unchanged), one kept-alive connection per player.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from enoch.arena.players import Player, Turn
from enoch.arena.transport import AgentCrash, AgentOversize, AgentTimeout, Limits, TransportError
from enoch.errors import AgentSetupError, InputError, ProtocolError

if TYPE_CHECKING:
    from enoch.game.api import Game

PREFIX = "llm:"
# The OpenAI default; OPENAI_BASE_URL overrides it, as the OpenAI clients do.
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
# The first wait after a failed request, doubled each time up to the cap; a Retry-After header
# replaces it (capped too, so a bogus "Retry-After: 86400" cannot park a game for a day).
BACKOFF_FIRST = 0.25
BACKOFF_MAX = 8.0
RETRY_AFTER_MAX = 120.0
# A whole reply body (the model's text plus the endpoint's JSON around it, and any reasoning
# text) may be this many times the answer limit (--max-answer-bytes, 64 KiB: 1 MiB by default)
# before the reply counts as an oversize answer.
BODY_FACTOR = 16
# Statuses retried as the endpoint's failure (not the model's): rate limited, overloaded, gone
# for a moment. 401/403 (the key) and 404 (the model or the URL) are the user's input errors.
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})
OPTIONS = (
    "base_url",
    "api_key_env",
    "temperature",
    "max_tokens",
    "seed",
    "timeout",
    "json",
    "views",
    "system",
    "rpm",
    "price",
)
# What the model is told after the rulebook: the one rule every answer must keep.
ANSWER_RULE = (
    "Answer every state with exactly one JSON object as the rulebook defines it. You may think "
    "in prose first, but your text must contain no other JSON object."
)


class EndpointDown(TransportError):
    """The endpoint kept failing until the move's deadline: the game is ``abandoned``."""

    kind = "abandoned"


class BadModelAnswer(TransportError):
    """The model's text holds no JSON object, or two different ones."""

    kind = "invalid_answer"


@dataclass(frozen=True)
class LlmSpec:
    """An ``llm:`` agent name, parsed and checked."""

    model: str
    base_url: str
    api_key_env: str
    explicit_key: bool  # api_key_env was named: unset is an error, not "no key"
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    timeout: float | None = None  # one HTTP request's limit (the move's deadline bounds it too)
    json_mode: str = "off"
    views: tuple[str, ...] | None = None  # None: the game's default views
    system: str | None = None  # the system prompt file
    rpm: float | None = None
    price: tuple[float, float] | None = None  # per million prompt / completion tokens

    @property
    def endpoint(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def key(self) -> str | None:
        value = os.environ.get(self.api_key_env)
        return value or None


def _number(name: str, text: str, *, low: float | None = None, integer: bool = False) -> Any:
    try:
        value: float | int = int(text) if integer else float(text)
    except ValueError:
        kind = "an integer" if integer else "a number"
        raise InputError(f"llm: {name}= must be {kind}, got {text[:40]!r}") from None
    if not math.isfinite(value) or (low is not None and value < low):
        raise InputError(f"llm: {name}= is out of range: {text[:40]!r}")
    return value


def is_loopback(host: str) -> bool:
    import ipaddress

    if host.lower() in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_spec(spec: str, *, allow_insecure: bool = False) -> LlmSpec:
    """``llm:MODEL?opt=value&...`` as an :class:`LlmSpec`; every mistake an InputError now,
    before any game starts (an explicitly named key variable that is unset included)."""
    body = spec.strip()[len(PREFIX) :]
    model, _, query = body.partition("?")
    model = model.strip()
    if not model:
        raise InputError("llm: the model name is empty (expected llm:MODEL?base_url=...)")
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise InputError(f"llm:{model}: bad options {query[:60]!r} (expected a=1&b=2)") from None
    opts: dict[str, str] = {}
    for key, value in pairs:
        if key in ("api_key", "key"):
            raise InputError(
                f"llm:{model}: never put a key in an agent name (it would reach records and "
                "logs); put it in an environment variable and name that with api_key_env="
            )
        if key not in OPTIONS:
            raise InputError(
                f"llm:{model}: unknown option {key[:40]!r} (known: {', '.join(OPTIONS)})"
            )
        if key in opts:
            raise InputError(f"llm:{model}: option {key} given twice")
        opts[key] = value
    base_url = opts.get("base_url") or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"llm:{model}: base_url must be an http(s) URL, got {base_url[:80]!r}")
    if parts.username is not None or parts.password is not None:
        raise InputError(
            f"llm:{model}: base_url must not hold credentials (they would reach records and "
            "logs); put the key in an environment variable and name it with api_key_env="
        )
    try:
        parts.port  # noqa: B018 (a bad port raises)
    except ValueError:
        raise InputError(f"llm:{model}: base_url has a bad port: {base_url[:80]!r}") from None
    explicit = "api_key_env" in opts
    key_env = opts.get("api_key_env", DEFAULT_KEY_ENV)
    if explicit and not key_env:
        raise InputError(f"llm:{model}: api_key_env= names no variable")
    if explicit and not os.environ.get(key_env):
        raise InputError(
            f"llm:{model}: api_key_env={key_env} names an environment variable that is not set"
        )
    has_key = bool(os.environ.get(key_env))
    if (
        has_key
        and parts.scheme == "http"
        and not is_loopback(parts.hostname)
        and not allow_insecure
    ):
        raise InputError(
            f"llm:{model}: the API key would travel unencrypted to {parts.hostname} (http, not "
            "https); use https, or --allow-insecure if the network is yours"
        )
    json_mode = opts.get("json", "off") or "off"
    if json_mode not in ("schema", "object", "off"):
        raise InputError(
            f"llm:{model}: json= must be schema, object or off, not {json_mode[:20]!r}"
        )
    views: tuple[str, ...] | None = None
    if "views" in opts:
        views = tuple(v.strip() for v in opts["views"].split(",") if v.strip())
        if views == ("none",):
            views = ()
    system = opts.get("system") or None
    if system is not None and not Path(system).is_file():
        raise InputError(f"llm:{model}: system={system[:120]} is not a readable file")
    price = None
    if "price" in opts:
        bits = opts["price"].split(",")
        if len(bits) != 2:
            raise InputError(f"llm:{model}: price= is IN,OUT (per million tokens), e.g. 2.5,10")
        price = (_number("price", bits[0], low=0), _number("price", bits[1], low=0))
    rpm = _number("rpm", opts["rpm"], low=0) if "rpm" in opts else None
    if rpm is not None and rpm <= 0:
        raise InputError(f"llm:{model}: rpm= must be positive")
    timeout = _number("timeout", opts["timeout"], low=0) if "timeout" in opts else None
    if timeout is not None and timeout <= 0:
        raise InputError(f"llm:{model}: timeout= must be positive")
    return LlmSpec(
        model=model,
        base_url=base_url,
        api_key_env=key_env,
        explicit_key=explicit,
        temperature=_number("temperature", opts["temperature"], low=0)
        if "temperature" in opts
        else None,
        max_tokens=_number("max_tokens", opts["max_tokens"], low=1, integer=True)
        if "max_tokens" in opts
        else None,
        seed=_number("seed", opts["seed"], integer=True) if "seed" in opts else None,
        timeout=timeout,
        json_mode=json_mode,
        views=views,
        system=system,
        rpm=rpm,
        price=price,
    )


def check_spec(spec: str, game: Game, *, allow_insecure: bool = False) -> None:
    """Refuse now an ``llm:`` name that cannot play ``game``."""
    parsed = parse_spec(spec, allow_insecure=allow_insecure)
    if parsed.views is not None:
        unknown = [v for v in parsed.views if v not in game.view_names]
        if unknown:
            known = ", ".join(game.view_names) or "none"
            raise InputError(
                f"llm:{parsed.model}: {game.name} has no view {unknown[0][:40]!r} (its views: "
                f"{known})"
            )


# ---------------------------------------------------------------------- pacing (rpm)


class _Pace:
    """Requests per minute for one endpoint, shared by every player of the process: each
    request takes the next free slot, ``60/rpm`` seconds after the one before."""

    def __init__(self, rpm: float) -> None:
        self.interval = 60.0 / rpm
        self.next = 0.0
        self.lock = threading.Lock()

    def slot(self, deadline: float) -> float | None:
        """Seconds to wait for a slot, or None when the next slot is past ``deadline`` (then
        no slot is taken)."""
        with self.lock:
            now = time.monotonic()
            at = max(now, self.next)
            if at > deadline:
                return None
            self.next = at + self.interval
            return at - now


_PACES: dict[tuple[str, float], _Pace] = {}
_PACES_LOCK = threading.Lock()


def pace_for(base_url: str, rpm: float) -> _Pace:
    with _PACES_LOCK:
        key = (base_url.rstrip("/"), rpm)
        pace = _PACES.get(key)
        if pace is None:
            pace = _PACES[key] = _Pace(rpm)
        return pace


# ---------------------------------------------------------------------- the player


@dataclass
class _Counts:
    requests: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    def tokens(self, usage: Any) -> None:
        if not isinstance(usage, dict):
            return
        for name in ("prompt_tokens", "completion_tokens"):
            value = usage.get(name)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                setattr(self, name, (getattr(self, name) or 0) + value)


@dataclass
class _Reply:
    status: int
    headers: dict[str, str]
    body: bytes


@dataclass
class _Trace:
    """What the event log keeps of one answer: the model's text, its reasoning, the
    endpoint's failures on the way."""

    text: str | None = None
    reasoning: str | None = None
    requests: int = 0
    errors: list[str] = field(default_factory=list)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "reasoning": self.reasoning,
            "requests": self.requests,
            "errors": self.errors,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }


class _Failure(Exception):
    """One failed request the endpoint is to blame for (retried)."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class LlmPlayer(Player):
    """A chat-completions endpoint as a player of ``game``."""

    def __init__(
        self,
        name: str,
        spec: LlmSpec,
        game: Game,
        limits: Limits = Limits(),  # noqa: B008
    ) -> None:
        self.name = name
        self.spec = spec
        self.game = game
        self.limits = limits
        if spec.system is not None:
            try:
                system = Path(spec.system).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise InputError(f"llm: cannot read system={spec.system[:120]}: {exc}") from None
        else:
            system = game.rulebook().rstrip() + "\n\n" + ANSWER_RULE + "\n"
        self.system = system
        self.views = spec.views if spec.views is not None else game.default_views
        self.counts = _Counts()
        self.trace: _Trace | None = None
        self._messages: list[dict[str, str]] = []
        self._turn_key: tuple[int, int, str] | None = None
        self._last_text: str | None = None
        self._conn: Any = None
        self._pace = pace_for(spec.base_url, spec.rpm) if spec.rpm else None
        self._parts = urlsplit(spec.endpoint)
        self._response_format = self._format()

    # ------------------------------------------------------------------ the prompt
    def _format(self) -> dict[str, Any] | None:
        mode = self.spec.json_mode
        if mode == "object":
            return {"type": "json_object"}
        if mode == "schema":
            schema = self.game.answer_schema()
            if schema is None:
                return {"type": "json_object"}
            schema = structured_schema(schema)
            return {
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": schema, "strict": False},
            }
        return None

    def user_message(self, turn: Turn) -> str:
        """The state JSON exactly as the protocol sends it, then each view, labelled."""
        state = json.dumps(turn.view(), separators=(",", ":"), ensure_ascii=False)
        parts = [f"state:\n{state}"]
        if self.views:
            for name, text in turn.state.views(turn.seat, self.views).items():
                parts.append(f"{name}:\n{text.rstrip()}")
        return "\n\n".join(parts)

    def _conversation(self, turn: Turn) -> list[dict[str, str]]:
        """A new conversation for a new turn; after a refusal in the same turn, the model's
        answer and the referee's reason are added to the one it had."""
        last_error = turn.fields.get("last_error")
        key = (turn.state.ply, turn.seat, json.dumps(turn.state.moves()[-1:]))
        if last_error is not None and key == self._turn_key and self._messages:
            self._messages.append({"role": "assistant", "content": self._last_text or ""})
            self._messages.append(
                {
                    "role": "user",
                    "content": f"The referee refused your answer: {last_error}\n"
                    "The state is unchanged (its last_error says why). Answer it again with "
                    "exactly one JSON object.\n\n" + self.user_message(turn),
                }
            )
        else:
            self._messages = [
                {"role": "system", "content": self.system},
                {"role": "user", "content": self.user_message(turn)},
            ]
        self._turn_key = key
        return self._messages

    def _payload(self, messages: list[dict[str, str]]) -> bytes:
        spec = self.spec
        body: dict[str, Any] = {"model": spec.model, "messages": messages}
        if spec.temperature is not None:
            body["temperature"] = spec.temperature
        if spec.max_tokens is not None:
            body["max_tokens"] = spec.max_tokens
        if spec.seed is not None:
            body["seed"] = spec.seed
        if self._response_format is not None:
            body["response_format"] = self._response_format
        return json.dumps(body, ensure_ascii=False).encode()

    # ------------------------------------------------------------------ asking
    def ask(self, turn: Turn) -> str:
        timeout = turn.timeout if turn.timeout is not None else 3600.0
        deadline = time.monotonic() + timeout
        messages = self._conversation(turn)
        self.trace = trace = _Trace()
        self._last_text = None
        payload = self._payload(messages)
        reply = self._complete(payload, deadline, trace)
        text, reasoning, usage = self._read(reply)
        # a model could repeat the key (a prompt that leaked it): it stops here
        text = self._scrub(text)
        reasoning = None if reasoning is None else self._scrub(reasoning)
        self.counts.tokens(usage)
        if isinstance(usage, dict):
            trace.prompt_tokens = _int_or_none(usage.get("prompt_tokens"))
            trace.completion_tokens = _int_or_none(usage.get("completion_tokens"))
        trace.text, trace.reasoning = text, reasoning
        self._last_text = text
        from enoch._json import extract_one_object

        try:
            answer = extract_one_object(text)
        except ProtocolError as exc:
            raise BadModelAnswer(str(exc)) from None
        if len(answer.encode()) > self.limits.max_answer_bytes:
            raise AgentOversize(
                f"answer exceeds the size limit of {self.limits.max_answer_bytes} bytes"
            )
        return answer

    def _read(self, reply: _Reply) -> tuple[str, str | None, Any]:
        """The model's text, its reasoning text (if the endpoint returns one) and the usage.
        A body that is not a chat completion was already retried by :meth:`_complete`."""
        data = json.loads(reply.body)
        message = data["choices"][0]["message"]
        text = message.get("content") or ""
        reasoning = message.get("reasoning_content") or message.get("reasoning") or None
        if not isinstance(text, str):
            text = json.dumps(text)
        if reasoning is not None and not isinstance(reasoning, str):
            reasoning = json.dumps(reasoning)
        return text, reasoning, data.get("usage")

    def _complete(self, payload: bytes, deadline: float, trace: _Trace) -> _Reply:
        """POST until a usable reply, retrying the endpoint's failures with backoff inside
        the deadline."""
        wait = BACKOFF_FIRST
        last = "no request was made"
        while True:
            now = time.monotonic()
            if now >= deadline:
                raise EndpointDown(f"the endpoint kept failing until the deadline: {last}")
            if self._pace is not None:
                delay = self._pace.slot(deadline)
                if delay is None:
                    raise EndpointDown(
                        f"no request slot before the deadline at rpm={self.spec.rpm:g}; last: "
                        f"{last}"
                    )
                if delay > 0:
                    time.sleep(delay)
            try:
                reply = self._post(payload, deadline, trace)
                self._check(reply)
                return reply
            except AgentTimeout:
                if trace.errors:  # the deadline fell while retrying the endpoint's failures
                    raise EndpointDown(
                        f"the endpoint kept failing until the deadline: {last}"
                    ) from None
                raise
            except _Failure as exc:
                last = self._scrub(str(exc))
                trace.errors.append(last)
                pause = wait if exc.retry_after is None else min(exc.retry_after, RETRY_AFTER_MAX)
                wait = min(wait * 2, BACKOFF_MAX)
                if time.monotonic() + pause >= deadline:
                    raise EndpointDown(
                        f"the endpoint kept failing until the deadline: {last}"
                    ) from None
                time.sleep(pause)

    def _check(self, reply: _Reply) -> None:
        """Sort a reply: usable, the endpoint's failure (retried), or the user's error."""
        status = reply.status
        if status in (401, 403):
            raise AgentSetupError(
                f"llm:{self.spec.model}: the endpoint {self._where()} refused the API key "
                f"(HTTP {status}); check the variable {self.spec.api_key_env}"
                f"{self._detail(reply)}"
            )
        if status == 404:
            raise AgentSetupError(
                f"llm:{self.spec.model}: the endpoint {self._where()} answered 404: no such "
                f"model or URL{self._detail(reply)}"
            )
        if status in RETRY_STATUSES or status >= 500:
            raise _Failure(f"HTTP {status}{self._detail(reply)}", _retry_after(reply.headers))
        if not 200 <= status < 300:
            raise AgentCrash(
                self._scrub(f"the endpoint answered HTTP {status}{self._detail(reply)}")
            )
        try:
            data = json.loads(reply.body)
            message = data["choices"][0]["message"]
            if not isinstance(message, dict):
                raise TypeError("message is not an object")
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise _Failure(f"the endpoint's reply is not a chat completion ({exc})") from None

    def _detail(self, reply: _Reply) -> str:
        """The endpoint's own error message, short and scrubbed."""
        try:
            data = json.loads(reply.body)
            error = data.get("error") if isinstance(data, dict) else None
            message = error.get("message") if isinstance(error, dict) else error
        except ValueError:
            message = None
        if not isinstance(message, str) or not message.strip():
            return ""
        return ": " + self._scrub(" ".join(message.split()))[:200]

    def _where(self) -> str:
        return f"{self._parts.scheme}://{self._parts.netloc}"

    def _scrub(self, text: str) -> str:
        key = self.spec.key()
        if key and key in text:
            text = text.replace(key, "[key]")
        return text

    def _post(self, payload: bytes, deadline: float, trace: _Trace) -> _Reply:
        """One POST under the move's deadline on the kept-alive connection. A reused
        connection that the server had closed meanwhile is reopened once (that try is not a
        request: the server never read it)."""
        import http.client

        for _ in range(2):
            try:
                return self._exchange(payload, deadline, trace)
            except _Stale:
                self._drop()
                continue
            except (AgentTimeout, AgentOversize, _Failure):
                self._drop()
                raise
            except (http.client.HTTPException, OSError) as exc:
                self._drop()
                text = self._scrub(str(exc)) or type(exc).__name__
                raise _Failure(f"request failed: {text}") from None
        raise _Failure("the connection closed before a reply")  # pragma: no cover

    def _exchange(self, payload: bytes, deadline: float, trace: _Trace) -> _Reply:
        """Connect if needed, send, read the status, headers and body (capped). A watchdog
        shuts the socket at the request's limit, so that neither a slow status line nor a
        dripping body can stretch it (a socket timeout alone restarts with every byte)."""
        import http.client
        import socket

        parts = self._parts
        budget = deadline - time.monotonic()
        if budget <= 0:
            raise AgentTimeout("no answer before the time limit")
        own_limit = self.spec.timeout is not None and self.spec.timeout < budget
        if self.spec.timeout is not None:
            budget = min(budget, self.spec.timeout)
        if self._conn is None:
            cls = (
                http.client.HTTPSConnection
                if parts.scheme == "https"
                else http.client.HTTPConnection
            )
            self._conn = cls(parts.hostname or "", parts.port, timeout=budget)
        conn = self._conn
        expired = threading.Event()

        def shut() -> None:
            expired.set()
            sock = conn.sock
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

        def late() -> Exception:
            if own_limit:
                return _Failure(f"no reply within timeout={self.spec.timeout:g} s")
            return AgentTimeout("no answer before the time limit")

        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = self.spec.key()
        if key:
            headers["Authorization"] = "Bearer " + key
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        watchdog = threading.Timer(budget, shut)
        watchdog.daemon = True
        watchdog.start()
        sent = False
        try:
            reused = conn.sock is not None
            if reused:
                conn.sock.settimeout(budget)
            else:
                conn.connect()
                with contextlib.suppress(OSError, AttributeError):  # headers and body: 1 write
                    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            try:
                conn.request("POST", path, body=payload, headers=headers)
                sent = True
                resp = conn.getresponse()
            except (http.client.RemoteDisconnected, ConnectionError):
                if reused and not expired.is_set():
                    sent = False  # the server had closed the idle connection: never read
                    raise _Stale from None
                raise
            cap = self.limits.max_answer_bytes * BODY_FACTOR
            body = bytearray()
            while True:
                chunk = resp.read1(65536)
                if not chunk:
                    break
                body += chunk
                if len(body) > cap:
                    raise AgentOversize(f"the endpoint's reply exceeds {cap} bytes")
            resp.close()  # read to the end: the connection is free for the next request
            if expired.is_set():
                raise late()
            if resp.will_close:
                self._drop()
            return _Reply(resp.status, {k.lower(): v for k, v in resp.getheaders()}, bytes(body))
        except (http.client.HTTPException, OSError):
            if expired.is_set():
                raise late() from None
            raise
        finally:
            watchdog.cancel()
            if sent:
                self.counts.requests += 1
                trace.requests += 1

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    # ------------------------------------------------------------------ accounting
    def usage(self) -> dict[str, Any]:
        counts = self.counts
        cost = None
        if self.spec.price is not None:
            pin, pout = self.spec.price
            cost = (
                (counts.prompt_tokens or 0) * pin + (counts.completion_tokens or 0) * pout
            ) / 1e6
        return {
            "requests": counts.requests,
            "prompt_tokens": counts.prompt_tokens,
            "completion_tokens": counts.completion_tokens,
            "cost": cost,
        }

    def detail(self) -> dict[str, Any] | None:
        return None if self.trace is None else {"llm": self.trace.as_dict()}

    def close(self) -> None:
        self._drop()


class _Stale(Exception):
    """A kept-alive connection the server had closed: reopen it, count nothing."""


def structured_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A game's answer schema in the shape structured-output endpoints take: no ``$schema`` or
    ``$id``, an object at the root, ``anyOf`` for the root's ``oneOf`` (the same answers: the
    protocols' answer shapes exclude one another)."""
    out = {k: v for k, v in schema.items() if k not in ("$schema", "$id")}
    if "oneOf" in out:
        out["anyOf"] = out.pop("oneOf")
    out.setdefault("type", "object")
    return out


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _retry_after(headers: dict[str, str]) -> float | None:
    """``Retry-After`` in seconds (a number, or an HTTP date), or None."""
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        from email.utils import parsedate_to_datetime

        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    if not math.isfinite(seconds):
        return None
    return max(seconds, 0.0)


def make_llm_player(spec: str, label: str, game: Game, limits: Limits) -> LlmPlayer:
    check_spec(spec, game, allow_insecure=limits.allow_insecure)
    return LlmPlayer(label, parse_spec(spec, allow_insecure=limits.allow_insecure), game, limits)


__all__ = [
    "PREFIX",
    "BadModelAnswer",
    "EndpointDown",
    "LlmPlayer",
    "LlmSpec",
    "check_spec",
    "make_llm_player",
    "parse_spec",
]
