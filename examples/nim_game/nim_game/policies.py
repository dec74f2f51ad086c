"""Nim's scripted players, registered with balancelab on import (the ``nim`` entry point of
the ``balancelab.policies`` group), and one declared as a class entry point."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from balancelab.policies.base import Param, Policy, register
from balancelab.simulate.core import Action, View
from nim_game import NimView


class NimSum(Policy):
    """Bouton's strategy for Nim with at most ``max_take`` counters a turn: leave heaps whose
    sizes modulo ``max_take + 1`` have a nim-sum of 0; else take ``fallback`` counters."""

    name = "nim-sum"
    params: ClassVar[dict[str, Param]] = {
        "fallback": Param(1, low=1, high=99, help="counters taken from a losing position"),
    }

    def act(self, view: View, legal: Sequence[Action]) -> Action:
        assert isinstance(view, NimView)
        m = view.options.max_take + 1
        for action in legal:
            assert isinstance(action, int)
            heap, n = divmod(action, 100)
            after = [h - n if i == heap else h for i, h in enumerate(view.heaps)]
            x = 0
            for h in after:
                x ^= h % m
            if x == 0:
                return action
        wanted = [a for a in legal if isinstance(a, int) and a % 100 == self.cfg["fallback"]]
        return wanted[0] if wanted else legal[0]


class FirstLegal(Policy):
    """Takes the first legal action (a class entry point: registered under its entry's name)."""

    name = "nim-first-legal"
    games: ClassVar[tuple[str, ...]] = ("nim",)

    def act(self, view: View, legal: Sequence[Action]) -> Action:
        return legal[0]


register("nim-sum", NimSum, games=["nim"], help="Bouton's nim-sum strategy")
