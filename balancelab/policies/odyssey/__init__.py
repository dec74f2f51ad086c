"""Scripted policies for *2001: A Space Odyssey* (HAL and crew), reading only their seat's view.

HAL policies:

* ``hal-pressure`` (default): every card scored against the position: a winning malfunction
  first, LIF pushed toward its limit, systems near their limit topped up, the POD BAY Doors
  closed when LIF is under attack and nobody is on the POD, doors closed where they lengthen
  the crew's way to the Core, Target/Scan at the crewmember closest to a Disconnect; reveals its
  least valuable cards (Lipread first, to silence the crew) and discards the least valuable,
  never a revealed Lipread it can spare (``lipread_keep``: face up, it blocks every GIVE and
  all talk, LIPREAD CARD). Its weights are parameters, tuned with ``balancelab tune`` (rules
  version 3; the values before tuning are ``hal-pressure:preset=classic``).
* ``hal-lif``: races Life Support: LIF malfunctions whenever it holds one, else the POD BAY
  Doors, else the pressure scores.
* ``hal-spread``: spreads malfunctions over GRV, MEM and COM for the three-systems win (LIF
  weighted low), doors on the crew's route to the Core.

Crew policies (each crewmember decides from its own hand and public information; they
coordinate only through a public convention and what ``crew_talk`` lets them announce, which
HAL hears too):

* ``crew-team`` (default): a division of labour fixed by public conventions (HAL knows them
  too): Bowman is the *carrier* (he may also ask for cards): the others give him their Logic
  cards (never anything he would hand back) and he carries each complete sequence to the
  Core; the others are *repairers*: they repair LIF at the POD from ``lif_alarm`` LIF
  malfunctions and the GRV/MEM/COM system nearest its limit within reach when they hold a
  fitting card, otherwise everybody draws at the *camp*, the one Picturephone nearest to the
  Core (``camp_shared``), where they meet to give. A crewmember cut off from its goal by
  closed doors heads for the door whose opening reconnects it, or draws at a reachable
  Picturephone (``detour``); one holding a Manual Override opens the door that cuts the camp
  off from the Core (``door_duty``) and keeps its Overrides while the POD BAY Doors are closed
  (``keep_override``). At POD BAY or the Core it cancels a revealed LIF (or terminating)
  malfunction, and Lipread, which blocks the giving the plan lives on (``cancel_lipread``).
  It recovers the most useful card and discards the least useful. Each convention is a
  parameter (``crew-team:door_duty=false`` …) so that its worth can be measured.
* ``crew-rush``: the Logic plan only (each keeps its own Logic cards and carries its own runs;
  repairs only when standing on a system with a fitting card anyway, never detours to repair;
  none of the conventions above).

Speed: a decision reads a handful of view fields; Logic holdings are bitmasks (bit n = Logic n
held), windows and distances come from per-options caches.
"""

# importing registers the policies: HAL's first, then the crew's
# isort: off
from balancelab.policies.odyssey.hal import HAL_CLASSIC, HalLif, HalPressure, HalSpread
from balancelab.policies.odyssey.crew import CrewRush, CrewTeam
# isort: on
from balancelab.policies.odyssey.discards import _BASE_VALUES, _LOGIC_VALUES
from balancelab.policies.odyssey.shared import _CAMP

__all__ = ["HAL_CLASSIC", "CrewRush", "CrewTeam", "HalLif", "HalPressure", "HalSpread",
           "_BASE_VALUES", "_CAMP", "_LOGIC_VALUES"]
