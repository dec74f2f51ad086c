"""The scripted players' blunders found in traces (issue 13), each on a built position.

Each test failed before its fix (``crew-team``/``hal-pressure`` as of rules version 2).
"""

from __future__ import annotations

import numpy as np
from helpers_odyssey import close_door, fresh, give_hal, give_hand, put_malfunctions

from balancelab.policies.base import build
from balancelab.simulate.odyssey import GAME
from balancelab.simulate.odyssey import cards as C
from balancelab.simulate.odyssey.board import default_board
from balancelab.simulate.odyssey.state import PAIR, T_HAL_DISCARD, T_LIMIT, T_MOVE


def _policy(s: object, seat: int, spec: str) -> object:
    return build(GAME, s.ctx.options, seat, spec, np.random.default_rng(0))  # type: ignore[attr-defined]


def _discards(a: int) -> tuple[int, ...]:
    arg = a % 1000
    return divmod(arg - PAIR, 32) if arg >= PAIR else (arg,)


def _limit(s: object, seat: int) -> None:
    s.terminal = False  # type: ignore[attr-defined]
    s.stack = [(T_LIMIT, seat)]  # type: ignore[attr-defined]
    s._run()  # type: ignore[attr-defined]
    assert s.phase == T_LIMIT  # type: ignore[attr-defined]


def test_carrier_keeps_a_manual_override_while_the_pod_bay_doors_are_closed() -> None:
    """Trace blunder: Bowman discarded his Manual Override with Door 7 closed and LIF at 6
    (HAL won on LIF two turns later). HAND SIZE: he must drop one of 7 cards."""
    s = fresh("bowman,poole,hunter")
    close_door(s, 7)
    put_malfunctions(s, C.LIF, 6)
    give_hand(s, 1, [C.C_OVERRIDE, C.C_CANCEL, C.C_RECOVER, C.logic(2), C.logic(3),
                     C.logic(4), C.logic(5)])
    _limit(s, 1)
    a = _policy(s, 1, "crew-team").act(s.view(1), s.legal_actions())  # type: ignore[attr-defined]
    assert C.C_OVERRIDE not in _discards(a)


def test_hand_limit_discard_keeps_the_complete_sequence() -> None:
    """Trace blunder (seed 11, game 36): with MEM terminated (Hand Size 4), Door 7 closed
    and LIF at 4, Whitehead held LIF Repair, Manual Override, Logic 7, 8, 9 and discarded
    Logic 7, keeping no sequence. The discard now scores the hand that remains (a complete
    allowed sequence is worth ``run_bonus`` more than its cards)."""
    s = fresh("bowman,poole,whitehead")
    put_malfunctions(s, C.MEM, 4)
    close_door(s, 7)
    put_malfunctions(s, C.LIF, 4)
    give_hand(s, 3, [C.C_REPAIR_LIF, C.C_OVERRIDE, C.logic(7), C.logic(8), C.logic(9)])
    _limit(s, 3)
    a = _policy(s, 3, "crew-team").act(s.view(3), s.legal_actions())  # type: ignore[attr-defined]
    assert not set(_discards(a)) & {C.logic(7), C.logic(8), C.logic(9)}


def test_two_card_discard_keeps_a_sequence_over_two_loose_pairs() -> None:
    """Two cards over: the carrier keeps 3-4-5 (a sequence) rather than breaking it."""
    s = fresh("bowman,poole,hunter")
    give_hand(s, 1, [C.logic(3), C.logic(4), C.logic(5), C.logic(7), C.logic(9),
                     C.logic(11), C.logic(12), C.C_RECOVER])
    _limit(s, 1)
    a = _policy(s, 1, "crew-team").act(s.view(1), s.legal_actions())  # type: ignore[attr-defined]
    assert not set(_discards(a)) & {C.logic(3), C.logic(4), C.logic(5)}


def test_override_holder_goes_to_open_the_pod_bay_doors() -> None:
    """Door 7 closed, LIF at 5, nobody on POD BAY: the holder of a Manual Override heads for
    Door 7 (to OPEN it) instead of the camp."""
    from helpers_odyssey import start_crew_turn

    sp = {n: i for i, n in enumerate(default_board().names)}
    s = fresh("bowman,poole,hunter")
    for seat in (1, 2, 3):
        s.pos[seat] = sp["PICTUREPHONE_1"]
    close_door(s, 7)
    put_malfunctions(s, C.LIF, 5)
    give_hand(s, 2, [C.C_OVERRIDE, C.logic(1)])
    start_crew_turn(s, 2)
    assert s.phase == T_MOVE
    pol = _policy(s, 2, "crew-team")
    a = pol.act(s.view(2), s.legal_actions())  # type: ignore[attr-defined]
    door = s.ctx.board.door_spaces[7]
    dist = s.ctx.dist_mask(s.closed_mask)
    before = min(dist[sp["PICTUREPHONE_1"]][d] for d in door)
    assert min(dist[a - 8000][d] for d in door) < before


def test_hal_keeps_a_revealed_lipread_when_it_must_discard() -> None:
    """LIPREAD CARD: a revealed Lipread blocks every GIVE and all talk. After a Disconnect
    HAL discarded it first (it was scored as a card to play, worth -1)."""
    s = fresh("bowman,poole,hunter", crew_talk="open")
    give_hal(s, [C.H_SCAN, C.H_TARGET, C.H_GRV], [C.H_LIPREAD, C.H_COM, C.H_MEM])
    s.terminal = False
    s.stack = [(T_HAL_DISCARD, 0)]
    s._run()
    assert s.phase == T_HAL_DISCARD
    a = _policy(s, 0, "hal-pressure").act(s.view(0), s.legal_actions())  # type: ignore[attr-defined]
    assert a % 1000 != 50 + C.H_LIPREAD


def test_hal_reveals_lipread_first() -> None:
    """HAL reveals Lipread as soon as it holds it hidden (silences the crew)."""
    from balancelab.simulate.odyssey.state import T_HAL_REVEAL

    s = fresh("bowman,poole,hunter", crew_talk="open")
    give_hal(s, [C.H_SCAN, C.H_LIPREAD, C.H_LIF], [C.H_COM, C.H_MEM])
    s.terminal = False
    s.stack = [(T_HAL_REVEAL, 0)]
    s._run()
    a = _policy(s, 0, "hal-pressure").act(s.view(0), s.legal_actions())  # type: ignore[attr-defined]
    assert a == 12000 + C.H_LIPREAD
