"""The questions a designer asks, one module (or package) each. A question that plays games
takes a resolved :class:`~balancelab.simulate.core.Game` (names are parsed once, at the edge:
the command line or the API, with :func:`~balancelab.questions.inputs.load_game` or
:func:`~balancelab.questions.study.check_study`) and returns a result object; none prints.

* :mod:`~balancelab.questions.sweep`: every combination of some rule options in one run,
  grown in rounds until a stopping rule holds (``balancelab sweep``).
* :mod:`~balancelab.questions.compare`: two or more runs against the first
  (``balancelab compare``).
* :mod:`~balancelab.questions.study`: a named study answered once per policy pairing
  (``balancelab study``); :mod:`~balancelab.questions.ladder` the skill ladder
  (``balancelab study skill-ladder GAME``).
* :mod:`~balancelab.questions.balance`: which setting of a rule reaches a target
  (``balancelab balance``).
* :mod:`~balancelab.questions.sensitivity`: how much the answer rests on each rule number
  and assumption (``balancelab sensitivity``).
* :mod:`~balancelab.questions.tune`: a scripted player's parameters tuned with optuna
  (``balancelab tune``).

This package imports nothing at import time; import the module of the question asked.
"""
