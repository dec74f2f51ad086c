"""The state of a game of 2001: the rules, turn structure, views, and rule events.

Every rule is cited by its rulebook section in the method that implements it. Decisions are
small ints ``op * 1000 + argument`` (``rules.OPS``; in words: ``text.action_text``):

=======  ================================  ======================================================
op       who / when                        argument
=======  ================================  ======================================================
0        crew: end actions and DRAW        k = cards drawn (0..n)
1        crew: GIVE                        to_seat * 32 + crew card
2        crew: REPAIR (one card)           system * 32 + crew card
3        crew: OPEN a door                 door 1..7
4        crew: CANCEL a revealed HAL card  HAL card
5        crew: RECOVER (play the card)     0
6        crew: DISCONNECT                  lowest Logic number of the sequence
7        crew (Bowman): ask a card         seat asked
8        crew: MOVE                        destination space (the current one = stay)
9        HAL: play a card                  HAL card (+50 when played from the revealed row)
10       HAL: Target                       crew seat * 32 + crew card named
11       HAL: Scan                         crew seat
12       HAL: reveal a card                HAL card moved from the hidden hand to the row
13       HAL: discard after a Disconnect   HAL card (+50 from the revealed row)
14       crew: discard over the hand limit crew card; two cards k1 <= k2 at once
                                           (``PAIR + k1*32 + k2``) while 2+ over
15       crew: discard to a Scan           crew card (revealed to all)
16       crew: give to Bowman when asked   crew card
17       crew: take a card after RECOVER   crew card
=======  ================================  ======================================================

Turn structure (rulebook: Gameplay, HAL Turn, Crewmember Turn): a stack of pending tasks. Setup
pushes the first crew turn, HAL's opening turns and HAL's three reveals; every effect pushes the
decisions it causes (a Scan pushes the scanned crewmember's discard, a Cancel pushes HAL's draw
and reveal, a MEM termination pushes hand-limit discards clockwise from the Monolith holder).
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

import numpy as np
from mypy_extensions import mypyc_attr

from balancelab.simulate.core import GameRecord, State, View
from balancelab.simulate.odyssey import cards as C
from balancelab.simulate.odyssey import text
from balancelab.simulate.odyssey.board import POD_BAY_DOOR, Board, default_board, load_board
from balancelab.simulate.odyssey.rules import (
    CREWMEMBERS,
    E_CREW_RESHUFFLE,
    E_FIRST,
    E_HAL_DRAWS,
    E_HAL_NO_CARD,
    E_HAL_RESHUFFLE,
    E_HAL_TURN,
    E_MARKER,
    E_NO_CARD,
    E_NOTHING_TO_RECOVER,
    E_OVER,
    E_REPAIRED,
    E_RESTORED,
    E_SETUP,
    E_TARGET_HIT,
    E_TARGET_MISS,
    E_TERMINATED,
    E_TURN,
    OP_ASK,
    OP_ASK_GIVE,
    OP_CANCEL,
    OP_DISCONNECT,
    OP_END,
    OP_GIVE,
    OP_HAL_DISCARD,
    OP_HAL_PLAY,
    OP_LIMIT,
    OP_MOVE,
    OP_OPEN,
    OP_RECOVER,
    OP_RECOVER_TAKE,
    OP_REPAIR,
    OP_REVEAL,
    OP_SCAN,
    OP_SCAN_DISCARD,
    OP_TARGET,
    PAIR,
    REV,
    OdysseyOptions,
)

# -- tasks / phases (the decision a pending task asks for) ------------------------------------
T_HAL_PLAY: Final = 1
T_HAL_TARGET: Final = 2
T_HAL_SCAN: Final = 3
T_HAL_REVEAL: Final = 4
T_HAL_DISCARD: Final = 5
T_HAL_DRAW: Final = 6  # automatic
T_CREW_TURN: Final = 7  # automatic
T_MOVE: Final = 8
T_ACT: Final = 9
T_LIMIT: Final = 10
T_SCAN_DISCARD: Final = 11
T_ASK_GIVE: Final = 12
T_RECOVER_TAKE: Final = 13
T_END_TURN: Final = 14  # automatic
PHASE_NAMES: Final = {T_HAL_PLAY: "hal_play", T_HAL_TARGET: "hal_target", T_HAL_SCAN: "hal_scan",
               T_HAL_REVEAL: "hal_reveal", T_HAL_DISCARD: "hal_discard", T_MOVE: "move",
               T_ACT: "actions", T_LIMIT: "hand_limit", T_SCAN_DISCARD: "scan_discard",
               T_ASK_GIVE: "ask_give", T_RECOVER_TAKE: "recover_take"}

#: every task ``(code, seat)`` as one shared tuple, ``_TASKS[code][seat]``: pushing a task
#: allocates nothing (and the views' ``stack`` tuples share them). Typed ``Any``: compiled,
#: a ``tuple[int, int]`` read from here would be unpacked and packed into a new tuple.
_TASKS: Final[tuple[tuple[Any, ...], ...]] = tuple(
    tuple((code, seat) for seat in range(8)) for code in range(T_END_TURN + 1))
_ACT_TASKS: Final = _TASKS[T_ACT]

# action-type bits for "each different type of action at most once per turn"
U_GIVE: Final = 2
U_REPAIR: Final = 4
U_OPEN: Final = 8
U_CANCEL: Final = 16
U_RECOVER: Final = 32
U_DISCONNECT: Final = 64
U_ASK: Final = 128
_USE_BIT: Final = {OP_GIVE: U_GIVE, OP_OPEN: U_OPEN, OP_CANCEL: U_CANCEL, OP_RECOVER: U_RECOVER,
            OP_DISCONNECT: U_DISCONNECT, OP_ASK: U_ASK}

BOWMAN: Final = 0
POOLE: Final = 1
HUNTER: Final = 2
KAMINSKI: Final = 3
WHITEHEAD: Final = 4
#: which system each crewmember's Repair cards double (Crewmember Special Abilities)
SPECIALITY: Final = {BOWMAN: C.C_REPAIR_LIF, POOLE: C.C_REPAIR_MEM, HUNTER: C.C_REPAIR_GRV,
              KAMINSKI: C.C_REPAIR_COM, WHITEHEAD: -1}

END_REASONS: Final = ("lif_terminated", "three_systems_terminated", "third_sequence", "cap",
               "hal_cannot_play")


class Ctx:
    """Per-options constants shared (read-only) by all states of one configuration."""

    def __init__(self, options: OdysseyOptions) -> None:
        o = options
        self.options = o
        self.board: Board = load_board(o.board_file) if o.board_file else default_board()
        b = self.board
        self.n = o.crew
        # (tuples typed variable-length: mypyc re-boxes a fixed-length tuple at every read)
        self.limits: tuple[int, ...] = o.limits()
        #: hand size by [Poole][MEM terminated] (Hand Size; Poole's ability)
        self.hand_sizes: tuple[tuple[int, ...], ...] = ((o.hand_size, o.hand_size_mem_terminated),
                           (o.poole_hand_size, o.poole_hand_size_mem_terminated))
        self.pod = b.system_space[C.LIF]
        self.core = b.core
        self.start = b.start
        self.sys_space: tuple[int, ...] = b.system_space
        self.space_system = b.system
        self.n_spaces = len(b.names)
        self.reach: dict[tuple[int, int, int, bool], tuple[int, ...]] = {}
        self.windows_cache: dict[int, tuple[int, ...]] = {}  # by Logic trashed (policies)
        self.hal_deck = C.hal_deck(o.deck_grv, o.deck_mem, o.deck_com, o.deck_lif,
                                   7 if o.deck_close_door else 0, o.deck_target, o.deck_scan,
                                   o.deck_lipread)
        self.crew_deck = C.crew_deck(o.deck_wild_repair, o.deck_typed_repair, o.deck_override,
                                     o.deck_cancel, o.deck_recover)
        self.L = o.sequence_length
        # the options read in the hot paths, as native attributes (an OdysseyOptions attribute
        # is a dict lookup)
        self.hal_revealed = o.hal_revealed
        # the setup's numbers (SETUP; the opening turns' table: HAL's Opening Turns)
        self.hal_marker_start = o.hal_marker_start
        self.crew_start_hand = o.crew_start_hand
        self.opening_turns = o.opening_turns()
        #: the fixed roster's roles (crew_members), empty when the companions are drawn
        self.roster_fixed: tuple[int, ...] = tuple(CREWMEMBERS.index(x)
                                                   for x in o.roster_fixed())
        self.max_rounds = o.max_rounds
        self.hal_turn_every = o.hal_turn_every
        self.systems_to_win = o.systems_to_win
        self.sequences_to_win = o.sequences_to_win
        self.specialist_repair = o.specialist_repair
        self.third_sequence_guard = o.third_sequence_guard
        self.limit_lif = o.limit_lif
        self.crew_talk = o.crew_talk
        self.talk_none = o.crew_talk == "none"  # (a string comparison per view otherwise)
        self.move = o.move
        self.move_grv_down = o.move_grv_terminated
        self.silence: tuple[None, ...] = (None,) * (self.n + 1)
        self.picturephones = tuple(x for x in range(self.n_spaces) if b.picturephone[x])
        self.crew_seats = tuple(range(1, self.n + 1))
        #: the END decisions (draw k = 0..n, or exactly n) by n (DRAW CARDS; 1(c)20)
        self.end_actions = tuple(list(range(n + 1)) if o.optional_draw else [n]
                                 for n in range(1 + o.kaminski_draw + max(
                                     *b.draw, o.draw_at_system, o.draw_picturephone,
                                     o.draw_picturephone_com_terminated)))
        self.pod_strict = o.pod_strict
        self.cancel_at = b.cancel
        self.pp_at = b.picturephone
        self.draw_pp = o.draw_picturephone
        self.draw_pp_com_down = o.draw_picturephone_com_terminated
        # cards drawn at a space that is no Picturephone (DRAW CARDS; systems: assumed)
        self.draw_space = tuple(
            o.draw_at_system if 0 <= b.system[x] != C.LIF else b.draw[x]
            for x in range(self.n_spaces))
        self.kaminski_at = tuple(x in (b.start, b.core) for x in range(self.n_spaces))
        self.kaminski_draw = o.kaminski_draw
        self.remote_repair = o.whitehead_remote_repair
        #: HAL may discard a revealed (active) Lipread after a Disconnect (LIPREAD CARD vs
        #: DISCONNECT; rule option ``lipread_disconnect_discard``)
        self.lipread_discard = o.lipread_disconnect_discard
        #: HAL may play a hidden Lipread as a null card (rule option ``lipread_null_play``)
        self.lipread_play = o.lipread_null_play
        #: the legal moves (``_legal_move``) by (steps, Hunter, POD occupied, space), then by
        #: the closed doors (bit d = door d: < 256), which decide them when the POD is the only
        #: space with a capacity, and it is 1. Lists indexed by native ints (a dict's key
        #: would be a new int object per look-up); a row of 256 is made at its first use.
        self.move_cache: list[list[list[int] | None] | None] = [None] * (
            4 * (max(o.move, o.move_grv_terminated) + 1) * self.n_spaces)
        self.move_cacheable = all(not c or (sp == self.pod and c == 1)
                                  for sp, c in enumerate(b.capacity))
        self.dist_mask_cache: dict[int, tuple[tuple[int, ...], ...]] = {}
        seats = range(1, self.n + 1)
        self.target_actions = [OP_TARGET * 1000 + s * 32 + k for s in seats
                               for k in range(C.N_CREW_KINDS)]
        #: per space, its neighbours and the door between (0: none), as two parallel lists
        self.adj_to: list[list[int]] = [[t for t, _ in nb] for nb in b.adj]
        self.adj_door: list[list[int]] = [[d for _, d in nb] for nb in b.adj]
        # doors adjacent to each space: (door, other space)
        self.doors_at: list[list[tuple[int, int]]] = [[] for _ in b.names]
        for a, bb, d in b.edges:
            if d:
                self.doors_at[a].append((d, bb))
                self.doors_at[bb].append((d, a))

    def dist_mask(self, mask: int) -> tuple[tuple[int, ...], ...]:
        """All-pairs distances with the doors of ``mask`` (bit d = door d) closed (cached)."""
        d = self.dist_mask_cache.get(mask)
        if d is None:
            d = self.dist_mask_cache[mask] = self.board.distances(mask)
        return d

    def reachable(self, start: int, mask: int, steps: int, hunter: bool) -> tuple[int, ...]:
        """Spaces reachable from ``start`` in 0..``steps`` moves (start included), sorted,
        with the doors of ``mask`` (bit d = door d) closed; ``hunter``: one closed door other
        than the POD BAY Doors may be crossed (Crewmember Actions, MOVE: "cannot move through
        a closed Door token"; Hunter's ability). Cached."""
        key = (start, mask, steps, hunter)
        r = self.reach.get(key)
        if r is None:
            r = self.reach[key] = self._reach(start, mask, steps, hunter)
        return r

    def _reach(self, start: int, mask: int, steps: int, hunter: bool) -> tuple[int, ...]:
        """:meth:`reachable`, searched breadth first over (space, closed door crossed)."""
        n = self.n_spaces
        seen = [False] * (2 * n)  # index: space, + n once Hunter has crossed a closed door
        seen[start] = True
        frontier = [start]
        for _ in range(steps):
            nxt: list[int] = []
            for node in frontier:
                crossed = node >= n
                space = node - n if crossed else node
                doors = self.adj_door[space]
                to = self.adj_to[space]
                for i in range(len(to)):
                    door = doors[i]
                    nb = to[i] + n if crossed else to[i]
                    if door and mask >> door & 1:
                        if not hunter or crossed or door == POD_BAY_DOOR:
                            continue
                        nb = to[i] + n
                    if not seen[nb]:
                        seen[nb] = True
                        nxt.append(nb)
            frontier = nxt
        return tuple([x for x in range(n) if seen[x] or seen[n + x]])


_CTX: Final[dict[OdysseyOptions, Ctx]] = {}


_CTX_BY_ID: Final[dict[int, tuple[OdysseyOptions, Ctx]]] = {}


def ctx_for(options: OdysseyOptions) -> Ctx:
    """The shared constants of an options object (cached by identity, then by value)."""
    hit = _CTX_BY_ID.get(id(options))
    if hit is not None and hit[0] is options:
        return hit[1]
    c = _CTX.get(options)
    if c is None:
        c = _CTX[options] = Ctx(options)
    if len(_CTX_BY_ID) > 256:
        _CTX_BY_ID.clear()
    _CTX_BY_ID[id(options)] = (options, c)
    return c


# lipread() reads the sorted revealed row's last card: Lipread must be the highest HAL kind
assert C.H_LIPREAD == C.N_HAL_KINDS - 1


def _distinct(sorted_kinds: list[int]) -> list[int]:
    """The distinct values of a sorted list, in order."""
    out: list[int] = []
    last = -1
    for k in sorted_kinds:
        if k != last:
            out.append(k)
            last = k
    return out


def _any_card(counts: list[int]) -> bool:
    """Whether ``counts`` (cards per kind) holds a card (``any`` without a generic call)."""
    for c in counts:
        if c:
            return True
    return False


def _insert_sorted(kinds: list[int], k: int) -> None:
    """Insert ``k`` into the sorted list ``kinds``, keeping it sorted."""
    i = len(kinds)
    while i and kinds[i - 1] > k:
        i -= 1
    kinds.insert(i, k)


# Compiled, a freed view is kept for the next one to reuse (a free list of one): the game loop
# frees each decision's view before it builds the next, and skips the allocator both ways.
@mypyc_attr(free_list_len=1)
class OdysseyView(View):
    """What one seat may know.

    Crew seats see their own hand (``hand``: counts per crew card kind, length 20); HAL sees its
    hidden hand (``hand``: counts per HAL card kind, length 14). Everything else is public:
    positions, the revealed row, malfunctions, doors, piles' sizes, both TRASH piles, the HAL
    marker, and whatever the crew announced (``talk``; empty under Lipread or with
    ``crew_talk='none'``).

    Attributes:
        seat: the viewing seat (0 = HAL).
        phase: the pending decision (a ``T_*`` code of this module).
        roles: crewmember index per seat (``-1`` for HAL; 0 Bowman .. 4 Whitehead).
        pos: space per seat (``-1`` for HAL).
        hand: own hand as counts per kind.
        hand_n: cards in hand per seat (HAL: hidden + revealed).
        hal_revealed: HAL's face-up cards, sorted.
        malfunctions: malfunction cards at GRV, MEM, COM, LIF.
        doors: per door 0..7 (0 unused): 0 open (tile beside the board), 1 closed, 2 opened.
        marker: HAL marker (HAL hand size).
        sequences: Logic sequences played.
        logic_trashed: bit n set when Logic n is in the crew TRASH.
        crew_trash: crew TRASH counts per kind; hal_trash: HAL TRASH counts per kind.
        crew_draw_n, crew_discard_n, hal_draw_n, hal_discard_n: pile sizes.
        monolith: the seat holding the Monolith.
        crew_turns: crew turns taken.
        actor: the crewmember whose turn it is (0 during HAL's turn).
        used: action-type bits used this turn (see ``U_*``).
        start_pos: the actor's space at the start of the turn.
        talk: per seat, the announced cards (tuple of kinds) or None.
        lipread: Lipread is revealed.
        stack: the pending tasks (public turn structure).
        options: the game's rule options (public, immutable).
        closed_mask: bit ``d`` set when door ``d`` is closed (the same facts as ``doors``).
        looking_at: the crew Discard pile's cards (sorted kinds) while this seat secretly looks
            through it to take one after playing Recover (RECOVER); empty otherwise.
        crew_discard_seen: crew cards every seat saw go into the crew Discard since it was
            last reshuffled, as counts per crew kind (length 20): played Repair, Cancel and
            Recover cards, cards revealed by a Scan or a Target; not the secret hand-limit
            discards, and, after a Recover, only the Recover cards (the card taken is secret).
        hal_discard_seen: HAL cards every seat saw go into the HAL Discard since it was last
            reshuffled, as counts per HAL kind (length 14): played Target, Scan and Lipread
            cards, cancelled and discarded revealed cards, repaired malfunctions; a hidden card
            HAL discards after a Disconnect is not among them (HAL Actions, DISCONNECT).
        hal_history: the public record of HAL's decisions that its hidden hand decided, oldest
            first (not an observation field: it is the game's history, not its position):
            one ``(phase, action, view)`` per play, reveal and Disconnect discard, where
            ``view`` is HAL's view at that decision with an empty ``hand`` and ``action`` is the
            action taken, or ``-1`` for a hidden card discarded (face down: nobody sees it).
            Filled in games made by :meth:`OdysseyState.new`; empty in re-dealt worlds'
            own later decisions and in games where no seated policy reads it
            (``Policy.reads_history``: the default players do not).
    """

    #: the field names, in order (as a namedtuple's ``_fields``)
    _fields: ClassVar[tuple[str, ...]] = (
        "seat", "phase", "roles", "pos", "hand", "hand_n", "hal_revealed", "malfunctions", "doors",
        "marker", "sequences", "logic_trashed", "crew_trash", "hal_trash", "crew_draw_n",
        "crew_discard_n", "hal_draw_n", "hal_discard_n", "monolith", "crew_turns", "actor", "used",
        "repair_open", "start_pos", "talk", "lipread", "stack", "options", "closed_mask",
        "looking_at", "hal_discard_seen", "crew_discard_seen")

    phase: int
    roles: tuple[int, ...]
    pos: tuple[int, ...]
    hand: tuple[int, ...]
    hand_n: tuple[int, ...]
    hal_revealed: tuple[int, ...]
    malfunctions: tuple[int, ...]
    doors: tuple[int, ...]
    marker: int
    sequences: int
    logic_trashed: int
    crew_trash: tuple[int, ...]
    hal_trash: tuple[int, ...]
    crew_draw_n: int
    crew_discard_n: int
    hal_draw_n: int
    hal_discard_n: int
    monolith: int
    crew_turns: int
    actor: int
    used: int
    repair_open: bool
    start_pos: int
    talk: tuple[tuple[int, ...] | None, ...]
    lipread: bool
    stack: tuple[tuple[int, int], ...]
    options: OdysseyOptions
    closed_mask: int
    looking_at: tuple[int, ...]
    hal_discard_seen: tuple[int, ...]
    crew_discard_seen: tuple[int, ...]
    hal_history: tuple[tuple[int, int, OdysseyView], ...]

    def __init__(
        self,
        seat: int,
        phase: int,
        roles: tuple[int, ...],
        pos: tuple[int, ...],
        hand: tuple[int, ...],
        hand_n: tuple[int, ...],
        hal_revealed: tuple[int, ...],
        malfunctions: tuple[int, ...],
        doors: tuple[int, ...],
        marker: int,
        sequences: int,
        logic_trashed: int,
        crew_trash: tuple[int, ...],
        hal_trash: tuple[int, ...],
        crew_draw_n: int,
        crew_discard_n: int,
        hal_draw_n: int,
        hal_discard_n: int,
        monolith: int,
        crew_turns: int,
        actor: int,
        used: int,
        repair_open: bool,
        start_pos: int,
        talk: tuple[tuple[int, ...] | None, ...],
        lipread: bool,
        stack: tuple[tuple[int, int], ...],
        options: OdysseyOptions,
        closed_mask: int,
        looking_at: tuple[int, ...],
        hal_discard_seen: tuple[int, ...] = (0,) * C.N_HAL_KINDS,
        crew_discard_seen: tuple[int, ...] = (0,) * C.N_CREW_KINDS,
        hal_history: tuple[tuple[int, int, OdysseyView], ...] = (),
    ) -> None:
        self.seat = seat
        self.phase = phase
        self.roles = roles
        self.pos = pos
        self.hand = hand
        self.hand_n = hand_n
        self.hal_revealed = hal_revealed
        self.malfunctions = malfunctions
        self.doors = doors
        self.marker = marker
        self.sequences = sequences
        self.logic_trashed = logic_trashed
        self.crew_trash = crew_trash
        self.hal_trash = hal_trash
        self.crew_draw_n = crew_draw_n
        self.crew_discard_n = crew_discard_n
        self.hal_draw_n = hal_draw_n
        self.hal_discard_n = hal_discard_n
        self.monolith = monolith
        self.crew_turns = crew_turns
        self.actor = actor
        self.used = used
        self.repair_open = repair_open
        self.start_pos = start_pos
        self.talk = talk
        self.lipread = lipread
        self.stack = stack
        self.options = options
        self.closed_mask = closed_mask
        self.looking_at = looking_at
        self.hal_discard_seen = hal_discard_seen
        self.crew_discard_seen = crew_discard_seen
        self.hal_history = hal_history

    def with_hand(self, hand: tuple[int, ...]) -> OdysseyView:
        """This view with ``hand`` in place of its own (``hal_history`` left empty): the view
        of HAL at a past decision under a supposed hidden hand (a belief's model of HAL)."""
        return OdysseyView(
            self.seat, self.phase, self.roles, self.pos, hand, self.hand_n, self.hal_revealed,
            self.malfunctions, self.doors, self.marker, self.sequences, self.logic_trashed,
            self.crew_trash, self.hal_trash, self.crew_draw_n, self.crew_discard_n,
            self.hal_draw_n, self.hal_discard_n, self.monolith, self.crew_turns, self.actor,
            self.used, self.repair_open, self.start_pos, self.talk, self.lipread, self.stack,
            self.options, self.closed_mask, self.looking_at, self.hal_discard_seen,
            self.crew_discard_seen)

    def astuple(self) -> tuple[Any, ...]:
        """The fields' values, in :attr:`_fields` order."""
        return tuple([getattr(self, f) for f in self._fields])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OdysseyView) and self.astuple() == other.astuple()

    def __hash__(self) -> int:
        return hash(self.astuple())

    def __repr__(self) -> str:
        return "OdysseyView(" + ", ".join(
            f"{f}={getattr(self, f)!r}" for f in self._fields) + ")"


