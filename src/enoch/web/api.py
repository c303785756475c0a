"""The HTTP API's contract: its OpenAPI document and the checks of request bodies against it.

The document is written here by hand, not generated from handlers, because it is the contract
the page (and anyone's script) codes against and the fuzzer (schemathesis) tests the server
with: a request that does not match it gets a 400 with the exact reason, never a 500. Bodies
are checked by :func:`check`, a small validator of the JSON Schema subset the document uses.
"""

from __future__ import annotations

from typing import Any

from enoch import __version__

#: largest request body (bytes); an import of PGN or results text is the biggest thing sent
MAX_BODY = 1 << 20

_AGENT = {"type": "string", "minLength": 1, "maxLength": 500}
_OPTIONS = {
    "type": "object",
    "description": "the game's options by name (GET /api/variants lists them)",
    "maxProperties": 40,
    "additionalProperties": {"type": ["string", "integer", "number", "boolean", "null"]},
}
_TIME = {
    "tc": {"type": ["string", "null"], "maxLength": 40, "description": "clocks: 300+3, 40/60"},
    "movetime": {"type": ["number", "null"], "exclusiveMinimum": 0, "maximum": 3600},
    "timeout": {"type": ["number", "null"], "exclusiveMinimum": 0, "maximum": 86400},
    "retries": {"type": ["integer", "null"], "minimum": 0, "maximum": 10},
    "max_plies": {"type": ["integer", "null"], "minimum": 1, "maximum": 100000},
}

SCHEMAS: dict[str, dict[str, Any]] = {
    "NewGame": {
        "type": "object",
        "additionalProperties": False,
        "required": ["seats"],
        "properties": {
            "variant": {"type": "string", "maxLength": 40, "default": "chess"},
            "options": _OPTIONS,
            "seats": {
                "type": "array",
                "minItems": 1,
                "maxItems": 8,
                "items": _AGENT,
                "description": "an agent per seat; 'human' is the page's user",
            },
            "state": {
                "type": ["object", "null"],
                "maxProperties": 64,
                "description": "start from this state of the game's protocol instead of its "
                "usual start (chess: the FEN protocol state; Enochian: enoch-enochian/1)",
            },
            **_TIME,
        },
    },
    "NewMatch": {
        "type": "object",
        "additionalProperties": False,
        "required": ["agents"],
        "properties": {
            "kind": {"type": "string", "enum": ["match", "tournament"], "default": "match"},
            "variant": {"type": "string", "maxLength": 40},
            "options": _OPTIONS,
            "agents": {"type": "array", "minItems": 2, "maxItems": 16, "items": _AGENT},
            "games": {"type": ["integer", "null"], "minimum": 1, "maximum": 10000},
            "rounds": {"type": ["integer", "null"], "minimum": 1, "maximum": 100},
            "gauntlet": {"type": ["boolean", "null"]},
            "concurrency": {"type": ["integer", "null"], "minimum": 1, "maximum": 64},
            "sprt": {"type": ["string", "null"], "maxLength": 100},
            **_TIME,
        },
    },
    "Answer": {
        "type": "object",
        "additionalProperties": False,
        "required": ["answer"],
        "properties": {
            "seat": {"type": ["integer", "null"], "minimum": 0, "maximum": 7},
            "answer": {
                "type": "object",
                "maxProperties": 8,
                "description": "the protocol's answer: a move or an action",
            },
        },
    },
    "Import": {
        "type": "object",
        "additionalProperties": False,
        "required": ["format", "text"],
        "properties": {
            "format": {"type": "string", "enum": ["pgn", "results"]},
            "text": {"type": "string", "maxLength": MAX_BODY - 1024},
        },
    },
    "Error": {
        "type": "object",
        "required": ["error"],
        "properties": {"error": {"type": "string"}},
    },
}


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json_response(description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": schema or {"type": "object"}}},
    }


def _errors(*codes: int) -> dict[str, Any]:
    return {str(c): _json_response("refused: the reason", _ref("Error")) for c in codes}


_ID = {"name": "id", "in": "path", "required": True, "schema": {"type": "string", "maxLength": 80}}
_TOKEN = {
    "name": "X-Enoch-Token",
    "in": "header",
    "required": True,
    "schema": {"type": "string"},
    "description": "the same-origin token of the page (in its <meta name=enoch-token>)",
}


def _post(summary: str, schema: str, ok: str, *codes: int) -> dict[str, Any]:
    return {
        "summary": summary,
        "parameters": [_TOKEN],
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": _ref(schema)}},
        },
        "responses": {ok: _json_response("done"), **_errors(400, 403, 413, *codes)},
    }


