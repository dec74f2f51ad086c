"""The Obcy game state: every rule of the rulebook, as a state machine of small decisions.

Phase 1 EXPEDITION (rulebook: 1. Sequence of Play): the transporter moves (one decision), then
characters act one at a time in an order the expedition chooses (design 3(c)16); each action
costs AP as in 3. Action Points; a walk to a destination is one decision (cost = its length).
Phase 2 ALIENS: hatching (one decision per new ALIEN; options ``hatching_held_space`` and
``hatch_onto_older``), movement (9.2 sets no order: the ALIENS player picks which ALIEN moves
next, when two or more still have a move, then its destination), metamorphosis (automatic),
attack targets (a decision only where an ALIEN is adjacent to two or more characters), then
the attacks are resolved.
Retreats are chosen by their owner when there is more than one end space; a Variant 1 Queen
fight is offered after every completed task (two tasks completed by one action: two fights).
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

import numpy as np

from balancelab.simulate.core import PLACEHOLDER_RNG, GameRecord, State, View
from balancelab.simulate.obcy import board as B
from balancelab.simulate.obcy import text
from balancelab.simulate.obcy.actions import (
    A_MOVE,
    A_PICK,
    A_TARGET,
    ABOARD,
    ACT,
    BOARD,
    CHARGE,
    D_ALIEN_MOVE,
    D_ALIEN_PICK,
    D_ALIEN_TARGET,
    D_CHAR,
    D_HATCH,
    D_OVER,
    D_PICK,
    D_QUEEN,
    D_RETREAT,
    D_TRANSPORT,
    DEAD,
    DROP,
    END_ACT,
    END_PHASE,
    GIVE,
    GRENADE,
    HATCH,
    HATCH_END,
    HEAL,
    MOVE,
    NO_QUEEN,
    ON_BOARD,
    PICK,
    QUEEN,
    READ,
    REENTER,
    RETREAT,
    SHOOT,
    T_MOVE,
    T_STAY,
    TRACK,
)
from balancelab.simulate.obcy.combat import ATTACKER, DEFENDER, combat_result
from balancelab.simulate.obcy.rules import (
    BISHOP,
    CHARACTER_NAMES,
    CLIP0,
    COMP,
    DISK,
    EMPTY,
    FUEL,
    HICKS,
    LIMITED,
    MED,
    MISSIONS_DATA,
    RIPLEY,
    SUIT,
    WEAPON_USE,
    WEAPONS,
    ObcyOptions,
    starting_items,
)
from balancelab.simulate.obcy.rules import (
    CHARGE as I_CHARGE,
)
from balancelab.simulate.obcy.rules import (
    FLAMER as I_FLAMER,
)
from balancelab.simulate.obcy.rules import (
    GRENADE as I_GRENADE,
)

# The board's tables as this module's Final globals: compiled, they are C statics, where
# ``B.NAME`` (an attribute of an interpreted module) is a dict lookup at every use.
NBR: Final = B.NBR
KIND: Final = B.KIND
N: Final = B.N
PAD_SPACE: Final = B.PAD_SPACE
NBR_SET: Final = B.NBR_SET
HATCHES: Final = B.HATCHES
LOS: Final = B.LOS
STORE_ITEMS: Final = B.STORE_ITEMS
COMPUTERS: Final = B.COMPUTERS
TRANSPORT_OK: Final = B.TRANSPORT_OK
AIRLOCKS: Final = B.AIRLOCKS
AIRLOCK_NO: Final = B.AIRLOCK_NO
ROOM_OF: Final = B.ROOM_OF
ALIEN_OK: Final = B.ALIEN_OK
DIST: Final = B.DIST
HATCH_SET: Final = frozenset(HATCHES)
_ALIEN_NBR: Final = tuple(tuple(v for v in nb if ALIEN_OK[v]) for nb in NBR)

# stages of a phase (the base decision; retreats and Queen fights interrupt them)
# (each Final: compiled, a constant, where a name unpacked from range(8) is a dict lookup)
ST_TRANSPORT: Final = 0
ST_PICK: Final = 1
ST_CHAR: Final = 2
ST_ALIENS_BEGIN: Final = 3
ST_HATCH: Final = 4
ST_AMOVE: Final = 5
ST_ATARGET: Final = 6
ST_ATTACK: Final = 7
_ALIEN_STAGES: Final = frozenset((ST_HATCH, ST_AMOVE, ST_ATARGET))
#: the characters who may throw a grenade, fire a flamethrower (M16, M17 need one alive)
_GRENADE_USERS: Final = tuple(c for c in range(6) if I_GRENADE in WEAPON_USE[c])
_FLAMER_USERS: Final = tuple(c for c in range(6) if I_FLAMER in WEAPON_USE[c])
#: the ALIENS' move actions ``(A_MOVE, space)`` and picks ``(A_PICK, id)``, made once each
#: and shared (tuples: equal to new ones), grown as needed (typed ``Any``: compiled, a
#: ``tuple[int, int]`` is unboxed and every read would box a new tuple)
_MOVE_ACT: Final[list[Any]] = []
_PICK_ACT: Final[list[Any]] = []


def _move_acts_upto(n: int) -> list[Any]:
    """The actions ``(A_MOVE, s)``, at least for every space ``s < n``."""
    acts = _MOVE_ACT
    while len(acts) < n:
        acts.append((A_MOVE, len(acts)))
    return acts


def _pick_act(aid: int) -> Any:
    """The action ``(A_PICK, aid)``."""
    acts = _PICK_ACT
    while aid >= len(acts):
        acts.append((A_PICK, len(acts)))
    return acts[aid]


# -- missions, resolved to spaces ---------------------------------------------------------------
def _space_arg(bd: Any, arg: str) -> int:
    if "," in arg:
        x, y = arg.split(",")
        return int(bd.idx(int(x), int(y)))
    return int(bd.FEATURE[arg])


def _mission_params(bd: Any) -> tuple[tuple[str, Any], ...]:
    """The mission cards with their spaces resolved on board ``bd``."""
    out: list[tuple[str, Any]] = []
    for m in MISSIONS_DATA:
        kind, arg = m["kind"], m["arg"]
        p: Any = None
        if kind in ("component", "transporter", "read", "clear", "bishop", "fuel_drop"):
            p = _space_arg(bd, arg)
        elif kind == "collapse":
            a, b = arg.split("-")
            ax, ay = (int(v) for v in a.split(","))
            bx, by = (int(v) for v in b.split(","))
            p = frozenset(bd.idx(ax, y) for y in range(ay, by + 1))
        elif kind == "airlocks":
            o, i = arg.split("-")
            p = (int(o), int(i))
        elif kind == "room":
            p = "abcdefgh".index(arg)
        out.append((kind, p))
    return tuple(out)


class MapTables:
    """The tables of one board the state reads in hot paths, with its missions resolved
    (one per board, shared by every state on it)."""

    def __init__(self, bd: Any) -> None:
        self.bd = bd
        self.missions: tuple[tuple[str, Any], ...] = _mission_params(bd)
        self.component_missions: dict[int, int] = {
            p: i for i, (k, p) in enumerate(self.missions) if k == "component"}
        self.read_missions: dict[int, int] = {
            p: i for i, (k, p) in enumerate(self.missions) if k == "read"}
        alien_ok: tuple[bool, ...] = bd.ALIEN_OK
        #: Neighbours an ALIEN may enter (9.2: never an airlock or the landing pad), in NBR order.
        self.alien_nbr: tuple[tuple[int, ...], ...] = tuple(
            tuple(v for v in nb if alien_ok[v]) for nb in bd.NBR)
        #: an ALIEN's walk (``ObcyState._alien_moves``) marks the spaces it has seen with
        #: ``seen_mark`` (a new mark per walk: no list to make and free per walk)
        self.seen: list[int] = [0] * bd.N
        self.seen_mark = 0


_TABLES: Final[dict[int, MapTables]] = {}


def map_tables(map_file: str) -> MapTables:
    """The :class:`MapTables` of a map file ('' = the assumed base map), built once per board."""
    bd = B.board_of(map_file)
    t = _TABLES.get(id(bd))
    if t is None:
        t = _TABLES[id(bd)] = MapTables(bd)
    return t


_BASE: Final = map_tables("")
MISSIONS: Final = _BASE.missions
N_MISSIONS: Final = len(MISSIONS)
MISSION_IDS: Final = tuple(m["id"] for m in MISSIONS_DATA)
MISSION_TEXT: Final = tuple(m["text"] for m in MISSIONS_DATA)
COMPONENT_MISSIONS: Final = _BASE.component_missions
READ_MISSIONS: Final = _BASE.read_missions


def settled(state: State) -> bool:
    """Whether a playout may be cut at ``state`` (:meth:`Game.settled`): False during the
    ALIENS phase (hatching, movement, attacks): its attacks are resolved only after every
    ALIEN has moved (1. Sequence of Play, 10.), so a playout cut inside it would score the
    ALIENS' moves before they strike."""
    assert isinstance(state, ObcyState)
    return state.stage < ST_ALIENS_BEGIN


