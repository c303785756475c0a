"""The Enochian rule file: load, validate, and look up starting arrays and rule options.

The rules live in ``data/enochian-rules.yaml`` (a copy of ``docs/enochian-rules.yaml``) so that
agents, docs and engine read one source of truth. The file is validated when first loaded; a
broken entry is an :class:`enoch.errors.InputError` that names the entry, because a silently
wrong array would play a different game.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from enoch.enochian.geometry import (
    ARMY_INDEX,
    ARMY_NAMES,
    BASE_KIND,
    BISHOP,
    KING,
    QUEEN,
    SQUARE_INDEX,
    THRONES,
    system_of,
)
from enoch.errors import InputError, quote

DIRECTIONS = ("deosil", "widdershins")
DIE_KINDS = ("king", "queen", "bishop", "knight", "rook", "pawn")


@dataclass(frozen=True)
class RuleOptions:
    """The rule options of ``docs/enochian.md`` ("Rule options"); defaults are Zalewski's rules."""

    ally_king_capture: bool = True
    throne_seizure_revives_frozen: bool = False
    allow_duplicate_patron_promotion: bool = False
    seed_system_labels: bool = False
    divination_rerolls: int = 0
    one_allows_pawn_freely: bool = False
    divination_die: str = "zalewski"

    def with_(self, **changes: Any) -> RuleOptions:
        """A copy with some options changed (validated)."""
        return parse_options({**self.as_dict(), **changes})

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def parse_options(raw: dict[str, Any] | None) -> RuleOptions:
    """Options from a mapping of names to values (strings such as ``"true"`` accepted)."""
    opts = RuleOptions()
    if not raw:
        return opts
    known = {f.name: f for f in fields(RuleOptions)}
    changes: dict[str, Any] = {}
    for name, value in raw.items():
        if name not in known:
            raise InputError(f"unknown Enochian rule option {name!r} (known: {', '.join(known)})")
        default = getattr(opts, name)
        if isinstance(default, bool):
            if isinstance(value, str) and value.lower() in ("true", "1", "yes", "on"):
                value = True
            elif isinstance(value, str) and value.lower() in ("false", "0", "no", "off"):
                value = False
            if not isinstance(value, bool):
                raise InputError(f"rule option {name} must be true or false, not {value!r}")
        elif isinstance(default, int):
            try:
                value = int(value)
            except (TypeError, ValueError):
                raise InputError(f"rule option {name} must be an integer, not {value!r}") from None
            if value < 0:
                raise InputError(f"rule option {name} must be >= 0, not {value}")
        elif name == "divination_die" and value not in ("zalewski", "original_gd"):
            raise InputError(
                f"rule option divination_die must be zalewski or original_gd, not {value!r}"
            )
        changes[name] = value
    return replace(opts, **changes)


@dataclass(frozen=True)
class Man:
    """One man of a starting array: square index, army, base kind name, pawn patron name."""

    square: int
    army: int
    kind: str
    patron: str | None = None


@dataclass(frozen=True)
class ArraySpec:
    """A starting array: board, setting, turn orders, throne partner and every man."""

    id: str
    name: str
    board: str
    setting: str
    first_player: int
    turn_order: dict[str, tuple[int, ...]]
    throne_partner: int
    die_original_gd: dict[int, str]
    men: tuple[Man, ...] = field(repr=False)


@dataclass(frozen=True)
class RuleBook:
    """The whole rule file, validated."""

    data: dict[str, Any] = field(repr=False)
    arrays: tuple[ArraySpec, ...]
    die: dict[int, str]


def _fail(where: str, what: str) -> InputError:
    return InputError(f"enochian-rules.yaml: {where}: {what}")


def _army(value: object, where: str) -> int:
    if not isinstance(value, str) or value not in ARMY_INDEX:
        raise _fail(where, f"unknown army {value!r}")
    return ARMY_INDEX[value]


