"""The one game loop all games share (the runner's workers, ``trace`` and ``tune`` play
through it).

This module is compiled with mypyc by ``pip install`` (see :mod:`balancelab.build`).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from balancelab.simulate.core import Action, Game, GameRecord, IllegalActionError, State
from balancelab.simulate.options import RuleOptions

if TYPE_CHECKING:
    from balancelab.policies.base import Policy


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while games play (a runner's chunk) or while
    a search decides (its iterations).

    The engines and players allocate many short-lived tuples and lists and no reference
    cycles (reference counting frees them all), so the collector's passes are pure overhead:
    about 10% of the 2001 engine's time and 8-12% of an ISS search iteration. Any cycle made
    meanwhile is collected after. Nested uses leave the collector as the outermost found it.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _legal_index(legal: list[Action], chosen: Action) -> int:
    """Where ``chosen`` is in ``legal``: the first legal action equal to it (a numpy integer
    equal to a legal int: the engine plays its own value), or -1 when none is. An int (every
    2001 action) is compared as a machine integer, not by a Python comparison per action."""
    if isinstance(chosen, int):
        c: int = chosen
        for i in range(len(legal)):
            x = legal[i]
            if isinstance(x, int) and x == c:
                return i
    try:
        return legal.index(chosen)
    except ValueError:
        return -1


@dataclass
class PlayedGame:
    """A finished game: its record and the number of decisions made."""

    record: GameRecord
    decisions: int
    state: State


def play(
    game: Game,
    options: RuleOptions,
    policies: Sequence[Policy],
    rng: np.random.Generator,
    on_step: Callable[[State, Action], None] | None = None,
) -> PlayedGame:
    """Play one game to the end: the loop shared by the runner, ``trace`` and the search policy.

    Args:
        game: the game.
        options: validated rule options.
        policies: one policy per seat, in seat order.
        rng: the rules' Generator.
        on_step: called with (state before the action, action) at every decision, for traces.

    Returns:
        The finished game. A seat with a single legal action is not asked. When no policy
        reads views' record of past decisions (``Policy.reads_history``), the state keeps
        none (:meth:`State.stop_recording`). A policy sees
        its seat's view only, except one whose ``sees_state`` is set (the ``oracle`` cheat),
        which is handed a copy of the true state. A policy is handed the legal actions as a
        tuple: the engine trusts no policy, so one that would add an action to the list it
        was offered cannot have it played.

    Raises:
        IllegalActionError: a policy chose an action that is not legal.
    """
    state = game.new_initial_state(options, rng)
    decisions = 0
    pols = list(policies)  # indexed natively (a generic Sequence is indexed by a Python call)
    sees_state = [pol.sees_state for pol in pols]  # read once (a class attribute)
    if not any(pol.reads_history for pol in pols):
        state.stop_recording()  # nobody reads views' record of the past: not kept
    while not state.is_terminal():
        seat = state.current_seat
        legal = state.legal_actions()
        if len(legal) == 1:
            action = legal[0]
        else:
            pol = pols[seat]
            offered = tuple(legal)  # the policy's own copy: it cannot edit what is legal
            if sees_state[seat]:  # a cheat (``oracle``): a copy of the true state, not the view
                chosen = pol.act_on_state(state.copy(), offered)
            else:
                chosen = pol.act(state.view(seat), offered)
            decisions += 1
            i = _legal_index(legal, chosen)
            if i < 0:
                raise IllegalActionError(
                    f"policy {pol.name!r} chose illegal action {chosen!r} "
                    f"for seat {seat}"
                )
            action = legal[i]
        if on_step is not None:
            on_step(state, action)
        state._apply(action)
    return PlayedGame(state.result(), decisions, state)
