"""Every historical array set up as arrays.yaml says; perft counts locked for every array.

How the counts were checked: ``reference.py`` is an independent, slow move generator written
from the decisions note alone (dicts of squares, coordinates, copy-and-test legality). Depths
1-4 from every array (deosil) agreed with it before ``perft.json`` was written; the fast test
re-checks depth 2 for every array and depth 3 for two, the slow soak depth 4 for all.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import reference as R
import yaml
from helpers import DATA, arrays_yaml

from enoch.enochian.geometry import ARMY_NAMES, KIND_NAMES, SQUARE_NAMES, THRONES
from enoch.enochian.spec import available_arrays, find_array, load_rulebook, parse_rulebook
from enoch.enochian.state import State, new_game
from enoch.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
PERFT = json.loads((DATA / "perft.json").read_text())["counts"]
IDS = [a.id for a in available_arrays()]


def test_rule_file_copies_are_identical() -> None:
    docs = (ROOT / "docs" / "enochian-rules.yaml").read_bytes()
    pkg = (ROOT / "src" / "enoch" / "enochian" / "data" / "enochian-rules.yaml").read_bytes()
    assert docs == pkg


def test_sixteen_arrays_found_by_id_and_name() -> None:
    assert len(IDS) == 16
    assert find_array("Earth of Fire").id == "earth_of_fire"
    assert find_array("WATER_OF_AIR").name == "Water of Air"
    with pytest.raises(InputError, match="unknown Enochian array"):
        find_array("spirit_of_fire")


@pytest.mark.parametrize("array_id", IDS)
def test_array_matches_arrays_yaml(array_id: str) -> None:
    src = next(a for a in arrays_yaml()["arrays"] if a["id"] == array_id)
    st = new_game(array_id)
    got = sorted((SQUARE_NAMES[s], ARMY_NAMES[a], KIND_NAMES[k]) for s, a, k in st.men())
    want = sorted((p["square"], p["army"], p["kind"]) for p in src["pieces"])
    assert got == want
    patrons = {(p["square"], p["army"]): p["patron"] for p in src["pieces"] if p["kind"] == "pawn"}
    for s, a, k in st.men():
        if k >= 5:
            assert KIND_NAMES[k - 4] == patrons[(SQUARE_NAMES[s], ARMY_NAMES[a])]
    assert [ARMY_NAMES[a] for a in st.config.order] == src["turn_order"]["deosil"]
    assert st.army_to_move == st.config.order[0]
    assert ARMY_NAMES[st.army_to_move] == src["first_player"]
    assert st.shared == 0b1111
    for a in range(4):
        assert SQUARE_NAMES[THRONES[a]] == src["throne_squares"][ARMY_NAMES[a]]
        assert st.king_square(a) == THRONES[a]


def _reference_start(array_id: str, direction: str = "deosil") -> R.Pos:
    spec = find_array(array_id)
    men: dict[str, list[R.Man]] = {}
    for m in spec.men:
        men.setdefault(SQUARE_NAMES[m.square], []).append(
            R.Man(ARMY_NAMES[m.army], m.kind, m.patron)
        )
    order = [ARMY_NAMES[a] for a in spec.turn_order[direction]]
    return R.Pos(men=men, to_move=order[0], order=order, partner=KIND_NAMES[spec.throne_partner])


@pytest.mark.parametrize("array_id", IDS)
def test_perft_locked(array_id: str) -> None:
    counts = PERFT[array_id]
    st = new_game(array_id)
    assert [st.perft(d) for d in range(1, 5)] == counts["deosil"][:4]
    st = new_game(array_id, "widdershins")
    assert [st.perft(d) for d in range(1, 4)] == counts["widdershins"][:3]


@pytest.mark.parametrize("array_id", IDS)
def test_perft_depth2_matches_reference(array_id: str) -> None:
    assert R.perft(_reference_start(array_id), 2) == PERFT[array_id]["deosil"][1]


@pytest.mark.parametrize("array_id", ["fire_of_fire", "water_of_water"])
def test_perft_depth3_matches_reference(array_id: str) -> None:
    assert R.perft(_reference_start(array_id), 3) == PERFT[array_id]["deosil"][2]


@pytest.mark.slow
@pytest.mark.parametrize("array_id", IDS)
def test_perft_deep(array_id: str) -> None:
    assert R.perft(_reference_start(array_id), 4) == PERFT[array_id]["deosil"][3]
    assert new_game(array_id).perft(5) == PERFT[array_id]["deosil"][4]
    assert new_game(array_id, "widdershins").perft(4) == PERFT[array_id]["widdershins"][3]


def test_perft_does_not_change_the_state() -> None:
    st = new_game("air_of_air")
    key, log = st.key(), list(st.log)
    st.perft(3)
    assert st.key() == key and st.log == log


# --- the rule file is validated at load ----------------------------------------------------


def _rules() -> dict[str, Any]:
    rules: dict[str, Any] = yaml.safe_load((ROOT / "docs" / "enochian-rules.yaml").read_text())
    return rules


@pytest.mark.parametrize(
    ("breakage", "message"),
    [
        (
            lambda d: d["arrays"][2]["men"][3].__setitem__(2, "quen"),
            r"arrays\[2\] \(water_of_fire\)"
            r"\.men\[3\]: unknown kind",
        ),
        (lambda d: d["arrays"][0]["men"][5].__setitem__(0, "z9"), r"men\[5\]: bad square"),
        (lambda d: d["arrays"][1].pop("first_player"), r"arrays\[1\] \(air_of_fire\): missing"),
        (lambda d: d["arrays"][0]["turn_order"]["deosil"].reverse(), "turn_order.deosil"),
        (
            lambda d: d["options"]["ally_king_capture"].__setitem__("default", False),
            "options.ally_king_capture",
        ),
        (lambda d: d["arrays"][0]["men"][2].__setitem__(3, "cancer"), r"stands on aries"),
        (lambda d: d["arrays"][0]["men"].append(["b8", "air", "rook"]), "holds 2 men"),
        (lambda d: d["armies"]["air"].__setitem__("throne", "b8"), "armies.air"),
        (lambda d: d.pop("die"), "missing 'die'"),
    ],
)
def test_broken_rule_file_names_the_entry(breakage: Any, message: str) -> None:
    data = _rules()
    breakage(data)
    with pytest.raises(InputError, match=message):
        parse_rulebook(data)


def test_unreadable_rule_file(tmp_path: Path) -> None:
    bad = tmp_path / "r.yaml"
    bad.write_text("arrays: [")
    with pytest.raises(InputError, match="not valid YAML"):
        load_rulebook(bad)
    with pytest.raises(InputError, match="cannot read"):
        load_rulebook(tmp_path / "missing.yaml")


def test_state_class_is_exported() -> None:
    assert isinstance(new_game(), State)