def _parse_array(raw: object, i: int) -> ArraySpec:
    if not isinstance(raw, dict):
        raise _fail(f"arrays[{i}]", "must be a mapping")
    where = f"arrays[{i}] ({raw.get('id', '?')})"
    for key in (
        "id",
        "name",
        "board",
        "setting",
        "first_player",
        "turn_order",
        "throne_partner",
        "die_original_gd",
        "men",
    ):
        if key not in raw:
            raise _fail(where, f"missing {key!r}")
    for key in ("board", "setting"):
        _army(raw[key], f"{where}.{key}")
    first = _army(raw["first_player"], f"{where}.first_player")
    orders: dict[str, tuple[int, ...]] = {}
    to = raw["turn_order"]
    if not isinstance(to, dict) or set(to) != set(DIRECTIONS):
        raise _fail(f"{where}.turn_order", "needs exactly deosil and widdershins")
    for d in DIRECTIONS:
        order = tuple(_army(a, f"{where}.turn_order.{d}") for a in to[d])
        if sorted(order) != [0, 1, 2, 3] or order[0] != first:
            raise _fail(
                f"{where}.turn_order.{d}",
                "must list each army once, starting with the first player",
            )
        for j in range(4):  # teams must alternate
            if order[j] % 2 == order[(j + 1) % 4] % 2:
                raise _fail(f"{where}.turn_order.{d}", "teams must alternate")
        orders[d] = order
    partner = raw["throne_partner"]
    if partner not in ("queen", "bishop", "knight", "rook"):
        raise _fail(f"{where}.throne_partner", f"unknown kind {partner!r}")
    die = raw["die_original_gd"]
    if (
        not isinstance(die, dict)
        or sorted(die) != [1, 2, 3, 4, 5, 6]
        or any(v not in DIE_KINDS for v in die.values())
    ):
        raise _fail(f"{where}.die_original_gd", "must map 1..6 to kinds")
    men: list[Man] = []
    if not isinstance(raw["men"], list) or not raw["men"]:
        raise _fail(f"{where}.men", "must be a non-empty list")
    per_square: dict[int, list[Man]] = {}
    for j, entry in enumerate(raw["men"]):
        w = f"{where}.men[{j}]"
        if not isinstance(entry, list) or len(entry) not in (3, 4):
            raise _fail(w, "must be [square, army, kind] or [square, army, kind, extra]")
        sq_name, army_name, kind = entry[0], entry[1], entry[2]
        if sq_name not in SQUARE_INDEX:
            raise _fail(w, f"bad square {sq_name!r}")
        sq = SQUARE_INDEX[sq_name]
        army = _army(army_name, w)
        extra = entry[3] if len(entry) == 4 else None
        patron = None
        if kind == "pawn":
            if extra not in ("queen", "bishop", "knight", "rook"):
                raise _fail(w, f"pawn needs a patron (queen, bishop, knight, rook), not {extra!r}")
            patron = extra
        elif kind in ("queen", "bishop"):
            if extra is not None and extra != system_of(sq):
                raise _fail(w, f"{kind} on {sq_name} stands on {system_of(sq)}, not {extra}")
        elif kind in ("king", "knight", "rook"):
            if extra is not None:
                raise _fail(w, f"a {kind} takes no fourth field")
        else:
            raise _fail(w, f"unknown kind {kind!r}")
        man = Man(sq, army, kind, patron)
        men.append(man)
        per_square.setdefault(sq, []).append(man)
    for sq, here in per_square.items():
        if len(here) > 2 or (
            len(here) == 2
            and not (
                sq == THRONES[here[0].army]
                and here[0].army == here[1].army
                and sorted(m.kind for m in here) == sorted(["king", partner])
            )
        ):
            raise _fail(
                where,
                f"square {list(SQUARE_INDEX)[sq]} holds {len(here)} men "
                "(only a throne may hold its king and the throne partner)",
            )
    for a in range(4):
        kings = [m for m in men if m.army == a and m.kind == "king"]
        if len(kings) != 1:
            raise _fail(where, f"{ARMY_NAMES[a]} needs exactly one king")
    return ArraySpec(
        id=raw["id"],
        name=raw["name"],
        board=raw["board"],
        setting=raw["setting"],
        first_player=first,
        turn_order=orders,
        throne_partner=BASE_KIND[partner],
        die_original_gd={int(k): v for k, v in die.items()},
        men=tuple(men),
    )