#: every action value (all are below 18,000) as one shared int object: the legal lists take
#: them from here (an int above 256 is otherwise a new object each time it is made), and a
#: policy that hands one back is found by identity in the game loop
_ACTION: Final[list[Any]] = list(range((OP_RECOVER_TAKE + 1) * 1000))


def hal_card_actions(ctx: Ctx, phase: int, hidden: list[int], rev: list[int]) -> list[int]:
    """HAL's legal actions at a play, reveal or Disconnect discard (``phase`` T_HAL_PLAY,
    T_HAL_REVEAL or T_HAL_DISCARD) with ``hidden`` (counts per HAL kind) behind the screen
    and ``rev`` (sorted kinds) in the revealed row: the engine's, and a belief's for a hand
    HAL might hold (HAL Actions)."""
    A = _ACTION
    if phase == T_HAL_REVEAL:
        return [A[OP_REVEAL * 1000 + k] for k in range(C.N_HAL_KINDS) if hidden[k]]
    # a hidden Lipread may be played as a null card (lipread_null_play: HAL plays it
    # only when it has no other card then) or discarded; a revealed one is
    # active and only a crewmember's Cancel removes it (LIPREAD CARD; design notes
    # 1(c)9), save the Disconnect discard under lipread_disconnect_discard
    base = (OP_HAL_PLAY if phase == T_HAL_PLAY else OP_HAL_DISCARD) * 1000
    out: list[Any] = [A[base + k] for k in range(C.N_HAL_KINDS) if hidden[k]]
    if rev:
        keep_lipread = phase == T_HAL_PLAY or not ctx.lipread_discard
        last = -1
        for k in rev:  # each kind of the sorted row once
            if k != last and (k != C.H_LIPREAD or not keep_lipread):
                out.append(A[base + REV + k])
            last = k
    if (phase == T_HAL_PLAY and hidden[C.H_LIPREAD] and len(out) > 1
            and not ctx.lipread_play):
        out.remove(base + C.H_LIPREAD)  # lipread_null_play=false
    return out