class ObcyView(View):
    """What one seat may know. All fields are tuples/ints (copies), never the state.

    The ALIENS' view has ``open_missions == ()``, ``discarded == ()`` and ``fresh == ()``
    (7. the content of a task is secret; the ALIENS player reads a card only when its task is
    completed); the numbers of open and of discarded tasks are ``n_open`` and ``n_discarded``,
    and ``n_fresh`` the number of cards drawn in this Expedition phase (``fresh``: which;
    they matter to M13 under ``clear_mission_when_drawn`` false).
    """

    #: the field names (the compiled class keeps no ``__slots__`` to list them)
    _fields: ClassVar[tuple[str, ...]] = (
        "seat", "decision", "round", "active", "alien", "retreat", "c_pos", "c_state",
        "c_str", "c_max", "c_ap", "c_pk", "c_done", "c_fired", "c_stopped", "c_left",
        "c_track", "c_exit", "a_id", "a_pos", "a_str", "floor", "supply", "used", "tr_pos",
        "tr_fuel", "tr_moved", "collapsed", "open_missions", "n_open", "fresh", "n_fresh",
        "deck_left", "done_missions", "discarded", "n_discarded", "points", "queen_alive",
        "hatching_on", "hatch_pts",
        "kills_phase", "shot_at", "options", "stats", "machine",
    )

    seat: int
    decision: int
    round: int
    active: int
    alien: int
    retreat: tuple[int, ...]
    c_pos: tuple[int, ...]
    c_state: tuple[int, ...]
    c_str: tuple[int, ...]
    c_max: tuple[int, ...]
    c_ap: tuple[int, ...]
    c_pk: tuple[tuple[int, ...], ...]
    c_done: tuple[bool, ...]
    c_fired: tuple[bool, ...]
    c_stopped: tuple[bool, ...]
    c_left: tuple[bool, ...]
    c_track: tuple[int, ...]
    c_exit: tuple[int, ...]
    a_id: tuple[int, ...]
    a_pos: tuple[int, ...]
    a_str: tuple[int, ...]
    floor: tuple[tuple[int, tuple[int, ...]], ...]
    supply: tuple[int, ...]
    used: tuple[int, ...]
    tr_pos: int
    tr_fuel: int
    tr_moved: bool
    collapsed: frozenset[int]
    open_missions: tuple[int, ...]
    n_open: int
    fresh: tuple[int, ...]
    n_fresh: int
    deck_left: int
    done_missions: tuple[int, ...]
    discarded: tuple[int, ...]
    n_discarded: int
    points: int
    queen_alive: bool
    hatching_on: bool
    hatch_pts: int
    kills_phase: int
    shot_at: tuple[int, ...]
    options: ObcyOptions
    stats: tuple[tuple[str, int], ...]
    machine: tuple[Any, ...]

    def __init__(self, **kw: Any) -> None:
        for k, v in kw.items():
            setattr(self, k, v)


