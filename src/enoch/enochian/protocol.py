"""The JSON state and answer of Enochian agents, in the spirit of the FIDE protocol.

Writers are exact, readers are strict: :func:`state_to_json` writes every field, and
:func:`state_from_json` / :func:`parse_answer` reject anything the schema does not allow with an
:class:`enoch.errors.ProtocolError` (an ``InputError``) that names the field, e.g.
``state.men[3].kind: unknown kind 'quen'``. The JSON Schemas in ``schema/`` describe the same
shapes; a test keeps the parser and the schemas in agreement.
"""

from __future__ import annotations

import json
from dataclasses import fields
from importlib import resources
from typing import Any

from enoch._json import DEFAULT_MAX_BYTES
from enoch.enochian.geometry import (
    ARMY_NAMES,
    BASE_KIND,
    KIND_NAMES,
    LETTER_KIND,
    SQUARE_INDEX,
    SQUARE_NAMES,
    TEAM_INDEX,
    system_of,
)
from enoch.enochian.spec import RuleOptions, parse_options
from enoch.enochian.state import (
    ACCEPT,
    OFFER,
    REFUSE,
    RESIGN,
    SPECIAL_NAMES,
    WITHDRAW,
    Divination,
    GameConfig,
    Outcome,
    State,
    move_from,
    move_kind,
    move_promo,
    move_to,
    parse_controllers,
)
from enoch.errors import IllegalMoveError, ProtocolError, quote

PROTOCOL = "enoch-enochian/1"
ACTIONS = {
    "offer_exchange": OFFER,
    "accept_exchange": ACCEPT,
    "refuse_exchange": REFUSE,
    "resign": RESIGN,
    "withdraw": WITHDRAW,
}
ACTION_NAMES = {v: k for k, v in ACTIONS.items()}
STATE_KEYS = {
    "protocol",
    "array",
    "direction",
    "players",
    "turn_order",
    "to_move",
    "to_act",
    "player",
    "controllers",
    "commanders",
    "men",
    "shared_thrones",
    "frozen",
    "withdrawn",
    "captured_by",
    "pawns_lost",
    "throne_partner",
    "options",
    "divination",
    "exchange_offer",
    "exchange_possible",
    "ply",
    "max_plies",
    "history",
    "outcome",
    "move_time_limit",
    "last_error",
    "clock",
}
REQUIRED_STATE_KEYS = STATE_KEYS - {
    "array",
    "max_plies",
    "history",
    "outcome",
    "player",
    "exchange_possible",
    "move_time_limit",
    "last_error",
    "clock",
}


# Bounds of the integers a state carries (the schema says the same): far above any real game,
# small enough that no integer of thousands of digits is ever read.
MAX_PLY = 1_000_000
MAX_SEED = 2**63 - 1
MAX_PAWNS_LOST = 64
MAX_REROLLS = 1000
# What a history entry may be (docs/enochian-protocol.md): each a closed set of keys.
_HISTORY_SHAPES = (
    frozenset({"army", "move"}),
    frozenset({"army", "action"}),
    frozenset({"army", "promotion"}),
    frozenset({"army", "skip"}),
    frozenset({"event", "returned"}),
)
_MOVE_TEXT = r"[KQBNRP][a-h][1-8][-x][a-h][1-8](=[KQBNRP])?"
_PROMOTION_TEXT = r"P[a-h][1-8]=[KQBNRP]"


def schema(name: str) -> dict[str, Any]:
    """A shipped JSON Schema: ``"state"`` or ``"answer"``."""
    text = (
        resources.files("enoch.enochian")
        .joinpath(f"schema/{name}.schema.json")
        .read_text(encoding="utf-8")
    )
    result: dict[str, Any] = json.loads(text)
    return result


# --- writing ------------------------------------------------------------------------------


