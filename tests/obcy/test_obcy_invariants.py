"""Invariants over whole games: conservation, limits, ending, determinism, fair information."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hs

from balancelab.games import get_game
from balancelab.policies import base as P
from balancelab.simulate.core import game_streams
from balancelab.simulate.obcy import board as B
from balancelab.simulate.obcy.actions import D_ALIEN_MOVE, D_HATCH, DEAD, ON_BOARD
from balancelab.simulate.obcy.rules import LIMITED, ObcyOptions
from balancelab.simulate.obcy.state import ObcyState, ObcyView
from balancelab.simulate.play import play

G = get_game("obcy")


def _check(s: ObcyState) -> None:
    lim = s.limits
    for it in LIMITED:
        assert s.supply[it] >= 0
        assert s.count_item(it) + s.used[it] == lim[it], it
    for c in range(6):
        assert len(s.c_pk[c]) == s.opt.pockets
        if s.c_state[c] == DEAD:
            assert s.c_str[c] == 0
        else:
            assert 0 < s.c_str[c] <= s.c_max[c]
    st = s.st
    assert st["aliens_hatched"] - st["aliens_killed"] - st["aliens_merged"] == len(s.a_id)
    assert all(1 <= x <= s.opt.alien_max_strength for x in s.a_str)
    assert len(s.open) <= s.opt.max_open_missions
    cnt = [0] * len(s.char_cnt)
    for c in range(6):
        if s.c_state[c] == ON_BOARD:
            cnt[s.c_pos[c]] += 1
    assert cnt == s.char_cnt
    # 4.1 never two characters on one space (the landing pad holds all six); 9.2 an ALIEN
    # never on a character's space (only one hatched on a held hatching space, for a moment)
    assert all(n <= 1 for p, n in enumerate(cnt) if p != B.PAD_SPACE)
    assert not any(cnt[p] for p in s.a_pos if p not in B.HATCHES)
    acnt = [0] * len(s.alien_cnt)
    for p in s.a_pos:
        acnt[p] += 1
    assert acnt == s.alien_cnt


def _run(seed: int, specs: tuple[str, str], variant: str, check: bool = True) -> ObcyState:
    opt = ObcyOptions(queen_variant=variant, max_rounds=40)
    rules, seats = game_streams(seed, 0, 2)
    pols = [P.build(G, opt, i, specs[i], seats[i]) for i in range(2)]
    s = G.new_initial_state(opt, rules)
    assert isinstance(s, ObcyState)
    while not s.is_terminal():
        legal = s.legal_actions()
        assert legal
        a = legal[0] if len(legal) == 1 else pols[s.current_seat].act(
            s.view(s.current_seat), legal)
        s.apply(a)
        if check:
            _check(s)
    return s


@settings(max_examples=12, deadline=None)
@given(
    seed=hs.integers(0, 10_000),
    specs=hs.sampled_from([("random", "random"), ("squad", "hunter"), ("dash", "ambush"),
                           ("squad", "random"), ("random", "hunter")]),
    variant=hs.sampled_from(["roll", "tasks"]),
)
def test_games_end_and_conserve_items_and_tokens(
    seed: int, specs: tuple[str, str], variant: str
) -> None:
    s = _run(seed, specs, variant)
    rec = s.result()
    assert rec.winner in G.outcomes
    assert set(rec.measures) == set(G.measure_schema)
    if rec.end_reason == "cap":
        assert rec.winner == "" and rec.rounds == 40


def test_same_seed_same_game_and_copy_evolves_identically() -> None:
    opt = ObcyOptions()
    recs = []
    for _ in range(2):
        rules, seats = game_streams(5, 3, 2)
        pols = [P.build(G, opt, i, s, seats[i]) for i, s in enumerate(("squad", "hunter"))]
        recs.append(play(G, opt, pols, rules).record)
    assert recs[0] == recs[1]
    s = G.new_initial_state(opt, np.random.default_rng(1))
    rng = np.random.default_rng(2)
    for _ in range(300):
        if s.is_terminal():
            break
        legal = s.legal_actions()
        s.apply(legal[int(rng.integers(len(legal)))])
    t = s.copy()
    r1, r2 = np.random.default_rng(9), np.random.default_rng(9)
    for _ in range(300):
        if s.is_terminal():
            break
        la, lb = s.legal_actions(), t.legal_actions()
        assert la == lb
        s.apply(la[int(r1.integers(len(la)))])
        t.apply(lb[int(r2.integers(len(lb)))])
    assert s.view(0).c_pos == t.view(0).c_pos and s.a_pos == t.a_pos


def test_aliens_view_hides_open_missions_and_policy_ignores_them() -> None:
    opt = ObcyOptions()
    s = G.new_initial_state(opt, np.random.default_rng(4))
    assert isinstance(s, ObcyState)
    s.open = [0, 5]
    s.deck = [m for m in s.deck if m not in s.open]
    assert s.view(1).open_missions == () and s.view(1).n_open == 2
    assert s.view(0).open_missions == (0, 5)
    # play to an ALIENS decision, then vary the hidden cards: the decision must not change
    rng = np.random.default_rng(3)
    exp = P.build(G, opt, 0, "squad", np.random.default_rng(0))
    while s.decision() not in (D_HATCH, D_ALIEN_MOVE):
        legal = s.legal_actions()
        s.apply(legal[0] if len(legal) == 1 else exp.act(s.view(0), legal))
    choices = set()
    for variant in ([0, 5], [7, 9], [1, 2]):
        t = s.copy()
        t.open = list(variant)
        pol = P.build(G, opt, 1, "hunter", np.random.default_rng(11))
        choices.add(pol.act(t.view(1), t.legal_actions()))
    assert len(choices) == 1
    d = G.determinize(s.view(1), rng)
    assert len(d.open) == len(s.open) and not set(d.open) & set(d.done)
    assert sorted(d.open + d.deck + d.done + d.discarded) == list(range(20))
    assert d.legal_actions() == s.legal_actions()


def test_item_limits_at_the_stores() -> None:
    from helpers import build

    from balancelab.simulate.obcy import board as B
    from balancelab.simulate.obcy.actions import PICK
    from balancelab.simulate.obcy.rules import BISHOP, SUIT

    s = build({BISHOP: B.COORDS[B.FEATURE["SUIT_STORE"]]}, active=BISHOP)
    s.c_pk[BISHOP] = [-1, -1, -1]
    s.supply[SUIT] = 1
    s.used[SUIT] = 3
    s._settle()
    assert (PICK, SUIT) in s.legal_actions()
    s.apply((PICK, SUIT))
    assert (PICK, SUIT) not in s.legal_actions()  # the four suits are gone


def test_view_cache_in_the_aliens_phase_matches_a_fresh_view() -> None:
    """The view caches (characters, tasks, ALIENS) never serve stale values: every field
    of a (possibly cached) view equals that of a view built from scratch, for both seats,
    with random and default players (hatching, merging, kills, retreats between views)."""
    opt = ObcyOptions()
    seen = 0

    def fresh(st: ObcyState, seat: int) -> ObcyView:
        twin = st.copy()
        twin._vchar = twin._vrest = twin._valien = None
        return twin.view(seat)

    for k, specs in enumerate((("random", "random"), ("dash", "hunter"), ("squad", "ambush"))):
        rules_rng, seat_rngs = game_streams(6, k, 2)
        pols = [P.build(G, opt, i, spec, seat_rngs[i]) for i, spec in enumerate(specs)]
        s = G.new_initial_state(opt, rules_rng)
        for step in range(3000):
            if s.is_terminal():
                break
            seat = s.current_seat
            for who in ((seat, 1 - seat) if step % 3 else (seat,)):
                cached, ref = s.view(who), fresh(s, who)
                for f in ObcyView._fields:
                    assert getattr(cached, f) == getattr(ref, f), f
                seen += 1
            legal = s.legal_actions()
            s.apply(pols[seat].act(s.view(seat), legal) if len(legal) > 1 else legal[0])
    assert seen > 1000


def test_queen_fight_follows_the_odds() -> None:
    from balancelab.policies.obcy import _queen_table

    # a team sure to complete more tasks waits; a team unlikely to fights at once
    sure, doomed = _queen_table(0.95), _queen_table(0.2)
    assert sure[1] > 1 / 6 and abs(doomed[1] - 1 / 6) < 0.05
    assert all(a <= b + 1e-12 for a, b in zip(sure[1:], sure[2:], strict=False))


def test_dash_holders_block_hatching_spaces() -> None:
    # design 3(c)11: no ALIEN hatches on a space holding a character; the default expedition
    # ends its phases on the two hatching spaces nearest the ship, and the ALIENS' hatching
    # choices then leave those spaces out.
    from balancelab.simulate.obcy import board as B
    from balancelab.simulate.obcy.actions import HATCH

    opt = ObcyOptions()
    held_seen = 0
    for gi in range(3):
        rules_rng, seat_rngs = game_streams(5, gi, 2)
        pols = [P.build(G, opt, 0, "dash", seat_rngs[0]),
                P.build(G, opt, 1, "hunter", seat_rngs[1])]
        s = G.new_initial_state(opt, rules_rng)
        assert isinstance(s, ObcyState)
        while not s.is_terminal() and s.round < 12:
            legal = s.legal_actions()
            if s.decision() == D_HATCH:
                held = {k for k, h in enumerate(B.HATCHES) if s.char_cnt[h]}
                held_seen += len(held & {0, 4})  # H1, H5
                assert not any(a[0] == HATCH and a[2] in held for a in legal)
            seat = s.current_seat
            s.apply(legal[0] if len(legal) == 1 else pols[seat].act(s.view(seat), legal))
    assert held_seen >= 5
