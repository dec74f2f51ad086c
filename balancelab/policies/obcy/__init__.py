"""Scripted players of Obcy: two expedition plans and two ALIENS plans.

Expedition (seat 0):
    ``dash``   every character works on its own task in parallel (the cheapest open missions
               first: fetch distance + walk + a cost for goals near the hatching spaces);
               spare characters escort a worker. Parameter ``block`` (default 2): that
               many of the strongest armed characters *hold* hatching spaces, nearest the
               ship first (H5 west duct, H1 Colony Hab), ending every Expedition phase on
               them: by design ruling 3(c)11 no ALIEN hatches on a space holding a
               character, so the ALIENS must hatch farther from the missions; at least
               ``workers`` characters stay on tasks. (Default: the strongest; its numbers are
               the tuned set, ``dash:preset=classic`` the hand-set ones.)
    ``squad``  one worker (preferably unarmed Bishop) carries out the current task while the
               armed characters arm up at the armoury/ammunition stores (``arm``) and escort
               it, never leading it by more than ``spread`` spaces; the airlock tasks are side
               jobs for a spare character.
    Both: armed characters reload where clips are to be had (drop an empty clip, take a full
    one), plan "move, then shoot" from range (a non-adjacent shooter ignores unfavourable
    results), value a shot by its chance to kill or drive off the ALIEN (COMBAT RESULT table,
    duct x2) against the ammunition it costs, throw grenades at two or more ALIENS clear of
    characters, avoid spaces the ALIENS can reach (doubly next to ducts and grates), let Bishop
    heal, drive the transporter for M08 and back to the ship, and decide the Variant 1 Queen
    fight by the odds (dynamic programme over points, with the chance of completing another
    task estimated from the expedition's remaining strength).
ALIENS (seat 1):
    ``hunter`` hatch strong ALIENS on the hatching space nearest the expedition, close in on the
               nearest character, and only step adjacent when the gang-up is strong enough.
    ``ambush`` keep to the ventilation ducts (strength x2), merge by metamorphosis, strike from
               the ducts; hatch preferably into the duct hatching space.
    Both: the ALIENS move oldest first, except that an ALIEN standing in front of the next
    one (nearer the characters, within its reach) moves first to clear the way (9.2 sets no
    order).
    (Default: ``hunter``.)
    ``hunter-search`` ``hunter``, with the flat Monte Carlo search deciding the hatching only:
               the fast strong ALIENS (:mod:`balancelab.policies.obcy.hunter_search`).

The ALIENS player never sees open mission cards (its view hides them); policies read the view
only and use the public map tables of :mod:`balancelab.simulate.obcy.board`.
"""

# importing registers the policies: the expedition's first, then the ALIENS'
# isort: off
from balancelab.policies.obcy.expedition import DashPolicy, ExpeditionPolicy
from balancelab.policies.obcy.aliens import AliensPolicy, AmbushPolicy
from balancelab.policies.obcy.hunter_search import HunterSearchPolicy
# isort: on
from balancelab.policies.obcy.tables import PolicyTables, _queen_table, _stores_of, policy_tables

__all__ = ["AliensPolicy", "AmbushPolicy", "DashPolicy", "ExpeditionPolicy", "HunterSearchPolicy",
           "PolicyTables",
           "_queen_table", "_stores_of", "policy_tables"]
