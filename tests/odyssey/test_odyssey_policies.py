"""Policy registry and the ladder: each default beats ``random`` on its side (fixed seeds)."""

from __future__ import annotations

from balancelab.policies.base import available
from balancelab.simulate.odyssey import GAME, OdysseyOptions
from balancelab.simulate.runner import play_game


def test_registry() -> None:
    assert {"hal-pressure", "hal-lif", "hal-spread", "random"} <= set(available("odyssey", "hal"))
    assert {"crew-team", "crew-rush", "random"} <= set(available("odyssey", "crew"))
    assert GAME.default_policies == {"hal": "hal-pressure", "crew": "crew-team"}


def _stats(hal: str, crew: str, n: int, **kw: object) -> tuple[float, float]:
    o = OdysseyOptions(**kw)  # type: ignore[arg-type]
    wins = 0
    disconnects = 0
    for i in range(n):
        rec = play_game(GAME, o, [hal] + [crew] * o.crew, 99, i).record
        wins += rec.winner == "crew"
        disconnects += int(rec.measures["disconnects"])
    return wins / n, disconnects / n


def test_defaults_beat_random() -> None:
    n = 60
    _, d_default = _stats("hal-pressure", "crew-team", n)
    _, d_random_crew = _stats("hal-pressure", "random", n)
    _, d_random_hal = _stats("random", "crew-team", n)
    # the crew default makes far more progress than random crewmembers against the HAL default
    assert d_default > d_random_crew + 0.2
    # the HAL default holds the crew default to far less than a random HAL does
    assert d_random_hal > d_default + 0.3


def test_all_policies_play_every_crew_size() -> None:
    for crew in (2, 3, 4):
        o = OdysseyOptions(crew=crew, crew_talk="logic")
        for hal in ("hal-pressure", "hal-lif", "hal-spread"):
            for cp in ("crew-team", "crew-rush"):
                rec = play_game(GAME, o, [hal] + [cp] * crew, 5, crew).record
                assert rec.winner in ("hal", "crew", "")
