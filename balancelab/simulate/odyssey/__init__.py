"""2001: A Space Odyssey, the board game (Phil Walker-Harding, Maestro Media): HAL vs 2-4 crew.

Rulebook: ../shared/rulebooks/odyssey-2001.txt; board and rulings: ../shared/design/odyssey.md.

==============  ===============================================================================
seats           0 ``hal``; 1..crew the crewmembers in clockwise order, seat 1 always Bowman.
                With ``crew_members=random`` (default) Bowman's companions are drawn from
                Poole/Hunter/Kaminski/Whitehead by the rules' rng at setup (seat names
                ``crew2``..; the measure ``crew_names`` records who played), else the fixed
                list names the seats.
sides           ``hal``, ``crew``; winner ``hal`` / ``crew`` / ``""`` (cap)
decisions       HAL: play a card (hidden or revealed), Target (crewmember + card named), Scan
                (crewmember), reveal a card to refill the row, discard after a Disconnect.
                Crew: move (destination), then actions one by one (GIVE, REPAIR one card at a
                time, OPEN, CANCEL, RECOVER then the card taken, DISCONNECT, Bowman's ask),
                then end + draw k; discards over the hand limit (two cards per decision while
                two or more over), the card shown to a Scan, the card given to Bowman when
                asked. Actions are ints ``op*1000+arg``
                (table in ``state.py``).
chance          shuffles of both decks (setup and each reshuffle of a Discard), the first
                crewmember, the random roster; all from the state's Generator.
end             HAL: LIF terminated (``lif_terminated``) or any 3 systems terminated
                (``three_systems_terminated``), checked after every effect. Crew: third Logic
                sequence (``third_sequence``). ``max_rounds`` crew turns: ``cap`` (no
                winner). ``rounds`` = crew turns taken.
options         ``crew`` (2,3,4; key), ``hal_extra_turns`` (-1,0,+1; key), every rulebook
                constant, the assumed readings (``pod_strict``, ``whitehead_remote_repair``,
                ``optional_draw``, ``draw_at_system``, ``lipread_disconnect_discard``,
                ``board_file``), what-if options
                ``hal_turn_every``, ``crew_talk``, ``max_rounds``. See ``rules.py``.
information     crew views: own hand + public (positions, revealed row, malfunctions, doors,
                TRASH piles, pile sizes, hand sizes, announcements); HAL view: hidden hand +
                public. Announcements (``crew_talk``) go to every view, none under Lipread.
versions        1: first engine (issue 2).
                2: the roster measure is ``crew_names`` (the option column ``crew_members``
                stays constant within a variant); rule events are recorded from setup on
                (``trace`` shows HAL's draw, the crew's draws and the first crewmember); a
                hand-limit discard of two or more cards is one decision (two cards at once,
                Hand Size: "choose cards to discard"); the default crew (``crew-team``) plays
                a shared camp, opens the doors that cut the camp or itself off, cancels
                Lipread, keeps Manual Overrides while the POD BAY Doors are closed, never
                passes cards back and forth (LIF alarm 4); faster engine and policies (1.4x
                CPU time per game with the stronger default crew).
                The rules are unchanged: with the same policies and seed, version 1 and 2
                play the same game except for the paired discards.
                3: rules: HAL may not play its revealed (active) Lipread, which only a
                crewmember's Cancel removes (LIPREAD CARD; design notes 1(c)9); a hidden
                Lipread is still played as a null card. The Disconnect discard may not take
                the active Lipread either, unless ``lipread_disconnect_discard=true``.
                Trace: a repaired system's tile flipping back is told; a Scan discard is
                told once. Each seat's Generator is seeded by a one-way key
                (``core.seat_key``: no policy can rebuild the deal), so the games of policies
                that draw (``random``, ``search``) differ for one seed.
                Also (issue 13) the scripted players: hand-limit discards keep
                the best remaining hand (a complete sequence is worth ``run_bonus``), the
                carrier keeps a Manual Override while the POD BAY Doors are closed, an
                Override holder goes to open Door 7 when LIF is at ``pod_alarm``, HAL keeps
                a revealed Lipread when it must discard; the default HAL's weights are the
                tuned set (``hal-pressure:preset=tuned``; ``preset=classic`` the old ones).
==============  ===============================================================================
"""

from balancelab.simulate.odyssey.game import GAME, OdysseyGame
from balancelab.simulate.odyssey.rules import OdysseyOptions
from balancelab.simulate.odyssey.state import OdysseyState, OdysseyView

__all__ = ["GAME", "OdysseyGame", "OdysseyOptions", "OdysseyState", "OdysseyView"]