#: no card seen going into the HAL (crew) Discard since its last reshuffle
_NO_HAL_SEEN: tuple[int, ...] = (0,) * C.N_HAL_KINDS
_NO_CREW_SEEN: tuple[int, ...] = (0,) * C.N_CREW_KINDS


#: the typed Repair card of each system (``C.SYSTEM_REPAIR`` as a list: no dict look-up)
_SYSTEM_REPAIR: Final[list[int]] = [C.SYSTEM_REPAIR[system] for system in range(4)]


def _repair_actions(system: int, any_repair: bool, hand: list[int], out: list[Any]) -> None:
    """Append the REPAIR actions on ``system`` with the cards of ``hand``: the Wild Repair,
    then the system's own Repair card, or with ``any_repair`` (Whitehead) each typed Repair
    card held, in card order."""
    A = _ACTION
    base = OP_REPAIR * 1000 + system * 32
    if hand[C.C_WILD]:
        out.append(A[base + C.C_WILD])
    if any_repair:
        for k in range(C.C_REPAIR_MEM, C.C_REPAIR_LIF + 1):
            if hand[k]:
                out.append(A[base + k])
    else:
        k = _SYSTEM_REPAIR[system]
        if hand[k]:
            out.append(A[base + k])


def _bumped(counts: tuple[int, ...], k: int, n: int) -> tuple[int, ...]:
    """``counts`` with ``n`` more of kind ``k`` (a new tuple: the state's seen counts are
    immutable, so every view shares them without a copy)."""
    out = list(counts)
    out[k] = out[k] + n
    return tuple(out)


def _counts(kinds: list[int], n: int) -> list[int]:
    out = [0] * n
    for k in kinds:
        out[k] = out[k] + 1
    return out


