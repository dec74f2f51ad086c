"""The anchor: OpenSpiel's hearts played at random from Python, in the same process, measured
just before and just after each one-worker measurement (``balancelab bench --anchor``), so that
figures taken on different machines, or under different load, can be compared."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

#: The pip command that installs the anchor (OpenSpiel), quoted in the error without it.
ANCHOR_INSTALL = 'pip install "balancelab[openspiel]"'


class Anchor:
    """The yardstick: OpenSpiel's hearts (C++) played by uniformly random players driven from
    Python, in this process.

    A step is one action applied: a card dealt, the passing direction, a card passed or
    played (about 115 a game, 53 of them the deal's chance outcomes). Each step reads the
    chance outcomes or the legal actions and draws one uniformly with a numpy Generator's
    ``integers``, as the ``random`` policy does (every chance event of hearts is uniform).

    Args:
        seconds: play for this long per :meth:`steps_per_s`.
        seed: the Generator's seed.

    Raises:
        RuntimeError: OpenSpiel (``pyspiel``) is not installed; the message names
            :data:`ANCHOR_INSTALL`.
    """

    name = "OpenSpiel hearts, random play from Python"

    def __init__(self, seconds: float = 0.5, seed: int = 0) -> None:
        try:
            import pyspiel
        except ImportError:
            raise RuntimeError("the anchor is OpenSpiel's hearts, and OpenSpiel is not "
                               f"installed: {ANCHOR_INSTALL}") from None
        self.game = pyspiel.load_game("hearts")
        self.seconds = seconds
        self.rng = np.random.default_rng(seed)
        #: every :meth:`steps_per_s` measured, in order
        self.samples: list[float] = []
        self._play(1)  # warm-up: the game's tables, the Generator

    def _play(self, games: int) -> int:
        """Play ``games`` games; the steps taken."""
        integers = self.rng.integers
        steps = 0
        for _ in range(games):
            state = self.game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    action = outcomes[int(integers(len(outcomes)))][0]
                else:
                    legal = state.legal_actions()
                    action = legal[int(integers(len(legal)))]
                state.apply_action(action)
                steps += 1
        return steps

    def steps_per_s(self) -> float:
        """Steps/s over whole games played for about :attr:`seconds` (recorded in
        :attr:`samples`)."""
        steps = 0
        t0 = time.perf_counter()
        while True:
            steps += self._play(4)
            elapsed = time.perf_counter() - t0
            if elapsed >= self.seconds:
                break
        rate = steps / elapsed
        self.samples.append(rate)
        return rate

    def around(self, measure: Callable[[], dict[str, Any]], rate: str = "decisions_per_s"
               ) -> dict[str, Any]:
        """``measure()``'s figures, measured between two anchor measurements, with
        ``anchor_steps_per_s`` (the mean of the two) and ``anchor_ratio`` (``figures[rate]``
        over it) added."""
        before = self.steps_per_s()
        figures = measure()
        steps = (before + self.steps_per_s()) / 2
        return {**figures, "anchor_steps_per_s": steps, "anchor_ratio": figures[rate] / steps}

    def summary(self) -> dict[str, Any]:
        """``{"name", "samples", "steps_per_s_min", "steps_per_s_max"}``."""
        return {"name": self.name, "samples": len(self.samples),
                "steps_per_s_min": min(self.samples, default=float("nan")),
                "steps_per_s_max": max(self.samples, default=float("nan"))}
