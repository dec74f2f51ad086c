"""Typed policy parameters, presets, and ``balancelab tune`` (issue 13 section 1)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from balancelab.cli import app
from balancelab.games import get_game
from balancelab.policies import presets as P
from balancelab.policies.base import PolicyError, available, build, resolve
from balancelab.simulate.odyssey import OdysseyOptions

runner = CliRunner()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("crew-team:lif_alarm=9", "policy 'crew-team' parameter 'lif_alarm' takes an integer "
                                  "in [1, 7]; got 9"),
        ("crew-team:lif_alarm=2.5", "parameter 'lif_alarm' takes an integer in [1, 7]; got 2.5"),
        ("crew-team:run_bonus=x", "parameter 'run_bonus' takes a number in [0, 12]; got x"),
        ("crew-team:repair=3", "parameter 'repair' takes true or false; got 3"),
        ("crew-team:preset=nonesuch", "has no preset 'nonesuch'"),
    ],
)
def test_bad_parameters_give_one_line_errors(spec: str, message: str) -> None:
    with pytest.raises(PolicyError, match=None) as exc:
        resolve(get_game("odyssey"), "crew", spec)
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)


def test_float_parameters_accept_integers_and_every_default_is_in_range() -> None:
    assert resolve(get_game("odyssey"), "crew", "crew-team:run_bonus=4") == \
        "crew-team:run_bonus=4"
    from balancelab.policies.base import entries_for

    for game in ("odyssey", "obcy", "iss"):
        g = get_game(game)
        for side in g.sides:
            for name, e in entries_for(game, side).items():
                f = e.factory
                for k, (lo, hi) in getattr(f, "param_ranges", {}).items():
                    assert lo <= f.params[k] <= hi, (game, name, k)
                    resolve(g, side, f"{name}:{k}={f.params[k]}")  # the default validates


def test_a_preset_sets_parameters_and_given_ones_override_it(monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    monkeypatch.setitem(P.PRESETS["odyssey"], "crew-team",
                        {"tuned": P.Preset({"lif_alarm": 6, "run_bonus": 1.0})})
    g = get_game("odyssey")
    o = OdysseyOptions()
    spec = resolve(g, "crew", "crew-team:preset=tuned,run_bonus=2")
    from balancelab.policies import base

    base._FACTORIES.clear()
    pol = build(g, o, 1, spec, np.random.default_rng(0))
    assert pol.cfg["lif_alarm"] == 6 and pol.cfg["run_bonus"] == 2
    assert P.tuned_spec("odyssey", "crew") == "crew-team:preset=tuned"
    base._FACTORIES.clear()


def test_tuned_spec_is_none_without_a_tuned_preset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(P.PRESETS, "iss", {})
    assert P.tuned_spec("iss", "player") is None


def test_tune_is_reproducible_resumable_and_checks_on_fresh_seeds(tmp_path: Path) -> None:
    from balancelab.questions import tune as T

    cfg = T.TuneConfig(get_game("odyssey"), "crew", "crew-team", budget=6, games_per_trial=2,
                       seed=3, options={"hal_turn_every": 2}, fresh_games=4)
    a = T.tune(cfg, tmp_path / "a")
    b = T.tune(cfg, tmp_path / "b")
    assert a.params == b.params and a.after == b.after  # same seed, same study
    assert a.trials == 3 and a.fresh_games == 4
    again = T.tune(cfg, tmp_path / "a")  # resumed: nothing left to do, the same answer
    assert again.params == a.params and again.trials == 3
    assert json.loads((tmp_path / "a" / "result.json").read_text())["spec"] == a.spec
    with pytest.raises(T.TuneError, match="holds another tuning study"):
        T.tune(T.TuneConfig(get_game("odyssey"), "crew", "crew-team", 8, 2, 3, {}, 4),
               tmp_path / "a")


def test_tune_command(tmp_path: Path) -> None:
    res = runner.invoke(app, ["tune", "odyssey", "--side", "crew", "--budget", "4",
                              "--trial-games", "2", "--fresh-games", "2", "--out",
                              str(tmp_path / "t"), "--quiet"])
    assert res.exit_code == 0, res.output
    assert "  tuned: crew-team:carrier_logic=" in res.output  # one unbroken line
    assert "fresh games" in " ".join(res.output.split())
    res = runner.invoke(app, ["tune", "odyssey", "--side", "pilot", "--out", str(tmp_path / "u")])
    assert res.exit_code == 1 and "unknown side 'pilot'" in res.output
    res = runner.invoke(app, ["tune", "odyssey", "--side", "crew", "--policy", "crew-rush",
                              "--out", str(tmp_path / "v")])
    assert res.exit_code == 1 and "no tunable parameters" in res.output


def test_every_shipped_preset_validates_and_names_its_command() -> None:
    for game, by_policy in P.PRESETS.items():
        g = get_game(game)
        for policy, named in by_policy.items():
            side = next(s for s in g.sides if policy in available(game, s))
            for name, preset in named.items():
                resolve(g, side, f"{policy}:preset={name}")
                spec = policy + ":" + ",".join(f"{k}={v}" for k, v in preset.params.items())
                resolve(g, side, spec)  # every value within its range
                if name.startswith("tuned"):
                    assert preset.command.startswith("balancelab tune ")


def test_the_default_hal_is_the_tuned_set() -> None:
    from balancelab.policies.odyssey import HalPressure

    assert HalPressure.params == P.PRESETS["odyssey"]["hal-pressure"]["tuned"].params
    assert P.tuned_spec("odyssey", "hal") == "hal-pressure:preset=tuned"
    assert P.tuned_spec("odyssey", "crew") is None  # no set beat the default at the rulebook's


def test_a_game_of_one_side_tunes_one_seat_against_the_defaults() -> None:
    """1998 ISS: every seat is a ``player``; the tuned spec sits in seat i % n of game i."""
    from balancelab.questions import tune as T

    g = get_game("iss")
    o = g.options_type.from_strings({"players": "2"})
    wins = T.side_wins(g, o, "player", "random", 4, 5)
    assert wins.shape == (4,) and not wins.any()  # random never beats builder (README ladder)


def test_the_default_dash_is_the_tuned_set() -> None:
    from balancelab.policies.obcy import DashPolicy

    tuned = P.PRESETS["obcy"]["dash"]["tuned"].params
    assert {k: DashPolicy.params[k] for k in tuned} == tuned
    assert P.tuned_spec("obcy", "expedition") == "dash:preset=tuned"


def test_a_game_stopped_by_the_round_cap_costs_the_objective_a_win() -> None:
    """A capped game is never a win, and with the penalty it also undoes one: a set that
    stalls scores below one that loses (tune's module docstring)."""
    from balancelab.questions import tune as T

    won = np.array([True, True, False, False])
    lost = np.array([False, False, False, False])
    stalled = np.array([False, False, True, True])
    assert T.objective_value(won, lost, 1.0) == 0.5
    assert T.objective_value(won, stalled, 1.0) == 0.0  # two wins undone by two capped games
    assert T.objective_value(won, stalled, 0.0) == 0.5  # no penalty: a capped game is a loss
    assert T.objective_value(won[:0], stalled[:0], 1.0) == 0.0
    g = get_game("obcy")
    o = g.options_type.from_strings({"max_rounds": "3"})  # every game stops at the cap
    won, capped = T.side_games(g, o, "expedition", "default", 3, 0)
    assert capped.all() and not won.any()
    assert T.objective_value(won, capped, 1.0) == -1.0


def test_a_study_from_before_the_cap_penalty_resumes_only_without_it(tmp_path: Path) -> None:
    from balancelab.questions import tune as T

    cfg = T.TuneConfig(get_game("odyssey"), "crew", "crew-team", budget=2, games_per_trial=2,
                       seed=3, fresh_games=2, cap_penalty=0.0)
    old = json.loads(json.dumps(cfg.record()))
    del old["cap_penalty"]
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "tune.json").write_text(json.dumps(old))
    with pytest.raises(T.TuneError, match="holds another tuning study"):
        T.tune(dataclasses.replace(cfg, cap_penalty=1.0), tmp_path / "t")
    with pytest.raises(T.TuneError, match="cap penalty must be a number >= 0"):
        T.tune(dataclasses.replace(cfg, cap_penalty=-1.0), tmp_path / "u")
    assert T.tune(cfg, tmp_path / "t").trials == 1


def test_the_fast_iss_search_preset_is_the_measured_budget() -> None:
    import numpy as np

    from balancelab.policies import build

    g = get_game("iss")
    opts = g.options_type.from_strings({"players": "2"})
    assert resolve(g, "player", "search:preset=fast") == "search:preset=fast"
    pol = build(g, opts, 0, "search:preset=fast", np.random.default_rng(0))
    assert (pol.rollouts, pol.depth, pol.rollout, pol.z) == (16, 10, "default", 1.0)
