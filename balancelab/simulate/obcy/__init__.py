"""Obcy (Aliens, Gambit): the expedition against the ALIENS, and two ways to kill the QUEEN.

=================  ============================================================================
seats              0 ``expedition`` (one player steers all six characters, as 2. Character
                   Cards allows), 1 ``aliens``. ``Game.sides = ("expedition", "aliens")``.
decisions          Phase 1: transporter destination (or stay); which character acts next (or end
                   the phase); that character's 1-AP actions — walk to a destination (one
                   decision, cost = path length; the stop rule ends paths), pick up, drop, pass,
                   heal (Bishop), read a mission, explosive charge, shoot (target, weapon,
                   shots), grenade, board the transporter, re-enter from the passage track.
                   Phase 2: hatching (one ALIEN at a time: strength and hatching space), which
                   ALIEN moves next (when two or more can) and its destination, attack targets
                   where an ALIEN touches two characters. Interrupts: retreat end space (the
                   retreating piece's owner, when there is a choice); Variant 1 Queen fight
                   after every completed task.
chance             the state's Generator: mission deck shuffle, every die (combat, hatching,
                   Queen's strength).
end conditions     ``expedition`` / ``returned_to_ship``: a character reaches the landing pad (or
                   rides the transporter onto it) after the Queen died; ``aliens`` /
                   ``expedition_wiped_out``: all characters dead while the Queen lives; ``draw``
                   / ``draw_all_died_after_queen``; ``""`` / ``cap`` after ``max_rounds``.
rounds             completed game rounds (one EXPEDITION phase + one ALIENS phase each).
options            ``queen_variant`` (roll|tasks, key), ``queen_tasks`` (key), ``max_rounds``
                   and every rulebook/assumed number (see ``rules.ObcyOptions``); ``map_file``
                   (a map JSON replacing the assumed base map, checked by ``maps.check``;
                   alternatives in ``balancelab/data/alternatives/obcy/``).
version history    1: first engine (issue 4).
                   2: rules unchanged; stronger scripted expedition (reloads at the ammunition
                   stores, move-then-shoot from range, danger of duct/grate-side spaces,
                   easiest missions first, transporter for M08, Variant 1 Queen fight by the
                   odds); faster views and policies.
                   3: rules: one volley (one roll) per ALIEN per character per phase (6.
                   Combat); a character standing on the transporter's space blocks walking
                   onto or through it (4.1; 4.2 frees only the vehicle's space). Default
                   expedition ``dash`` now holds the two hatching spaces nearest the ship
                   (design 3(c)11); lazy line-of-sight table; faster policies.
                   4: rules (issue 12): a rider leaves the transporter only onto a space with
                   no character or ALIEN (4.1, 9.2; riders of an emptied vehicle leave one at
                   a time); no boarding after firing (3.); a room grenade's trio needs any
                   one space within the throw (5.); the ALIENS player chooses the order in
                   which its ALIENS move (9.2); options ``hatching_held_space`` (closed:
                   design 3(c)11, default; open) and ``hatch_onto_older`` (true, default),
                   and a hatching is never skipped because every hatching space is held
                   (9.1); a Queen fight after each completed task (8., Variant 1); the
                   ALIENS' view no longer lists discarded tasks (7.). ``hunter``/``ambush``
                   let an ALIEN in front move first; each seat's
                   Generator is seeded by a one-way key (``core.seat_key``), so games of
                   policies that draw (``random``) differ from 3 for one seed.
                   Also (issue 13, policies): a scripted character leaving the passage track
                   re-enters through the airlock an open airlock mission names (it always
                   took airlock 5, so no airlock task was ever completed), else where the
                   ALIENS threaten least near the others; the default ``dash`` plays the
                   tuned numbers (``dash:preset=tuned``; ``preset=classic`` the old ones:
                   one worker, armed at the armoury, escorts up to 6 spaces ahead) (issue 13).
                   5: rules unchanged; policies (issue 13): a last survivor walks toward its
                   task (or the ship) before it shoots (3.: firing ends its movement; it
                   stood at a clip store shooting the ALIENS that came until the round cap);
                   the character who fuels the transporter for M08 boards it, and one sent
                   to a fuelled transporter on the landing pad carries a fuel can (4.1: the
                   pad is closed to the others while the Queen lives). The default
                   expedition reached the round cap in 5.8% of games, now 0.2%. The default
                   ``dash`` is re-tuned (``preset=tuned``, the search's objective now
                   charging a capped game one win; version 4's set is ``preset=tuned-v4``):
                   25.3% -> 33.9% of 2000 fresh games against ``hunter`` (Variant 2).
                   6: rules unchanged; policies (issue 13): ``hunter``'s numbers are typed
                   parameters and the default plays the tuned set (``hunter:preset=tuned``;
                   ``preset=classic`` the hand-set one): it weighs the losses a strike costs
                   it above those it deals, and strikes at a weaker margin before waiting for
                   the others (``gang`` -2, a smaller ``weak`` penalty). The ALIENS 63.4% ->
                   65.9% of 3000 games against ``dash`` (seed 777, never used in tuning).
                   The flat ``search`` cuts playouts only at settled states (as ``ismcts``).
=================  ============================================================================
"""

from balancelab.simulate.obcy.game import ObcyGame
from balancelab.simulate.obcy.rules import ObcyOptions

GAME = ObcyGame()

__all__ = ["GAME", "ObcyGame", "ObcyOptions"]