class OdysseyState(State):
    """A game in progress. Build with :meth:`new` (setup) or :meth:`OdysseyGame.determinize`.

    The hot paths change a count as ``a[i] = a[i] + n``: compiled, ``a[i] += n`` on a list
    item is a generic Python addition.
    """

    __slots__ = (
        "ctx", "roles", "pos", "hands", "hand_n", "crew_draw", "crew_disc", "crew_trash",
        "hal_draw", "hal_disc", "hal_trash", "hal_hidden", "hal_rev", "mal", "doors",
        "closed_mask", "marker", "sequences", "logic_trashed", "monolith", "crew_turns",
        "hal_turns", "stack", "actor", "used", "repair_open", "start_pos", "current_seat",
        "phase", "terminal", "winner", "end_reason", "m", "log", "tracing", "first",
        "trash_counts", "hal_seen", "crew_seen", "hal_history", "recording", "view0",
        "pos_t", "mal_t", "doors_t", "rev_t", "hand_t", "hand_n_t",
    )

    ctx: Ctx
    roles: tuple[int, ...]
    pos: list[int]
    hands: list[list[int]]
    #: cards in hand per seat; HAL's (seat 0): hidden and revealed (``hal_hand_n``)
    hand_n: list[int]
    crew_draw: list[int]
    crew_disc: list[int]
    crew_trash: list[int]
    hal_draw: list[int]
    hal_disc: list[int]
    hal_trash: list[int]
    hal_hidden: list[int]
    hal_rev: list[int]  # HAL's revealed row, kept sorted
    mal: list[int]
    doors: list[int]
    closed_mask: int
    marker: int
    sequences: int
    logic_trashed: int
    monolith: int
    crew_turns: int
    hal_turns: int
    stack: list[tuple[int, int]]
    actor: int
    used: int
    repair_open: bool
    start_pos: int
    phase: int
    terminal: bool
    winner: str
    end_reason: str
    m: list[int]
    log: list[tuple[Any, ...]]
    #: whether rule events are recorded in ``log``: during setup, then once ``events()`` has
    #: been called (``trace``); a game played without a trace records none
    tracing: bool
    first: int
    #: the crew and HAL TRASH counts per kind the views show (None until the first view).
    #: Typed variable-length: compiled, a fixed-length pair is unboxed at every read
    trash_counts: tuple[tuple[int, ...], ...] | None
    #: HAL cards seen going into the HAL Discard since its last reshuffle (counts per kind)
    hal_seen: tuple[int, ...]
    #: crew cards seen going into the crew Discard since its last reshuffle (counts per kind)
    crew_seen: tuple[int, ...]
    #: the public record of HAL's decisions (``OdysseyView.hal_history``)
    hal_history: tuple[tuple[int, int, OdysseyView], ...]
    #: whether HAL's decisions are added to ``hal_history`` (games from ``new``; not the
    #: worlds a search re-deals, whose rollouts need no history)
    recording: bool
    #: HAL's view built at the pending decision (reused to record it; None once it is taken)
    view0: OdysseyView | None
    #: ``pos``, ``mal``, ``doors`` and ``hal_rev`` as the tuples the views show, made by the
    #: first view after a change (None until then): every view until the next change shares
    #: them (immutable) instead of converting the lists per view. A method that changes one
    #: of the lists sets its tuple to None.
    pos_t: tuple[int, ...] | None
    mal_t: tuple[int, ...] | None
    doors_t: tuple[int, ...] | None
    rev_t: tuple[int, ...] | None
    #: likewise, per seat, its hand as the tuple its views show (HAL: the hidden hand), and
    #: ``hand_n``: set to None by :meth:`_hand_changed`; a card HAL plays or discards from
    #: the revealed row forgets only the hand sizes (the hidden hand stays)
    hand_t: list[tuple[int, ...] | None]
    hand_n_t: tuple[int, ...] | None

    # measure counters (indices into self.m)
    M_PLAYED = 0  # 0..3 malfunctions played per system
    M_REPAIRED = 4  # 4..7 malfunctions removed per system
    M_DISCONNECTS = 8
    M_DOORS_CLOSED = 9
    M_DOORS_OPENED = 10
    M_TARGET = 11
    M_TARGET_HITS = 12
    M_SCAN = 13
    M_LIPREAD = 14
    M_CANCELS = 15
    M_HAL_RESHUFFLES = 16
    M_CREW_RESHUFFLES = 17
    M_RECOVERS = 18
    M_GIVES = 19
    N_M: ClassVar[int] = 20

    def __init__(self) -> None:  # fields are set by new() / _clone()
        pass

    # -- setup (rulebook: General Setup, HAL Setup, Crewmember Setup) -----------------------
    @classmethod
    def new(cls, options: OdysseyOptions, rng: np.random.Generator) -> OdysseyState:
        """A new game after setup, every chance event drawn from ``rng``."""
        ctx = ctx_for(options)
        s = cls()
        s.ctx = ctx
        s.rng = rng
        n = ctx.n
        fixed = ctx.roster_fixed
        if fixed:
            roles = list(fixed)
        else:
            # rng.permutation(4) is a shuffle of 0..3 (numpy's own definition): shuffled as a
            # list, the same draws and order without an array of numpy ints
            perm = [0, 1, 2, 3]
            rng.shuffle(perm)
            others = [x + 1 for x in perm[: n - 1]]
            roles = [BOWMAN, *sorted(others)]
        s.roles = (-1, *roles)
        s.pos = [-1] + [ctx.start] * n
        s.hands = [[0] * C.N_CREW_KINDS for _ in range(n + 1)]
        s.hand_n = [0] * (n + 1)
        s.crew_draw = list(ctx.crew_deck)
        rng.shuffle(s.crew_draw)
        s.crew_disc = []
        s.crew_trash = []
        s.hal_draw = list(ctx.hal_deck)
        rng.shuffle(s.hal_draw)
        s.hal_disc = []
        s.hal_trash = []
        s.trash_counts = None
        s.hal_seen = _NO_HAL_SEEN
        s.crew_seen = _NO_CREW_SEEN
        s.hal_history = ()
        s.recording = True
        s.view0 = None
        s.pos_t = s.mal_t = s.doors_t = s.rev_t = s.hand_n_t = None
        s.hand_t = [None] * (n + 1)
        s.hal_hidden = [0] * C.N_HAL_KINDS
        s.hal_rev = []
        s.mal = [0, 0, 0, 0]
        s.doors = [0] * 8
        s.closed_mask = 0
        s.marker = ctx.hal_marker_start
        s.sequences = 0
        s.logic_trashed = 0
        s.monolith = 1 + int(rng.integers(n))
        s.first = s.monolith
        s.crew_turns = 0
        s.hal_turns = 0
        s.actor = 0
        s.used = 0
        s.repair_open = False
        s.start_pos = -1
        s.current_seat = -1
        s.phase = 0
        s.terminal = False
        s.winner = ""
        s.end_reason = ""
        s.m = [0] * cls.N_M
        s.log = [(E_SETUP, ctx.hal_marker_start, ctx.crew_start_hand)]
        s.tracing = True  # the setup's events wait for a trace's first events() call
        for _ in range(ctx.hal_marker_start):
            s._hal_draw()
        for seat in range(1, n + 1):
            s._crew_draw(seat, ctx.crew_start_hand)
        s.log.append((E_FIRST, s.monolith))
        stack = [_TASKS[T_CREW_TURN][s.monolith]]
        stack += [_TASKS[T_HAL_PLAY][0]] * ctx.opening_turns
        stack += [_TASKS[T_HAL_REVEAL][0]] * ctx.hal_revealed
        s.stack = stack
        s._run()
        s.tracing = False
        return s

    # -- contract --------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.terminal

    def copy(self) -> OdysseyState:
        s = OdysseyState.__new__(OdysseyState)
        s.ctx = self.ctx
        self.copy_rng_to(s)
        s.roles = self.roles
        s.pos = self.pos[:]
        s.hands = [h[:] for h in self.hands]
        s.hand_n = self.hand_n[:]
        s.crew_draw = self.crew_draw[:]
        s.crew_disc = self.crew_disc[:]
        s.crew_trash = self.crew_trash[:]
        s.hal_draw = self.hal_draw[:]
        s.hal_disc = self.hal_disc[:]
        s.hal_trash = self.hal_trash[:]
        s.trash_counts = self.trash_counts
        s.hal_seen = self.hal_seen
        s.crew_seen = self.crew_seen
        s.hal_history = self.hal_history
        s.recording = self.recording
        s.view0 = None
        s.pos_t = self.pos_t
        s.mal_t = self.mal_t
        s.doors_t = self.doors_t
        s.rev_t = self.rev_t
        s.hand_t = self.hand_t[:]
        s.hand_n_t = self.hand_n_t
        s.hal_hidden = self.hal_hidden[:]
        s.hal_rev = self.hal_rev[:]
        s.mal = self.mal[:]
        s.doors = self.doors[:]
        s.closed_mask = self.closed_mask
        s.marker = self.marker
        s.sequences = self.sequences
        s.logic_trashed = self.logic_trashed
        s.monolith = self.monolith
        s.first = self.first
        s.crew_turns = self.crew_turns
        s.hal_turns = self.hal_turns
        s.stack = self.stack[:]
        s.actor = self.actor
        s.used = self.used
        s.repair_open = self.repair_open
        s.start_pos = self.start_pos
        s.current_seat = self.current_seat
        s.phase = self.phase
        s.terminal = self.terminal
        s.winner = self.winner
        s.end_reason = self.end_reason
        s.m = self.m[:]
        s.log = []
        s.tracing = False
        return s

    # -- derived facts -----------------------------------------------------------------------
    def terminated(self, system: int) -> bool:
        """Whether ``system`` has at least its limit of malfunctions (System Tiles)."""
        return self.mal[system] >= self.ctx.limits[system]

    def lipread(self) -> bool:
        """Lipread is one of the revealed HAL cards (LIPREAD CARD)."""
        rev = self.hal_rev  # sorted, and Lipread is the highest HAL kind
        return bool(rev) and rev[-1] == C.H_LIPREAD

    def _hal_rev_playable(self, lipread_too: bool) -> bool:
        """Whether the revealed row holds a card HAL may play or discard: any card but an
        active Lipread, which only a Cancel removes (LIPREAD CARD), unless ``lipread_too``."""
        for k in self.hal_rev:
            if k != C.H_LIPREAD or lipread_too:
                return True
        return False

    def hand_limit(self, seat: int) -> int:
        """The seat's hand size now (Hand Size; Poole's ability)."""
        ctx = self.ctx
        return ctx.hand_sizes[self.roles[seat] == POOLE][self.mal[C.MEM] >= ctx.limits[C.MEM]]

    def draw_count(self, seat: int) -> int:
        """Cards the seat may draw at the end of its turn (DRAW CARDS; Kaminski)."""
        ctx = self.ctx
        space = self.pos[seat]
        if ctx.pp_at[space]:
            n = ctx.draw_pp_com_down if self.mal[C.COM] >= ctx.limits[C.COM] else ctx.draw_pp
        else:
            n = ctx.draw_space[space]
        if ctx.kaminski_at[space] and self.roles[seat] == KAMINSKI:
            n += ctx.kaminski_draw
        return n

    def hal_hand_n(self) -> int:
        """HAL's hand: hidden cards and the revealed row, counted (the state keeps the count in
        ``hand_n[0]``)."""
        n = len(self.hal_rev)
        for c in self.hal_hidden:
            n += c
        return n

    def _hand_changed(self, seat: int) -> None:
        """Forget the tuples the views showed of ``seat``'s hand and of the hand sizes: called
        wherever a hand (HAL's: the hidden hand) or a hand size changes."""
        self.hand_t[seat] = None
        self.hand_n_t = None

    # -- the task loop -------------------------------------------------------------------
    def _run(self) -> None:
        """Execute automatic tasks until a decision is pending or the game is over."""
        stack = self.stack
        while stack:
            code, seat = stack[-1]
            if code == T_HAL_PLAY:
                if _any_card(self.hal_hidden) or self._hal_rev_playable(False):
                    self.hal_turns += 1
                    if self.tracing:
                        self.log.append((E_HAL_TURN, self.crew_turns))
                    self.actor = 0
                    self.phase = code
                    self.current_seat = seat
                    return
                # guard (design notes 1(c)11: cannot arise with the printed decks)
                stack.pop()
                if self.tracing:
                    self.log.append((E_HAL_NO_CARD,))
                continue
            if code == T_MOVE or code == T_ACT:
                self.phase = code
                self.current_seat = seat
                return
            if code == T_HAL_DRAW:
                stack.pop()
                self._hal_draw()
                if self.tracing:
                    self.log.append((E_HAL_DRAWS,))
                continue
            if code == T_CREW_TURN:
                self.actor = seat
                self.used = 0
                self.repair_open = False
                self.start_pos = self.pos[seat]
                stack[-1] = _TASKS[T_END_TURN][seat]  # (in place of the turn: no resize)
                stack.append(_ACT_TASKS[seat])
                stack.append(_TASKS[T_MOVE][seat])
                if self.tracing:
                    self.log.append((E_TURN, seat, self.crew_turns))
                continue
            if code == T_END_TURN:
                self._end_crew_turn(seat)  # replaces the task (stack top)
                if self.terminal:
                    return
                continue
            if code == T_HAL_REVEAL:
                if len(self.hal_rev) >= self.ctx.hal_revealed or not _any_card(
                        self.hal_hidden):
                    stack.pop()
                    continue
            elif code == T_LIMIT:
                ctx = self.ctx
                if self.hand_n[seat] <= ctx.hand_sizes[self.roles[seat] == POOLE][
                        self.mal[C.MEM] >= ctx.limits[C.MEM]]:  # hand_limit(seat)
                    stack.pop()
                    continue
            elif code == T_SCAN_DISCARD or code == T_ASK_GIVE:
                if self.hand_n[seat] == 0:
                    stack.pop()
                    if self.tracing:
                        self.log.append((E_NO_CARD, seat))
                    continue
            elif code == T_RECOVER_TAKE:
                if all(k == C.C_RECOVER for k in self.crew_disc):
                    stack.pop()
                    if self.tracing:
                        self.log.append((E_NOTHING_TO_RECOVER,))
                    continue
            elif code == T_HAL_DISCARD:
                if not _any_card(self.hal_hidden) and not self._hal_rev_playable(
                        self.ctx.lipread_discard):
                    stack.pop()  # guard: only an active Lipread left (cannot arise with
                    continue     # the printed deck and hand sizes)
            self.phase = code
            self.current_seat = seat
            return
        # an empty stack with no result cannot happen; guard anyway
        self._finish("", "hal_cannot_play")

    def _finish(self, winner: str, reason: str) -> None:
        self.terminal = True
        self.winner = winner
        self.end_reason = reason
        self.stack.clear()
        self.current_seat = -1
        self.phase = 0
        if self.tracing:
            self.log.append((E_OVER, winner, reason))

    def _end_crew_turn(self, seat: int) -> None:
        """Pass the Monolith clockwise; then HAL's turn (Crewmember Turn, last paragraph).
        The T_END_TURN task on the stack top is replaced by what follows."""
        self.crew_turns += 1
        self.actor = 0
        n = self.ctx.n
        self.monolith = seat % n + 1
        o = self.ctx
        if self.crew_turns >= o.max_rounds:
            self._finish("", "cap")
            return
        stack = self.stack
        stack[-1] = _TASKS[T_CREW_TURN][self.monolith]
        if self.crew_turns % o.hal_turn_every == 0:
            stack.append(_TASKS[T_HAL_PLAY][0])

    # -- piles -----------------------------------------------------------------------------
    def _hal_draw(self) -> None:
        """HAL draws 1 into the hidden hand; the Discard is reshuffled when the Draw pile is
        empty (HAL Actions, last paragraph). Nothing happens if both are empty."""
        if not self.hal_draw:
            if not self.hal_disc:
                return
            self.hal_draw = self.hal_disc
            self.hal_disc = []
            self.hal_seen = _NO_HAL_SEEN
            self.rng.shuffle(self.hal_draw)
            self.m[self.M_HAL_RESHUFFLES] = self.m[self.M_HAL_RESHUFFLES] + 1
            if self.tracing:
                self.log.append((E_HAL_RESHUFFLE,))
        card = self.hal_draw.pop()
        self.hal_hidden[card] = self.hal_hidden[card] + 1
        self.hand_n[0] = self.hand_n[0] + 1
        self._hand_changed(0)

    def _crew_draw(self, seat: int, k: int) -> None:
        """The seat draws ``k`` cards; the crew Discard is reshuffled when the Draw pile runs
        out (Hand Size, last paragraph); no draw if both are empty (design notes 1(c)12)."""
        hand = self.hands[seat]
        self._hand_changed(seat)
        pile = self.crew_draw  # (the pile and the count drawn held locally; one hand_n update)
        drawn = 0
        while drawn < k:
            if not pile:
                if not self.crew_disc:
                    break
                pile = self.crew_draw = self.crew_disc
                self.crew_disc = []
                self.crew_seen = _NO_CREW_SEEN
                self.rng.shuffle(pile)
                self.m[self.M_CREW_RESHUFFLES] = self.m[self.M_CREW_RESHUFFLES] + 1
                if self.tracing:
                    self.log.append((E_CREW_RESHUFFLE,))
            card = pile.pop()
            hand[card] = hand[card] + 1
            drawn += 1
        self.hand_n[seat] = self.hand_n[seat] + drawn

    # -- legal actions -----------------------------------------------------------------------
    def legal_actions(self) -> list[Any]:
        """The legal decisions of ``current_seat`` (see the module table); [] when over."""
        ph = self.phase
        if self.terminal:
            return []
        if ph == T_HAL_PLAY or ph == T_HAL_DISCARD or ph == T_HAL_REVEAL:
            return hal_card_actions(self.ctx, ph, self.hal_hidden, self.hal_rev)
        if ph == T_ACT:
            return self._legal_act()
        if ph == T_MOVE:
            return self._legal_move()
        if ph == T_HAL_TARGET:
            return list(self.ctx.target_actions)
        if ph == T_HAL_SCAN:
            seats = [s for s in range(1, self.ctx.n + 1) if self.roles[s] != WHITEHEAD]
            return [_ACTION[OP_SCAN * 1000 + s] for s in seats]
        if ph == T_RECOVER_TAKE:
            kinds = sorted({k for k in self.crew_disc if k != C.C_RECOVER})
            return [_ACTION[OP_RECOVER_TAKE * 1000 + k] for k in kinds]
        seat = self.current_seat
        hand = self.hands[seat]
        A = _ACTION
        out: list[Any] = []
        if ph == T_LIMIT and self.hand_n[seat] - self.hand_limit(seat) >= 2:
            # Hand Size: "choose cards to discard": two at once while two or more are over
            kinds = [k for k in range(C.N_CREW_KINDS) if hand[k]]
            base = OP_LIMIT * 1000 + PAIR
            n = len(kinds)
            for i in range(n):
                k = kinds[i]
                b = base + k * 32
                if hand[k] >= 2:
                    out.append(A[b + k])
                for j in range(i + 1, n):
                    out.append(A[b + kinds[j]])
            return out
        if ph == T_LIMIT:
            base = OP_LIMIT * 1000
        elif ph == T_SCAN_DISCARD:
            base = OP_SCAN_DISCARD * 1000
        else:
            base = OP_ASK_GIVE * 1000
        for k in range(C.N_CREW_KINDS):  # (no list of the kinds held first)
            if hand[k]:
                out.append(A[base + k])
        return out

    def _legal_move(self) -> list[int]:
        """MOVE (Crewmember Actions; GRV tile; Hunter; POD capacity)."""
        seat = self.current_seat
        ctx = self.ctx
        pos = self.pos
        here = pos[seat]
        pod = ctx.pod
        pod_full = False  # capacity 1 (POD)
        if pod != here:
            for x in pos:
                if x == pod:
                    pod_full = True
                    break
        steps = ctx.move_grv_down if self.mal[0] >= ctx.limits[0] else ctx.move
        hunter = self.roles[seat] == HUNTER
        rows = ctx.move_cache  # by (steps, Hunter, POD occupied, space), then the closed doors
        r = ((steps * 2 + hunter) * 2 + pod_full) * ctx.n_spaces + here
        row = rows[r]
        if row is None:
            new_row: list[list[int] | None] = [None] * 256
            row = rows[r] = new_row
        out = row[self.closed_mask]
        if out is None:
            dests = ctx.reachable(here, self.closed_mask, steps, hunter)
            cap = ctx.board.capacity
            out = []
            for d in dests:
                if cap[d] and d != here:
                    if d != pod:
                        n_here = sum(1 for t in range(1, ctx.n + 1) if t != seat and pos[t] == d)
                        if n_here >= cap[d]:
                            continue
                    elif pod_full:
                        continue
                out.append(_ACTION[OP_MOVE * 1000 + d])
            if ctx.move_cacheable:
                row[self.closed_mask] = out
            else:  # a board with other capacities: not cacheable by this key
                return out
        return out[:]

    def _legal_act(self) -> list[int]:
        """TAKE ACTIONS and DRAW (Crewmember Actions; POD; abilities)."""
        seat = self.current_seat
        ctx = self.ctx
        allpos = self.pos
        pos = allpos[seat]
        hand = self.hands[seat]
        used = self.used
        # DRAW CARDS (Kaminski's extra card at POD BAY / THE HAL-9000 CORE)
        if ctx.pp_at[pos]:
            n_draw = ctx.draw_pp_com_down if self.mal[2] >= ctx.limits[2] else ctx.draw_pp
        else:
            n_draw = ctx.draw_space[pos]
        if ctx.kaminski_at[pos] and self.roles[seat] == KAMINSKI:
            n_draw += ctx.kaminski_draw
        out: list[Any] = ctx.end_actions[n_draw][:]
        A = _ACTION
        pod = ctx.pod
        if pod == pos or pod == self.start_pos:
            # POD: move OR repair (design notes 1(c)5)
            if pos != pod or (pos != self.start_pos and ctx.pod_strict):
                return out
            self._legal_repair(seat, pos, hand, out)
            return out
        if (self.repair_open or not used & U_REPAIR) and (
                ctx.space_system[pos] >= 0 or ctx.remote_repair):
            self._legal_repair(seat, pos, hand, out)
        rev = self.hal_rev  # lipread(), inline: the sorted row ends with Lipread
        if not (rev and rev[-1] == C.H_LIPREAD):
            # GIVE to each crewmate on this space, then ASK them (Bowman): the mates found
            # by a pass over the seats per action type, not gathered into a list per call
            if not used & U_GIVE:
                for t in ctx.crew_seats:
                    if t != seat and allpos[t] == pos:
                        b = OP_GIVE * 1000 + t * 32
                        for k in range(C.N_CREW_KINDS):
                            if hand[k]:
                                out.append(A[b + k])
            if not used & U_ASK and self.roles[seat] == BOWMAN:
                for t in ctx.crew_seats:
                    if t != seat and allpos[t] == pos and self.hand_n[t]:
                        out.append(A[OP_ASK * 1000 + t])
        if self.closed_mask and hand[C.C_OVERRIDE] and not used & U_OPEN:
            for d, _other in ctx.doors_at[pos]:
                if self.closed_mask >> d & 1:
                    out.append(A[OP_OPEN * 1000 + d])
        if ctx.cancel_at[pos] and hand[C.C_CANCEL] and not used & U_CANCEL:
            out.extend([A[OP_CANCEL * 1000 + k] for k in _distinct(self.hal_rev)])
        if (ctx.pp_at[pos] and hand[C.C_RECOVER] and not used & U_RECOVER
                and self.crew_disc):
            out.append(A[OP_RECOVER * 1000])
        if pos == ctx.core and not used & U_DISCONNECT:
            L = ctx.L
            run = 0
            for n in range(1, 13):  # one pass: runs of L consecutive Logic cards, no wrap
                if hand[C.C_LOGIC1 + n - 1]:
                    run += 1
                    if run >= L and self._sequence_allowed(n - L + 1):
                        out.append(A[OP_DISCONNECT * 1000 + n - L + 1])
                else:
                    run = 0
        return out

    def _legal_repair(self, seat: int, pos: int, hand: list[int], out: list[Any]) -> None:
        """REPAIR (Crewmember Actions; Whitehead; design notes 1(c)6-8, 22-23)."""
        ctx = self.ctx
        role = self.roles[seat]
        if role == WHITEHEAD and ctx.remote_repair:
            for sysk in range(4):
                if self.mal[sysk]:
                    _repair_actions(sysk, True, hand, out)
        else:
            k = ctx.space_system[pos]
            if k >= 0 and self.mal[k]:
                _repair_actions(k, role == WHITEHEAD, hand, out)

    def _sequence_allowed(self, low: int) -> bool:
        """The second sequence must leave a possible third (DISCONNECT, IMPORTANT)."""
        if self.sequences != 1 or not self.ctx.third_sequence_guard:
            return True
        L = self.ctx.L
        gone = self.logic_trashed
        for i in range(L):
            gone |= 1 << (low + i)
        return _has_run(gone, L)

    # -- apply -----------------------------------------------------------------------------
    def _apply(self, action: Any) -> None:
        a: int = action  # every 2001 action is an int (a native int from here on)
        op = a // 1000
        arg = a - op * 1000
        if self.recording and (op == OP_HAL_PLAY or op == OP_REVEAL or op == OP_HAL_DISCARD):
            self._record(action, op == OP_HAL_DISCARD and arg < REV)
        self.view0 = None
        # the task that asked for this decision (the stack top) is popped, or replaced by the
        # first task the decision pushes (a list popped below half its room reallocates)
        stack = self.stack
        seat = self.current_seat
        if op <= OP_ASK:
            if op != OP_REPAIR and self.repair_open:
                self.repair_open = False
                self.used |= U_REPAIR
            if op == OP_END:
                stack[-1] = _TASKS[T_LIMIT][seat]
                if arg:
                    self._crew_draw(seat, arg)
            else:
                stack[-1] = _ACT_TASKS[seat]  # more actions, after what this one pushes
                self._crew_action(seat, op, arg)
                # (no action pushes a T_ACT task: one on top is this turn's)
                if stack and stack[-1][0] == T_ACT:
                    self.phase = T_ACT  # more actions (nothing else pending first)
                    return
        elif op == OP_MOVE:
            stack.pop()
            self.pos[seat] = arg
            self.pos_t = None
            self.phase = T_ACT  # the turn's actions are next (stack top), no check needed
            return
        elif op == OP_HAL_PLAY:
            self._hal_play(arg)  # replaces the task
        elif op == OP_REVEAL:
            stack.pop()
            self.hal_hidden[arg] = self.hal_hidden[arg] - 1
            self._hand_changed(0)
            _insert_sorted(self.hal_rev, arg)
            self.rev_t = None
        elif op == OP_LIMIT:
            hand = self.hands[seat]
            self._hand_changed(seat)
            if arg >= PAIR:
                k1 = (arg - PAIR) // 32
                k2 = (arg - PAIR) % 32
                hand[k1] = hand[k1] - 1
                hand[k2] = hand[k2] - 1
                self.hand_n[seat] = self.hand_n[seat] - 2
                self.crew_disc.append(k1)
                self.crew_disc.append(k2)
            else:
                hand[arg] = hand[arg] - 1
                self.hand_n[seat] = self.hand_n[seat] - 1
                self.crew_disc.append(arg)
            stack[-1] = _TASKS[T_LIMIT][seat]  # the limit again, until it is met
        elif op == OP_SCAN_DISCARD:
            stack.pop()
            self.hands[seat][arg] = self.hands[seat][arg] - 1
            self.hand_n[seat] = self.hand_n[seat] - 1
            self._hand_changed(seat)
            self.crew_disc.append(arg)  # the action's own words show the card (trace)
            self.crew_seen = _bumped(self.crew_seen, arg, 1)
        elif op == OP_TARGET:
            stack.pop()
            t = arg // 32
            k = arg % 32
            self.m[self.M_TARGET] = self.m[self.M_TARGET] + 1
            if self.hands[t][k]:
                self.hands[t][k] = self.hands[t][k] - 1
                self.hand_n[t] = self.hand_n[t] - 1
                self._hand_changed(t)
                self.crew_disc.append(k)
                self.crew_seen = _bumped(self.crew_seen, k, 1)
                self.m[self.M_TARGET_HITS] = self.m[self.M_TARGET_HITS] + 1
                if self.tracing:
                    self.log.append((E_TARGET_HIT, t, k))
            else:
                if self.tracing:
                    self.log.append((E_TARGET_MISS, t, k))
        elif op == OP_SCAN:
            self.m[self.M_SCAN] = self.m[self.M_SCAN] + 1
            stack[-1] = _TASKS[T_SCAN_DISCARD][arg]
        elif op == OP_HAL_DISCARD:
            if arg >= REV:
                self.hal_rev.remove(arg - REV)
                self.rev_t = None
                self.hand_n_t = None  # (not _hand_changed: the hidden hand stays)
                self.hand_n[0] = self.hand_n[0] - 1
                self.hal_disc.append(arg - REV)
                self.hal_seen = _bumped(self.hal_seen, arg - REV, 1)
                stack[-1] = _TASKS[T_HAL_REVEAL][0]
            else:
                stack.pop()
                self.hal_hidden[arg] = self.hal_hidden[arg] - 1
                self._hand_changed(0)
                self.hand_n[0] = self.hand_n[0] - 1
                self.hal_disc.append(arg)
        elif op == OP_ASK_GIVE:
            stack.pop()
            b = self.actor
            self.hands[seat][arg] = self.hands[seat][arg] - 1
            self.hand_n[seat] = self.hand_n[seat] - 1
            self.hands[b][arg] = self.hands[b][arg] + 1
            self.hand_n[b] = self.hand_n[b] + 1
            self._hand_changed(seat)
            self._hand_changed(b)
        elif op == OP_RECOVER_TAKE:
            stack.pop()
            self.crew_disc.remove(arg)
            # the card taken is secret: of the cards seen, only the Recovers surely remain
            self.crew_seen = _bumped(_NO_CREW_SEEN, C.C_RECOVER, self.crew_seen[C.C_RECOVER])
            self.hands[seat][arg] = self.hands[seat][arg] + 1
            self.hand_n[seat] = self.hand_n[seat] + 1
            self._hand_changed(seat)
        else:
            raise ValueError(f"unknown action {action!r}")
        if not self.terminal:
            self._run()

    def _crew_action(self, seat: int, op: int, arg: int) -> None:
        """One crew action of the "take actions" step (Crewmember Actions)."""
        hand = self.hands[seat]
        stack = self.stack
        if op != OP_ASK:  # every other action gives, plays or trashes a card of the hand
            self._hand_changed(seat)
        if op == OP_REPAIR:
            sysk = arg // 32
            k = arg % 32
            hand[k] = hand[k] - 1
            self.hand_n[seat] = self.hand_n[seat] - 1
            self.crew_disc.append(k)
            self.crew_seen = _bumped(self.crew_seen, k, 1)
            amount = 1
            if k != C.C_WILD and SPECIALITY[self.roles[seat]] == k:
                amount = self.ctx.specialist_repair
            amount = min(amount, self.mal[sysk])
            self.mal[sysk] = self.mal[sysk] - amount
            self.mal_t = None
            self.hal_disc.extend([sysk] * amount)
            self.hal_seen = _bumped(self.hal_seen, sysk, amount)
            self.m[self.M_REPAIRED + sysk] = self.m[self.M_REPAIRED + sysk] + amount
            self.repair_open = True
            if self.tracing:
                self.log.append((E_REPAIRED, sysk, self.mal[sysk] + amount, self.mal[sysk]))
            lim = self.ctx.limits[sysk]
            if self.mal[sysk] + amount >= lim > self.mal[sysk]:
                if self.tracing:
                    self.log.append((E_RESTORED, sysk))  # REPAIR: "Flip the System Tile back"
            return
        self.used |= _USE_BIT[op]
        if op == OP_GIVE:
            t = arg // 32
            k = arg % 32
            hand[k] = hand[k] - 1
            self.hand_n[seat] = self.hand_n[seat] - 1
            self.hands[t][k] = self.hands[t][k] + 1
            self.hand_n[t] = self.hand_n[t] + 1
            self._hand_changed(t)
            self.m[self.M_GIVES] = self.m[self.M_GIVES] + 1
            stack.append(_TASKS[T_LIMIT][t])
        elif op == OP_OPEN:
            hand[C.C_OVERRIDE] = hand[C.C_OVERRIDE] - 1
            self.hand_n[seat] = self.hand_n[seat] - 1
            self.crew_trash.append(C.C_OVERRIDE)
            self._trashed(True, C.C_OVERRIDE, 1)
            self.doors[arg] = 2
            self.doors_t = None
            self.closed_mask &= ~(1 << arg)
            self.m[self.M_DOORS_OPENED] = self.m[self.M_DOORS_OPENED] + 1
        elif op == OP_CANCEL:
            hand[C.C_CANCEL] = hand[C.C_CANCEL] - 1
            self.hand_n[seat] = self.hand_n[seat] - 1
            self.crew_disc.append(C.C_CANCEL)
            self.crew_seen = _bumped(self.crew_seen, C.C_CANCEL, 1)
            self.hal_rev.remove(arg)
            self.rev_t = None
            self.hand_n[0] = self.hand_n[0] - 1
            self.hal_disc.append(arg)
            self.hal_seen = _bumped(self.hal_seen, arg, 1)
            self.m[self.M_CANCELS] = self.m[self.M_CANCELS] + 1
            stack.append(_TASKS[T_HAL_REVEAL][0])
            stack.append(_TASKS[T_HAL_DRAW][0])
        elif op == OP_RECOVER:
            hand[C.C_RECOVER] = hand[C.C_RECOVER] - 1
            self.hand_n[seat] = self.hand_n[seat] - 1
            self.crew_disc.append(C.C_RECOVER)
            self.crew_seen = _bumped(self.crew_seen, C.C_RECOVER, 1)
            self.m[self.M_RECOVERS] = self.m[self.M_RECOVERS] + 1
            stack.append(_TASKS[T_RECOVER_TAKE][seat])
        elif op == OP_DISCONNECT:
            for i in range(self.ctx.L):
                k = C.C_LOGIC1 + arg - 1 + i
                hand[k] = hand[k] - 1
                self.crew_trash.append(k)
                self._trashed(True, k, 1)
                self.logic_trashed |= 1 << (arg + i)
            self.hand_n[seat] = self.hand_n[seat] - self.ctx.L
            self.marker -= 1
            self.sequences += 1
            self.m[self.M_DISCONNECTS] = self.m[self.M_DISCONNECTS] + 1
            if self.tracing:
                self.log.append((E_MARKER, self.marker))
            if self.sequences >= self.ctx.sequences_to_win:
                self._finish("crew", "third_sequence")
                return
            stack.append(_TASKS[T_HAL_DISCARD][0])
        elif op == OP_ASK:
            stack.append(_TASKS[T_LIMIT][seat])
            stack.append(_TASKS[T_ASK_GIVE][arg])

    def _hal_play(self, arg: int) -> None:
        """HAL plays one card, then draws; a revealed card is replaced (HAL Actions). A hidden
        Lipread goes to the Discard without effect; the revealed one is never offered (it is
        active until a Cancel: LIPREAD CARD, design notes 1(c)9). The T_HAL_PLAY task on the
        stack top is replaced by what follows."""
        stack = self.stack
        self.hand_n[0] = self.hand_n[0] - 1
        if arg >= REV:
            k = arg - REV
            self.hal_rev.remove(k)
            self.rev_t = None
            self.hand_n_t = None  # (not _hand_changed: the hidden hand stays)
            stack[-1] = _TASKS[T_HAL_REVEAL][0]
            stack.append(_TASKS[T_HAL_DRAW][0])
        else:
            k = arg
            self.hal_hidden[k] = self.hal_hidden[k] - 1
            self._hand_changed(0)
            stack[-1] = _TASKS[T_HAL_DRAW][0]
        if k <= C.H_LIF:
            self.mal[k] = self.mal[k] + 1
            self.mal_t = None
            self.m[self.M_PLAYED + k] = self.m[self.M_PLAYED + k] + 1
            lim = self.ctx.limits[k]
            if self.mal[k] == lim:
                if self.tracing:
                    self.log.append((E_TERMINATED, k))
                if self._check_hal_win():
                    return
                if k == C.MEM:
                    # discard down, clockwise from the Monolith holder (Hand Size)
                    n = self.ctx.n
                    order = [(self.monolith - 1 + i) % n + 1 for i in range(n)]
                    for t in reversed(order):
                        stack.append(_TASKS[T_LIMIT][t])
        elif k < C.H_TARGET:
            d = k - C.H_DOOR1 + 1
            assert self.doors[d] == 0, "a door is closed at most once (design notes 1(c)2)"
            self.doors[d] = 1
            self.doors_t = None
            self.closed_mask |= 1 << d
            self.hal_trash.append(k)
            self._trashed(False, k, 1)
            self.m[self.M_DOORS_CLOSED] = self.m[self.M_DOORS_CLOSED] + 1
        elif k == C.H_TARGET:
            self.hal_disc.append(k)
            self.hal_seen = _bumped(self.hal_seen, k, 1)
            stack.append(_TASKS[T_HAL_TARGET][0])
        elif k == C.H_SCAN:
            self.hal_disc.append(k)
            self.hal_seen = _bumped(self.hal_seen, k, 1)
            stack.append(_TASKS[T_HAL_SCAN][0])
        else:
            self.hal_disc.append(k)
            self.hal_seen = _bumped(self.hal_seen, k, 1)
            self.m[self.M_LIPREAD] = self.m[self.M_LIPREAD] + 1

    def _trashed(self, crew: bool, k: int, n: int) -> None:
        """``n`` cards of kind ``k`` went into the crew (``crew``) or HAL TRASH: the
        counts the views show are bumped, not counted anew from the piles (which only grow).
        None (no view since the last setup) stays None: the first view counts the piles."""
        ct = self.trash_counts
        if ct is not None:
            if crew:
                self.trash_counts = (_bumped(ct[0], k, n), ct[1])
            else:
                self.trash_counts = (ct[0], _bumped(ct[1], k, n))

    def _check_hal_win(self) -> bool:
        """HAL wins at once with LIF or any 3 systems terminated (End of the Game)."""
        lim = self.ctx.limits
        mal = self.mal
        if mal[C.LIF] >= lim[C.LIF]:
            self._finish("hal", "lif_terminated")
            return True
        down = sum(1 for i in range(4) if mal[i] >= lim[i])
        if down >= self.ctx.systems_to_win:
            self._finish("hal", "three_systems_terminated")
            return True
        return False

    # -- views -----------------------------------------------------------------------------
    def view(self, seat: int) -> OdysseyView:
        """What ``seat`` may know (see :class:`OdysseyView`). Every field is an immutable
        value (tuples, ints, the frozen options): the view shares nothing mutable with the
        state."""
        ct = self.trash_counts
        if ct is None:
            ct = self.trash_counts = (tuple(_counts(self.crew_trash, C.N_CREW_KINDS)),
                                      tuple(_counts(self.hal_trash, C.N_HAL_KINDS)))
        # (the tuples kept since their lists last changed, made anew only after a change)
        pos_t = self.pos_t
        if pos_t is None:
            pos_t = self.pos_t = tuple(self.pos)
        mal_t = self.mal_t
        if mal_t is None:
            mal_t = self.mal_t = tuple(self.mal)
        doors_t = self.doors_t
        if doors_t is None:
            doors_t = self.doors_t = tuple(self.doors)
        rev_t = self.rev_t
        if rev_t is None:
            rev_t = self.rev_t = tuple(self.hal_rev)
        hand_t = self.hand_t[seat]
        if hand_t is None:
            hand_t = tuple(self.hal_hidden) if seat == 0 else tuple(self.hands[seat])
            self.hand_t[seat] = hand_t
        hand_n_t = self.hand_n_t
        if hand_n_t is None:
            hand_n_t = self.hand_n_t = tuple(self.hand_n)
        rev = self.hal_rev  # lipread(), inline: the sorted row ends with Lipread
        lipread = bool(rev) and rev[-1] == C.H_LIPREAD
        ctx = self.ctx
        phase = self.phase
        crew_disc = self.crew_disc
        v = OdysseyView(
            seat, phase, self.roles, pos_t,
            hand_t, hand_n_t, rev_t, mal_t, doors_t, self.marker, self.sequences,
            self.logic_trashed, ct[0], ct[1],
            len(self.crew_draw), len(crew_disc), len(self.hal_draw), len(self.hal_disc),
            self.monolith, self.crew_turns, self.actor, self.used, self.repair_open,
            self.start_pos, ctx.silence if ctx.talk_none else self.talk(), lipread,
            tuple(self.stack), ctx.options, self.closed_mask,
            tuple(sorted(crew_disc)) if phase == T_RECOVER_TAKE and seat == self.actor else (),
            self.hal_seen, self.crew_seen, self.hal_history)
        if seat == 0 and self.recording:
            self.view0 = v  # HAL's decision is recorded from it (_record)
        return v

    def stop_recording(self) -> None:
        """Keep no more of ``hal_history`` (views then carry what was kept so far): the
        game loop calls it when no seated policy reads it (``Policy.reads_history``)."""
        self.recording = False

    def _record(self, action: Any, hidden_discard: bool) -> None:
        """Add HAL's decision ``action`` to the public record (``OdysseyView.hal_history``):
        HAL's view now without its hand, and the action as every seat sees it (the action's
        own int object: not made anew)."""
        v0 = self.view0
        v = (self.view(0) if v0 is None else v0).with_hand(())
        self.hal_history = self.hal_history + ((self.phase, -1 if hidden_discard else action, v),)

    def talk(self) -> tuple[tuple[int, ...] | None, ...]:
        """What the crew announce now, heard by every seat (design notes 1(c)19).

        ``crew_talk='logic'``: each crewmember's Logic cards; ``'open'``: whole hands (as
        sorted kinds); nothing under Lipread or with ``'none'``.
        """
        if self.ctx.talk_none or self.lipread():
            return self.ctx.silence  # one shared tuple
        mode = self.ctx.crew_talk
        n = self.ctx.n
        out: list[tuple[int, ...] | None] = [None]
        for s in range(1, n + 1):
            h = self.hands[s]
            kinds = C.LOGIC_KINDS if mode == "logic" else range(C.N_CREW_KINDS)
            out.append(tuple(k for k in kinds for _ in range(h[k])))
        return tuple(out)

    # -- result ----------------------------------------------------------------------------
    def result(self) -> GameRecord:
        """The record of a finished game; ``rounds`` = crew turns taken.

        Raises:
            RuntimeError: the game is not over.
        """
        if not self.terminal:
            raise RuntimeError("the game is not over")
        m = self.m
        down = [C.SYSTEMS[i] for i in range(4) if self.terminated(i)]
        measures = {
            "crew_names": ",".join(CREWMEMBERS[r] for r in self.roles[1:]),
            "first_crewmember": CREWMEMBERS[self.roles[self.first]],
            "systems_terminated": len(down),
            "terminated_systems": ",".join(down),
            "malfunctions_grv": self.mal[0],
            "malfunctions_mem": self.mal[1],
            "malfunctions_com": self.mal[2],
            "malfunctions_lif": self.mal[3],
            "disconnects": m[self.M_DISCONNECTS],
            "hal_marker": self.marker,
            "malfunctions_played": sum(m[0:4]),
            "malfunctions_repaired": sum(m[4:8]),
            "played_grv": m[0], "played_mem": m[1], "played_com": m[2], "played_lif": m[3],
            "repaired_grv": m[4], "repaired_mem": m[5], "repaired_com": m[6],
            "repaired_lif": m[7],
            "hal_draw_left": len(self.hal_draw),
            "hal_reshuffles": m[self.M_HAL_RESHUFFLES],
            "crew_reshuffles": m[self.M_CREW_RESHUFFLES],
            "doors_closed": m[self.M_DOORS_CLOSED],
            "doors_opened": m[self.M_DOORS_OPENED],
            "hal_played_door": m[self.M_DOORS_CLOSED],
            "hal_played_target": m[self.M_TARGET],
            "hal_played_scan": m[self.M_SCAN],
            "hal_played_lipread": m[self.M_LIPREAD],
            "target_hits": m[self.M_TARGET_HITS],
            "cancels": m[self.M_CANCELS],
            "recovers": m[self.M_RECOVERS],
            "gives": m[self.M_GIVES],
            "hal_turns": self.hal_turns,
        }
        return GameRecord(self.winner, self.end_reason, self.crew_turns, measures)

    # -- words (``text``) ------------------------------------------------------------------
    def seat_name(self, seat: int) -> str:
        return text.seat_name(self.roles, seat)

    def action_text(self, action: Any) -> str:
        """The action in the rulebook's words (``"Bowman moves to Picturephone 1"``)."""
        return text.action_text(self, action)

    def events(self) -> list[str]:
        """Rule events since the last call, in words (setup, turns, draws, terminations,
        reshuffles, Target hits, ...). A state records its setup's events, and every event
        once this has been called (a tuple append; the words are made only here)."""
        self.tracing = True
        out = [line for e in self.log for line in text.event_text(self, e).split("\n")]
        self.log = []
        return out

    # -- checks for tests ----------------------------------------------------------------
    def card_census(self) -> tuple[list[int], list[int]]:
        """Counts per kind of every crew card and every HAL card, wherever it lies."""
        crew = _counts(self.crew_draw + self.crew_disc + self.crew_trash, C.N_CREW_KINDS)
        for h in self.hands[1:]:
            for k, c in enumerate(h):
                crew[k] += c
        hal = _counts(self.hal_draw + self.hal_disc + self.hal_trash + self.hal_rev,
                      C.N_HAL_KINDS)
        for k, c in enumerate(self.hal_hidden):
            hal[k] += c
        for k in range(4):
            hal[k] += self.mal[k]
        return crew, hal


def _has_run(gone_mask: int, length: int) -> bool:
    """Whether Logic numbers 1..12 not in ``gone_mask`` contain ``length`` consecutive ones."""
    run = 0
    for n in range(1, 13):
        if gone_mask >> n & 1:
            run = 0
        else:
            run += 1
            if run >= length:
                return True
    return False
