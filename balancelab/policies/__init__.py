"""The policies: the registry and contract (``base``), and the game-free ones every game
gets. Importing any policies module registers ``search``, ``ismcts`` and ``oracle``."""

from balancelab.policies import ismcts, search  # noqa: F401  (they register themselves)
