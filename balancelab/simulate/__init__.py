"""The engines, the game loop, the runs (``balancelab.simulate.runs``) and their executors.

This package is also callable: ``balancelab.simulate("odyssey", games=100)`` plays a run
(:func:`balancelab.api.simulate`). The function and this package share the name
``balancelab.simulate``, and Python sets a package as its parent's attribute when one of its
modules is imported, so the package forwards a call to the function.
"""

from __future__ import annotations

import sys
import types
from typing import Any


class _CallablePackage(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from balancelab.api import simulate

        return simulate(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
