"""Trace events (setup included) and the per-game roster measure."""

from __future__ import annotations

import numpy as np

from balancelab.simulate.odyssey import GAME, OdysseyOptions
from balancelab.simulate.worker import play_chunk


def test_events_include_setup_and_are_consumed() -> None:
    s = GAME.new_initial_state(OdysseyOptions(crew=3), np.random.default_rng(1))
    ev = s.events()
    assert ev[0].startswith("setup: HAL draws 6 cards")
    assert "each draw 2" in ev[0]
    assert "takes the Monolith" in ev[1]
    assert s.events() == []  # consumed
    while s.current_seat == 0:  # HAL's reveals and opening turns
        s.apply(s.legal_actions()[0])
    assert "HAL draws 1 card" in s.events()


def test_crew_names_is_a_measure_and_option_column_constant() -> None:
    cols, _, _, _ = play_chunk("odyssey", {"crew": "3"}, ["random"] * 4, False, 3, 0, 12, {})
    assert set(cols["crew_members"]) == {"random"}
    names = cols["crew_names"]
    assert all(n.startswith("bowman,") and n.count(",") == 2 for n in names)
    assert len(set(names)) > 1
