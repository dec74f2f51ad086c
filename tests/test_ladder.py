"""The skill-ladder study (``balancelab study skill-ladder GAME``): the table of rungs, the
ranking by measurement (the screen, the confirmation on fresh deals), a tiny ladder end to end
through the command line, reproducible, and its errors."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from balancelab.cli import app
from balancelab.policies import base
from balancelab.questions import ladder_report
from balancelab.questions import rungs as ladder_rungs
from balancelab.questions.inputs import load_game
from balancelab.questions.study import STUDIES

cli = CliRunner()


@pytest.mark.parametrize("game", sorted(ladder_rungs.LADDERS))
def test_every_rung_is_a_valid_policy_and_the_oracle_is_the_only_cheat(game: str) -> None:
    lad = ladder_rungs.LADDERS[game]
    g = load_game(game)
    assert lad.study in STUDIES and set(lad.grid) <= set(STUDIES[lad.study].grid)
    for side, rungs in lad.rungs.items():
        names = [r.name for r in rungs]
        assert names[:3] == ["random", "scripted", "tuned"]  # the tuned slot is kept
        assert rungs[1].spec == g.default_policies[side]
        for r in rungs:
            if r.spec is not None:
                base.resolve(g, side, r.spec)
            assert r.cheat == (r.spec is not None and r.spec.startswith("oracle"))
        fair = ladder_rungs.fair_rungs(lad, side)
        assert fair and not any(r.cheat for r in fair)


def test_budget_scale_scales_the_search_budget_only() -> None:
    assert ladder_rungs.scaled("ismcts:iterations=40,depth=8", 0.1) == "ismcts:iterations=4,depth=8"
    assert ladder_rungs.scaled("ismcts:iterations=4,depth=8", 0.01) == "ismcts:iterations=1,depth=8"
    assert ladder_rungs.scaled("search:rollouts=32,depth=8,z=1", 0.25) == (
        "search:rollouts=8,depth=8,z=1")
    assert ladder_rungs.scaled("builder", 0.1) == "builder"


def _ladder(out: Path, games: int = 2, *more: str) -> dict:
    res = cli.invoke(app, ["study", "skill-ladder", "iss", "--games", str(games),
                           "--verdict-games", "1", "--budget-scale", "0.1", "--jobs", "1",
                           "--minutes", "0", "--quiet", "--out", str(out), *more])
    assert res.exit_code == 0, res.output
    assert "Skill ladder of" in res.output
    assert ("the verdict is stable across the top two rungs" in res.output.lower()
            or "It changes:" in res.output)
    return json.loads((out / "study.json").read_text())


def test_a_tiny_ladder_runs_end_to_end_and_is_reproducible(tmp_path: Path) -> None:
    from balancelab.questions.sweep import block_seeds
    from balancelab.simulate.runs import MANIFEST, read_manifest

    a = _ladder(tmp_path / "a")
    b = _ladder(tmp_path / "b")
    keep = ("side", "stage", "rung", "policy", "games", "wins", "diff", "status")
    assert [{k: r[k] for k in keep} for r in a["rates"]] == [
        {k: r[k] for k in keep} for r in b["rates"]]
    screened = {r["rung"] for r in a["rates"] if r["stage"] == "screen"}
    assert screened == {"random", "scripted", "search fast", "search", "ismcts small",
                        "ismcts large", "oracle (CHEAT)"}
    # --minutes 0: the first round only, and the least confirmation (--games), on 3 rungs
    # at most: the screen's top two and the scripted default
    assert {r["games"] for r in a["rates"]} == {2}
    confirmed = [r for r in a["rates"] if r["stage"] == "confirmation"]
    s = a["strongest"]["player"]
    assert {r["rung"] for r in confirmed} == {s["lead"], s["runner_up"], "scripted"}
    assert s["rounds"] == [2] and s["confirm_games"] == 2
    # the kept rung is one of the top two, or the scripted default when neither is decided
    # above it on the fresh deals (2 games decide nothing)
    assert s["kept"] == (s["lead"] if s["decided"] else "scripted")
    assert s["decided"] == (s["rung"] is not None)
    md = (tmp_path / "a" / "report" / "report.md").read_text()
    assert "CHEAT" in md and "The screen" in md and "The confirmation on fresh deals" in md
    # the verdict table speaks the rulebook's words, not the option and measure columns
    assert "2 shuttles removed" in md
    for internal in ("remove_shuttles", "tie_break", "mean turns_", "seat0"):
        assert internal not in md, internal
    assert a["stable"] in (True, False)
    # the confirmation plays fresh deals, never the screen's: seed block 2 of the ladder's
    # seed (an independent block); the screen and the verdict runs play the seed itself
    screen, fresh = block_seeds(0, 2)
    assert a["seeds"] == {"screen": screen, "confirmation": fresh} and screen != fresh
    seeds = {p.name: read_manifest(p)["config"]["seed"] for p in (tmp_path / "a").iterdir()
             if (p / MANIFEST).exists()}
    assert {s for name, s in seeds.items() if name.startswith("confirm-")} == {fresh}
    assert {s for name, s in seeds.items() if not name.startswith("confirm-")} == {0}
    assert sum(name.startswith("confirm-") for name in seeds) == len(confirmed)


def test_resume_completes_or_extends_the_ladders_runs(tmp_path: Path) -> None:
    """An interrupted or smaller ladder goes on with ``--resume`` (the runs it left keep their
    games); without it the command says how to go on, in one line."""
    _ladder(tmp_path, 2)
    res = cli.invoke(app, ["study", "skill-ladder", "iss", "--games", "3", "--verdict-games",
                           "1", "--budget-scale", "0.1", "--jobs", "1", "--minutes", "0",
                           "--quiet", "--out", str(tmp_path)])
    assert res.exit_code == 1 and "--resume" in res.output
    a = _ladder(tmp_path, 4, "--resume")
    assert {r["games"] for r in a["rates"]} == {4}


@pytest.mark.parametrize(("args", "message"), [
    (["study", "skill-ladder"], "needs a game"),
    (["study", "skill-ladder", "chess"], "no skill ladder for game 'chess'"),
    (["study", "hal-difficulty", "odyssey"], "takes no game argument"),
])
def test_errors_are_one_line(args: list[str], message: str) -> None:
    res = cli.invoke(app, args)
    assert res.exit_code == 1
    assert message in res.output


def _toy_rungs() -> list[ladder_rungs.Rung]:
    return [ladder_rungs.Rung("random", "random"), ladder_rungs.Rung("scripted", "hunter"),
            ladder_rungs.Rung("ismcts small", "ismcts:iterations=6"),
            ladder_rungs.Rung("ismcts large", "ismcts:iterations=16")]


COST = {"random": 0.01, "scripted": 0.05, "ismcts small": 0.6, "ismcts large": 1.1}


def _won(n: int, **rates: int) -> dict[str, list[bool]]:
    """Nested outcomes: a rung with k wins wins games 0..k-1 (paired: the stronger rung wins
    every game the weaker one does)."""
    return {name.replace("_", " "): [i < k for i in range(n)] for name, k in rates.items()}


def test_the_screen_drops_rungs_decided_below_the_leader_and_keeps_the_close_ones() -> None:
    """The leader is the best measured rung (not the table's top); a rung whose paired
    difference from it is decided below (at the screen's Bonferroni level) is dropped, a close
    one stays open, and an equal rate goes to the cheaper rung."""
    level = ladder_rungs.screen_level(4)
    assert level == pytest.approx(1 - 0.05 / (3 * ladder_rungs.SCREEN_ROUNDS))
    won = _won(40, random=2, scripted=30, ismcts_small=26, ismcts_large=10)
    looks = ladder_rungs.screen_look(_toy_rungs(), won, COST, set(), level)
    status = {lk.rung.name: lk.status for lk in looks}
    assert looks[0].rung.name == "scripted" and looks[0].status == ladder_rungs.LEADER
    assert status == {"scripted": "leader", "ismcts small": "open", "ismcts large": "dropped",
                      "random": "dropped"}
    small = next(lk for lk in looks if lk.rung.name == "ismcts small")
    assert small.vs_leader is not None and small.vs_leader.diff == pytest.approx(-0.1)
    assert small.vs_leader.level == pytest.approx(level)
    assert (small.vs_leader.lo, small.vs_leader.hi) == pytest.approx((-0.2555, 0.0558), abs=1e-4)
    assert ladder_rungs.runner_up(looks).rung.name == "ismcts small"
    # a tie for the lead goes to the cheaper rung, never to random over the script; a
    # dropped rung stays dropped
    tie = _won(40, random=30, scripted=30, ismcts_small=30, ismcts_large=30)
    looks = ladder_rungs.screen_look(_toy_rungs(), tie, COST, {"ismcts large"}, level)
    assert [lk.rung.name for lk in looks] == ["scripted", "ismcts small", "ismcts large",
                                              "random"]
    assert {lk.rung.name: lk.status for lk in looks}["ismcts large"] == "dropped"
    # the same outcomes on 400 games settle a rung within ±5 points as equivalent
    same = _won(400, random=20, scripted=300, ismcts_small=300, ismcts_large=100)
    looks = ladder_rungs.screen_look(_toy_rungs(), same, COST, set(), level)
    assert {lk.rung.name: lk.status for lk in looks}["ismcts small"] == "equivalent"
    with pytest.raises(ValueError, match="no measured games for rung"):
        ladder_rungs.screen_look(_toy_rungs(), {"scripted": [True]}, COST, set(), level)


def test_a_round_extends_the_leader_and_the_cheapest_open_rungs_the_budget_affords() -> None:
    won = _won(8, random=0, scripted=5, ismcts_small=5, ismcts_large=6)
    looks = ladder_rungs.screen_look(_toy_rungs(), won, COST, set(), 0.99)
    assert looks[0].rung.name == "ismcts large"
    # doubling to 16: the leader 8 x 1.1 = 8.8, scripted 0.4, small 4.8 core-seconds
    assert ladder_rungs.plan_round(looks, 100.0) == {"ismcts large": 16, "scripted": 16,
                                                     "ismcts small": 16}
    assert ladder_rungs.plan_round(looks, 10.0) == {"ismcts large": 16, "scripted": 16}
    assert ladder_rungs.plan_round(looks, 9.0) == {}  # the leader alone: nothing to decide
    settled = [replace(lk, status=ladder_rungs.DROPPED) if i else lk
               for i, lk in enumerate(looks)]
    assert ladder_rungs.plan_round(settled, 100.0) == {}


def test_the_strongest_is_named_only_when_its_lead_is_decided_on_fresh_deals() -> None:
    scripted, search = ladder_rungs.Rung("scripted", "hunter"), ladder_rungs.Rung(
        "search", "search:rollouts=32")
    cost = {"scripted": 0.08, "search": 3.4}
    # 80 fresh deals: search wins 70, scripted 54 (every game scripted wins, search wins too)
    decided = ladder_rungs.confirm(search, scripted, _won(80, search=70, scripted=54), cost)
    assert decided.strongest is search and decided.kept is search
    assert decided.other is scripted and not decided.equivalent
    assert decided.diff.diff == pytest.approx(0.2) and decided.diff.lo > 0
    assert ladder_rungs.decision_words(decided, 80).startswith(
        "the strongest fair rung is search: its lead over scripted is decided on 80 fresh "
        "deals, +20.0 [+")
    # 8 deals: the same lead is a tie, and the verdict runs keep the cheaper rung
    tie = ladder_rungs.confirm(search, scripted, _won(8, search=7, scripted=5), cost)
    assert tie.strongest is None and tie.kept is scripted and tie.other is search
    assert tie.diff.lo < 0 < tie.diff.hi and not tie.equivalent
    words = ladder_rungs.decision_words(tie, 8)
    assert words.startswith("a tie: search against scripted on 8 fresh deals, +25.0 [")
    assert words.endswith("not decided (the interval reaches 0); the verdict runs keep the "
                          "scripted default, scripted")
    # a tie of two searches keeps the cheaper one
    large = ladder_rungs.Rung("ismcts large", "ismcts:iterations=16")
    two = ladder_rungs.confirm(large, search, _won(8, search=7, ismcts_large=7),
                               {**cost, "ismcts large": 1.1})
    assert two.strongest is None and two.kept is large and two.other is search
    assert ladder_rungs.decision_words(two, 8).endswith("keep the cheaper, ismcts large")
    # ... unless the scripted default played the same fresh deals and the cheaper one is not
    # decided above it there: then the tie keeps the scripted default
    three = _won(80, search=70, ismcts_large=70, scripted=66)
    kept = ladder_rungs.confirm(large, search, three, {**cost, "ismcts large": 1.1}, scripted)
    assert kept.strongest is None and kept.kept is scripted and kept.other is large
    assert ladder_rungs.decision_words(kept, 80).endswith(
        "neither is decided above the scripted default there, so the verdict runs keep the "
        "scripted default, scripted")
    above = _won(80, search=70, ismcts_large=70, scripted=54)
    assert ladder_rungs.confirm(large, search, above, {**cost, "ismcts large": 1.1},
                                scripted).kept is large
    # the screen's runner-up decided ahead on fresh deals is the strongest
    turned = ladder_rungs.confirm(scripted, search, _won(80, search=70, scripted=54), cost)
    assert turned.strongest is search and turned.kept is search
    # equal on 400 deals: equivalent, a tie
    same = ladder_rungs.confirm(search, scripted, _won(400, search=200, scripted=200), cost)
    assert same.strongest is None and same.equivalent and same.kept is scripted


def test_the_confirmation_is_sized_by_the_screens_lead_within_the_budget() -> None:
    fair = _toy_rungs()[1:3]
    looks = ladder_rungs.screen_look(fair, _won(40, scripted=26, ismcts_small=34), COST,
                                     set(), 0.99)
    lead, second = looks[0], ladder_rungs.runner_up(looks)
    big = ladder_rungs.confirm_games(lead, second, 8, 10_000)
    # lead 0.2 on 20% discordant pairs: 1.2 x (1.96 + 1.28)^2 x 0.16 / 0.04 = 50.4 -> 51
    assert big == 51
    assert ladder_rungs.confirm_games(lead, second, 8, 20) == 20
    assert ladder_rungs.confirm_games(lead, second, 8, 3) == 8  # never below --games
    flat = ladder_rungs.screen_look(fair, _won(40, scripted=30, ismcts_small=30), COST,
                                    set(), 0.99)
    assert ladder_rungs.confirm_games(flat[0], ladder_rungs.runner_up(flat), 8, 10_000) == (
        ladder_rungs.CONFIRM_MAX)


def test_a_rung_19_points_stronger_is_named_and_the_weaker_never_is() -> None:
    """The issue's case (Obcy's ALIENS: search 86.7% against hunter's 67.3%): on 80 fresh
    paired deals the confirmation names the stronger rung in most ladders and the weaker one
    in none (the old ladder ranked the weaker first 26% of the time at 8 games)."""
    rng = np.random.default_rng(25)
    strong, weak = ladder_rungs.Rung("search", "s"), ladder_rungs.Rung("scripted", "h")
    named = {"search": 0, "scripted": 0, None: 0}
    for _ in range(400):
        u = rng.random(80)  # a common deal difficulty: both win the easy deals
        won = {"search": list(u < 0.867), "scripted": list(u < 0.673)}
        flip = rng.random(80) < 0.1  # and some deals go either way
        won["scripted"] = [w != f for w, f in zip(won["scripted"], flip, strict=True)]
        c = ladder_rungs.confirm(weak, strong, won, {"search": 3.4, "scripted": 0.08})
        named[c.strongest.name if c.strongest else None] += 1
    assert named["scripted"] == 0
    assert named["search"] >= 0.8 * 400


def test_a_verdict_changes_only_where_both_rungs_decide_it_differently() -> None:
    """Inconclusive at one rung and decided at the other is no contradiction (fewer games or
    noisier players decide less); raises against lowers or equivalent is a change."""
    assert ladder_report.agreement(["lowers", "lowers"]) == ladder_report.SAME
    assert ladder_report.agreement(["inconclusive", "inconclusive"]) == ladder_report.SAME
    assert ladder_report.agreement(["inconclusive", "lowers"]) == ladder_report.DECIDED_ONCE
    assert ladder_report.agreement(["equivalent", "inconclusive"]) == ladder_report.DECIDED_ONCE
    assert ladder_report.agreement(["raises", "lowers"]) == ladder_report.CHANGES
    assert ladder_report.agreement(["equivalent", "lowers"]) == ladder_report.CHANGES
    assert ladder_report.agreement(["raises", None]) == ladder_report.CHANGES


def test_the_outside_rung_needs_openspiel(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel raises ImportError
    with pytest.raises(ladder_rungs.StudyError, match=r"pip install 'balancelab\[openspiel\]'"):
        ladder_rungs.check_openspiel()
    res = cli.invoke(app, ["study", "skill-ladder", "iss", "--openspiel"])
    assert res.exit_code == 1 and "--openspiel needs OpenSpiel" in res.output
