"""The policies: the registry and contract (``base``), and the game-free ones every game
gets. Importing any policies module registers ``search``, ``ismcts`` and ``oracle``.

The registry's entry points are here too: :func:`resolve` (a spec such as
``"search:rollouts=8"`` checked for a side of a game, and made canonical), :func:`build` (the
policy of one seat from a resolved spec), :func:`register`, :func:`available`, and
:class:`Policy`, :class:`Param`, :class:`PolicyError`.
"""

from balancelab.policies import ismcts, search  # noqa: F401  (they register themselves)
from balancelab.policies.base import (
    Param,
    Policy,
    PolicyError,
    available,
    build,
    register,
    resolve,
)

__all__ = ["Param", "Policy", "PolicyError", "available", "build", "register", "resolve"]
