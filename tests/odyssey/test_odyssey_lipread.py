"""Lipread on built positions (rulebook: LIPREAD CARD, DISCONNECT; design notes 1(c)9).

"This continues until a crewmember plays a Cancel card to discard the Lipread card": HAL may
play Lipread from its hidden hand (a null card), never the revealed, active one; whether the
Disconnect discard may take the active Lipread is the rule option
``lipread_disconnect_discard`` (default false: only a Cancel removes it).
"""

from __future__ import annotations

import pytest
from helpers_odyssey import census_ok, fresh, give_hal, give_hand, start_crew_turn, start_hal_turn

from balancelab.simulate.core import IllegalActionError
from balancelab.simulate.odyssey import OdysseyOptions
from balancelab.simulate.odyssey import cards as C
from balancelab.simulate.odyssey.board import default_board
from balancelab.simulate.odyssey.state import OP_HAL_DISCARD, OP_HAL_PLAY, REV, T_HAL_DISCARD

SP = {n: i for i, n in enumerate(default_board().names)}
PLAY_REVEALED_LIPREAD = OP_HAL_PLAY * 1000 + REV + C.H_LIPREAD
DISCARD_REVEALED_LIPREAD = OP_HAL_DISCARD * 1000 + REV + C.H_LIPREAD


def test_hal_may_not_play_the_revealed_lipread() -> None:
    s = fresh()
    give_hal(s, [C.H_LIF, C.H_GRV, C.H_MEM], [C.H_LIPREAD, C.H_SCAN, C.H_COM])
    start_hal_turn(s)
    legal = s.legal_actions()
    assert PLAY_REVEALED_LIPREAD not in legal
    assert sorted(legal) == sorted([9000 + C.H_GRV, 9000 + C.H_MEM, 9000 + C.H_LIF,
                                    9000 + REV + C.H_COM, 9000 + REV + C.H_SCAN])
    with pytest.raises(IllegalActionError):
        s.apply(PLAY_REVEALED_LIPREAD)
    s.apply(9000 + REV + C.H_SCAN)  # any other revealed card is played and replaced
    assert s.lipread() and C.H_LIPREAD in s.hal_rev


def test_hal_may_play_a_hidden_lipread_as_a_null_card() -> None:
    s = fresh()
    give_hal(s, [C.H_LIPREAD, C.H_LIF], [C.H_TARGET, C.H_SCAN, C.H_COM])
    start_hal_turn(s)
    assert 9000 + C.H_LIPREAD in s.legal_actions()
    mal = list(s.mal)
    s.apply(9000 + C.H_LIPREAD)
    assert s.hal_disc == [C.H_LIPREAD] and not s.lipread()
    assert s.mal == mal and s.m[s.M_LIPREAD] == 1
    assert census_ok(s)


def _disconnect(**options: object) -> object:
    s = fresh(**options)
    give_hand(s, 1, [C.logic(9), C.logic(10), C.logic(11)])
    give_hal(s, [C.H_LIF, C.H_GRV, C.H_MEM], [C.H_LIPREAD, C.H_SCAN, C.H_COM])
    s.pos[1] = SP["HAL_CORE"]
    start_crew_turn(s, 1)
    s.apply(8000 + SP["HAL_CORE"])
    s.apply(6009)
    assert s.phase == T_HAL_DISCARD and s.current_seat == 0
    return s


def test_the_disconnect_discard_keeps_an_active_lipread_by_default() -> None:
    assert OdysseyOptions().lipread_disconnect_discard is False
    s = _disconnect()
    legal = s.legal_actions()
    assert DISCARD_REVEALED_LIPREAD not in legal
    assert 13000 + REV + C.H_SCAN in legal and 13000 + C.H_LIF in legal
    with pytest.raises(IllegalActionError):
        s.apply(DISCARD_REVEALED_LIPREAD)


def test_lipread_disconnect_discard_lets_hal_discard_the_active_lipread() -> None:
    s = _disconnect(lipread_disconnect_discard=True)
    assert DISCARD_REVEALED_LIPREAD in s.legal_actions()
    s.apply(DISCARD_REVEALED_LIPREAD)
    assert not s.lipread() and s.hal_disc == [C.H_LIPREAD]
    s.apply(s.legal_actions()[0])  # the row is refilled from the hand
    assert len(s.hal_rev) == 3 and s.hal_hand_n() == 5
    assert census_ok(s)


def test_hal_whose_only_card_is_the_active_lipread_plays_nothing() -> None:
    """Guard (cannot arise with the printed deck: HAL holds 4+ cards, 3 at most revealed)."""
    s = fresh()
    s.events()  # trace from here on (a state records events once traced)
    give_hal(s, [], [C.H_LIPREAD])
    start_hal_turn(s)
    assert "HAL has no card to play" in s.events()
    assert s.current_seat == 1 and s.lipread()


def test_lipread_null_play_false_keeps_a_hidden_lipread_in_hand() -> None:
    """Whether HAL may play a hidden Lipread as a null card is the rule option
    ``lipread_null_play`` (design note 9; the rulebook's HAL Turn is silent): off, HAL plays
    another card, and the Lipread only when it has no other (issue 30: a random HAL played it
    284 times in 600 games)."""
    import dataclasses

    field = {f.name: f for f in dataclasses.fields(OdysseyOptions)}["lipread_null_play"]
    assert field.default is True and field.metadata["source"].startswith("assumed: ")
    s = fresh(lipread_null_play=False)
    give_hal(s, [C.H_LIPREAD, C.H_LIF], [C.H_TARGET, C.H_SCAN, C.H_COM])
    start_hal_turn(s)
    legal = s.legal_actions()
    assert 9000 + C.H_LIPREAD not in legal and 9000 + C.H_LIF in legal
    with pytest.raises(IllegalActionError):
        s.apply(9000 + C.H_LIPREAD)
    only = fresh(lipread_null_play=False)
    give_hal(only, [C.H_LIPREAD], [])
    start_hal_turn(only)
    assert only.legal_actions() == [9000 + C.H_LIPREAD]


def test_a_random_hal_plays_no_hidden_lipread_under_lipread_null_play_false() -> None:
    from balancelab.simulate.runs import RunConfig, play_one

    def played(**options: object) -> int:
        config = RunConfig(game="odyssey", variants=[OdysseyOptions(**options)],
                           policies={"hal": "random"}, seed=5, games=30)
        return sum(int(play_one(config, 0, i).record.measures["hal_played_lipread"])
                   for i in range(30))

    assert played() >= 3
    assert played(lipread_null_play=False) == 0