def state_to_json(st: State, move_time_limit: float | None = None) -> dict[str, Any]:
    """The complete state an agent needs, as plain JSON data (``move_time_limit``: the
    referee's per-answer limit in seconds, written only when there is one)."""
    cfg = st.config
    labels = st.opts.seed_system_labels
    men = []
    for s, a, k in st.men():
        entry: dict[str, Any] = {
            "square": SQUARE_NAMES[s],
            "army": ARMY_NAMES[a],
            "kind": KIND_NAMES[k],
        }
        if k >= 5:
            entry["patron"] = KIND_NAMES[k - 4]
        elif k in (1, 2):
            entry["system"] = system_of(s, labels)
        men.append(entry)
    div = None
    if cfg.divination is not None:
        d = cfg.divination
        div = {
            "querent": ARMY_NAMES[d.querent],
            "ptah": SQUARE_NAMES[d.ptah],
            "seed": d.seed,
            "die": st.die or None,
            "verdict": st.verdict,
            "watching": st.ptah_watch,
        }
    target = st.exchange_target()
    out: dict[str, Any] = {
        "protocol": PROTOCOL,
        "array": cfg.array_id,
        "direction": cfg.direction,
        "players": cfg.players,
        "turn_order": [ARMY_NAMES[a] for a in cfg.order],
        "to_move": ARMY_NAMES[st.army_to_move],
        "to_act": ARMY_NAMES[st.deciding_army],
        "player": st.current_player(),
        "controllers": {ARMY_NAMES[a]: cfg.controllers[a] for a in range(4)},
        "commanders": {ARMY_NAMES[a]: ARMY_NAMES[st.commander[a]] for a in range(4)},
        "men": men,
        "shared_thrones": [ARMY_NAMES[a] for a in range(4) if st.shared >> a & 1],
        "frozen": [ARMY_NAMES[a] for a in range(4) if st.frozen >> a & 1],
        "withdrawn": [ARMY_NAMES[a] for a in range(4) if st.withdrawn >> a & 1],
        "captured_by": {
            ARMY_NAMES[a]: ARMY_NAMES[c] for a, c in enumerate(st.captured_by) if c >= 0
        },
        "pawns_lost": {ARMY_NAMES[a]: st.pawns_lost[a] for a in range(4)},
        "throne_partner": KIND_NAMES[cfg.partner[0]],
        "options": st.opts.as_dict(),
        "divination": div,
        "exchange_offer": None
        if st.pending is None
        else {"from": ARMY_NAMES[st.pending[0]], "to": ARMY_NAMES[st.pending[1]]},
        "exchange_possible": None if target < 0 else ARMY_NAMES[target],
        "ply": st.ply,
        "max_plies": cfg.max_plies,
        "history": [dict(e) for e in st.log],
        "outcome": None if st.outcome is None else st.outcome.as_dict(),
    }
    if move_time_limit is not None:
        out["move_time_limit"] = move_time_limit
    return out


def move_to_json(st: State, m: int) -> dict[str, Any]:
    """An answer object for a legal action of ``st``."""
    if m in ACTION_NAMES:
        return {"action": ACTION_NAMES[m]}
    promo = move_promo(m)
    out: dict[str, Any] = {
        "from": SQUARE_NAMES[move_from(m)],
        "to": SQUARE_NAMES[move_to(m)],
        "promotion": "QBNR"[promo - 1] if promo >= 0 else None,
    }
    f = move_from(m)
    if st.shared >> st.army_to_move & 1 and st.king_square(st.army_to_move) == f:
        out["kind"] = KIND_NAMES[move_kind(m)]
    return out


# --- reading ------------------------------------------------------------------------------


def _err(where: str, what: str) -> ProtocolError:
    return ProtocolError(f"{where}: {what}")


# The protocol names armies by their elements only (the command line and the rules file also
# take the colours, yellow, blue, red, black; a state does not).
_ELEMENT = {name: i for i, name in enumerate(ARMY_NAMES)}


def _army(v: object, where: str) -> int:
    if not isinstance(v, str) or v not in _ELEMENT:
        raise _err(where, f"unknown army {quote(v)} (expected air, water, fire or earth)")
    return _ELEMENT[v]


def _square(v: object, where: str) -> int:
    if not isinstance(v, str) or v not in SQUARE_INDEX:
        raise _err(where, f"not a square: {quote(v)}")
    return SQUARE_INDEX[v]


def _int(v: object, where: str, lo: int = 0, hi: int = MAX_PLY) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise _err(where, f"must be an integer from {lo} to {hi}, not {quote(v)}")
    return v


def _options(raw: dict[str, Any]) -> RuleOptions:
    """The rule options of a state, typed as JSON types (the schema's): a boolean is ``true``
    or ``false``, never the text ``"true"`` that a command-line option may be."""
    known = {f.name: f for f in fields(RuleOptions)}
    defaults = RuleOptions()
    for k, v in raw.items():
        if k not in known:
            raise _err("state.options", f"unknown option {quote(k)}")
        default = getattr(defaults, k)
        where = f"state.options.{k}"
        if isinstance(default, bool):
            if not isinstance(v, bool):
                raise _err(where, f"must be true or false, not {quote(v)}")
        elif isinstance(default, int):
            _int(v, where, 0, MAX_REROLLS)
        elif not isinstance(v, str):
            raise _err(where, f"must be a string, not {quote(v)}")
    try:
        return parse_options(raw)
    except ProtocolError:
        raise
    except Exception as exc:
        raise _err("state.options", str(exc)) from None


