"""Shared helpers for the 1998 ISS tests: invariants checked on any state."""

from __future__ import annotations

from balancelab.simulate.iss.state import IssState


def check_conservation(s: IssState) -> None:
    """Astronauts, cubes, installation tokens, materials and cards are all accounted for."""
    st, o = s.st, s.st.opts
    n = st.np
    for p in range(n):
        total = o.fedor_astronauts if p == st.fedor else o.astronauts
        where = (s.earth[p] + s.unity[p] + sum(1 for q in s.cocc if q == p)
                 + s.sha[p] + s.sha[n + p])
        assert where == total, (p, where, total)
        assert min(s.earth[p], s.unity[p]) >= 0
        cubes = s.res[p] + sum(s.colc[k * n + p] for k in range(4)) + s.xsp.count(p)
        cubes += s.on_card == p
        assert cubes == o.cubes, (p, cubes)
        assert s.res[p] >= 0
        assert 0 <= s.iss[p] <= o.iss_max and 0 <= s.ext[p] <= o.ext_max
        assert 0 <= s.ls[p] <= st.ls_max
        assert s.shm[p] + s.shm[n + p] <= st.mat_cap
        assert len(s.hand[p]) <= o.hand_max
    assert s.pool + sum(s.ccover) + sum(s.tok) == 18
    assert len(s.ctype) == 2 * len(s.docked)
    exps = [e for d in s.edeck for e in d] + [e for h in s.hand for e in h]
    exps += [e for d in s.done for e in d] + list(s.drawn)
    assert sorted(exps) == list(range(len(st.exp_cards)))
    mods = [m for m in s.col if m >= 0] + s.mdeck + s.docked
    assert sorted(mods) == list(range(len(st.cards.modules)))
    sh = [c for c in s.pad if c >= 0] + [c for d in s.sdeck for c in d]
    sh += [c for x in s.owned for c in x] + [c for x in s.removed for c in x]
    assert sorted(sh) == list(range(len(st.sh_nation)))
    if st.solo:
        assert sorted(s.fdeck + s.fdisc) == list(range(len(st.cards.fedor)))
    for c, q in enumerate(s.cocc):
        if q >= 0:
            assert not s.ccover[c]
    for r in (0, 1):
        if s.pad[r] >= 0:
            assert sum(s.sha[r * n:r * n + n]) <= st.sh_seats[s.pad[r]]
            if not st.sh_mat[s.pad[r]]:
                assert sum(s.shm[r * n:r * n + n]) == 0