class ObcyState(State):
    """A game of Obcy in progress (see the module docstring for the decision structure)."""

    def __init__(self, options: ObcyOptions, rng: np.random.Generator,
                 blank: bool = False) -> None:
        """Set up a game (rulebook: Setup); ``blank`` leaves every other field unset, for
        :meth:`copy` to fill."""
        self.opt = options
        self.rng = rng
        if blank:
            return  # copy() sets the options' native copies and the board's tables
        # the options read in hot paths, as native attributes (the options dataclass is not
        # compiled: reading one of its fields is a dict lookup)
        self.alien_move: int = options.alien_move
        self.alien_max_strength: int = options.alien_max_strength
        self.passage_len: int = options.passage_len
        self.grenade_range: int = options.grenade_range
        self.max_open_missions: int = options.max_open_missions
        self.hatch_die: int = options.hatch_die
        self.alien_token_limit: int = options.alien_token_limit
        self.crt_offset: int = options.crt_offset
        self._set_board(map_tables(options.map_file))
        #: whether rule events are worded (``_log``): during setup, then once ``events()`` has
        #: been called (``trace``); a game played without a trace words none
        self._trace = False
        self._ev: list[str] = []
        o = options
        self.duct: tuple[bool, ...] = (
            self.bd.IS_DUCT_OR_GRATE if o.grate_is_duct else self.bd.IS_DUCT_ONLY)
        self.dmul: int = o.duct_multiplier
        self.wstats = o.weapon_stats()
        self.full_clip = CLIP0 + o.clip_charges
        self.limits = o.limits()
        self.c_max = tuple(o.strengths)
        # characters
        self.c_pos = [self.m_pad] * 6
        self.c_state = [ON_BOARD] * 6
        self.c_str = list(o.strengths)
        starts = starting_items(self.full_clip)
        self.c_pk = [list(s) + [EMPTY] * (o.pockets - len(s)) for s in starts]
        self.c_ap = [o.action_points] * 6
        self.c_done = [False] * 6
        self.c_fired = [False] * 6
        self.c_stopped = [False] * 6
        self.c_left = [False] * 6
        self.c_track = [0] * 6
        self.c_exit = [0] * 6
        #: ALIENS (ids) the active character has already fired at this phase (6. one combat
        #: result per attacked ALIEN: all shots at one ALIEN are one volley, one roll)
        self.shot_at: tuple[int, ...] = ()
        # counts per space (one entry per space), kept up by _char_in/out and _alien_in/out;
        # a copy shares them with its parent until either writes (copy on write: most
        # copies of a mid-game state never move a character, and the lists are long)
        self.char_cnt = [0] * self.m_n
        self.c_adj = [0] * self.m_n  # on-board characters on neighbouring spaces
        self.alien_cnt = [0] * self.m_n
        self.a_adj = [0] * self.m_n  # ALIENS on neighbouring spaces
        #: whether char_cnt/c_adj (alien_cnt/a_adj) may be shared with another state
        self._chars_shared = False
        self._aliens_shared = False
        for _ in range(6):
            self._char_in(self.m_pad)
        # aliens
        self.a_id: list[int] = []
        self.a_pos: list[int] = []
        self.a_str: list[int] = []
        self.next_aid = 0
        # items
        self.floor: dict[int, list[int]] = {}
        #: whether ``floor`` (and its lists) may be shared with a copy (copy on write)
        self._floor_shared = False
        held = {k: 0 for k in LIMITED}
        for s in starts:
            for it in s:
                if it in held:
                    held[it] += 1
        self.supply = [0] * 10
        for k in LIMITED:
            self.supply[k] = self.limits[k] - held[k]
        self.used = [0] * 10  # tokens set aside (used up or lost with a dead character)
        # transporter
        self.tr_pos = self.m_pad
        self.tr_fuel = 0
        self.tr_moved = False
        self.collapsed: frozenset[int] = frozenset()
        # missions
        self.deck = [int(i) for i in rng.permutation(N_MISSIONS)]
        self.open: list[int] = []
        #: the missions drawn in this Expedition phase (clear_mission_when_drawn)
        self.fresh: list[int] = []
        self.done: list[int] = []
        self.discarded: list[int] = []
        self.points = 0
        self.queen_alive = True
        self.hatching_on = True
        #: Variant 1 Queen fights still to be offered: one after each completed task (8.)
        self.queen_pending = 0
        # phase machinery
        self.round = 0
        self.stage = ST_TRANSPORT
        self.interrupt = 0  # 0 none, D_RETREAT or D_QUEEN
        self.active = -1
        self.kills_phase = 0
        self.hatch_pts = 0
        #: 9.2 the ALIENS (ids) that have not moved yet this phase, oldest first
        self.move_order: tuple[int, ...] = ()
        #: the ALIEN the ALIENS player chose to move now (-1: it is choosing)
        self.a_cur = -1
        #: the first id hatched this phase (older ALIENS have smaller ids)
        self.hatch_first = 0
        self.tgt_queue: list[tuple[int, tuple[int, ...]]] = []  # (alien id, candidate chars)
        self.assign: list[tuple[int, int]] = []  # (alien id, char)
        self.groups: list[tuple[int, tuple[int, ...]]] = []
        self.rq: list[tuple[int, int, int, int]] = []  # (0 char/1 alien, ident, spaces, weapon)
        self.r_opts: tuple[int, ...] = ()
        self.over = False
        self.winner = ""
        self.end_reason = ""
        self.current_seat = 0
        # measures
        self.st = {
            "queen_fights": 0, "aliens_hatched": 0, "alien_strength_hatched": 0,
            "aliens_killed": 0, "aliens_merged": 0, "characters_killed": 0,
            "shots_fired": 0, "grenades_thrown": 0, "charges_used": 0, "missions_drawn": 0,
            "missions_discarded": 0, "transporter_moves": 0, "airlock_exits": 0,
            "queen_round": -1, "queen_killed_by": 0,
        }
        self._legal: list[Any] | None = None
        #: the active character's destinations and their costs (``_char_reach``), while
        #: its legal actions are (never changed: a copy shares them)
        self._dest: tuple[list[int], list[int]] | None = None
        self._vchar: tuple[Any, ...] | None = None  # view caches, see view()
        self._vrest: tuple[int, tuple[Any, ...]] | None = None
        self._valien: tuple[Any, ...] | None = None
        #: ``tuple(self.st.items())`` for the views, until a measure changes (see _count)
        self._vstats: tuple[tuple[str, int], ...] | None = None
        self._trace = True  # the setup's events wait for a trace's first events() call
        self._begin_expedition(first=True)
        self._settle()
        self._trace = False

    # == occupancy helpers ==
    def _set_board(self, t: MapTables) -> None:
        """The board's tables as native attributes (read in hot paths)."""
        bd = t.bd
        self.tables = t
        self.bd: Any = bd
        self.m_nbr: tuple[tuple[int, ...], ...] = bd.NBR
        self.m_nbr_set: tuple[frozenset[int], ...] = bd.NBR_SET
        self.m_alien_nbr: tuple[tuple[int, ...], ...] = t.alien_nbr
        self.m_kind: tuple[int, ...] = bd.KIND
        self.m_n: int = bd.N
        self.m_pad: int = bd.PAD_SPACE
        self.m_hatches: tuple[int, ...] = bd.HATCHES
        self.m_hatch_set: frozenset[int] = frozenset(bd.HATCHES)
        self.m_los: dict[int, dict[int, tuple[int, ...]]] = bd.LOS
        self.m_store_items: dict[int, tuple[int, ...]] = bd.STORE_ITEMS
        self.m_computers: tuple[int, ...] = bd.COMPUTERS
        self.m_transport_ok: tuple[bool, ...] = bd.TRANSPORT_OK
        self.m_airlocks: tuple[int, ...] = bd.AIRLOCKS
        self.m_airlock_no: dict[int, int] = bd.AIRLOCK_NO
        self.m_room_of: tuple[int, ...] = bd.ROOM_OF
        self.m_alien_ok: tuple[bool, ...] = bd.ALIEN_OK
        self.m_dist: tuple[tuple[int, ...], ...] = bd.DIST
        self.m_missions: tuple[tuple[str, Any], ...] = t.missions
        self.m_component_missions: dict[int, int] = t.component_missions
        self.m_read_missions: dict[int, int] = t.read_missions

    def _own_chars(self) -> None:
        """Copy char_cnt/c_adj before a write if a copy shares them."""
        self.char_cnt = self.char_cnt[:]
        self.c_adj = self.c_adj[:]
        self._chars_shared = False

    def _own_aliens(self) -> None:
        """Copy alien_cnt/a_adj before a write if a copy shares them."""
        self.alien_cnt = self.alien_cnt[:]
        self.a_adj = self.a_adj[:]
        self._aliens_shared = False

    def _own_floor(self) -> None:
        """Copy the floor before a write if a copy shares it."""
        self.floor = {k: v[:] for k, v in self.floor.items()}
        self._floor_shared = False

    def _char_in(self, p: int) -> None:
        if self._chars_shared:
            self._own_chars()
        self.char_cnt[p] += 1
        for n in self.m_nbr[p]:
            self.c_adj[n] += 1

    def _char_out(self, p: int) -> None:
        if self._chars_shared:
            self._own_chars()
        self.char_cnt[p] -= 1
        for n in self.m_nbr[p]:
            self.c_adj[n] -= 1

    def _alien_in(self, p: int) -> None:
        if self._aliens_shared:
            self._own_aliens()
        self.alien_cnt[p] += 1
        for n in self.m_nbr[p]:
            self.a_adj[n] += 1

    def _alien_out(self, p: int) -> None:
        if self._aliens_shared:
            self._own_aliens()
        self.alien_cnt[p] -= 1
        for n in self.m_nbr[p]:
            self.a_adj[n] -= 1

    def _count(self, measure: str, n: int = 1) -> None:
        """Add ``n`` to a measure (``self.st``)."""
        self.st[measure] += n
        self._vstats = None

    def _stats(self) -> tuple[tuple[str, int], ...]:
        """The measures as the views carry them (built once per change)."""
        vs = self._vstats
        if vs is None:
            vs = self._vstats = tuple(self.st.items())
        return vs

    def _log(self, msg: str) -> None:
        if self._trace:
            self._ev.append(msg)

    def _result_text(self, side: int, loss: int, retreat: int, who: str, ignored: bool) -> str:
        """A COMBAT RESULT in words (trace), ``who`` being the loser's name."""
        if side != DEFENDER and side != ATTACKER:
            return "no effect"
        back = f", retreats {retreat}" if retreat else ""
        words = f"{who} loses {loss}{back}"
        return f"{words} (ignored: the shooter is not adjacent)" if ignored else words

    def events(self) -> list[str]:
        """Rule events since the last call, in words; from this call on every event is told."""
        self._trace = True
        out, self._ev = self._ev, []
        return out

    # == contract ==
    def is_terminal(self) -> bool:
        return self.over

    def decision(self) -> int:
        """The current decision code (``actions.D_*``)."""
        if self.over:
            return D_OVER
        if self.interrupt:
            return self.interrupt
        if self.stage == ST_AMOVE and self.a_cur < 0:
            return D_ALIEN_PICK
        return (D_TRANSPORT, D_PICK, D_CHAR, -1, D_HATCH, D_ALIEN_MOVE, D_ALIEN_TARGET, -1)[
            self.stage
        ]

    def legal_actions(self) -> list[Any]:
        if self._legal is not None:
            return self._legal
        if self.over:
            self._legal = []
            return self._legal
        d = self.decision()
        if d == D_CHAR:
            out = self._char_legal(self.active)
        elif d == D_PICK:
            out = [(ACT, c) for c in range(6) if self._can_activate(c)]
            # 4.2 when the fuel has run out, the riders must leave: the phase does not end
            # while one of them can
            if not (self.tr_fuel <= 0 and any(
                    self.c_state[c] == ABOARD and self._can_activate(c) for c in range(6))):
                out.append((END_PHASE,))
        elif d == D_ALIEN_MOVE:
            out = self._alien_moves(self._place(self.a_cur))
        elif d == D_ALIEN_PICK:
            out = [_pick_act(aid) for aid in self._movers()]
        elif d == D_HATCH:
            out = [(HATCH_END,)]
            top = min(self.hatch_pts, self.alien_max_strength)
            for k in self._hatch_spaces():
                out.extend((HATCH, s, k) for s in range(1, top + 1))
        elif d == D_RETREAT:
            out = [(RETREAT, s) for s in self.r_opts]
        elif d == D_ALIEN_TARGET:
            out = [(A_TARGET, c) for c in self.tgt_queue[0][1]]
        elif d == D_QUEEN:
            out = [(QUEEN,), (NO_QUEEN,)]
        else:  # D_TRANSPORT
            out = [(T_STAY,)] + [(T_MOVE, s) for s in self._transport_dests()]
        self._legal = out
        return out

    def _apply(self, action: Any) -> None:
        self._legal = None
        op: int = action[0]
        if op == A_MOVE:
            self._do_alien_move(action[1])
        elif op == MOVE:
            self._do_move(self.active, action[1])
        elif op == ACT:
            self._do_activate(action[1])
        elif op == END_ACT:
            c = self.active
            self.c_done[c] = True
            self.stage = ST_PICK
            if (self.opt.airlock_stand_exits and self.c_state[c] == ON_BOARD
                    and self.m_kind[self.c_pos[c]] == B.AIRLOCK):
                self._char_out(self.c_pos[c])
                self._go_out(c, self.c_pos[c])
        elif op == SHOOT:
            self._do_shoot(self.active, action[1], action[2], action[3])
        elif op == PICK:
            self._do_pick(self.active, action[1])
        elif op == DROP:
            self._do_drop(self.active, action[1])
        elif op == GIVE:
            self._do_give(self.active, action[1], action[2])
        elif op == HEAL:
            self._do_heal(self.active, action[1])
        elif op == READ:
            self._do_read(self.active)
        elif op == CHARGE:
            self._do_charge(self.active, action[1])
        elif op == GRENADE:
            self._do_grenade(self.active, action[1], action[2], action[3])
        elif op == BOARD:
            self._do_board(self.active)
        elif op == REENTER:
            self._do_reenter(self.active, action[1])
        elif op == END_PHASE:
            self._end_expedition()
        elif op == HATCH:
            self._do_hatch(action[1], action[2])
        elif op == HATCH_END:
            self.hatch_pts = 0
        elif op == A_TARGET:
            aid, _ = self.tgt_queue.pop(0)
            self.assign.append((aid, action[1]))
        elif op == RETREAT:
            self._finish_retreat(action[1], told=True)
        elif op == QUEEN:
            self._queen_fight()
        elif op == NO_QUEEN:
            self.queen_pending -= 1
            self.interrupt = 0
        elif op == A_PICK:
            self.a_cur = action[1]
        elif op == T_MOVE:
            self._do_transport(action[1])
        elif op == T_STAY:
            self.stage = ST_PICK
        else:
            raise ValueError(f"unknown action {action!r}")
        self._settle()

    # == the flow between decisions ==
    def _settle(self) -> None:
        """Run automatic steps until a seat must decide or the game is over."""
        while True:
            if self.over:
                self.current_seat = -1
                return
            if self.interrupt:
                return
            if self.rq:
                if not self._start_retreat():
                    return
                continue
            if self.queen_pending > 0:
                self.interrupt = D_QUEEN
                self.current_seat = 0
                return
            st = self.stage
            if st == ST_CHAR:
                c = self.active
                if self.c_state[c] == DEAD or (self.c_state[c] == TRACK and self.c_track[c] == 0):
                    self.c_done[c] = True
                    self.stage = ST_PICK
                    continue
                self.current_seat = 0
                return
            if st == ST_PICK or st == ST_TRANSPORT:
                self.current_seat = 0
                return
            if st == ST_ALIENS_BEGIN:
                if self._trace:
                    self._log(f"-- round {self.round + 1}: the ALIENS phase")
                self.hatch_pts = 0
                self.hatch_first = self.next_aid
                if self.hatching_on:
                    self.hatch_pts = int(self.rng.integers(1, self.hatch_die + 1))
                    if self._trace:
                        self._log(f"hatching roll {self.hatch_pts}")
                self.stage = ST_HATCH
                continue
            if st == ST_HATCH:
                lim = self.alien_token_limit
                if self.hatch_pts > 0 and (not lim or len(self.a_id) < lim):
                    self.current_seat = 1
                    return
                self.stage = ST_AMOVE
                self.move_order = tuple(self.a_id)
                self.a_cur = -1
                continue
            if st == ST_AMOVE:
                if self._next_alien_to_move():
                    self.current_seat = 1
                    return
                self._metamorphosis()
                self._find_targets()
                self.stage = ST_ATARGET
                continue
            if st == ST_ATARGET:
                if self.tgt_queue:
                    self.current_seat = 1
                    return
                groups: dict[int, list[int]] = {}
                for aid, c in self.assign:
                    groups.setdefault(c, []).append(aid)
                self.groups = sorted((c, tuple(ids)) for c, ids in groups.items())
                self.assign = []
                self.stage = ST_ATTACK
                continue
            if st == ST_ATTACK:
                if self.groups:
                    c, ids = self.groups.pop(0)
                    self._alien_attack(c, ids)
                    continue
                self._end_round()
                continue
            raise RuntimeError(f"bad stage {st}")

    def _begin_expedition(self, first: bool = False) -> None:
        ap = self.opt.action_points
        last = self.passage_len - 1
        for c in range(6):
            self.c_ap[c] = ap
            self.c_done[c] = False
            self.c_fired[c] = False
            self.c_stopped[c] = False
            self.c_left[c] = False
            if self.c_state[c] == TRACK and not first and self.c_track[c] < last:
                self.c_track[c] += 1
        self.kills_phase = 0
        self.tr_moved = False
        self.active = -1
        if self._trace:
            self._log(f"== round {self.round + 1}: the EXPEDITION phase")
        if self.tr_fuel > 0 and any(s == ABOARD for s in self.c_state):
            self.stage = ST_TRANSPORT
        else:
            self.stage = ST_PICK

    def _end_expedition(self) -> None:
        # 7. tasks checked at the end of the phase (M08, M13, M18, M19)
        for m in list(self.open):
            if self.task_met_at_phase_end(m):
                self._complete(m)
        self._discard_impossible()
        self.fresh = []
        self.active = -1
        self._vchar = self._vrest = self._valien = None
        self.stage = ST_ALIENS_BEGIN

    def _end_round(self) -> None:
        self.round += 1
        if self.round >= self.opt.max_rounds:
            self._finish("", "cap")
            return
        self._begin_expedition()

    def _finish(self, winner: str, reason: str) -> None:
        self.over = True
        self.winner = winner
        self.end_reason = reason
        self.interrupt = 0
        self.current_seat = -1
        if self._trace:
            alive = sum(1 for x in self.c_state if x != DEAD)
            self._log(f"== game over: {text.ending(reason)}; points {self.points}, tasks completed "
                      f"{len(self.done)}, characters alive {alive} of 6, the ALIEN QUEEN "
                      + ("alive" if self.queen_alive else "dead"))

    def _check_all_dead(self) -> None:
        if all(s == DEAD for s in self.c_state) and not self.over:
            if self.queen_alive:
                self._finish("aliens", "expedition_wiped_out")
            else:
                self._finish("draw", "draw_all_died_after_queen")

    def _check_ship(self) -> None:
        """8. After the Queen's death a character on the landing pad has reached the ship."""
        if not self.queen_alive and not self.over:
            for c in range(6):
                if self.c_state[c] == ON_BOARD and self.c_pos[c] == self.m_pad:
                    self._finish("expedition", "returned_to_ship")
                    return

    # == expedition: choosing a character ==
    def _can_activate(self, c: int) -> bool:
        """Whether character ``c`` may take its actions now. A rider leaves the transporter
        onto the vehicle's space, so it may only when no other character (4.1: never stop on
        a character's space; the landing pad holds any number) and no ALIEN (9.2: ALIENS and
        characters never share a space) stands there."""
        if self.c_done[c]:
            return False
        s = self.c_state[c]
        if s == ON_BOARD:
            return True
        if s == ABOARD:
            p = self.tr_pos
            return not self.alien_cnt[p] and (p == self.m_pad or not self.char_cnt[p])
        if s == TRACK:
            return self.c_track[c] == self.passage_len - 1
        return False

    def _do_activate(self, c: int) -> None:
        self.active = c
        self.stage = ST_CHAR
        self.shot_at = ()
        if self.c_state[c] == ABOARD:  # 4.2 a rider leaves; the vehicle's space is its start
            self.c_state[c] = ON_BOARD
            self.c_pos[c] = self.tr_pos
            self.c_left[c] = True
            self._char_in(self.tr_pos)
            if self._trace:
                self._log(f"{CHARACTER_NAMES[c]} leaves the transporter")
            self._check_ship()

    # == expedition: the character's actions ==
    def _char_dests(self, c: int) -> dict[int, int]:
        """4.1 destinations within the AP left → walking cost (the stop rule ends a path),
        nearest first (:meth:`_char_reach` as a dict)."""
        dests, costs = self._char_reach(c)
        return dict(zip(dests, costs, strict=True))

    def _char_reach(self, c: int) -> tuple[list[int], list[int]]:
        """4.1 the destinations within the AP left, in the order a breadth-first walk finds
        them (nearest first), and their walking costs (the stop rule ends a path)."""
        start = self.c_pos[c]
        budget = self.c_ap[c]
        alien = self.alien_cnt
        aadj = self.a_adj
        chars = self.char_cnt
        col = self.collapsed
        pk = self.c_pk[c]
        suit = SUIT in pk
        pad_ok = (not self.queen_alive) or (FUEL in pk and self.tr_pos == self.m_pad)
        seen = [False] * self.m_n  # a list, not a set: native reads and writes, no boxing
        seen[start] = True
        dests: list[int] = []
        costs: list[int] = []
        frontier = [start]
        nbr = self.m_nbr
        kind = self.m_kind
        for step in range(1, budget + 1):
            nxt = []
            for u in frontier:
                for v in nbr[u]:
                    if seen[v]:
                        continue
                    seen[v] = True
                    if alien[v] or (col and v in col):
                        continue
                    k = kind[v]
                    if k >= 5:  # airlock or pad: an end, never passed through
                        if (k == 5 and suit) or (k == 6 and pad_ok):
                            dests.append(v)
                            costs.append(step)
                        continue
                    if chars[v]:  # 4.1 never onto or through a character (4.2 frees
                        continue  # the transporter's space, not a character standing on it)
                    dests.append(v)
                    costs.append(step)
                    if not aadj[v]:
                        nxt.append(v)
            if not nxt:
                break
            frontier = nxt
        return dests, costs

    def _char_legal(self, c: int) -> list[Any]:
        out: list[Any] = [(END_ACT,)]
        st = self.c_state[c]
        if st == TRACK:
            for k, s in enumerate(self.m_airlocks):
                if not self.char_cnt[s] and s not in self.collapsed:
                    out.append((REENTER, k + 1))
            return out
        pos = self.c_pos[c]
        pk = self.c_pk[c]
        # 4.2 boarding; 3. not after firing ("it may no longer move or perform another action")
        if pos == self.tr_pos and self.tr_fuel > 0 and not self.c_left[c] and not self.c_fired[c]:
            out.append((BOARD,))
        ap = self.c_ap[c]
        if ap <= 0:
            return out
        if not self.c_fired[c]:
            if not self.c_stopped[c]:
                self._dest = reach = self._char_reach(c)
                out += [(MOVE, s) for s in reach[0]]
            free = EMPTY in pk
            if free:
                seen: set[int] = set()
                fl = self.floor.get(pos)
                if fl:
                    for it in fl:
                        if it not in seen:
                            seen.add(it)
                            out.append((PICK, it))
                store = self.m_store_items.get(pos)
                if store:
                    for it in store:
                        if it == B.FULL_CLIP:
                            if self.full_clip not in seen:
                                out.append((PICK, self.full_clip))
                                seen.add(self.full_clip)
                        elif it not in seen and (it == COMP or self.supply[it] > 0):
                            out.append((PICK, it))
                            seen.add(it)
            held = {it for it in pk if it != EMPTY}
            for it in held:
                out.append((DROP, it))
            if held and self.c_adj[pos]:
                for c2 in range(6):
                    if (
                        c2 != c
                        and self.c_state[c2] == ON_BOARD
                        and self.c_pos[c2] in self.m_nbr_set[pos]
                        and EMPTY in self.c_pk[c2]
                    ):
                        out.extend((GIVE, it, c2) for it in held)
            if c == BISHOP and MED in held:
                for c2 in range(6):
                    if (
                        c2 != c
                        and self.c_state[c2] == ON_BOARD
                        and self.c_str[c2] < self.c_max[c2]
                        and self.c_pos[c2] in self.m_nbr_set[pos]
                    ):
                        out.append((HEAL, c2))
            if DISK in held and pos in self.m_computers and self._can_read(pos):
                out.append((READ,))
            if I_CHARGE in held:
                for n in self.m_nbr[pos]:
                    if (
                        self.m_kind[n] == B.CORRIDOR
                        and n not in self.collapsed
                        and not self.char_cnt[n]
                        and not self.alien_cnt[n]
                        and n != self.tr_pos
                    ):
                        out.append((CHARGE, n))
        if self.a_id:
            self._shots_legal(c, pos, pk, ap, out)
        return out

    def _charges(self, pk: list[int]) -> int:
        return sum(it - CLIP0 for it in pk if it >= CLIP0)

    def _los_clear(self, inter: tuple[int, ...]) -> bool:
        chars = self.char_cnt
        alien = self.alien_cnt
        col = self.collapsed
        for s in inter:
            if chars[s] or alien[s] or s in col:
                return False
        return True

    def _shots_legal(self, c: int, pos: int, pk: list[int], ap: int, out: list[Any]) -> None:
        use = WEAPON_USE[c]
        shot = self.shot_at
        charges = self._charges(pk)
        los = self.m_los[pos]
        if charges:
            weapons = {it for it in pk if it in WEAPONS and it in use}
            if weapons:
                top = min(ap, charges)
                for w in weapons:
                    rng_ = self.wstats[w][0]
                    for j in range(len(self.a_id)):
                        aid = self.a_id[j]
                        apos = self.a_pos[j]
                        if aid in shot:
                            continue
                        inter = los.get(apos)  # n - 1 spaces between ends at range n
                        if inter is None or len(inter) >= rng_ or not self._los_clear(inter):
                            continue
                        out.extend((SHOOT, aid, w, n) for n in range(1, top + 1))
        if I_GRENADE in pk and I_GRENADE in use:
            self._grenades_legal(pos, los, out)

    def _grenades_legal(self, pos: int, los: Any, out: list[Any]) -> None:
        """5. Grenade throws that hit at least one ALIEN, each area once, as
        ``(GRENADE, middle, end, end)``.

        Thrown onto a space at most ``grenade_range`` away and in line of sight (design
        3(c)6). In a corridor or a duct (a space with at most two neighbours) it hits that
        space and the two adjacent to it. In a room it hits "three freely chosen adjacent
        spaces, at least one of which lies no further than two spaces" from the thrower:
        any connected trio of spaces (a middle and two of its neighbours) in which the
        middle or a room-space end is within the throw.
        """
        gr = self.grenade_range
        alien = self.alien_cnt
        col = self.collapsed
        kind = self.m_kind
        reach: dict[int, bool] = {}

        def landing(t: int) -> bool:
            ok = reach.get(t)
            if ok is None:
                inter = los.get(t)
                ok = reach[t] = (
                    t != pos and t not in col and inter is not None and len(inter) < gr
                    and self._los_clear(inter)
                )
            return ok

        middles: set[int] = set()
        for apos in self.a_pos:
            middles.add(apos)
            middles.update(self.m_nbr[apos])
        seen: set[tuple[int, int, int]] = set()  # (least, greatest, sum): the trio
        for t in sorted(middles):
            if t == pos or t in col:
                continue
            nb = [n for n in self.m_nbr[t] if n not in col]
            if len(nb) <= 2:
                if landing(t):
                    tri = tuple(nb) + (-1,) * (2 - len(nb))
                    a, b = tri[0], tri[1]
                    if alien[t] or (a >= 0 and alien[a]) or (b >= 0 and alien[b]):
                        if b >= 0:
                            seen.add((min(t, a, b), max(t, a, b), t + a + b))
                        out.append((GRENADE, t, a, b))
                continue
            here = landing(t)
            room = kind[t] == B.ROOM
            for i, a in enumerate(nb):
                for b in nb[i + 1:]:
                    if not (alien[t] or alien[a] or alien[b]):
                        continue
                    if not (here or (room and (
                            (kind[a] == B.ROOM and landing(a))
                            or (kind[b] == B.ROOM and landing(b))))):
                        continue
                    key = (min(t, a, b), max(t, a, b), t + a + b)
                    if key in seen:
                        continue
                    seen.add(key)
                    out.append((GRENADE, t, a, b))

    def _can_read(self, pos: int) -> bool:
        m = self.m_read_missions.get(pos)
        if m is not None and m in self.open:
            return True
        return len(self.open) < self.max_open_missions and bool(self.deck)

    def _do_move(self, c: int, dest: int) -> None:
        dests, costs = self._dest if self._dest is not None else self._char_reach(c)
        cost = -1
        for k in range(len(dests)):  # (a native loop: list.index compares Python ints)
            if dests[k] == dest:
                cost = costs[k]
                break
        if cost < 0:
            raise KeyError(dest)
        self._dest = None
        self.c_ap[c] -= cost
        self._char_out(self.c_pos[c])
        if self._trace:  # the move itself is the action's words
            self._log(f"{CHARACTER_NAMES[c]} spends {cost} AP ({self.c_ap[c]} left)")
        k = self.m_kind[dest]
        if k == B.AIRLOCK:
            self._go_out(c, dest)
            return
        self.c_pos[c] = dest
        self._char_in(dest)
        if self.a_adj[dest]:
            self.c_stopped[c] = True
        if k == B.PAD:
            self._check_ship()
        self._after_char_action(c)

    def _go_out(self, c: int, airlock: int) -> None:
        """4.3 a character on ``airlock`` is moved onto the passage track ("in"); the rest of
        its phase is lost."""
        self.c_state[c] = TRACK
        self.c_track[c] = 0
        self.c_exit[c] = self.m_airlock_no[airlock]
        self.c_pos[c] = airlock
        self.c_ap[c] = 0
        self._count("airlock_exits")

    def _after_char_action(self, c: int) -> None:
        """Tasks completed by carrying a spare component onto a device (M01–M05)."""
        if self.open and self.c_state[c] == ON_BOARD:
            m = self.m_component_missions.get(self.c_pos[c])
            if m is not None and m in self.open and COMP in self.c_pk[c]:
                pk = self.c_pk[c]
                pk[pk.index(COMP)] = EMPTY  # the component is used; it returns to the store
                self._complete(m)

    def _take_pocket(self, c: int, item: int) -> None:
        pk = self.c_pk[c]
        pk[pk.index(item)] = EMPTY

    def _do_pick(self, c: int, item: int) -> None:
        pos = self.c_pos[c]
        if self._floor_shared:
            self._own_floor()
        fl = self.floor.get(pos)
        if fl and item in fl:
            fl.remove(item)
            if not fl:
                del self.floor[pos]
        elif item < CLIP0 and item != COMP:
            self.supply[item] -= 1
        pk = self.c_pk[c]
        pk[pk.index(EMPTY)] = item
        self.c_ap[c] -= 1
        self._after_char_action(c)

    def _do_drop(self, c: int, item: int) -> None:
        pos = self.c_pos[c]
        self._take_pocket(c, item)
        self.c_ap[c] -= 1
        if item == FUEL:
            for m in self.open:
                if self.m_missions[m][0] == "fuel_drop" and self.m_missions[m][1] == pos:
                    self.used[FUEL] += 1
                    self._complete(m)
                    return
            if pos == self.tr_pos:  # 4.2 fuel delivered to the transporter
                self.used[FUEL] += 1
                self.tr_fuel += self.opt.fuel_phases
                if self._trace:
                    self._log("fuel delivered to the transporter")
                return
        if self._floor_shared:
            self._own_floor()
        self.floor.setdefault(pos, []).append(item)

    def _do_give(self, c: int, item: int, c2: int) -> None:
        self._take_pocket(c, item)
        pk = self.c_pk[c2]
        pk[pk.index(EMPTY)] = item
        self.c_ap[c] -= 1
        self._after_char_action(c2)

    def _do_heal(self, c: int, c2: int) -> None:
        self._take_pocket(c, MED)
        self.used[MED] += 1
        self.c_str[c2] += 1
        self.c_ap[c] -= 1

    def _do_read(self, c: int) -> None:
        pos = self.c_pos[c]
        self._take_pocket(c, DISK)
        self.supply[DISK] += 1  # 7. the disk returns to the component store
        self.c_ap[c] -= 1
        m = self.m_read_missions.get(pos)
        if m is not None and m in self.open:
            self._complete(m)
            return
        m = self.deck.pop()
        self.open.append(m)
        self.fresh.append(m)
        self._count("missions_drawn")
        if self._trace:
            self._log(f"mission drawn: {MISSION_IDS[m]}: {MISSION_TEXT[m]}")
        self._discard_impossible()

    def _do_charge(self, c: int, space: int) -> None:
        self._take_pocket(c, I_CHARGE)
        self.used[I_CHARGE] += 1
        self.c_ap[c] -= 1
        self.collapsed = self.collapsed | {space}
        self._count("charges_used")
        # floor items on a collapsed space are out of reach: set aside
        if self._floor_shared:
            self._own_floor()
        fl = self.floor.pop(space, None)
        if fl:
            for it in fl:
                if it in self.limits:
                    self.used[it] += 1
        for m in list(self.open):
            if self.m_missions[m][0] == "collapse" and space in self.m_missions[m][1]:
                self._complete(m)

    def _do_board(self, c: int) -> None:
        self._char_out(self.c_pos[c])
        self.c_state[c] = ABOARD
        self.c_pos[c] = self.tr_pos
        self.c_done[c] = True
        self.stage = ST_PICK

    def _do_reenter(self, c: int, k: int) -> None:
        s = self.m_airlocks[k - 1]
        self.c_state[c] = ON_BOARD
        self.c_pos[c] = s
        self._char_in(s)
        ex = self.c_exit[c]
        self.c_exit[c] = 0
        for m in list(self.open):
            if self.m_missions[m][0] == "airlocks" and self.m_missions[m][1] == (ex, k):
                self._complete(m)
        if self.a_adj[s]:
            self.c_stopped[c] = True

    def _do_transport(self, dest: int) -> None:
        self.tr_pos = dest
        self.tr_fuel -= 1
        self.tr_moved = True
        self._count("transporter_moves")
        riders = [c for c in range(6) if self.c_state[c] == ABOARD]
        for c in riders:
            self.c_pos[c] = dest
        self.stage = ST_PICK
        if dest == self.m_pad and not self.queen_alive and riders:
            self._finish("expedition", "returned_to_ship")
            return
        # 4.2 when the fuel has run out the riders must leave; they leave one at a time, as
        # they act (a character may not stop on another's space, 4.1), and the phase does
        # not end while one of them can (see legal_actions)

    def _transport_dests(self) -> list[int]:
        start = self.tr_pos
        col = self.collapsed
        ok = self.m_transport_ok
        seen = {start}
        frontier = [start]
        out = []
        pad_ok = not self.queen_alive
        for _ in range(self.opt.transporter_range):
            nxt = []
            for u in frontier:
                for v in self.m_nbr[u]:
                    if v in seen or not ok[v] or v in col:
                        continue
                    seen.add(v)
                    if v == self.m_pad:
                        if pad_ok:
                            out.append(v)
                        continue
                    nxt.append(v)
                    if not self.char_cnt[v] and not self.alien_cnt[v]:
                        out.append(v)
            frontier = nxt
        return out

    # == shooting (6. Combat) ==
    def _do_shoot(self, c: int, aid: int, weapon: int, shots: int) -> None:
        i = self.a_id.index(aid)
        apos = self.a_pos[i]
        pk = self.c_pk[c]
        left = shots
        while left:  # fire from the emptiest clip first
            j = min((k for k in range(len(pk)) if pk[k] > CLIP0), key=lambda k: pk[k])
            use = min(left, pk[j] - CLIP0)
            pk[j] -= use
            left -= use
        self.c_ap[c] -= shots
        self.c_fired[c] = True
        self.shot_at = self.shot_at + (aid,)
        self._count("shots_fired", shots)
        astr = self.a_str[i] * (self.dmul if self.duct[apos] else 1)
        attack = self.c_str[c] + self.wstats[weapon][1] * shots - astr
        die = int(self.rng.integers(1, 7))
        side, loss, retreat = combat_result(attack, die, self.crt_offset)
        if self._trace:
            adj = apos in self.m_nbr_set[self.c_pos[c]]
            loser = CHARACTER_NAMES[c] if side == ATTACKER else (
                f"the ALIEN ({self.a_str[i]} -> {max(0, self.a_str[i] - loss)})")
            self._log(
                f"combat result of {shots} shot(s){' (x2 in a duct)' if self.duct[apos] else ''}"
                f": attack {attack:+d}, "
                f"die {die}: "
                + self._result_text(side, loss, retreat, loser, side == ATTACKER and not adj)
            )
        if side == DEFENDER:
            self.a_str[i] -= loss
            if self.a_str[i] <= 0:
                self._kill_alien(i, weapon)
            elif retreat:
                self.rq.append((1, aid, retreat, weapon))
        elif side == ATTACKER and apos in self.m_nbr_set[self.c_pos[c]]:
            self._wound(c, loss)
            if self.c_state[c] == ON_BOARD and retreat:
                self.rq.append((0, c, retreat, -1))

    def _do_grenade(self, c: int, t: int, a: int, b: int) -> None:
        self._take_pocket(c, I_GRENADE)
        self.used[I_GRENADE] += 1
        self.c_ap[c] -= 1
        self.c_fired[c] = True
        self._count("grenades_thrown")
        area = {t, a, b} - {-1}
        kills = 0
        for i in range(len(self.a_id) - 1, -1, -1):
            if self.a_pos[i] in area:
                self._kill_alien(i, I_GRENADE)
                kills += 1
        for c2 in range(6):
            if self.c_state[c2] == ON_BOARD and self.c_pos[c2] in area:
                self._wound(c2, self.c_str[c2])
        if kills >= self.opt.mission_grenade_kills:
            for m in list(self.open):
                if self.m_missions[m][0] == "grenade":
                    self._complete(m)

    def _kill_alien(self, i: int, weapon: int) -> None:
        """An ALIEN dies (by the expedition when ``weapon`` >= 0)."""
        pos = self.a_pos[i]
        self._alien_out(pos)
        del self.a_id[i]
        del self.a_pos[i]
        del self.a_str[i]
        self._count("aliens_killed")
        if self._trace:
            self._log(f"an ALIEN dies at {self.bd.name(pos)}")
        if weapon < 0 or self.over:
            return
        expedition = self.stage in (ST_CHAR, ST_PICK, ST_TRANSPORT)
        if expedition:
            self.kills_phase += 1
        for m in list(self.open):
            kind = self.m_missions[m][0]
            if (
                (kind == "kills" and expedition and self.kills_phase >= self.opt.mission_kills)
                or (kind == "kill_hatch" and pos in self.m_hatch_set)
                or (kind == "kill_duct_flamer" and weapon == I_FLAMER and self.duct[pos])
            ):
                self._complete(m)

    def _wound(self, c: int, loss: int) -> None:
        if self._trace:
            self._log(f"{CHARACTER_NAMES[c]}'s strength: {max(0, self.c_str[c] - loss)}")
        self.c_str[c] -= loss
        if self.c_str[c] <= 0:
            self._kill_char(c)

    def _kill_char(self, c: int) -> None:
        """2.1 strength 0: the character dies and all its items are lost."""
        self.c_str[c] = 0
        if self.c_state[c] == ON_BOARD:
            self._char_out(self.c_pos[c])
        self.c_state[c] = DEAD
        for it in self.c_pk[c]:
            if it in self.limits:
                self.used[it] += 1
        self.c_pk[c] = [EMPTY] * len(self.c_pk[c])
        self._count("characters_killed")
        self.rq = [r for r in self.rq if not (r[0] == 0 and r[1] == c)]
        if self._trace:
            self._log(f"{CHARACTER_NAMES[c]} dies")
        self._discard_impossible()
        self._check_all_dead()

    # == retreats ==
    def _retreat_paths(self, kind: int, start: int, m: int) -> tuple[int, dict[int, None]]:
        """The longest legal retreat (≤ m spaces, simple path) and its end spaces."""
        col = self.collapsed
        chars = self.char_cnt
        alien = self.alien_cnt
        if kind == 1:
            ok = self.m_alien_ok
            adj = self.c_adj
        else:
            adj = self.a_adj
        best = 0
        ends: dict[int, None] = {}
        path = [start]

        def rec(u: int, depth: int) -> None:
            nonlocal best, ends
            if depth > best:
                best = depth
                ends = {}
            if depth == best and depth > 0:
                ends[u] = None
            if depth == m:
                return
            for v in self.m_nbr[u]:
                if v in path or v in col or chars[v] or alien[v] or adj[v]:
                    continue
                if kind == 1:
                    if not ok[v]:
                        continue
                elif self.m_kind[v] >= 5:
                    continue
                path.append(v)
                rec(v, depth + 1)
                path.pop()

        rec(start, 0)
        return best, ends

    def _start_retreat(self) -> bool:
        """Resolve the first queued retreat; False when its owner must choose the end space."""
        kind, ident, m, weapon = self.rq[0]
        if kind == 1:
            if ident not in self.a_id:
                self.rq.pop(0)
                return True
            i = self.a_id.index(ident)
            best, ends = self._retreat_paths(1, self.a_pos[i], m)
            if best < m:  # 6. it cannot retreat: it dies
                if self._trace:
                    self._log(f"the ALIEN at {self.bd.name(self.a_pos[i])} cannot retreat {m}: "
                              "it dies")
                self.rq.pop(0)
                self._kill_alien(i, weapon)
                return True
        else:
            if self.c_state[ident] != ON_BOARD:
                self.rq.pop(0)
                return True
            best, ends = self._retreat_paths(0, self.c_pos[ident], m)
            if best < m:  # 10. one strength point per space it cannot retreat
                if self._trace:
                    self._log(f"{CHARACTER_NAMES[ident]} can retreat only {best} of {m}")
                self._wound(ident, m - best)
                if self.c_state[ident] != ON_BOARD or self.over:
                    if self.rq and self.rq[0][:2] == (kind, ident):
                        self.rq.pop(0)
                    return True
        if not ends:
            self.rq.pop(0)
            return True
        opts = tuple(ends)
        if len(opts) == 1:
            self._finish_retreat(opts[0], told=False)
            return True
        self.r_opts = opts
        self.interrupt = D_RETREAT
        self.current_seat = 1 if kind == 1 else 0
        return False

    def _finish_retreat(self, dest: int, told: bool) -> None:
        """End a retreat at ``dest`` (``told``: a decision whose words already said so)."""
        kind, ident, _, _ = self.rq.pop(0)
        self.interrupt = 0
        self.r_opts = ()
        if kind == 1:
            i = self.a_id.index(ident)
            if self._trace and not told:
                self._log(f"the ALIEN of strength {self.a_str[i]} retreats from "
                          f"{self.bd.name(self.a_pos[i])} to {self.bd.name(dest)}")
            self._alien_out(self.a_pos[i])
            self.a_pos[i] = dest
            self._alien_in(dest)
        else:
            if self._trace and not told:
                self._log(f"{CHARACTER_NAMES[ident]} retreats to {self.bd.name(dest)}")
            self._char_out(self.c_pos[ident])
            self.c_pos[ident] = dest
            self._char_in(dest)

    # == missions and the Queen (7., 8.) ==
    def _complete(self, m: int) -> None:
        self.open.remove(m)
        self.done.append(m)
        self.points += 1
        if self._trace:
            self._log(f"task {MISSION_IDS[m]} completed ({MISSION_TEXT[m]}); points {self.points}")
        if not self.queen_alive:
            return
        if self.opt.queen_variant == "tasks":
            if len(self.done) >= self.opt.queen_tasks:
                self._queen_dies(stop_hatching=True)
        else:  # 8. Variant 1: a fight may be declared after each completed task
            self.queen_pending += 1

    def _queen_fight(self) -> None:
        self.queen_pending -= 1
        self.interrupt = 0
        self._count("queen_fights")
        q = int(self.rng.integers(1, 7))
        if self._trace:
            self._log(f"Queen fight: Queen {q} vs points {self.points}")
        if q < self.points:
            self._queen_dies(stop_hatching=True)
        elif q == self.points:
            self._queen_dies(stop_hatching=False)
        else:
            if self._trace:
                self._log("the ALIEN QUEEN is stronger: the expedition loses all its points")
            self.points = 0

    def _queen_dies(self, stop_hatching: bool) -> None:
        self.queen_alive = False
        self.queen_pending = 0
        if stop_hatching:
            self.hatching_on = False
        self.st["queen_round"] = self.round
        self.st["queen_killed_by"] = 1 if stop_hatching else 2
        self._vstats = None
        if self._trace:
            self._log("the ALIEN QUEEN dies" + ("" if stop_hatching else
                                                 "; the ALIENS continue to hatch"))
        self._check_ship()

    def count_item(self, item: int) -> int:
        """Tokens of ``item`` in the store, on the floor and in living characters' pockets."""
        n = self.supply[item]
        for fl in self.floor.values():
            n += fl.count(item)
        for pk in self.c_pk:
            n += pk.count(item)
        return n

    def task_met_at_phase_end(self, m: int) -> bool:
        """7. Whether task ``m``, one checked at the end of an Expedition phase (M08 the
        transporter, M13 clear of ALIENS, M18 Bishop, M19 the room), is met now; False for
        every other task. M13 drawn this phase is not met under ``clear_mission_when_drawn``
        false (design note 24)."""
        kind, p = self.m_missions[m]
        if kind == "transporter":
            return self.tr_pos == p and (self.tr_fuel > 0 or self.tr_moved)
        if kind == "clear":
            # design note 24: checked at the end of an Expedition phase after the draw
            # (this phase's, or only a later one's under clear_mission_when_drawn=false)
            if m in self.fresh and not self.opt.clear_mission_when_drawn:
                return False
            r = self.opt.mission_radius
            d = self.bd.dist_from(p, self.collapsed)
            return all(d[a] > r for a in self.a_pos)
        if kind == "bishop":
            return (self.c_state[BISHOP] == ON_BOARD and self.c_pos[BISHOP] == p
                    and COMP in self.c_pk[BISHOP])
        if kind == "room":
            return all(self.c_state[c] == ON_BOARD and self.m_room_of[self.c_pos[c]] == p
                       for c in (RIPLEY, HICKS))
        return False

    def impossible_kinds(self, deaths_only: bool = False) -> frozenset[str]:
        """3(c)23: the kinds of task (``MISSIONS_DATA`` kinds) that can no longer be
        completed: the character it names is dead (``bishop`` M18; ``room`` M19: Ripley or
        Hicks), nobody alive may use its weapon (``kill_duct_flamer`` M16, ``grenade`` M17),
        or every token of the item it needs is used up (``collapse``: charges; M17 grenades;
        M16 flamethrowers; ``fuel_drop``: fuel; ``transporter``: fuel and the transporter's
        tank; ``airlocks``: suits; ``read``: disks). Once impossible, always: the dead do not
        return and these tokens are never replenished. ``deaths_only``: the character
        conditions only (the engine discards on them at once, on the others at its next
        check)."""
        c_state = self.c_state
        out = []
        if c_state[BISHOP] == DEAD:
            out.append("bishop")
        if c_state[RIPLEY] == DEAD or c_state[HICKS] == DEAD:
            out.append("room")
        if all(c_state[c] == DEAD for c in _GRENADE_USERS):
            out.append("grenade")
        if all(c_state[c] == DEAD for c in _FLAMER_USERS):
            out.append("kill_duct_flamer")
        if not deaths_only:
            n = self.supply[:]  # tokens of each item in play (codes below CLIP0)
            k = len(n)
            for fl in self.floor.values():
                for it in fl:
                    if 0 <= it < k:
                        n[it] += 1
            for pk in self.c_pk:
                for it in pk:
                    if 0 <= it < k:
                        n[it] += 1
            if n[I_CHARGE] == 0:
                out.append("collapse")
            if n[I_GRENADE] == 0:
                out.append("grenade")
            if n[I_FLAMER] == 0:
                out.append("kill_duct_flamer")
            if n[FUEL] == 0:
                out.append("fuel_drop")
                if self.tr_fuel == 0:
                    out.append("transporter")
            if n[SUIT] == 0:
                out.append("airlocks")
            if n[DISK] == 0:
                out.append("read")
        return frozenset(out)

    def _discard_impossible(self) -> None:
        """3(c)23: a task that can no longer be completed is discarded (option)."""
        if not self.opt.discard_impossible_missions or not self.open:
            return
        kinds = self.impossible_kinds()
        for m in list(self.open):
            if self.m_missions[m][0] in kinds:
                self.open.remove(m)
                self.discarded.append(m)
                self._count("missions_discarded")

    # == ALIENS phase (9., 10.) ==
    def _hatch_spaces(self) -> list[int]:
        """9.1 the hatching spaces (0..4) a new ALIEN may be placed on now.

        Option ``hatching_held_space`` closed (design 3(c)11): not a space where a character
        stands; option ``hatch_onto_older`` false: not a space where an ALIEN of an earlier
        phase stands. Neither ruling may stop a whole hatching ("the hatching process takes
        place in every phase of the ALIENS' movement", 9.1): when no space is left, the
        older-ALIEN ruling is dropped first, then the character ruling (the new ALIENS go on
        the held spaces, and must leave them in their movement, as with ``open``).
        """
        closed = self.opt.hatching_held_space == "closed"
        older = not self.opt.hatch_onto_older
        chars = self.char_cnt
        old_at: set[int] = set()
        if older:
            first = self.hatch_first
            for j in range(len(self.a_id)):
                if self.a_id[j] < first:
                    old_at.add(self.a_pos[j])
        out = [k for k, h in enumerate(self.m_hatches)
               if not (closed and chars[h]) and h not in old_at]
        if not out and older:
            out = [k for k, h in enumerate(self.m_hatches) if not (closed and chars[h])]
        if not out:
            out = list(range(len(self.m_hatches)))
        return out

    def _do_hatch(self, strength: int, k: int) -> None:
        p = self.m_hatches[k]
        self.a_id.append(self.next_aid)
        self.next_aid += 1
        self.a_pos.append(p)
        self.a_str.append(strength)
        self._alien_in(p)
        self.hatch_pts -= strength
        self._count("aliens_hatched")
        self._valien = None
        self._count("alien_strength_hatched", strength)

    def _alien_dests(self, i: int) -> list[int]:
        """9.2 spaces an ALIEN may end on (its own space first = stay)."""
        return [a[1] for a in self._alien_moves(i)]

    def _alien_moves(self, i: int) -> list[Any]:
        """9.2 the moves ``(A_MOVE, s)`` of ALIEN ``i`` (its own space first = stay)."""
        acts = _move_acts_upto(self.m_n)
        start = self.a_pos[i]
        col = self.collapsed
        some_col = len(col) > 0
        chars = self.char_cnt
        alien = self.alien_cnt
        cadj = self.c_adj
        duct = self.duct
        nbr = self.m_alien_nbr
        t = self.tables
        seen = t.seen
        mark = t.seen_mark = t.seen_mark + 1
        seen[start] = mark
        out = [acts[start]]
        frontier = [start]
        for _ in range(self.alien_move):
            nxt = []
            for u in frontier:
                for v in nbr[u]:
                    if seen[v] == mark:
                        continue
                    seen[v] = mark
                    if chars[v] or (some_col and v in col):
                        continue
                    if alien[v]:  # only into a duct, to undergo metamorphosis there
                        if duct[v] and not cadj[v]:
                            out.append(acts[v])
                        continue
                    out.append(acts[v])
                    if not cadj[v]:
                        nxt.append(v)
            if not nxt:
                break
            frontier = nxt
        if chars[start] and len(out) > 1:  # hatched on a character's space: it must leave
            del out[0]
        return out

    def _with_moves(self, places: list[int]) -> list[int]:
        """The ALIENS of ``places`` (places in ``a_id``, kept in their order) that have a
        move other than staying (a first step they may take)."""
        chars = self.char_cnt
        alien = self.alien_cnt
        cadj = self.c_adj
        duct = self.duct
        col = self.collapsed
        some_col = len(col) > 0
        nbr = self.m_alien_nbr
        a_pos = self.a_pos
        out: list[int] = []
        for i in places:
            for v in nbr[a_pos[i]]:
                if chars[v] or (some_col and v in col):
                    continue
                if alien[v] and not (duct[v] and not cadj[v]):
                    continue
                out.append(i)
                break
        return out

    def _place(self, aid: int) -> int:
        """The place of ALIEN ``aid`` in ``a_id`` (ids are unique, and ascending in play:
        a binary search, checked; a list search when ``a_id`` is in another order)."""
        a_id = self.a_id
        lo = 0
        hi = len(a_id)
        while lo < hi:
            mid = (lo + hi) >> 1
            if a_id[mid] < aid:
                lo = mid + 1
            else:
                hi = mid
        if lo < len(a_id) and a_id[lo] == aid:
            return lo
        return a_id.index(aid)

    def _unmoved(self) -> list[int]:
        """The places in ``a_id`` of the ALIENS still to move (``move_order``, in its order;
        ids no longer on the board skipped): one walk along ``a_id`` while the two run in
        the same order, as they do in play."""
        a_id = self.a_id
        n = len(a_id)
        out: list[int] = []
        j = 0
        for aid in self.move_order:
            while j < n and a_id[j] != aid:
                j += 1
            if j == n:  # out of order or gone: look each one up
                index: dict[int, int] = {}
                for k, x in enumerate(a_id):
                    index[x] = k
                return [index[x] for x in self.move_order if x in index]
            out.append(j)
            j += 1
        return out

    def _movers(self) -> list[int]:
        """9.2 the ALIENS (ids, oldest first) still to move this phase that have a move."""
        return [self.a_id[i] for i in self._with_moves(self._unmoved())]

    def _next_alien_to_move(self) -> bool:
        """9.2 sets no order: the ALIENS player chooses which ALIEN moves next (a decision
        only when two or more still have a move); cache the legal actions."""
        if self.a_cur >= 0:
            self._legal = self._alien_moves(self._place(self.a_cur))
            return True
        a_id = self.a_id
        unmoved = self._unmoved()
        movers = self._with_moves(unmoved)
        if not movers:
            return False
        cur = -1
        if len(movers) == 1:
            cur = movers[0]
        else:
            # an ALIEN more than twice its move from every other ALIEN still to move can
            # neither block nor be blocked by them: the order cannot matter, and it moves
            # without a choice of order (oldest first), keeping the decisions few
            lim = 2 * self.alien_move
            a_pos = self.a_pos
            rest = [a_pos[i] for i in unmoved]
            for i in movers:
                px = self.m_dist[a_pos[i]]
                near = 0
                for py in rest:
                    if px[py] <= lim:
                        near += 1
                        if near > 1:
                            break
                if near <= 1:  # (itself)
                    cur = i
                    break
        if cur >= 0:
            self.a_cur = a_id[cur]
            self._legal = self._alien_moves(cur)
            return True
        self._legal = [_pick_act(a_id[i]) for i in movers]
        return True

    def _do_alien_move(self, dest: int) -> None:
        aid = self.a_cur
        i = self._place(aid)
        self._alien_out(self.a_pos[i])
        self.a_pos[i] = dest
        self._alien_in(dest)
        mo = self.move_order
        for k in range(len(mo)):
            if mo[k] == aid:  # (ids are unique)
                self.move_order = mo[:k] + mo[k + 1:]
                break
        self.a_cur = -1

    def _metamorphosis(self) -> None:
        """9.3 two ALIENS on one duct space not adjacent to a character merge (cap 4)."""
        if len(self.a_pos) < 2:
            return
        seen: dict[int, int] = {}
        cap = self.alien_max_strength
        merged_at: list[int] = []  # spaces merged on in this call (trace words only)
        i = 0
        while i < len(self.a_pos):
            p = self.a_pos[i]
            if self.duct[p] and not self.c_adj[p]:
                j = seen.get(p)
                if j is not None:
                    if self._trace:
                        tot = self.a_str[j] + self.a_str[i]
                        lost = f" ({tot - cap} lost)" if tot > cap else ""
                        merged_at.append(p)
                        k = merged_at.count(p)
                        again = "" if k == 1 else f", merge {k} there"
                        self._log(
                            f"metamorphosis at {self.bd.name(p)}: ALIENS of strength "
                            f"{self.a_str[j]} and {self.a_str[i]} become one of strength "
                            f"{min(cap, tot)}{lost}{again}"
                        )
                    self.a_str[j] = min(cap, self.a_str[j] + self.a_str[i])
                    self._alien_out(p)
                    del self.a_id[i]
                    del self.a_pos[i]
                    del self.a_str[i]
                    self._count("aliens_merged")
                    self._valien = None
                    continue
                seen[p] = i
            i += 1

    def _find_targets(self) -> None:
        """10. every ALIEN adjacent to a character attacks (once)."""
        self.assign = []
        self.tgt_queue = []
        cadj = self.c_adj
        chars = self.char_cnt
        for j in range(len(self.a_id)):
            aid = self.a_id[j]
            p = self.a_pos[j]
            if not cadj[p] and not chars[p]:
                continue
            # (an ALIEN that hatched on a character's space and could not leave it attacks
            # that character too)
            near = tuple(
                c for c in range(6)
                if self.c_state[c] == ON_BOARD
                and (self.c_pos[c] in self.m_nbr_set[p] or self.c_pos[c] == p)
            )
            if len(near) == 1:
                self.assign.append((aid, near[0]))
            elif near:
                self.tgt_queue.append((aid, near))

    def _alien_attack(self, c: int, ids: tuple[int, ...]) -> None:
        if self.c_state[c] != ON_BOARD:
            return
        cpos = self.c_pos[c]
        nb = self.m_nbr_set[cpos]
        att = [
            aid for aid in ids
            if aid in self.a_id
            and (self.a_pos[self.a_id.index(aid)] in nb or self.a_pos[self.a_id.index(aid)] == cpos)
        ]
        if not att:
            return
        total = 0
        for aid in att:
            i = self.a_id.index(aid)
            total += self.a_str[i] * (self.dmul if self.duct[self.a_pos[i]] else 1)
        attack = total - self.c_str[c]
        die = int(self.rng.integers(1, 7))
        side, loss, retreat = combat_result(attack, die, self.crt_offset)
        if self._trace:
            strs = " + ".join(str(self.a_str[self.a_id.index(aid)]) for aid in att)
            loser = CHARACTER_NAMES[c] if side == DEFENDER else (
                "the ALIEN" if len(att) == 1 else "each ALIEN")
            self._log(
                f"{len(att)} ALIEN(S) ({strs}) attack {CHARACTER_NAMES[c]} "
                f"({self.c_str[c]}): attack {attack:+d}, die {die}: "
                + self._result_text(side, loss, retreat, loser, False)
            )
        if side == DEFENDER:
            self._wound(c, loss)
            if self.c_state[c] == ON_BOARD and retreat:
                self.rq.append((0, c, retreat, -1))
        elif side == ATTACKER:
            for aid in att:
                i = self.a_id.index(aid)
                self.a_str[i] -= loss
                if self.a_str[i] <= 0:
                    self._kill_alien(i, -1)
                elif retreat:
                    self.rq.append((1, aid, retreat, -1))

    # == copy / view / result ==
    def copy(self) -> ObcyState:
        s = ObcyState(self.opt, PLACEHOLDER_RNG, blank=True)
        self.copy_rng_to(s)
        # the options read in hot paths
        s.alien_move = self.alien_move
        s.alien_max_strength = self.alien_max_strength
        s.passage_len = self.passage_len
        s.grenade_range = self.grenade_range
        s.max_open_missions = self.max_open_missions
        s.hatch_die = self.hatch_die
        s.alien_token_limit = self.alien_token_limit
        s.crt_offset = self.crt_offset
        # the board's tables (shared, immutable)
        s.tables = self.tables
        s.bd = self.bd
        s.m_nbr = self.m_nbr
        s.m_nbr_set = self.m_nbr_set
        s.m_alien_nbr = self.m_alien_nbr
        s.m_kind = self.m_kind
        s.m_n = self.m_n
        s.m_pad = self.m_pad
        s.m_hatches = self.m_hatches
        s.m_hatch_set = self.m_hatch_set
        s.m_los = self.m_los
        s.m_store_items = self.m_store_items
        s.m_computers = self.m_computers
        s.m_transport_ok = self.m_transport_ok
        s.m_airlocks = self.m_airlocks
        s.m_airlock_no = self.m_airlock_no
        s.m_room_of = self.m_room_of
        s.m_alien_ok = self.m_alien_ok
        s.m_dist = self.m_dist
        s.m_missions = self.m_missions
        s.m_component_missions = self.m_component_missions
        s.m_read_missions = self.m_read_missions
        # scalars and immutable values
        s._trace = self._trace
        s._valien = self._valien
        s._vstats = self._vstats
        s._vchar = self._vchar
        s._vrest = self._vrest
        s.active = self.active
        s.c_max = self.c_max
        s.collapsed = self.collapsed
        s.current_seat = self.current_seat
        s.dmul = self.dmul
        s.duct = self.duct
        s.end_reason = self.end_reason
        s.full_clip = self.full_clip
        s.hatch_pts = self.hatch_pts
        s.hatching_on = self.hatching_on
        s.interrupt = self.interrupt
        s.kills_phase = self.kills_phase
        s.limits = self.limits
        s.move_order = self.move_order
        s.a_cur = self.a_cur
        s.hatch_first = self.hatch_first
        s.next_aid = self.next_aid
        s.over = self.over
        s.points = self.points
        s.queen_alive = self.queen_alive
        s.queen_pending = self.queen_pending
        s.r_opts = self.r_opts
        s.round = self.round
        s.shot_at = self.shot_at
        s.stage = self.stage
        s.tr_fuel = self.tr_fuel
        s.tr_moved = self.tr_moved
        s.tr_pos = self.tr_pos
        s.winner = self.winner
        s.wstats = self.wstats
        # lists, copied
        s.c_pos = self.c_pos[:]
        s.c_state = self.c_state[:]
        s.c_str = self.c_str[:]
        s.c_ap = self.c_ap[:]
        s.c_done = self.c_done[:]
        s.c_fired = self.c_fired[:]
        s.c_stopped = self.c_stopped[:]
        s.c_left = self.c_left[:]
        s.c_track = self.c_track[:]
        s.c_exit = self.c_exit[:]
        s.char_cnt = self.char_cnt  # shared until either state writes (copy on write)
        s.c_adj = self.c_adj
        s.alien_cnt = self.alien_cnt
        s.a_adj = self.a_adj
        s._chars_shared = self._chars_shared = True
        s._aliens_shared = self._aliens_shared = True
        s.a_id = self.a_id[:]
        s.a_pos = self.a_pos[:]
        s.a_str = self.a_str[:]
        s.supply = self.supply[:]
        s.used = self.used[:]
        s.deck = self.deck[:]
        s.open = self.open[:]
        s.fresh = self.fresh[:]
        s.done = self.done[:]
        s.discarded = self.discarded[:]
        s.tgt_queue = self.tgt_queue[:]
        s.assign = self.assign[:]
        s.groups = self.groups[:]
        s.rq = self.rq[:]
        s._ev = self._ev[:]
        s.c_pk = [p[:] for p in self.c_pk]
        s.floor = self.floor  # shared until either state writes (copy on write)
        s._floor_shared = self._floor_shared = True
        s.st = dict(self.st)
        s._legal = self._legal[:] if self._legal is not None else None
        s._dest = self._dest
        return s

    def _view_chars(self) -> tuple[Any, ...]:
        return (
            tuple(self.c_pos), tuple(self.c_state), tuple(self.c_str), tuple(self.c_ap),
            tuple([tuple(p) for p in self.c_pk]), tuple(self.c_done), tuple(self.c_fired),
            tuple(self.c_stopped), tuple(self.c_left), tuple(self.c_track),
            tuple(self.c_exit), tuple([(k, tuple(f)) for k, f in self.floor.items()]),
            tuple(self.supply), tuple(self.used),
        )

    def _view_rest(self, exp: bool) -> tuple[Any, ...]:
        return (
            self.c_max, self.tr_pos, self.tr_fuel, self.tr_moved, self.collapsed,
            tuple(self.open) if exp else (), len(self.open),
            tuple(self.fresh) if exp else (), len(self.fresh), len(self.deck), tuple(self.done),
            tuple(self.discarded) if exp else (), len(self.discarded), self.points,
            self.queen_alive, self.hatching_on,
            self.kills_phase, self.shot_at, self.opt,
        )

    def view(self, seat: int) -> ObcyView:
        exp = seat == 0
        alien = -1
        if self.stage == ST_AMOVE:
            alien = self.a_cur
        elif self.stage == ST_ATARGET and self.tgt_queue:
            alien = self.tgt_queue[0][0]
        retreat = self.rq[0][:3] if self.interrupt == D_RETREAT else ()
        v = ObcyView()
        v.seat = seat
        v.decision = self.decision()
        v.round = self.round
        v.active = self.active
        v.alien = alien
        v.retreat = retreat
        # the characters' side, the tasks and the transporter do not change during the
        # ALIENS' decisions (hatching, movement, targets): those views share one set of
        # tuples; the ALIENS' own tuples change with hatching and metamorphosis only
        if self.stage in _ALIEN_STAGES and not self.interrupt:
            vc = self._vchar
            if vc is None:
                vc = self._vchar = self._view_chars()
            vr = self._vrest
            if vr is None or vr[0] != seat:
                vr = self._vrest = (seat, self._view_rest(exp))
            rest = vr[1]
            va = self._valien
            if va is None:
                va = self._valien = (tuple(self.a_id), tuple(self.a_str), self._stats())
            v.a_id, v.a_str, v.stats = va
        else:
            self._vchar = self._vrest = self._valien = None
            vc = self._view_chars()
            rest = self._view_rest(exp)
            v.a_id = tuple(self.a_id)
            v.a_str = tuple(self.a_str)
            v.stats = self._stats()
        (
            v.c_pos, v.c_state, v.c_str, v.c_ap, v.c_pk, v.c_done, v.c_fired, v.c_stopped,
            v.c_left, v.c_track, v.c_exit, v.floor, v.supply, v.used,
        ) = vc
        (
            v.c_max, v.tr_pos, v.tr_fuel, v.tr_moved, v.collapsed, v.open_missions, v.n_open,
            v.fresh, v.n_fresh, v.deck_left, v.done_missions, v.discarded, v.n_discarded,
            v.points, v.queen_alive, v.hatching_on,
            v.kills_phase, v.shot_at, v.options,
        ) = rest
        v.a_pos = tuple(self.a_pos)
        v.hatch_pts = self.hatch_pts
        v.machine = (
            self.stage, self.interrupt, self.queen_pending, self.move_order,
            self.a_cur, self.hatch_first, tuple(self.tgt_queue), tuple(self.assign),
            tuple(self.groups),
            tuple(self.rq), self.r_opts, self.next_aid, self.over, self.winner,
            self.end_reason,
        )
        return v

    def result(self) -> GameRecord:
        if not self.over:
            raise RuntimeError("the game is not over")
        alive = sum(1 for s in self.c_state if s != DEAD)
        st = self.st
        measures = {
            "tasks_completed": len(self.done),
            "points_at_end": self.points,
            "queen_fights": st["queen_fights"],
            "queen_killed": not self.queen_alive,
            "queen_round": st["queen_round"],
            "hatching_after_queen": (not self.queen_alive) and self.hatching_on,
            "survivors": alive,
            "characters_killed": st["characters_killed"],
            "aliens_hatched": st["aliens_hatched"],
            "alien_strength_hatched": st["alien_strength_hatched"],
            "aliens_killed": st["aliens_killed"],
            "aliens_merged": st["aliens_merged"],
            "aliens_on_board": len(self.a_id),
            "missions_drawn": st["missions_drawn"],
            "missions_discarded": st["missions_discarded"],
            "shots_fired": st["shots_fired"],
            "grenades_thrown": st["grenades_thrown"],
            "charges_used": st["charges_used"],
            "transporter_moves": st["transporter_moves"],
            "airlock_exits": st["airlock_exits"],
        }
        for c, nm in enumerate(CHARACTER_NAMES):
            measures[f"alive_{nm.lower()}"] = self.c_state[c] != DEAD
        return GameRecord(self.winner, self.end_reason, self.round, measures)

    # == words ==
    def action_text(self, action: Any) -> str:
        return text.action_text(self, action)
