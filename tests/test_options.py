"""The shared rule-options machinery: parsing, validation messages, labels, columns."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from balancelab.simulate.options import OptionError, RuleOptions, describe, option


@dataclass(frozen=True)
class ToyOptions(RuleOptions):
    GAME = "toy"
    crew: int = option(3, source="rulebook: HAL Turn", help="crewmembers", choices=(2, 3, 4),
                       key=True)
    limit: int = option(4, source="rulebook: System Tiles", help="limit", low=1, high=20)
    ratio: float = option(0.5, source="assumed: test", help="a ratio", low=0.0, high=1.0)
    strict: bool = option(True, source="assumed: test", help="a flag")
    talk: str = option("none", source="what-if: talk", help="talk", choices=("none", "open"))
    draws: tuple[int, ...] = option((2, 1), source="assumed: test", help="draws", low=0)


def test_defaults_and_label() -> None:
    o = ToyOptions()
    assert o.label() == "crew=3"
    assert o.replace(limit=5).label() == "crew=3,limit=5"
    assert o.changed() == {}


def test_from_strings_parses_types_and_dashes() -> None:
    o = ToyOptions.from_strings(
        {"crew": "2", "limit": "7", "ratio": "0.25", "strict": "false", "talk": "open",
         "draws": "3,0"}
    )
    assert (o.crew, o.limit, o.ratio, o.strict, o.talk, o.draws) == (2, 7, 0.25, False, "open",
                                                                      (3, 0))
    assert ToyOptions.from_strings({"strict": True}).strict is True
    assert o.columns()["draws"] == "3/0"
    assert o.label() == "crew=2,limit=7,ratio=0.25,strict=false,talk=open,draws=3/0"


def test_unknown_option_lists_valid_names() -> None:
    with pytest.raises(OptionError, match="did you mean crew"):
        ToyOptions.from_strings({"crw": "3"})
    with pytest.raises(OptionError, match="valid options: crew, draws, limit, ratio"):
        ToyOptions.from_strings({"zzz": "3"})


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"crew": "5"}, "must be one of 2, 3, 4; got 5"),
        ({"limit": "0"}, r"must be in \[1, 20\]; got 0"),
        ({"ratio": "1.5"}, r"must be in \[0.0, 1.0\]; got 1.5"),
        ({"limit": "four"}, "takes an integer, got 'four'"),
        ({"strict": "maybe"}, "takes a true/false"),
        ({"draws": "2,x"}, "takes comma-separated integers"),
        ({"draws": "2,-1"}, r"must be in \[0, inf\]"),
    ],
)
def test_bad_values_say_the_allowed_range(values: dict[str, str], message: str) -> None:
    with pytest.raises(OptionError, match=message):
        ToyOptions.from_strings(values)


def test_describe_lists_every_option_with_source() -> None:
    rows = {d["name"]: d for d in describe(ToyOptions)}
    assert list(rows) == ["crew", "limit", "ratio", "strict", "talk", "draws"]
    assert rows["crew"]["allowed"] == "2, 3, 4"
    assert rows["limit"]["allowed"] == "1..20"
    assert rows["crew"]["source"] == "rulebook: HAL Turn"


def test_a_run_written_before_a_late_option_still_reads(tmp_path) -> None:
    """An option added later is declared ``late``: at its default it stays out of a run's
    identity, so a run folder written before it existed still reads (adding
    ``lipread_null_play`` made every earlier odyssey run "edited"); set, it is in it."""
    import hashlib
    import json

    from balancelab.games import get_game
    from balancelab.simulate.runs import RunConfig, read_manifest, run

    out = tmp_path / "run"
    run(RunConfig(game="odyssey", variants=[], games=4), out, jobs=1, backend="sequential")
    m = json.loads((out / "run.json").read_text())
    late = [f.name for f in get_game("odyssey").options_type.specs() if f.metadata["late"]]
    assert "lipread_null_play" in late
    for v in m["config"]["variants"]:  # as a manifest written before the option existed
        for name in late:
            del v[name]
    # ... with the identity it had then: the hash of its configuration without them
    old = {k: m["config"][k] for k in ("game", "variants", "policies", "seed", "rotate",
                                        "chunk_games")}
    old["game_version"] = m["game_version"]
    m["identity"] = hashlib.sha1(json.dumps(old, sort_keys=True).encode()).hexdigest()[:8]
    (out / "run.json").write_text(json.dumps(m))
    assert read_manifest(out)["identity"] == m["identity"]
    o = get_game("odyssey").options_type
    same, moved = (RunConfig(game="odyssey", variants=[o.from_values(x)]).identity()
                   for x in ({"lipread_null_play": True}, {"lipread_null_play": False}))
    assert same == RunConfig(game="odyssey", variants=[]).identity() != moved