def _history(hist: object) -> list[dict[str, Any]]:
    """The history entries, each one of the documented shapes."""
    import re

    if not isinstance(hist, list):
        raise _err("state.history", "must be a list of history entries")
    for i, h in enumerate(hist):
        w = f"state.history[{i}]"
        h = _obj(h, w)
        if frozenset(h) not in _HISTORY_SHAPES:
            raise _err(
                w,
                f"keys {quote(sorted(h))} are not a history entry (army+move, army+action, "
                "army+promotion, army+skip or event+returned)",
            )
        if "event" in h:
            if h["event"] != "exchange":
                raise _err(f"{w}.event", f"must be exchange, not {quote(h['event'])}")
            returned = _armies(h["returned"], f"{w}.returned")
            if len(returned) != 2:
                raise _err(f"{w}.returned", "must name two armies")
            continue
        _army(h["army"], f"{w}.army")
        if "move" in h:
            if not isinstance(h["move"], str) or not re.fullmatch(_MOVE_TEXT, h["move"]):
                raise _err(f"{w}.move", f"not a move like Qd5xf7: {quote(h['move'])}")
        elif "action" in h:
            if h["action"] not in SPECIAL_NAMES.values():
                names = ", ".join(SPECIAL_NAMES.values())
                raise _err(f"{w}.action", f"must be one of {names}, not {quote(h['action'])}")
        elif "promotion" in h:
            text = h["promotion"]
            if not isinstance(text, str) or not re.fullmatch(_PROMOTION_TEXT, text):
                raise _err(f"{w}.promotion", f"not a promotion like Pd7=Q: {quote(text)}")
        elif not isinstance(h["skip"], str):
            raise _err(f"{w}.skip", f"must be a string, not {quote(h['skip'])}")
    return [dict(h) for h in hist]


def _armies(v: object, where: str) -> list[int]:
    if not isinstance(v, list):
        raise _err(where, "must be a list of army names")
    out = [_army(x, f"{where}[{i}]") for i, x in enumerate(v)]
    if len(set(out)) != len(out):
        raise _err(where, "lists an army twice")
    return out


