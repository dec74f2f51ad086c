"""Policy registry and the ladder: each default beats ``random`` on its side (fixed seeds)."""

from __future__ import annotations

import numpy as np

from balancelab.policies.base import available
from balancelab.simulate.odyssey import GAME, OdysseyOptions
from balancelab.simulate.worker import play_game


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


def _crew_policy(s: object, seat: int, spec: str = "crew-team") -> object:
    import numpy as np

    from balancelab.policies.base import build

    return build(GAME, s.ctx.options, seat, spec, np.random.default_rng(0))  # type: ignore[attr-defined]


def test_crew_team_shares_one_camp_and_opens_the_door_that_cuts_it_off() -> None:
    from helpers_odyssey import close_door, fresh, give_hand, start_crew_turn

    from balancelab.simulate.odyssey import cards as C
    from balancelab.simulate.odyssey.board import default_board

    sp = {n: i for i, n in enumerate(default_board().names)}
    s = fresh("bowman,poole,hunter")
    # Doors 1 and 2 closed: POD BAY is cut off from both Picturephones
    close_door(s, 1)
    close_door(s, 2)
    give_hand(s, 2, [C.C_OVERRIDE, C.C_WILD])
    start_crew_turn(s, 2)
    pol = _crew_policy(s, 2)
    v = s.view(2)
    dist = s.ctx.dist_mask(s.closed_mask)
    assert pol.camp(v, s.ctx, dist) == sp["PICTUREPHONE_2"]  # type: ignore[attr-defined]
    a = pol.act(v, s.legal_actions())  # type: ignore[attr-defined]
    assert a == 8000 + sp["POD_BAY"]  # stay next to Door 2 ...
    s.apply(a)
    assert pol.act(s.view(2), s.legal_actions()) == 3000 + 2  # type: ignore[attr-defined]


def test_crew_team_carrier_gets_logic_and_no_card_goes_round_in_circles() -> None:
    from helpers_odyssey import fresh, give_hand, start_crew_turn

    from balancelab.simulate.odyssey import cards as C

    s = fresh("bowman,poole,hunter")
    give_hand(s, 2, [C.C_REPAIR_LIF, C.logic(5)])
    start_crew_turn(s, 2)
    s.apply(8000 + s.pos[2])  # stay on POD BAY with Bowman
    pol = _crew_policy(s, 2)
    # Poole gives the Logic card to the carrier (Bowman), not Bowman's LIF Repair
    assert pol.act(s.view(2), s.legal_actions()) == 1000 + 1 * 32 + C.logic(5)  # type: ignore[attr-defined]


def test_shared_caches_do_not_change_decisions() -> None:
    """The policies' caches outlive a game (per options): a game played with cold caches and
    the same game played after others (warm caches, other options in between) are the same."""
    import balancelab.policies.odyssey as P

    o = OdysseyOptions()
    seats = ["hal-pressure"] + ["crew-team"] * o.crew

    def game() -> tuple[object, ...]:
        pg = play_game(GAME, o, seats, 5, 3)
        return pg.record.winner, pg.record.rounds, pg.decisions, sorted(pg.record.measures.items())

    import balancelab.policies.odyssey.crew as crew
    import balancelab.policies.odyssey.shared as shared
    import balancelab.simulate.odyssey.determinize as D
    import balancelab.simulate.odyssey.state as S

    # the Ctx holds the other caches
    for table in (P._CAMP, P._LOGIC_VALUES, P._BASE_VALUES, crew._PARAMS, shared._DISTS,
                  D._HAL_DECK, S._CTX, S._CTX_BY_ID):
        table.clear()
    cold = game()
    other = OdysseyOptions(crew=4, crew_talk="logic")
    for i in range(5):
        play_game(GAME, other, ["hal-spread"] + ["crew-rush"] * 4, 1, i)
        play_game(GAME, o, seats, 7, i)
    assert game() == cold


def test_discard_is_the_best_hand_of_every_candidate_scored_in_full() -> None:
    """crew-team's hand-limit and Scan discards estimate each candidate first and score in
    full only those near the best: the choice must be the first best of every candidate
    scored by ``hand_value`` (the hand it leaves), at every such decision of real games
    (pairs of cards too: Hand Size 4 with MEM down)."""
    from balancelab.policies.base import build
    from balancelab.policies.odyssey import CrewTeam
    from balancelab.simulate.odyssey.state import PAIR, T_LIMIT, T_SCAN_DISCARD

    def full_scoring(pol: CrewTeam, v: object, legal: list[int]) -> int:
        best, best_v = legal[0], -1e18
        for a in legal:
            arg = a % 1000
            hand = list(v.hand)  # type: ignore[attr-defined]
            for k in divmod(arg - PAIR, 32) if arg >= PAIR else (arg,):
                hand[k] -= 1
            val = pol.worths.hand_value(v, pol.ctx, hand, pol.carrier_seat(v))  # type: ignore[arg-type]
            if val > best_v:
                best, best_v = a, val
        return best

    checked = {"single": 0, "pair": 0}
    for o in (OdysseyOptions(), OdysseyOptions(crew=4, crew_talk="logic"),
              OdysseyOptions(crew=2, hand_size=4)):
        seats = ["hal-pressure"] + ["crew-team"] * o.crew

        def check(state: object, action: object, o: OdysseyOptions = o) -> None:
            s: object = state
            if s.phase not in (T_LIMIT, T_SCAN_DISCARD):  # type: ignore[attr-defined]
                return
            seat = s.current_seat  # type: ignore[attr-defined]
            legal = s.legal_actions()  # type: ignore[attr-defined]
            pol = build(GAME, o, seat, "crew-team", np.random.default_rng(0))
            assert isinstance(pol, CrewTeam)
            want = full_scoring(pol, s.view(seat), legal)  # type: ignore[attr-defined]
            v = s.view(seat)  # type: ignore[attr-defined]
            assert action == want == pol.worths.discard(v, pol.ctx, legal, pol.carrier_seat(v))
            checked["pair" if legal[0] % 1000 >= PAIR else "single"] += 1

        for i in range(12):
            play_game(GAME, o, seats, 21, i, on_step=check)
    assert checked["single"] > 100 and checked["pair"] > 20, checked