def openapi() -> dict[str, Any]:
    """The OpenAPI 3.1 document served at ``/openapi.json``."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "enoch web",
            "version": __version__,
            "description": "Play, watch and review chess and Enochian games. State-changing "
            "requests need the page's token in X-Enoch-Token.",
        },
        "paths": {
            "/api/variants": {
                "get": {
                    "summary": "the games, their options (JSON Schema), seats and agents",
                    "responses": {"200": _json_response("the games")},
                }
            },
            "/api/games": {
                "get": {
                    "summary": "every game the server knows (running, finished, imported)",
                    "responses": {"200": _json_response("games")},
                },
                "post": _post("start a game", "NewGame", "201", 404, 409, 429),
            },
            "/api/games/{id}": {
                "get": {
                    "summary": "one game: board, moves, answers, result",
                    "parameters": [_ID],
                    "responses": {"200": _json_response("the game"), **_errors(404)},
                }
            },
            "/api/games/{id}/positions": {
                "get": {
                    "summary": "the board after every ply, for review",
                    "parameters": [_ID],
                    "responses": {"200": _json_response("positions"), **_errors(404)},
                }
            },
            "/api/games/{id}/record": {
                "get": {
                    "summary": "the game record: PGN for chess, the text record for Enochian",
                    "parameters": [_ID],
                    "responses": {
                        "200": {
                            "description": "the record",
                            "content": {"application/x-chess-pgn": {}, "text/plain": {}},
                        },
                        **_errors(404),
                    },
                }
            },
            "/api/games/{id}/answer": {
                "post": {
                    **_post("a person's answer for the seat waiting", "Answer", "202", 404, 409),
                    "parameters": [_ID, _TOKEN],
                    "responses": {
                        "202": _json_response("accepted: the referee judges it"),
                        **_errors(400, 403, 404, 409, 413, 422),
                    },
                }
            },
            "/api/matches": {
                "get": {
                    "summary": "matches and tournaments (run here or watched)",
                    "responses": {"200": _json_response("matches")},
                },
                "post": _post("start a match or tournament", "NewMatch", "201", 404, 409, 429),
            },
            "/api/matches/{id}": {
                "get": {
                    "summary": "one match: its games, W/D/L, Elo, LOS, SPRT, crosstable",
                    "parameters": [_ID],
                    "responses": {"200": _json_response("the match"), **_errors(404)},
                }
            },
            "/api/import": {
                "post": _post("finished games from PGN or results text", "Import", "201"),
            },
            "/api/events": {
                "get": {
                    "summary": "server-sent events: every board and match the page follows",
                    "parameters": [
                        {
                            "name": "topics",
                            "in": "query",
                            "required": False,
                            "schema": {"type": "string", "maxLength": 4000},
                            "description": "comma-separated: game:ID, match:ID, games, *",
                        }
                    ],
                    "responses": {
                        "200": {"description": "the stream", "content": {"text/event-stream": {}}},
                        **_errors(400),
                    },
                }
            },
        },
        "components": {"schemas": SCHEMAS},
    }


# ---------------------------------------------------------------------------- checking bodies
_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def _is(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    if kind == "number" and isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf"))
    return isinstance(value, _TYPES[kind])


def check(value: Any, schema: dict[str, Any], where: str = "body") -> str | None:
    """The first problem of ``value`` against ``schema`` (the subset used above), or None."""
    if "$ref" in schema:
        schema = SCHEMAS[schema["$ref"].rsplit("/", 1)[1]]
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not any(_is(value, k) for k in kinds):
            return f"{where} must be {' or '.join(kinds)}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where} must be one of {', '.join(map(str, schema['enum']))}"
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            return f"{where} must not be empty"
        if len(value) > schema.get("maxLength", 1 << 30):
            return f"{where} is longer than {schema['maxLength']} characters"
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return f"{where} must be at least {schema['minimum']}"
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            return f"{where} must be more than {schema['exclusiveMinimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"{where} must be at most {schema['maximum']}"
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            return f"{where} needs at least {schema['minItems']} items"
        if len(value) > schema.get("maxItems", 1 << 30):
            return f"{where} has more than {schema['maxItems']} items"
        for i, item in enumerate(value):
            problem = check(item, schema.get("items", {}), f"{where}[{i}]")
            if problem:
                return problem
    if isinstance(value, dict):
        if len(value) > schema.get("maxProperties", 1 << 30):
            return f"{where} has more than {schema['maxProperties']} fields"
        for key in schema.get("required", []):
            if key not in value:
                return f"{where}.{key} is missing"
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                problem = check(item, props[key], f"{where}.{key}")
            elif extra is False:
                return f"{where}: unknown field {str(key)[:40]!r}"
            elif isinstance(extra, dict):
                problem = check(item, extra, f"{where}.{str(key)[:40]}")
            else:
                problem = None
            if problem:
                return problem
    return None


__all__ = ["MAX_BODY", "SCHEMAS", "check", "openapi"]