def _obj(v: object, where: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise _err(where, "must be an object")
    return v


def state_from_json(data: object) -> State:
    """Rebuild a :class:`State` from a state object, validating every field."""
    d = _obj(data, "state")
    unknown = set(d) - STATE_KEYS
    if unknown:
        raise _err("state", f"unknown field {quote(sorted(unknown)[0])}")
    for key in sorted(REQUIRED_STATE_KEYS):
        if key not in d:
            raise _err("state", f"missing field {key!r}")
    if d["protocol"] != PROTOCOL:
        raise _err("state.protocol", f"must be {PROTOCOL!r}, not {quote(d['protocol'])}")
    if d["direction"] not in ("deosil", "widdershins"):
        raise _err("state.direction", f"must be deosil or widdershins, not {quote(d['direction'])}")
    players = d["players"]
    if players not in (2, 4) or not isinstance(players, int) or isinstance(players, bool):
        raise _err("state.players", f"must be 2 or 4, not {quote(players)}")
    order = _armies(d["turn_order"], "state.turn_order")
    if sorted(order) != [0, 1, 2, 3] or any(
        order[i] % 2 == order[(i + 1) % 4] % 2 for i in range(4)
    ):
        raise _err("state.turn_order", "must list the four armies with teams alternating")
    to_move = _army(d["to_move"], "state.to_move")
    to_act = _army(d["to_act"], "state.to_act")
    ctl = _obj(d["controllers"], "state.controllers")
    for name in ctl:
        _army(name, "state.controllers")
    try:
        controllers = parse_controllers(ctl, order, players)
    except ProtocolError:
        raise
    except Exception as exc:
        raise _err("state.controllers", str(exc)) from None
    commanders = _obj(d["commanders"], "state.commanders")
    commander = [0, 1, 2, 3]
    for name, v in commanders.items():
        a = _army(name, "state.commanders")
        commander[a] = _army(v, f"state.commanders.{name}")
    partner_name = d["throne_partner"]
    if partner_name not in ("queen", "bishop", "knight", "rook"):
        raise _err(
            "state.throne_partner",
            f"must be queen, bishop, knight or rook, not {quote(partner_name)}",
        )
    opts = _options(_obj(d["options"], "state.options"))
    men_raw = d["men"]
    if not isinstance(men_raw, list):
        raise _err("state.men", "must be a list")
    men = []
    for i, m in enumerate(men_raw):
        w = f"state.men[{i}]"
        m = _obj(m, w)
        allowed = {"square", "army", "kind", "patron", "system"}
        if set(m) - allowed:
            raise _err(w, f"unknown field {quote(sorted(set(m) - allowed)[0])}")
        for key in ("square", "army", "kind"):
            if key not in m:
                raise _err(w, f"missing field {key!r}")
        sq = _square(m["square"], f"{w}.square")
        army = _army(m["army"], f"{w}.army")
        kind = m["kind"]
        if not isinstance(kind, str) or (kind not in BASE_KIND and kind != "pawn"):
            raise _err(f"{w}.kind", f"unknown kind {quote(kind)}")
        patron = m.get("patron")
        if kind == "pawn":
            if patron not in ("queen", "bishop", "knight", "rook"):
                raise _err(
                    f"{w}.patron",
                    f"a pawn needs a patron (queen, bishop, knight, rook), not {quote(patron)}",
                )
        elif "patron" in m:
            raise _err(f"{w}.patron", f"only pawns have a patron, not a {kind}")
        if "system" in m:
            if kind not in ("queen", "bishop"):
                raise _err(f"{w}.system", f"only queens and bishops have a system, not a {kind}")
            if m["system"] != system_of(sq, opts.seed_system_labels):
                raise _err(
                    f"{w}.system",
                    f"a man on {m['square']} is on "
                    f"{system_of(sq, opts.seed_system_labels)}, not {quote(m['system'])}",
                )
        men.append((sq, army, kind, patron))
    shared = _armies(d["shared_thrones"], "state.shared_thrones")
    frozen = _armies(d["frozen"], "state.frozen")
    withdrawn = _armies(d["withdrawn"], "state.withdrawn")
    captured = [-1] * 4
    for name, v in _obj(d["captured_by"], "state.captured_by").items():
        captured[_army(name, "state.captured_by")] = _army(v, f"state.captured_by.{name}")
    lost = [0] * 4
    for name, v in _obj(d["pawns_lost"], "state.pawns_lost").items():
        lost[_army(name, "state.pawns_lost")] = _int(
            v, f"state.pawns_lost.{name}", 0, MAX_PAWNS_LOST
        )
    div = None
    die = 0
    verdict = None
    watching = False
    if d["divination"] is not None:
        dv = _obj(d["divination"], "state.divination")
        for key in ("querent", "ptah", "seed", "die"):
            if key not in dv:
                raise _err("state.divination", f"missing field {key!r}")
        extra = set(dv) - {"querent", "ptah", "seed", "die", "verdict", "watching"}
        if extra:
            raise _err("state.divination", f"unknown field {quote(sorted(extra)[0])}")
        div = Divination(
            _army(dv["querent"], "state.divination.querent"),
            _square(dv["ptah"], "state.divination.ptah"),
            _int(dv["seed"], "state.divination.seed", 0, MAX_SEED),
        )
        if dv["die"] is not None:
            die = _int(dv["die"], "state.divination.die", 1, 6)
        verdict = dv.get("verdict")
        if verdict not in (None, "success", "failure"):
            raise _err(
                "state.divination.verdict",
                f"must be success, failure or null, not {quote(verdict)}",
            )
        watching = dv.get("watching", False)
        if not isinstance(watching, bool):
            raise _err("state.divination.watching", f"must be true or false, not {quote(watching)}")
    max_plies = d.get("max_plies")
    if max_plies is not None:
        max_plies = _int(max_plies, "state.max_plies", 1)
    ply = _int(d["ply"], "state.ply")
    limit = d.get("move_time_limit")
    if limit is not None and (
        isinstance(limit, bool) or not isinstance(limit, int | float) or not limit > 0
    ):
        raise _err("state.move_time_limit", f"must be a number > 0 or null, not {quote(limit)}")
    from enoch.enochian.spec import find_array

    die_table: tuple[str, ...] = ("king", "knight", "bishop", "queen", "rook", "pawn")
    array_id = d.get("array")
    if array_id is not None:
        if not isinstance(array_id, str):
            raise _err("state.array", f"must be an array id or null, not {quote(array_id)}")
        try:
            spec = find_array(array_id)
        except Exception as exc:
            raise _err("state.array", str(exc)) from None
        if opts.divination_die == "original_gd":
            die_table = tuple(spec.die_original_gd[i] for i in range(1, 7))
    cfg = GameConfig(
        order=tuple(order),
        players=players,
        controllers=controllers,
        options=opts,
        partner=(BASE_KIND[partner_name],) * 4,
        array_id=array_id,
        direction=d["direction"],
        divination=div,
        die_table=die_table,
        max_plies=max_plies,
    )
    try:
        st = State.from_men(
            cfg,
            men,
            to_move,
            frozen=frozen,
            shared=shared,
            pawns_lost=lost,
            start_turn=False,
            captured_by=captured,
            commander=commander,
            withdrawn=withdrawn,
            ply=ply,
        )
    except ProtocolError:
        raise
    except Exception as exc:
        raise _err("state", str(exc)) from None
    if not set(withdrawn) <= set(frozen):
        raise _err("state.withdrawn", "a withdrawn army is also frozen")
    st.die = die
    st.verdict = verdict
    st.ptah_watch = watching
    offer = d["exchange_offer"]
    if offer is not None:
        o = _obj(offer, "state.exchange_offer")
        if set(o) != {"from", "to"}:
            raise _err("state.exchange_offer", "must have exactly 'from' and 'to'")
        frm, to = (
            _army(o["from"], "state.exchange_offer.from"),
            _army(o["to"], "state.exchange_offer.to"),
        )
        if frm != to_move or to % 2 == frm % 2:
            raise _err("state.exchange_offer", "must come from the army to move to an enemy")
        st.pending = (frm, to)
        st.offered = True
    if to_act != st.deciding_army:
        raise _err("state.to_act", f"must be {ARMY_NAMES[st.deciding_army]}")
    st.log = _history(d.get("history", []))
    outcome = d.get("outcome")
    if outcome is not None:
        o = _obj(outcome, "state.outcome")
        if set(o) != {"winner", "reason"}:
            raise _err("state.outcome", "must have exactly 'winner' and 'reason'")
        winner = o.get("winner")
        if winner is not None and (not isinstance(winner, str) or winner not in TEAM_INDEX):
            raise _err(
                "state.outcome.winner", f"must be actives, passives or null, not {quote(winner)}"
            )
        if not isinstance(o.get("reason"), str):
            raise _err("state.outcome.reason", "must be a string")
        st.outcome = Outcome(None if winner is None else TEAM_INDEX[winner], o["reason"])
    if "last_error" in d and not isinstance(d["last_error"], str):
        raise _err("state.last_error", f"must be a string, not {quote(d['last_error'])}")
    if "clock" in d:
        _clock(d["clock"])
    if "exchange_possible" in d:
        _exchange_possible(st, d["exchange_possible"])
    if "player" in d:
        player = d["player"]
        if not isinstance(player, int) or isinstance(player, bool) or not -1 <= player <= 3:
            raise _err("state.player", f"must be an integer from -1 to 3, not {quote(player)}")
        if player != st.current_player():
            raise _err("state.player", f"must be {st.current_player()}, not {player}")
    return st


def _number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _clock(value: object) -> None:
    """The referee's clock field: ``remaining`` per player, ``increment``, ``moves_to_go``."""
    c = _obj(value, "state.clock")
    extra = set(c) - {"remaining", "increment", "moves_to_go"}
    if extra:
        raise _err("state.clock", f"unknown field {quote(sorted(extra)[0])}")
    remaining = c.get("remaining")
    if not isinstance(remaining, list) or not all(_number(t) for t in remaining):
        raise _err("state.clock.remaining", "must be a list of seconds")
    increment = c.get("increment")
    if not _number(increment) or not increment >= 0:  # type: ignore[operator]
        raise _err("state.clock.increment", f"must be a number >= 0, not {quote(increment)}")
    if "moves_to_go" in c:
        _int(c["moves_to_go"], "state.clock.moves_to_go", 1)


def _exchange_possible(st: State, value: object) -> None:
    """Hold ``exchange_possible`` to the position. It carries one fact the position does not:
    null where an exchange would be possible means the side to move already offered one this
    turn (one offer a turn), so the state read keeps that."""
    target = st.exchange_target()
    if value is None:
        if target >= 0:
            st.offered = True
        return
    army = _army(value, "state.exchange_possible")
    if army != target:
        expected = "null" if target < 0 else ARMY_NAMES[target]
        raise _err("state.exchange_possible", f"must be {expected}, not {ARMY_NAMES[army]}")


def parse_answer(data: object, st: State | None = None) -> dict[str, Any]:
    """Check an answer's shape (and, given a state, that it names a legal action)."""
    d = _obj(data, "answer")
    if "action" in d:
        if set(d) != {"action"}:
            raise _err(
                "answer",
                f"an action answer has only 'action', not {quote(sorted(set(d) - {'action'})[0])}",
            )
        if not isinstance(d["action"], str) or d["action"] not in ACTIONS:
            raise _err(
                "answer.action",
                f"unknown action {quote(d['action'])} (known: {', '.join(ACTIONS)})",
            )
    else:
        for key in ("from", "to", "promotion"):
            if key not in d:
                raise _err("answer", f"missing field {key!r}")
        extra = set(d) - {"from", "to", "promotion", "kind"}
        if extra:
            raise _err("answer", f"unknown field {quote(sorted(extra)[0])}")
        _square(d["from"], "answer.from")
        _square(d["to"], "answer.to")
        if d["promotion"] not in (None, "Q", "R", "B", "N"):
            raise _err(
                "answer.promotion",
                f"must be null or one of Q, R, B, N, not {quote(d['promotion'])}",
            )
        if "kind" in d and (
            not isinstance(d["kind"], str) or (d["kind"] not in BASE_KIND and d["kind"] != "pawn")
        ):
            raise _err("answer.kind", f"unknown kind {quote(d['kind'])}")
    if st is not None:
        answer_to_action(st, d)
    return d


def answer_to_action(st: State, d: dict[str, Any]) -> int:
    """The action of ``st`` an already shape-checked answer names; IllegalMoveError if none."""
    if "action" in d:
        act = ACTIONS[d["action"]]
        if act in (RESIGN, WITHDRAW):
            if act == WITHDRAW and st.pending is not None:
                raise IllegalMoveError("cannot withdraw while an exchange offer awaits an answer")
            return act
        if act not in st.legal_actions():
            raise IllegalMoveError(f"{d['action']} is not possible now")
        return act
    if st.pending is not None:
        raise IllegalMoveError(
            f"{ARMY_NAMES[st.pending[1]]} must accept or refuse the exchange offer, not move"
        )
    kind = None
    if "kind" in d:
        kind = 5 if d["kind"] == "pawn" else BASE_KIND[d["kind"]]
    promo = None if d["promotion"] is None else LETTER_KIND[d["promotion"]]
    frm, to = SQUARE_INDEX[d["from"]], SQUARE_INDEX[d["to"]]
    cands = [
        m
        for m in st.legal_moves()
        if move_from(m) == frm
        and move_to(m) == to
        and (kind is None or move_kind(m) == kind or (kind == 5 and move_kind(m) >= 5))
    ]
    if not cands:
        raise IllegalMoveError(
            f"{d['from']}-{d['to']} is not a legal move of {ARMY_NAMES[st.army_to_move]}"
        )
    kinds = {move_kind(m) for m in cands}
    if len(kinds) > 1:
        raise IllegalMoveError(f'two men on {d["from"]} can go to {d["to"]}: add "kind"')
    promos = {move_promo(m) for m in cands}
    want = -1 if promo is None else promo
    if want not in promos:
        if promos == {-1}:
            raise IllegalMoveError(
                f"{d['from']}-{d['to']} is not a promotion; promotion must be null"
            )
        choices = ", ".join("QBNR"[p - 1] for p in sorted(promos) if p >= 0)
        raise IllegalMoveError(f"{d['from']}-{d['to']} promotes: promotion must be {choices}")
    return next(m for m in cands if move_promo(m) == want)


def validate_state_text(text: str | bytes, max_bytes: int | None = DEFAULT_MAX_BYTES) -> State:
    """Parse JSON text into a validated state (the ``enoch enochian validate`` command): the
    strict reader of every state (no duplicate keys, no NaN, no deep nesting, bounded size)."""
    from enoch._json import loads_strict

    return state_from_json(loads_strict(text, "state", max_bytes))


__all__ = [
    "PROTOCOL",
    "answer_to_action",
    "move_to_json",
    "parse_answer",
    "schema",
    "state_from_json",
    "state_to_json",
    "validate_state_text",
]
