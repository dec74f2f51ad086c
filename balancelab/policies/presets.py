"""Named parameter sets of the scripted players: ``crew-team:preset=tuned``.

A preset is a stored set of a policy's parameters, chosen by the ``preset`` key of a policy
spec; parameters given beside it override it (``crew-team:preset=tuned,lif_alarm=5``). Run
records keep the spec as written (``preset=tuned``), and the game's version is bumped when a
shipped preset changes, so a record names one set of values.

Every ``tuned`` preset here came from ``balancelab tune`` (:mod:`balancelab.tune`); its
``command`` reproduces it (same seed, same budget, same result).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from balancelab.policies.base import PolicyError


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
    "odyssey": {},
    "obcy": {},
    "iss": {},
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
    """The spec of ``side``'s tuned preset (``crew-team:preset=tuned``), or None when the
    side's default policy has no ``tuned`` preset.

    Raises:
        UnknownGameError: unknown game.
    """
    from balancelab.games import get_game

    g = get_game(game)
    policy = g.default_policies.get(side)
    if policy is None or "tuned" not in presets_for(game, policy):
        return None
    return f"{policy}:preset=tuned"
