"""Map distances and line of sight (design/obcy.md 3(d))."""

from __future__ import annotations

from helpers import build

from balancelab.simulate.obcy import board as B
from balancelab.simulate.obcy.rules import HICKS, HUDSON


def test_distances_from_the_pad_match_the_design_notes() -> None:
    pad = B.PAD_SPACE
    f = B.FEATURE
    expected = {
        "COMPONENT_STORE_1": 5, "FUEL_STORE": 7, "SUIT_STORE": 8, "ARMOURY": 11,
        "EXPLOSIVES_STORE": 16, "COMPUTER_1": 17, "COMPUTER_2": 18, "COMPUTER_3": 27,
    }
    for k, d in expected.items():
        assert B.DIST[pad][f[k]] == d, k
    assert B.DIST[pad][B.AIRLOCKS[0]] == 11
    assert B.DIST[B.HATCHES[4]][B.idx(2, 17)] == 14
    assert B.N == 302


def test_adjacency_is_symmetric_and_never_across_a_wall() -> None:
    for a in range(B.N):
        for b in B.NBR[a]:
            assert a in B.NBR_SET[b]
    # a duct running beside a room is not adjacent to it (3(c)15)
    assert B.idx(8, 7) not in B.NBR_SET[B.idx(7, 7)]


def test_line_of_sight_walls_and_pieces() -> None:
    a, b = B.idx(5, 13), B.idx(7, 13)
    assert B.LOS[a][b] == (B.idx(6, 13),)  # open room line
    # a wall: from the Supply Depot across the duct wall into the Armoury
    assert B.idx(9, 12) not in B.LOS[B.idx(7, 12)]
    # but through the grate at (8,13) the two rooms see each other
    assert B.LOS[B.idx(7, 13)][B.idx(9, 13)] == (B.idx(8, 13),)
    # a character on the line blocks, so does another ALIEN
    s = build({HICKS: (5, 13), HUDSON: (6, 13)}, aliens=[((7, 13), 2)], active=HICKS)
    assert not s._los_clear(B.LOS[a][b])
    s2 = build({HICKS: (5, 13)}, aliens=[((7, 13), 2), ((6, 13), 1)], active=HICKS)
    assert not s2._los_clear(B.LOS[a][b])
    s3 = build({HICKS: (5, 13)}, aliens=[((7, 13), 2)], active=HICKS)
    assert s3._los_clear(B.LOS[a][b])


def test_hex_distance_and_collapsed_distances() -> None:
    assert B.hex_distance(B.idx(5, 13), B.idx(7, 13)) == 2
    a, b = B.idx(13, 10), B.idx(13, 16)
    open_d = B.DIST[a][b]
    blocked = B.dist_from(a, frozenset({B.idx(13, 12)}))[b]
    assert blocked > open_d


def test_line_of_sight_rows_give_the_range() -> None:
    # a wall-free line at range n has n - 1 spaces between its ends (used for weapon range)
    for a in range(0, B.N, 5):
        for b, inter in B.LOS[a].items():
            assert len(inter) + 1 == B.hex_distance(a, b) <= B.LOS_MAX


def test_line_of_sight_table_is_the_line_by_line_one() -> None:
    # the table built at once (numpy) is the one of line_cells, line by line, row order too,
    # on the base map and on every alternative map
    from pathlib import Path

    import balancelab

    maps = sorted((Path(balancelab.__file__).parent / "data/alternatives/obcy").glob("*.json"))
    assert maps
    for bd in [B.DEFAULT] + [B.board_of(str(m)) for m in maps]:
        for a in range(bd.N):
            row = bd._los_row(a)
            assert list(bd.LOS[a].items()) == list(row.items()), a
