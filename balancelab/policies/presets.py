"""Named parameter sets of the players: ``crew-team:preset=tuned``, ``search:preset=fast``.

A preset is a stored set of a policy's parameters, chosen by the ``preset`` key of a policy
spec; parameters given beside it override it (``crew-team:preset=tuned,lif_alarm=5``). Run
records keep the spec as written (``preset=tuned``), and the game's version is bumped when a
shipped preset changes, so a record names one set of values.

Every ``tuned`` preset here came from ``balancelab tune`` (:mod:`balancelab.questions.tune`); its
``command`` reproduces it (same seed, same budget, same result).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from balancelab.policies.errors import PolicyError


@dataclass(frozen=True)
class Preset:
    """A named parameter set of one policy.

    Attributes:
        params: parameter → value (each within the policy's ``param_ranges``).
        command: the ``balancelab tune`` command that found it ('' for hand-made sets).
        note: the measured gain, in words (win rates before → after on fresh seeds).
    """

    params: dict[str, Any]
    command: str = ""
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


#: game → policy → preset name → preset
PRESETS: dict[str, dict[str, dict[str, Preset]]] = {
    "odyssey": {
        "hal-pressure": {
            "tuned": Preset(
                {"door7_weight": 0.564, "door_gain": 3.203, "down_weight": 0.4567,
                 "lif_weight": 1.244, "lipread_keep": 3.21, "scan_weight": 0.6376,
                 "sys_weight": 1.095, "target_weight": 1.378},
                command="balancelab tune odyssey --side hal --policy hal-pressure:preset=classic "
                        "--budget 4000 --trial-games 200 --fresh-games 3000 --seed 1 "
                        "--set hal_turn_every=2",
                extra={"found_with": "balancelab tune odyssey --side hal --budget 4000 "
                                      "--trial-games 200 --fresh-games 3000 --seed 1 --set "
                                      "hal_turn_every=2 (rules version 2, 1118 s)"},
                note="the default since rules version 3. HAL against crew-team, 3 crew, "
                     "hal_turn_every=2, 3000 fresh games: 14.3% [13.1, 15.6] -> 18.3% "
                     "[17.0, 19.7], +4.0 points [+2.4, +5.5] paired; at the rulebook's tempo "
                     "98.4% -> 98.2% (3000 games, no change)"),
            "classic": Preset(
                {"lif_weight": 3.0, "door7_weight": 1.0, "sys_weight": 1.0, "down_weight": 1.5,
                 "door_gain": 1.0, "target_weight": 0.5, "scan_weight": 0.4,
                 "lipread_keep": 8.0},
                note="hal-pressure's hand-set weights (rules version 2, with the Lipread fix)"),
        },
        "crew-team": {
            "tuned-hal2": Preset(
                {"carrier_logic": 0.7427, "carrier_step": 1.361, "feeder_logic": 0.9241,
                 "feeder_step": 1.429, "lif_alarm": 2, "lif_repair_lif": 1.422,
                 "override_pod": 2.845, "override_pod_lif": 1.482, "pod_alarm": 0,
                 "pod_open_lif": 1, "run_bonus": 2.154, "sys_min": 3, "wild_value": 7.053},
                command="balancelab tune odyssey --side crew --against "
                        "hal=hal-pressure:preset=classic --budget 4000 --trial-games 200 "
                        "--fresh-games 3000 --seed 1 --set hal_turn_every=2",
                note="for hal_turn_every=2 only: crew against hal-pressure:preset=classic, "
                     "3000 fresh games: 85.5% [84.2, 86.7] -> 88.6% [87.4, 89.7], +3.1 points "
                     "[+1.5, +4.7] paired; at the rulebook's tempo it is worse (1.6% -> 0.5%, "
                     "3000 games), and tuning at the rulebook's tempo found nothing better "
                     "than the default (-0.3 points [-0.9, +0.2] on 3000 fresh games)"),
        },
    },
    "obcy": {
        "dash": {
            "tuned": Preset(
                {"arm": 1, "block": 2, "danger": 2.511, "queen_s": 0.0,
                 "reenter_group": 1.392, "shot_min": 0.273, "spread": 6, "workers": 4},
                command="balancelab tune obcy --side expedition --policy dash:preset=tuned-v4 "
                        "--budget 16000 --trial-games 200 --fresh-games 2000 --seed 3",
                extra={"found_with": "balancelab tune obcy --side expedition --budget 16000 "
                                      "--trial-games 200 --fresh-games 2000 --seed 3 (rules "
                                      "version 5 before the default changed, when dash was "
                                      "preset tuned-v4; --cap-penalty 1; 1667 s)"},
                note="the default since rules version 5. Expedition against hunter, 2000 fresh "
                     "games: 25.3% [23.4, 27.3] -> 33.9% [31.9, 36.0], +8.6 points "
                     "[+6.2, +10.9] paired; round cap 0.2% -> 0.2% (a capped game cost one "
                     "win in the search's objective). The search found queen_s=0.8837, kept "
                     "at 0 (estimated): it acts only in Variant 1 (queen_variant=roll), and "
                     "the search played Variant 2"),
            "tuned-v4": Preset(
                {"arm": 1, "block": 2, "danger": 0.9139, "queen_s": 0.0,
                 "reenter_group": 2.047, "shot_min": 0.2406, "spread": 6, "workers": 1},
                command="balancelab tune obcy --side expedition --policy dash:preset=classic "
                        "--budget 3000 --trial-games 200 --fresh-games 600 --seed 2",
                extra={"found_with": "balancelab tune obcy --side expedition --budget 3000 "
                                      "--trial-games 200 --fresh-games 600 --seed 2 (rules "
                                      "version 4 before the default changed, 1245 s; before "
                                      "the cap penalty, so --cap-penalty 0)"},
                note="the default of rules version 4 (the tuned set then). Expedition against "
                     "hunter, 600 fresh games: 14.7% [12.1, 17.7] -> 22.3% [19.2, 25.8], +7.7 "
                     "points [+3.4, +11.9] paired; 6.3% of its games reached the round cap "
                     "then, 0.2% since the version 5 fixes (last survivor, transporter)"),
            "classic": Preset(
                {"arm": 0, "spread": 3, "danger": 1.5, "shot_min": 0.1, "queen_s": 0.0,
                 "block": 2, "workers": 3, "reenter_group": 0.3},
                note="dash's hand-set values (with the airlock re-entry fix)"),
        },
        "hunter": {
            "tuned": Preset(
                {"back": 6.788, "dmg": 0.1937, "duct_far": 4.916, "duct_hatch": 0,
                 "gang": -2, "strike": 2.601, "two_away": 0.7966, "weak": 4.233},
                command="balancelab tune obcy --side aliens --policy hunter:preset=classic "
                        "--budget 8000 --trial-games 200 --fresh-games 2000 --seed 1",
                extra={"found_with": "balancelab tune obcy --side aliens --policy hunter "
                                      "--budget 8000 --trial-games 200 --fresh-games 2000 "
                                      "--seed 1 (rules version 5, when hunter's numbers were "
                                      "preset classic; --cap-penalty 1; 445 s, pure Python); "
                                      "a second search from it (--budget 24000 --trial-games "
                                      "400 --seed 2, 60 trials) found nothing better"},
                note="the default since rules version 6. ALIENS against dash, 2000 fresh "
                     "games: 62.6% [60.5, 64.7] -> 67.0% [64.9, 69.0], +4.4 points "
                     "[+2.2, +6.6] paired; on 3000 games of run seed 777 (never used in the "
                     "search) 63.4% -> 65.9%, the expedition 34.3% -> 31.8% (-2.6 points "
                     "[-4.4, -0.7] paired); round cap 0.3% -> 0.4%. The tuned ALIENS care "
                     "more about the losses a strike costs them (back 6.8 against 3) than "
                     "about the losses it deals (dmg 0.19 against 4)"),
            "classic": Preset(
                {"gang": -1, "strike": 10.0, "dmg": 4.0, "back": 3.0, "weak": 8.0,
                 "two_away": 0.5, "duct_far": 3.0, "duct_hatch": 6},
                note="hunter's hand-set numbers (the default up to rules version 5)"),
        },
    },
    "iss": {
        "search": {
            "fast": Preset(
                {"rollouts": 16, "depth": 10, "rollout": "default", "z": 1.0},
                note="the fast strong ISS player, 0.2 core-seconds a game: at 2 players, "
                     "one seat on it and one on builder (rotated), paired on the same deals. "
                     "Seed 7, 200 deals: 95.5% [91.7, 97.6] where builder won 49.5%, +46.0 points "
                     "[+38.9, +53.1], and +3.0 [-1.6, +7.6] over ismcts:iterations=48,depth=10 "
                     "(92.5%, the strongest measured before, 0.39 core-s a game); fresh seed "
                     "8, 300 deals: 95.7% [92.7, 97.5] where builder won 46.3%, +49.3 "
                     "[+43.3, +55.4]; 0.20 core-seconds a game (compiled, load 9-14)"),
        },
    },
}


def presets_for(game: str, policy: str) -> dict[str, Preset]:
    """The presets of ``policy`` in ``game`` (empty when it has none)."""
    return PRESETS.get(game, {}).get(policy, {})


def preset_params(game: str, policy: str, preset: str) -> dict[str, Any]:
    """The parameters of a named preset.

    Raises:
        PolicyError: unknown preset; the message lists the policy's presets.
    """
    found = presets_for(game, policy)
    if preset not in found:
        names = ", ".join(sorted(found)) or "none"
        raise PolicyError(f"policy {policy!r} of {game!r} has no preset {preset!r}; "
                          f"presets: {names}")
    return dict(found[preset].params)


def tuned_spec(game: str, side: str) -> str | None:
    """The spec of ``side``'s tuned preset (``hal-pressure:preset=tuned``), or None when the
    side's default policy has no ``tuned`` preset (no tuned set beat the default at the
    game's default setting). Where the tuned set became the default (odyssey HAL) the spec
    plays the same games as ``default``.

    Raises:
        UnknownGameError: unknown game.
    """
    from balancelab.games import get_game

    g = get_game(game)
    policy = g.default_policies.get(side)
    if policy is None or "tuned" not in presets_for(game, policy):
        return None
    return f"{policy}:preset=tuned"
