"""The base class of every game's view (kept out of the compiled modules: games subclass it
freely, as namedtuples, slotted classes or dataclasses)."""

from __future__ import annotations

import abc


class View(abc.ABC):  # noqa: B024 - a marker base; games add their own read-only fields
    """What one seat may know. Games subclass it with read-only fields.

    A view holds copies or immutable values only, never a reference to the state, so a policy
    cannot reach hidden information through it.
    """

    seat: int
