"""crew-team's discard counts Logic cards per window packed 4 bits a window in one machine
integer (balancelab.policies.odyssey.discards): the packed counts agree with counting each
window anew, for every hand, trash, sequence length and discarded set."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as hs

from balancelab.policies.odyssey.discards import (
    _last_copies,
    _most_held,
    _most_in,
    _window_counts,
    _without,
)
from balancelab.policies.odyssey.shared import L1

#: Logic masks: bit n = Logic n (1-12)
masks = hs.integers(0, 2**12 - 1).map(lambda m: m << 1)


@settings(max_examples=300, deadline=None)
@given(lm=masks, trashed=masks, L=hs.integers(2, 6), gone=masks)
def test_packed_window_counts_match_a_count_per_window(lm: int, trashed: int, L: int,
                                                       gone: int) -> None:
    full = (1 << L) - 1
    trashed &= ~lm  # a card held is not in the TRASH
    counts = _window_counts(lm, trashed, L, full)
    for n in range(1, 13):
        if lm >> n & 1:
            assert _most_in(counts, n, L) == max(_most_held(lm, n, trashed, L, full), 0)
    gone &= lm  # only held numbers go
    assert _without(counts, gone, L) == _window_counts(lm & ~gone, trashed, L, full)


def test_last_copies_names_the_logic_kinds_left_with_no_copy() -> None:
    once, twice = 2 << 0 | 2 << 4, 2 << 7  # Logic 1 and 5 held once, Logic 8 twice
    assert _last_copies(once, twice, L1, -1) == 2 << 0
    assert _last_copies(once, twice, L1 + 7, -1) == 0  # one copy of Logic 8 stays
    assert _last_copies(once, twice, L1 + 7, L1 + 7) == 2 << 7
    assert _last_copies(once, twice, L1, L1 + 4) == 2 << 0 | 2 << 4
    assert _last_copies(once, twice, 0, 3) == 0  # no Logic card
