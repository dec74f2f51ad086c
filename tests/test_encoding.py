"""The finite action encodings: every legal action of every state has its own id in range,
decoding gives it back, and every id of the space decodes to an action that encodes to it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from balancelab.games import get_game
from balancelab.simulate.core import Game, State
from balancelab.simulate.encoding import (
    ActionEncodingError,
    Multisets,
    OpSpace,
    encoding_of,
)

#: option variants drawn per game (those that change the id space or the kinds of decisions)
VARIANTS: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "odyssey": st.fixed_dictionaries({
        "crew": st.sampled_from([2, 3, 4]), "optional_draw": st.booleans(),
        "crew_members": st.sampled_from(["random", "bowman,whitehead,kaminski"]),
    }),
    "iss": st.fixed_dictionaries({
        "players": st.sampled_from([1, 2, 3, 4]), "construct_cubes": st.sampled_from([2, 3]),
        "fedor_choice": st.sampled_from(["human", "first"]),
    }),
    "obcy": st.fixed_dictionaries({
        "queen_variant": st.sampled_from(["roll", "tasks"]), "max_rounds": st.just(4),
        "alien_token_limit": st.sampled_from([0, 6]),
    }),
}
EXAMPLES = {"odyssey": 12, "iss": 12, "obcy": 4}


def _options(game: Game, raw: dict[str, Any]) -> Any:
    if raw.get("crew_members", "random") != "random":
        raw = {**raw, "crew": len(raw["crew_members"].split(","))}
    return game.options_type.from_strings(raw)


def _check_state(game: Game, s: State, n: int) -> None:
    codec = encoding_of(game)
    legal = s.legal_actions()
    view = s.view(s.current_seat)
    ids = [codec.encode_action(view, a) for a in legal]
    assert len(set(ids)) == len(ids), "two legal actions share an id"
    assert all(isinstance(i, int) and 0 <= i < n for i in ids)
    assert [codec.decode_action(view, i) for i in ids] == legal


@pytest.mark.parametrize("name", ["odyssey", "iss", "obcy"])
def test_legal_actions_encode_to_distinct_ids_and_back(name: str) -> None:
    game = get_game(name)
    codec = encoding_of(game)  # a TypeError if the game had no encoding

    @settings(max_examples=EXAMPLES[name])
    @given(raw=VARIANTS[name], seed=st.integers(0, 2**32 - 1))
    def prop(raw: dict[str, Any], seed: int) -> None:
        options = _options(game, raw)
        n = codec.num_distinct_actions(options)
        s = game.new_initial_state(options, np.random.default_rng(seed))
        rng = np.random.default_rng(seed + 1)
        seats = len(game.seats(options))
        while not s.is_terminal():
            _check_state(game, s, n)
            legal = s.legal_actions()
            view_ids = {tuple(codec.encode_action(s.view(k), a) for a in legal)
                        for k in range(seats)}
            assert len(view_ids) == 1, "the ids depend on which seat's view encodes them"
            s.apply(legal[int(rng.integers(len(legal)))])

    prop()


@pytest.mark.parametrize("name", ["odyssey", "iss", "obcy"])
def test_every_id_decodes_to_an_action_that_encodes_back(name: str) -> None:
    """The whole space, at a state with ALIENS on the board for obcy (ids that name an absent
    ALIEN or neighbour raise the encoding's own error, never another exception)."""
    game = get_game(name)
    codec = encoding_of(game)
    options = game.options_type()
    s = game.new_initial_state(options, np.random.default_rng(3))
    rng = np.random.default_rng(4)
    while name == "obcy" and not getattr(s, "a_id", None):
        legal = s.legal_actions()
        s.apply(legal[int(rng.integers(len(legal)))])
    view = s.view(s.current_seat)
    n = codec.num_distinct_actions(options)
    decoded = 0
    for i in range(n):
        try:
            a = codec.decode_action(view, i)
        except ActionEncodingError:
            continue
        assert codec.encode_action(view, a) == i
        decoded += 1
    # iss: every id is an action; odyssey: a one-card discard has no k1 digit (2x19x20 ids
    # unused); obcy: SHOOT and A_PICK ids of ALIENS not on the board
    unused = {"iss": 0, "odyssey": 19 * 20, "obcy": None}[name]
    if unused is None:
        assert n // 3 < decoded < n
    else:
        assert decoded == n - unused
    with pytest.raises(ActionEncodingError, match="out of range"):
        codec.decode_action(view, n)
    with pytest.raises(ActionEncodingError):
        codec.encode_action(view, "not an action")


def test_opspace_and_multisets_values() -> None:
    space = OpSpace({5: (2, 3), 7: (), 9: (4,)})
    assert space.size == 6 + 1 + 4
    assert space.encode(5, (1, 2)) == 5 and space.encode(7, ()) == 6 and space.encode(9, (3,)) == 10
    assert [space.decode(i) for i in (0, 5, 6, 7)] == [(5, (0, 0)), (5, (1, 2)), (7, ()), (9, (0,))]
    with pytest.raises(ActionEncodingError, match=r"digit 3 out of range \[0, 3\)"):
        space.encode(5, (0, 3))
    with pytest.raises(ActionEncodingError, match="unknown opcode 6"):
        space.encode(6, ())
    m = Multisets(3, 2)
    assert len(m) == 1 + 3 + 6
    assert m.rank((2, 0)) == m.rank((0, 2)) and m.unrank(m.rank((2, 0))) == (0, 2)
    assert len(Multisets(3, 2, min_size=1, distinct=True)) == 3 + 3


@pytest.mark.parametrize("name", ["odyssey", "iss", "obcy"])
def test_scripted_games_encode_and_fit_the_observation_layout(name: str) -> None:
    """The default players reach what random play does not (Obcy's missions, the transporter,
    reading a disk…): every legal action of such a game round-trips too, and every seat's
    view fits the game's observation layout."""
    from balancelab.interop.observation import ViewEncoder
    from balancelab.policies import base
    from balancelab.simulate.core import game_streams
    from balancelab.simulate.play import play

    game = get_game(name)
    codec = encoding_of(game)
    options = game.options_type()
    n = codec.num_distinct_actions(options)
    seats = len(game.seats(options))
    rules, seat_rngs = game_streams(1, 0, seats)
    policies = [base.build(game, options, k, base.resolve(
        game, game.side_of_seat(options, k), game.default_policies[game.side_of_seat(options, k)]),
        seat_rngs[k]) for k in range(seats)]
    encoder = ViewEncoder(game)
    kinds: set[Any] = set()

    def check(s: State, action: Any) -> None:
        _check_state(game, s, n)
        kinds.update(a // 1000 if isinstance(a, int) else a[0] for a in s.legal_actions())
        for k in range(seats):
            assert encoder.encode(s.view(k)).shape == encoder.shape

    played = play(game, options, policies, rules, on_step=check)
    assert played.decisions > 20 and len(kinds) > 5


def test_a_view_of_another_game_is_refused_by_name() -> None:
    iss, odyssey = encoding_of(get_game("iss")), encoding_of(get_game("odyssey"))
    s = get_game("odyssey").new_initial_state(get_game("odyssey").options_type(),
                                              np.random.default_rng(0))
    with pytest.raises(TypeError, match="expected an IssView, got OdysseyView"):
        iss.encode_action(s.view(0), (11,))
    with pytest.raises(TypeError, match="expected OdysseyOptions, got IssOptions"):
        odyssey.num_distinct_actions(get_game("iss").options_type())
    with pytest.raises(TypeError, match="has no finite action encoding"):
        encoding_of(object())


def test_by_identity_makes_once_per_object_and_function() -> None:
    from balancelab.simulate.encoding import by_identity

    made: list[object] = []

    def table(owner: object) -> list[object]:
        made.append(owner)
        return [owner]

    a, b = get_game("odyssey").options_type(), get_game("odyssey").options_type()
    assert a == b and a is not b
    first = by_identity(a, table)
    assert by_identity(a, table) is first and made == [a]
    assert by_identity(b, table) is not first and made == [a, b]  # equal, another object
    assert by_identity(a, repr) == repr(a)  # another function, another value
