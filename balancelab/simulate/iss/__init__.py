"""*1998 ISS* (Looping Games, 2022): rules engine, FEDOR solo bot and records.

Rulebook: ../shared/rulebooks/iss-1998.txt. Missing data and rulings: ../shared/design/iss.md
(every ASSUMED value is a rule option or a row of ``balancelab/data/iss_*.toml``).

=================  ==========================================================================
seats              ``seat0`` … ``seat{n-1}`` clockwise, ``seat0`` = start player; all on side
                   ``player``. Solo (``players=1``): one seat ``seat0``; FEDOR is part of the
                   rules (no seat, no policy) and the start player is drawn (``solo_start``).
decisions          per turn, only where there is a real choice: cargo-check pad, extra action
                   (or pass), cube to take back when the reserve is empty, the normal action
                   with its parameters (one tuple, see ``state``), experiments to keep,
                   countdown pad, extra-action space after a launch (any seat may be asked),
                   goal card when several are met; solo ``fedor_choice=human``: FEDOR's token.
chance             action-card columns, module deck, shuttle decks (and the removed cards),
                   goal cards, experiment decks, start player (solo), FEDOR deck: all from the
                   state's Generator.
end conditions     the last shuttle of a nation is placed after a launch → the round is
                   finished, then a final round without module cubes or countdown; end reason
                   ``last_shuttle``; ``max_turns`` reached → ``cap`` (winner ``""``).
winner             the seat with most points, ties broken by most experiments, else ``tie``;
                   solo: ``seat0``, ``fedor`` or ``tie``.
rounds             ``turns // np`` where np counts FEDOR in solo (completed rounds, final
                   round included).
options            ``players`` 1-4 and ``remove_shuttles`` (key); ``fedor_choice``,
                   ``fedor_extra_recall`` and ``goal_timing`` (rulebook ambiguities); every
                   rulebook number and every assumed number (countdowns, pad sides, long-stay
                   points, goal thresholds, FEDOR numbers…); ``max_turns``; ``data_dir``.
search hooks       ``determinize`` (hidden hands and deck orders re-dealt) and ``evaluate`` (a
                   logistic of the adjusted score lead, ``iss/evaluate.py``) for cut playouts.
version history    1.0 first engine (issue 3).
                   1.1 (issue 12): FEDOR's Install on an extra action counts its astronauts in
                   long stay (Solo Mode: "one installation token for each astronaut it has on
                   the ISS"); new options ``goal_timing`` and ``fedor_extra_recall`` (defaults
                   keep the 1.0 readings); each seat's Generator is seeded by a one-way key
                   (``core.seat_key``: no policy can rebuild the deal), so the games of policies
                   that draw (the scripted players, ``random``) differ from 1.0 for one seed.
=================  ==========================================================================
"""

from balancelab.simulate.iss.game import GAME, IssGame
from balancelab.simulate.iss.rules import IssOptions
from balancelab.simulate.iss.state import IssState, IssView

__all__ = ["GAME", "IssGame", "IssOptions", "IssState", "IssView"]
