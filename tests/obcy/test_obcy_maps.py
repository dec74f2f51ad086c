"""Obcy maps: the connection rule, the rulebook's constraints, and the shipped alternatives
(design/obcy.md 3(d); rulebook 4.1 Airlocks, 4.2 Transporter, 9.1 Hatching)."""

from __future__ import annotations

import copy
import json
from collections import deque
from importlib import resources
from typing import Any

import pytest

from balancelab.questions import sensitivity
from balancelab.simulate import datafiles as D
from balancelab.simulate.obcy import board as B
from balancelab.simulate.obcy import maps
from balancelab.simulate.schema import validate


def _base() -> dict[str, Any]:
    with resources.files("balancelab.data").joinpath("obcy_map.json").open("r") as fh:
        return dict(json.load(fh))


def _alts() -> dict[str, dict[str, Any]]:
    out = {}
    for name, path in sensitivity.alternatives("obcy").items():
        with open(path) as fh:
            out[name] = json.load(fh)
    return out


def _walk(m: dict[str, Any], a: tuple[int, int], b: tuple[int, int]) -> int:
    """Walking distance a → b over the map's connections (corridors, doors, rooms)."""
    kinds = {f"{x},{y}": c for y, r in enumerate(m["rows"]) for x, c in enumerate(r)}
    start, goal = f"{a[0]},{a[1]}", f"{b[0]},{b[1]}"
    dist = {start: 0}
    q = deque([start])
    while q:
        u = q.popleft()
        for v in m["adjacency"].get(u, []):
            if v not in dist and kinds[v] not in "~%12345":
                dist[v] = dist[u] + 1
                q.append(v)
    return dist[goal]


def test_the_connection_rule_reproduces_the_base_map() -> None:
    m = _base()
    adj = maps.adjacency(m["rows"], m["vent_links"])
    assert {k: sorted(v) for k, v in adj.items()} == {
        k: sorted(v) for k, v in m["adjacency"].items()}
    maps.check(m)


def test_two_alternatives_ship_and_pass_every_constraint() -> None:
    alts = _alts()
    assert sorted(alts) == ["map-doors-hatching-moved", "map-south-corridor-cut"]
    for m in alts.values():
        validate(D.ObcyMap, m, "alternative")
        maps.check(m)
        # the rulebook's fixed counts
        cells = "".join(m["rows"])
        assert sorted(c for c in cells if c in "12345") == list("12345")
        assert cells.count("L") == 1
        assert len({tuple(m["features"][f"HATCH_{k}"]) for k in range(1, 6)}) == 5
        assert set(cells) - set(".#+~%L12345") == set("abcdefgh")


def test_the_alternatives_change_what_they_say() -> None:
    base, alts = _base(), _alts()
    moved = alts["map-doors-hatching-moved"]
    assert [moved["features"][f"HATCH_{k}"] for k in range(1, 6)] == [
        [16, 6], [20, 6], [21, 8], [20, 15], [18, 13]]
    assert [12, 6] not in moved["doors"] and [12, 8] in moved["doors"]
    assert len(moved["doors"]) == len(base["doors"]) == 11
    cut = alts["map-south-corridor-cut"]
    pad = tuple(base["landing_pad"])
    comp2 = tuple(base["features"]["COMPUTER_2"])
    # the design notes' 18 steps to computer 2 on the base map; by corridors, doors and rooms
    # alone 25 once the south corridor is cut, 19 through the duct grate joining the Supply
    # Depot and the Armoury; airlock 5: 18 -> 23
    assert _walk(base, pad, comp2) == B.DIST[B.PAD_SPACE][B.FEATURE["COMPUTER_2"]] == 18
    assert _walk(cut, pad, comp2) == 25
    bc = B.board_of(sensitivity.alternatives("obcy")["map-south-corridor-cut"])
    assert bc.DIST[bc.PAD_SPACE][bc.FEATURE["COMPUTER_2"]] == 19
    assert (B.DIST[B.PAD_SPACE][B.AIRLOCKS[4]], bc.DIST[bc.PAD_SPACE][bc.AIRLOCKS[4]]) == (18, 23)
    assert (sum(B.TRANSPORT_OK), sum(bc.TRANSPORT_OK), bc.N) == (228, 220, 294)
    bm = B.board_of(sensitivity.alternatives("obcy")["map-doors-hatching-moved"])
    # hatching 5 now in the south-east duct: 18 steps from the ship's corridor (base: 14)
    assert bm.DIST[bm.HATCHES[4]][bm.idx(2, 17)] == 18


