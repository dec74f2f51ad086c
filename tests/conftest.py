"""Shared test configuration: hypothesis profiles and the non-interactive matplotlib backend."""

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

os.environ.setdefault("MPLBACKEND", "Agg")
# no "the engines run as pure Python" note in the commands' output (tests run from the source)
os.environ.setdefault("BALANCELAB_PURE_PYTHON", "1")

settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture(autouse=True, scope="module")
def _restore_game_registry() -> Iterator[None]:
    """Games that a test module registers (the coin game) do not leak into other modules."""
    from balancelab import games

    before = set(games.names())
    yield
    for name in set(games.names()) - before:
        games.unregister(name)