def parse_rulebook(data: object) -> RuleBook:
    """Validate a parsed rule file; every error names the entry it is about."""
    if not isinstance(data, dict):
        raise _fail("top level", "must be a mapping")
    for key in ("armies", "teams", "directions", "diagonal_systems", "die", "options", "arrays"):
        if key not in data:
            raise _fail("top level", f"missing {key!r}")
    armies = data["armies"]
    if not isinstance(armies, dict) or list(armies) != list(ARMY_NAMES):
        raise _fail("armies", f"must list {', '.join(ARMY_NAMES)} in deosil order")
    for i, name in enumerate(ARMY_NAMES):
        entry = armies[name]
        if not isinstance(entry, dict) or entry.get("throne") != list(SQUARE_INDEX)[THRONES[i]]:
            raise _fail(f"armies.{name}", "throne must be its corner square")
        if entry.get("ally") != ARMY_NAMES[i ^ 2]:
            raise _fail(f"armies.{name}.ally", f"must be {ARMY_NAMES[i ^ 2]}")
    if data["teams"] != {"actives": ["air", "fire"], "passives": ["water", "earth"]}:
        raise _fail("teams", "must be actives [air, fire] and passives [water, earth]")
    if data["directions"] != {
        "deosil": list(ARMY_NAMES),
        "widdershins": ["air", "earth", "fire", "water"],
    }:
        raise _fail("directions", "deosil must be air, water, fire, earth; widdershins reversed")
    die = data["die"].get("zalewski") if isinstance(data["die"], dict) else None
    if (
        not isinstance(die, dict)
        or sorted(die) != [1, 2, 3, 4, 5, 6]
        or any(v not in DIE_KINDS for v in die.values())
    ):
        raise _fail("die.zalewski", "must map 1..6 to kinds")
    opts = data["options"]
    if not isinstance(opts, dict):
        raise _fail("options", "must be a mapping")
    defaults = RuleOptions().as_dict()
    for name, entry in opts.items():
        if name not in defaults:
            raise _fail(f"options.{name}", "unknown option")
        if not isinstance(entry, dict) or entry.get("default") != defaults[name]:
            raise _fail(f"options.{name}", f"default must be {defaults[name]!r}")
    if set(opts) != set(defaults):
        raise _fail("options", f"missing {sorted(set(defaults) - set(opts))}")
    raw_arrays = data["arrays"]
    if not isinstance(raw_arrays, list) or not raw_arrays:
        raise _fail("arrays", "must be a non-empty list")
    arrays = tuple(_parse_array(a, i) for i, a in enumerate(raw_arrays))
    ids = [a.id for a in arrays]
    if len(set(ids)) != len(ids):
        raise _fail("arrays", "ids must be unique")
    return RuleBook(data=data, arrays=arrays, die={int(k): v for k, v in die.items()})


def load_rulebook(path: str | Path | None = None) -> RuleBook:
    """Load and validate a rule file (the packaged one by default)."""
    if path is None:
        return _packaged()
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    return _parse_text(text)


def _parse_text(text: str) -> RuleBook:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InputError(f"enochian-rules.yaml: not valid YAML: {exc}") from None
    return parse_rulebook(data)


@lru_cache(maxsize=1)
def _packaged() -> RuleBook:
    text = (
        resources.files("enoch.enochian")
        .joinpath("data/enochian-rules.yaml")
        .read_text(encoding="utf-8")
    )
    return _parse_text(text)


def available_arrays() -> list[ArraySpec]:
    """Every starting array of the rule file, in file order."""
    return list(_packaged().arrays)


def _norm(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def find_array(name: str) -> ArraySpec:
    """An array by id (``earth_of_fire``) or name (``"Earth of Fire"``), case-insensitive."""
    key = _norm(name)
    for spec in _packaged().arrays:
        if _norm(spec.id) == key or _norm(spec.name) == key:
            return spec
    known = ", ".join(a.id for a in _packaged().arrays)
    raise InputError(f"unknown Enochian array {quote(name)} (known: {known})")


__all__ = [
    "BISHOP",
    "KING",
    "QUEEN",
    "ArraySpec",
    "Man",
    "RuleBook",
    "RuleOptions",
    "available_arrays",
    "find_array",
    "load_rulebook",
    "parse_options",
    "parse_rulebook",
]