def test_a_board_is_built_once_per_file_content(tmp_path: Any) -> None:
    src = sensitivity.alternatives("obcy")["map-south-corridor-cut"]
    copy_ = tmp_path / "mine.json"
    copy_.write_bytes(open(src, "rb").read())
    assert B.board_of(src) is B.board_of(str(copy_))
    assert B.board_of("") is B.DEFAULT


@pytest.mark.parametrize("alt", ["map-doors-hatching-moved", "map-south-corridor-cut"])
def test_games_on_each_alternative_map_play_to_the_end(alt: str) -> None:
    """Scripted players on both sides, both Queen variants: every game ends (a winner or
    the round cap) and its moves stay on the alternative's spaces."""
    import numpy as np

    from balancelab.games import get_game
    from balancelab.simulate.obcy.rules import ObcyOptions
    from balancelab.simulate.runs import RunConfig
    from balancelab.simulate.worker import play_chunk

    path = sensitivity.alternatives("obcy")[alt]
    bd = B.board_of(path)
    for variant in ("tasks", "roll"):
        o = ObcyOptions(map_file=path, queen_variant=variant)
        specs = RunConfig(game="obcy", variants=[o], policies={}, games=4).seat_specs(o)
        cols, _, _, _ = play_chunk("obcy", o.as_dict(), specs, True, 3, 0, 4, {})
        assert len(cols["winner"]) == 4
        for w, why in zip(cols["winner"], cols["end_reason"], strict=True):
            assert w in ("expedition", "aliens", "draw") or why == "cap"
    s = get_game("obcy").new_initial_state(ObcyOptions(map_file=path), np.random.default_rng(0))
    assert s.m_n == bd.N and s.c_pos[0] == bd.PAD_SPACE  # type: ignore[attr-defined]


def test_a_bad_map_file_is_one_line_error(tmp_path: Any) -> None:
    from balancelab.simulate.obcy.rules import ObcyOptions
    from balancelab.simulate.options import OptionError

    m = copy.deepcopy(_base())
    m["features"]["HATCH_5"] = m["features"]["HATCH_4"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(m))
    with pytest.raises(OptionError, match="five different hatching spaces"):
        ObcyOptions(map_file=str(bad))
    m = _base()
    m["colour"] = "red"
    bad.write_text(json.dumps(m))
    with pytest.raises(OptionError, match="colour"):
        ObcyOptions(map_file=str(bad))


@pytest.mark.parametrize(("edit", "words"), [
    (lambda m: m["rows"].__setitem__(2, m["rows"][2].replace("2", ".")), "five airlocks"),
    (lambda m: m["features"].__setitem__("HATCH_5", m["features"]["HATCH_4"]),
     "five different hatching spaces"),
    (lambda m: m["features"].__setitem__("COMPUTER_1", [0, 0]), "computer 1"),
    (lambda m: m["adjacency"].pop("2,8"), "'adjacency' does not agree"),
    (lambda m: m["rows"].__setitem__(17, m["rows"][17].replace("L", ".")), "landing pad"),
])
def test_a_map_breaking_a_rule_is_refused_in_words(edit: Any, words: str) -> None:
    m = copy.deepcopy(_base())
    edit(m)
    with pytest.raises(maps.MapError, match=words):
        maps.check(m)


def test_sensitivity_tries_the_alternatives_and_a_users_map(tmp_path: Any) -> None:
    from balancelab.games import get_game

    g = get_game("obcy")
    base = g.options_type.from_strings({})
    mine = tmp_path / "my-map.json"
    mine.write_text(json.dumps(_base()))
    perts = sensitivity.perturbations(g, base, only=["map_file"], data=[str(mine)])
    assert [(p.option, p.change, p.step) for p in perts] == [
        ("map_file", "map-doors-hatching-moved", "alternative"),
        ("map_file", "map-south-corridor-cut", "alternative"),
        ("map_file", "your my-map.json", "alternative")]
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(sensitivity.SensitivityError, match="--data .*bad.json.*map file"):
        sensitivity.perturbations(g, base, only=["map_file"], data=[str(bad)])


def test_a_map_file_is_hashed_into_the_run_identity(tmp_path: Any) -> None:
    from balancelab.simulate.obcy.rules import ObcyOptions
    from balancelab.simulate.runs import RunConfig

    mine = tmp_path / "my-map.json"
    mine.write_text(json.dumps(_base()))
    cfg = RunConfig(game="obcy", variants=[ObcyOptions(map_file=str(mine))], policies={},
                    games=2)
    (rec,) = cfg.data_files()
    assert rec["option"] == "map_file" and len(rec["sha256"]) == 64
    before = cfg.identity()
    m = _base()
    m["name"] = "edited"
    mine.write_text(json.dumps(m))
    assert cfg.identity() != before
