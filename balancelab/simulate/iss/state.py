"""The *1998 ISS* state: setup, the turn, the launch, the end and the scoring.

Rulebook sections are cited per method. Internally players are indexed ``0..np-1`` in clockwise
order; in solo mode player 0 is the human seat and player 1 is FEDOR (no seat: it acts inside
the engine, see :mod:`balancelab.simulate.iss.fedor`, which the game hands to the state as
:class:`SoloRules`). The actions in words are in :mod:`balancelab.simulate.iss.text`.

Action encoding (tuples of ints, first item a tag):

=============================  ===================================================================
``(TRAIN, pad)``               Train Astronauts: one astronaut onto the shuttle of pad 0 (Russia)/1
``(LOAD, pad, pad)``           Load Material: one material per listed pad (sorted)
``(CONSTRUCT, tgts, srcs)``    Construct Modules: cubes onto module slots ``tgts``; ``srcs`` where
                               the cubes come from when the reserve is short (slot 0-3, or 4+card
                               for an extra-action space), ``()`` when all come from the reserve
``(PLAN, deck, deck)``         Plan Experiments: draw from these level decks (0/1/2; -1 = none)
``(LONG_STAY,)``               Long Stay
``(INSTALL, types)``           Install Compartments: remove tokens on compartments of these types
``(OUTSIDE, n, new)``          Outside Jobs: convert ``n``; ``new`` 1 = a new astronaut to a free
                               crane, 0 = reuse one of yours already on a crane
``(EXPERIMENT, card, cls)``    Conduct Experiments: card id and per astronaut a compartment class
                               ``type*2 + mine`` (mine 1 = your astronaut already there)
``(CARGO, pad)``               cargo check: the material goes onto this pad
``(PASS,)``                    use no extra-action cube this turn
``(RETRIEVE, src)``            take back a cube for the normal action (slot, or 4+card)
``(KEEP, mask)``               keep the drawn experiments whose bit is set
``(COUNTDOWN, pad)``           lower this pad's countdown
``(XSPACE, card, src)``        place an extra-action cube on that card's space (src -1 reserve)
``(GOAL, goal)``               take that goal card; ``(GOAL, -1)`` take none before the countdown
                               and wait for the end of the turn (``goal_timing=either``)
``(FPICK, comp)``              FEDOR's "choose the one you prefer" token, chosen by the human
=============================  ===================================================================

Simplifications that do not remove a choice that matters (astronauts of one player are
indistinguishable): astronauts that an action moves are taken from Unity first, then from the
lowest-numbered compartment; compartments of one type and occupancy are interchangeable; a goal is
taken automatically when exactly one is met (taking a goal never hurts).
"""

from __future__ import annotations

import functools
from itertools import combinations, combinations_with_replacement
from typing import Any, ClassVar, Final, Protocol, final

import numpy as np
from mypy_extensions import mypyc_attr

from balancelab.simulate.core import (
    PLACEHOLDER_RNG,
    GameRecord,
    IllegalActionError,
    State,
    View,
)
from balancelab.simulate.iss import text
from balancelab.simulate.iss.cards import CardData
from balancelab.simulate.iss.rules import (
    ANY,
    CARGO,
    COMP_CODES,
    CONSTRUCT,
    COUNTDOWN,
    E_DOCK,
    E_EXTRA_WON,
    E_FINAL,
    E_FORCED,
    E_GOAL,
    E_LAUNCH,
    E_OVER,
    E_ROUND,
    E_TRIGGER,
    E_TURN,
    EXPERIMENT,
    FPICK,
    GOAL,
    GOAL_KINDS,
    GOAL_TIMINGS,
    INSTALL,
    KEEP,
    LOAD,
    LONG_STAY,
    LS,
    NATIONS,
    OUTSIDE,
    P_ACTION,
    P_CARGO,
    P_COUNTDOWN,
    P_EXTRA,
    P_FPICK,
    P_GOAL,
    P_KEEP,
    P_OVER,
    P_RETRIEVE,
    P_XSPACE,
    PASS,
    PLAN,
    RETRIEVE,
    TRAIN,
    XSPACE,
    IssOptions,
)

# goal step of the turn (option goal_timing): the end-of-turn step to come, the step before the
# countdown now, or a goal already taken this turn
GS_END: Final = 0
GS_EARLY: Final = 1
GS_TAKEN: Final = 2
PHASE_NAMES = ("cargo", "extra", "retrieve", "action", "keep", "countdown", "xspace", "goal",
               "fedor_pick", "over")


class SoloRules(Protocol):
    """FEDOR's turn, run inside the state in solo mode (:mod:`balancelab.simulate.iss.fedor`,
    handed in by the game: the state does not import it)."""

    def load(self, s: IssState, r: int) -> None: ...
    def turn(self, s: IssState) -> None: ...
    def extra(self, s: IssState) -> None: ...
    def resume(self, s: IssState, comp: int) -> None: ...


class Static:
    """Per-game immutable facts shared by copies of a state (options, cards, derived tables,
    and in solo FEDOR's rules)."""

    __slots__ = ("opts", "cards", "np", "solo", "fedor", "needs", "cd", "pad_start", "exp_level",
                 "exp_cards", "sh_nation", "sh_type", "sh_seats", "sh_mat", "sh_repl", "sh_mod",
                 "mod_comps", "mod_number", "ls_max", "mat_cap", "nseats", "outcomes_seat",
                 "goal_when", "robot", "exp_points", "exp_iss", "exp_ext", "exp_long", "exp_comps",
                 "goal_points", "token_points", "external_points", "unperformed_penalty",
                 "long_stay_points", "set_points", "construct_cubes", "load_materials",
                 "plan_draw", "install_max", "outside_max", "ext_max", "hand_max",
                 "extra_per_turn", "iss_max", "max_turns", "points_bonus",
                 "exp_by_level", "sh_by_nation")

    def __init__(self, opts: IssOptions, cards: CardData, robot: SoloRules | None) -> None:
        self.opts = opts
        self.robot = robot
        self.cards = cards
        self.solo = opts.players == 1
        self.np = 2 if self.solo else opts.players
        self.fedor = 1 if self.solo else -1
        self.nseats = opts.players
        self.needs = opts.goal_needs()
        self.cd = opts.countdowns
        self.pad_start = opts.pad_large if opts.players >= opts.pad_large_from else opts.pad_small
        self.exp_cards = cards.experiments
        self.exp_level = tuple(e.level for e in cards.experiments)
        assert len(self.exp_level) < 256 and set(self.exp_level) <= {1, 2, 3}  # (views' keys)
        #: the experiments of each level (1-3), in card order
        self.exp_by_level = tuple(tuple(e for e in range(len(self.exp_level))
                                        if self.exp_level[e] == lvl) for lvl in (1, 2, 3))
        # the experiments' fields and the scoring options as typed tables (compiled code reads
        # them natively; the card objects and the options are not compiled)
        self.exp_points = tuple(e.points for e in cards.experiments)
        self.exp_iss = tuple(e.iss for e in cards.experiments)
        self.exp_ext = tuple(e.ext for e in cards.experiments)
        self.exp_long = tuple(e.long for e in cards.experiments)
        self.exp_comps = tuple(e.comps for e in cards.experiments)
        self.goal_points: int = opts.goal_points
        self.token_points: int = opts.token_points
        self.external_points: int = opts.external_points
        self.unperformed_penalty: int = opts.unperformed_penalty
        self.long_stay_points: tuple[int, ...] = opts.long_stay_points
        self.set_points: tuple[int, ...] = opts.set_points
        # the options the turn reads, typed likewise
        self.construct_cubes: int = opts.construct_cubes
        self.load_materials: int = opts.load_materials
        self.plan_draw: int = opts.plan_draw
        self.install_max: int = opts.install_max
        self.outside_max: int = opts.outside_max
        self.ext_max: int = opts.ext_max
        self.hand_max: int = opts.hand_max
        self.extra_per_turn: int = opts.extra_actions_per_turn
        self.iss_max: int = opts.iss_max
        self.max_turns: int = opts.max_turns
        #: whether a seat's what-if start bonus is scored as points (``IssOptions.seat_bonus``)
        self.points_bonus = opts.start_bonus_kind == "points" and opts.players >= 2 \
            and opts.start_bonus != 0
        sh = cards.shuttles
        self.sh_nation = tuple(s.nation for s in sh)
        #: the shuttles of each nation (0 Russia, 1 USA), in card order
        self.sh_by_nation = tuple(tuple(c for c in range(len(sh)) if sh[c].nation == r)
                                  for r in (0, 1))
        self.sh_type = tuple(s.type for s in sh)
        self.sh_seats = tuple(s.seats for s in sh)
        self.sh_mat = tuple(s.materials for s in sh)
        self.sh_repl = tuple(s.replacement for s in sh)
        self.sh_mod = tuple(s.module for s in sh)
        self.mod_comps = tuple(m.comps for m in cards.modules)
        self.mod_number = tuple(m.number for m in cards.modules)
        self.ls_max = len(opts.long_stay_points) - 1
        self.mat_cap = opts.material_tokens * opts.token_value
        #: index of ``opts.goal_timing`` in GOAL_TIMINGS (0 end of turn, 1 before the
        #: countdown, 2 either); solo has no goals
        self.goal_when = GOAL_TIMINGS.index(opts.goal_timing)


# Compiled, a freed view is kept for the next one to reuse (a free list of one): a rollout
# frees each decision's view before it builds the next.
@mypyc_attr(free_list_len=1)
class IssView(View):
    """What one seat may know: public board state, its own experiment hand and pending draw.

    All fields are ints, tuples or immutable objects (copies, never the state). Per-player lists
    are indexed by player (solo: 0 you, 1 FEDOR). Hidden: other hands (only ``hand_sizes``), deck
    orders (only sizes), the module and shuttle decks (sizes), the FEDOR deck (size and the back
    of its top card). Public step state a search world needs to continue the decision: the goal
    step (``goal_step``), whether the Plan being kept was an extra action (``keep_extra``),
    FEDOR's pending token choice (``fpick``, ``fcont``). The seat's memory (Plan Experiments:
    cards it put under their decks; FEDOR's failed experiments, face up): where those cards
    are now (``eknown``: ``(card, 0, i)`` ``i``-th from the bottom of its deck, ``(card, 1,
    q)`` in player ``q``'s hand, ``(card, 2, q)`` drawn by ``q``, still to keep).
    """

    #: the field names (the compiled class keeps no ``__slots__`` to list them)
    _fields: ClassVar[tuple[str, ...]] = (
        "seat", "player", "st", "phase", "turn_player", "sp", "final", "triggered", "turns",
        "rows", "col", "colc", "mdeck_n", "ctype", "ccover", "cocc", "cmod", "pool", "unity",
        "earth", "pad", "cd", "sha", "shm", "sdeck_n", "iss", "ext", "ls", "tok", "pgoals",
        "offer", "owned", "hand", "hand_sizes", "hand_levels", "done", "xsp", "res", "edeck_n",
        "drawn", "xq", "fdisc", "fdeck_n", "fnext_back", "launches", "extra_used", "docked",
        "removed_n", "on_card", "cur_action", "goal_step", "keep_extra", "fpick", "fcont",
        "eknown",
    )

    seat: int
    player: int
    st: Static
    phase: int
    turn_player: int
    sp: int
    final: bool
    triggered: bool
    turns: int
    rows: tuple[int, ...]
    col: tuple[int, ...]
    colc: tuple[int, ...]
    mdeck_n: int
    ctype: tuple[int, ...]
    ccover: tuple[int, ...]
    cocc: tuple[int, ...]
    cmod: tuple[int, ...]
    pool: int
    unity: tuple[int, ...]
    earth: tuple[int, ...]
    pad: tuple[int, ...]
    cd: tuple[int, ...]
    sha: tuple[int, ...]
    shm: tuple[int, ...]
    sdeck_n: tuple[int, ...]
    iss: tuple[int, ...]
    ext: tuple[int, ...]
    ls: tuple[int, ...]
    tok: tuple[int, ...]
    pgoals: tuple[tuple[int, ...], ...]
    offer: tuple[int, ...]
    owned: tuple[tuple[int, ...], ...]
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    hand_levels: tuple[tuple[int, ...], ...]
    done: tuple[tuple[int, ...], ...]
    xsp: tuple[int, ...]
    res: tuple[int, ...]
    edeck_n: tuple[int, ...]
    drawn: tuple[int, ...]
    xq: tuple[int, ...]
    fdisc: tuple[int, ...]
    fdeck_n: int
    fnext_back: int
    launches: tuple[int, ...]
    extra_used: int
    docked: tuple[int, ...]
    removed_n: tuple[int, ...]
    on_card: int
    cur_action: int
    goal_step: int
    keep_extra: bool
    fpick: tuple[int, ...]
    fcont: int
    eknown: tuple[tuple[int, int, int], ...]

    def __init__(self, **kw: Any) -> None:
        for k, v in kw.items():
            object.__setattr__(self, k, v)


@final
class _Public:
    """The public records that change seldom (the module row, the docked modules and their
    compartments' types and numbers, goals, launches, FEDOR's discards and pending token
    choice, shuttles owned, experiments done) as the tuples a view hands out: made at a
    state's first view after one of them changed, then shared by its views (and by its
    copies) until the next change, where the state drops it (``IssState._public``)."""

    __slots__ = ("col", "ctype", "cmod", "docked", "offer", "launches", "fdisc", "fpick",
                 "pgoals", "owned", "done")

    def __init__(self, col: tuple[int, ...], ctype: tuple[int, ...], cmod: tuple[int, ...],
                 docked: tuple[int, ...], offer: tuple[int, ...], launches: tuple[int, ...],
                 fdisc: tuple[int, ...], fpick: tuple[int, ...],
                 pgoals: tuple[tuple[int, ...], ...], owned: tuple[tuple[int, ...], ...],
                 done: tuple[tuple[int, ...], ...]) -> None:
        self.col = col
        self.ctype = ctype
        self.cmod = cmod
        self.docked = docked
        self.offer = offer
        self.launches = launches
        self.fdisc = fdisc
        self.fpick = fpick
        self.pgoals = pgoals
        self.owned = owned
        self.done = done


class IssState(State):
    """A game of *1998 ISS* in progress. See the module docstring for the action encoding."""

    def __init__(self, st: Static, rng: np.random.Generator) -> None:
        self.st = st
        self.rng = rng
        self._legal: list[Any] | None = None
        self._events: list[str] = []
        #: whether rule events are told (``_tell``): during setup, then once ``events()`` has
        #: been called (``trace``); a game played without a trace words none
        self.tracing = False
        #: experiment card put under its deck → the players (bit mask) who saw it (Plan
        #: Experiments: the one who drew it; FEDOR's flip: all): they know where it is from
        #: then on (its place in the deck, then who draws it) until it is performed
        self.eknow: dict[int, int] = {}
        #: the views' tuples of the seldom-changing public records (None: to be made at the
        #: next view); every change to one of them drops it
        self._public: _Public | None = None

    # -- setup (rulebook: Setup; Solo Mode, Setup) --------------------------------------------
    def setup(self) -> None:
        st, o, rng = self.st, self.st.opts, self.rng
        self.tracing = True  # the setup's events wait for a trace's first events() call
        n = st.np
        self.current_seat = 0
        self.turns = 0
        self.final = False
        self.final_done = 0
        self.triggered = False
        self.trigger_nation = -1
        self.end_reason = ""
        self.phase = P_CARGO
        # action rows: Earth and ISS actions shuffled separately (Setup 2)
        earth = [int(x) for x in rng.permutation(4)]
        iss = [int(x) for x in rng.permutation(4)]
        self.rows = tuple(earth + iss)
        # modules (Setup 3-5)
        mods = st.cards.modules
        initial = [i for i, m in enumerate(mods) if m.initial]
        rest = [i for i, m in enumerate(mods) if not m.initial]
        rest = [rest[int(k)] for k in rng.permutation(len(rest))]
        self.col = rest[: o.module_row]
        self.mdeck = rest[o.module_row:]
        self.colc = [0] * (4 * n)
        self.ctype: list[int] = []
        self.ccover: list[int] = []
        self.cocc: list[int] = []
        self.cmod: list[int] = []
        self.docked: list[int] = []
        self.pool = 18
        for m in initial:
            self._dock(m, covered=mods[m].covered)
        # shuttles (Setup 6-8)
        sh_ids = [[i for i in range(len(st.sh_nation)) if st.sh_nation[i] == r] for r in (0, 1)]
        self.sdeck = []
        self.removed: list[list[int]] = [[], []]
        for r in (0, 1):
            ids = sh_ids[r]
            ids = [ids[int(k)] for k in rng.permutation(len(ids))]
            if o.remove_shuttles:
                self.removed[r].append(ids.pop())
            self.sdeck.append(ids)
        self.pad = [-1, -1]
        self.cd = [0, 0]
        self.sha = [0] * (2 * n)
        self.shm = [0] * (2 * n)
        # goals (Setup 9)
        if st.solo:
            self.offer: list[int] = []
        else:
            g = rng.permutation(len(GOAL_KINDS))[: o.goals_offered]
            self.offer = sorted(int(x) for x in g)
        # experiments (Setup 10)
        self.edeck: list[list[int]] = []
        for lvl in (1, 2, 3):
            ids = [i for i, e in enumerate(st.exp_cards) if e.level == lvl]
            self.edeck.append([ids[int(k)] for k in rng.permutation(len(ids))])
        self.hand: list[list[int]] = [[] for _ in range(n)]
        self.done: list[list[int]] = [[] for _ in range(n)]
        humans = 1 if st.solo else n
        for p in range(humans):
            for lvl, k in enumerate(o.hand_start):
                for _ in range(k):
                    if self.edeck[lvl]:
                        self.hand[p].append(self.edeck[lvl].pop())
        # start player (Setup 11); solo: design notes 2(c)22
        self.sp = 0
        if st.solo:
            self.sp = {"player": 0, "fedor": 1}.get(o.solo_start, -1)
            if self.sp < 0:
                self.sp = int(rng.integers(2))
        # players (Setup 12)
        self.unity = [1] * n
        self.earth = [o.astronauts - 1] * n
        self.iss = [o.iss_start_first if p == self.sp else o.iss_start for p in range(n)]
        self.ext = [o.ext_start] * n
        self.ls = [0] * n
        self.tok = [0] * n
        self.pgoals: list[list[int]] = [[] for _ in range(n)]
        self.owned: list[list[int]] = [[] for _ in range(n)]
        self.res = [o.cubes] * n
        if o.start_bonus_kind == "cubes":  # what-if seat compensation (IssOptions.start_bonus)
            self.res = [o.cubes + o.seat_bonus(p, self.sp) for p in range(n)]
        self.xsp = [-1] * 8
        self.drawn: list[int] = []
        self.xq: list[int] = []
        self.launcher = -1
        self.on_card = -1
        self.cur_action = 0
        self.extra_used = 0
        self.goal_step: int = GS_END
        self.keep_extra = False
        self.launches = [0, 0]
        self.extras_won = 0
        self.fcont = -1
        self.fpick: list[int] = []
        self.fdeck: list[int] = []
        self.fdisc: list[int] = []
        self.fedor_fails = 0
        if st.solo:
            f = st.fedor
            self.earth[f] = o.fedor_astronauts - 1
            self.iss[f] = o.fedor_iss_start
            self.ext[f] = o.fedor_ext_start
            self.hand[f] = []
            nf = len(st.cards.fedor)
            self.fdeck = [int(x) for x in rng.permutation(nf)]
        for r in (0, 1):
            self._next_shuttle(r, setup=True)
        self.turn_player = self.sp
        self._start_turn()
        self._advance()
        self.tracing = False

    # -- helpers ------------------------------------------------------------------------------
    def _dock(self, m: int, covered: bool = True) -> None:
        """Dock module ``m`` on the ISS; cover its compartments from the token pool."""
        self._public = None
        self.docked.append(m)
        for t in self.st.mod_comps[m]:
            cov = 1 if covered and self.pool > 0 else 0
            self.pool -= cov
            self.ctype.append(t)
            self.ccover.append(cov)
            self.cocc.append(-1)
            self.cmod.append(self.st.mod_number[m])

    def _next_shuttle(self, r: int, setup: bool = False) -> None:
        """Place the next shuttle of nation ``r`` on its pad (Launch 6 / Setup 7-8)."""
        st = self.st
        if not self.sdeck[r]:
            self.pad[r] = -1
            return
        c = self.sdeck[r].pop()
        self.pad[r] = c
        self.cd[r] = st.pad_start[st.sh_type[c]]
        if not self.sdeck[r] and not setup:
            if not self.triggered:
                self.triggered = True
                self.trigger_nation = r
                self._tell(E_TRIGGER, r)
        if st.robot is not None:
            st.robot.load(self, r)

    def _stat_astro(self, p: int) -> int:
        """Astronauts of ``p`` on the station that may act (Unity + non-long-stay compartments)."""
        n = self.unity[p]
        ctype, cocc = self.ctype, self.cocc
        for c in range(len(cocc)):
            if cocc[c] == p and ctype[c] != LS:
                n += 1
        return n

    def _take_astro(self, p: int, exclude: Any = ()) -> None:
        """Take one acting astronaut of ``p``: from Unity first, else the lowest compartment."""
        if self.unity[p] > 0:
            self.unity[p] = self.unity[p] - 1
            return
        ctype, cocc = self.ctype, self.cocc
        for c in range(len(cocc)):
            if cocc[c] == p and ctype[c] != LS and c not in exclude:
                cocc[c] = -1
                return
        raise AssertionError("no astronaut to take")

    def _pad_loaded(self, r: int) -> bool:
        n = self.st.np
        sha, shm = self.sha, self.shm
        for i in range(r * n, r * n + n):
            if sha[i] or shm[i]:
                return True
        return False

    def _units_out(self, p: int) -> int:
        return self.shm[p] + self.shm[self.st.np + p]

    # -- public contract ----------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.phase == P_OVER

    def legal_actions(self) -> list[Any]:
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def _apply(self, action: Any) -> None:
        self._legal = None
        self._do(action)
        self._advance()

    def apply(self, action: Any) -> None:
        if self.is_terminal():
            raise IllegalActionError("the game is over; no action can be applied")
        try:
            ok = action in self.legal_actions()
        except TypeError:
            ok = False
        if not ok:
            legal = self.legal_actions()
            shown = "; ".join(self.action_text(a) for a in legal[:12])
            more = f" (+{len(legal) - 12} more)" if len(legal) > 12 else ""
            raise IllegalActionError(
                f"illegal action {action!r} for seat {self.current_seat}; legal: {shown}{more}")
        self._apply(action)

    def copy(self) -> IssState:
        s = IssState(self.st, PLACEHOLDER_RNG)
        self.copy_rng_to(s)
        s._legal = None if self._legal is None else list(self._legal)
        s.eknow = dict(self.eknow) if self.eknow else {}
        s._public = self._public  # (immutable: the copy's records are the same)
        # scalars and immutable values
        s.cur_action = self.cur_action
        s.goal_step = self.goal_step
        s.current_seat = self.current_seat
        s.end_reason = self.end_reason
        s.extra_used = self.extra_used
        s.extras_won = self.extras_won
        s.fcont = self.fcont
        s.fedor_fails = self.fedor_fails
        s.final = self.final
        s.final_done = self.final_done
        s.keep_extra = self.keep_extra
        s.launcher = self.launcher
        s.on_card = self.on_card
        s.phase = self.phase
        s.pool = self.pool
        s.rows = self.rows
        s.sp = self.sp
        s.trigger_nation = self.trigger_nation
        s.triggered = self.triggered
        s.turn_player = self.turn_player
        s.turns = self.turns
        # lists
        s.col = self.col[:]
        s.mdeck = self.mdeck[:]
        s.colc = self.colc[:]
        s.ctype = self.ctype[:]
        s.ccover = self.ccover[:]
        s.cocc = self.cocc[:]
        s.cmod = self.cmod[:]
        s.docked = self.docked[:]
        s.pad = self.pad[:]
        s.cd = self.cd[:]
        s.sha = self.sha[:]
        s.shm = self.shm[:]
        s.offer = self.offer[:]
        s.unity = self.unity[:]
        s.earth = self.earth[:]
        s.iss = self.iss[:]
        s.ext = self.ext[:]
        s.ls = self.ls[:]
        s.tok = self.tok[:]
        s.res = self.res[:]
        s.xsp = self.xsp[:]
        s.drawn = self.drawn[:]
        s.xq = self.xq[:]
        s.launches = self.launches[:]
        s.fpick = self.fpick[:]
        s.fdeck = self.fdeck[:]
        s.fdisc = self.fdisc[:]
        # lists of lists
        s.sdeck = [x[:] for x in self.sdeck]
        s.removed = [x[:] for x in self.removed]
        s.edeck = [x[:] for x in self.edeck]
        s.hand = [x[:] for x in self.hand]
        s.done = [x[:] for x in self.done]
        s.pgoals = [x[:] for x in self.pgoals]
        s.owned = [x[:] for x in self.owned]
        return s

    def events(self) -> list[str]:
        """Rule events since the last call, in words; from this call on every event is told
        (a state not traced words none)."""
        self.tracing = True
        out, self._events = self._events, []
        return out

    def _tell(self, code: int, a: Any = -1, b: int = -1, c: int = -1) -> None:
        """Record rule event ``code`` in words while tracing (else nothing is made)."""
        if self.tracing:
            self._events.append(text.event_text(self, code, a, b, c))

    # -- legal actions ------------------------------------------------------------------------
    def _compute_legal(self) -> list[Any]:
        ph = self.phase
        p = self.turn_player
        if ph == P_ACTION:
            return self._card_actions(p, _ALL_CARDS, extra=False)
        if ph == P_COUNTDOWN:
            return [(COUNTDOWN, r) for r in (0, 1) if self.pad[r] >= 0 and self._pad_loaded(r)]
        if ph == P_KEEP:
            room = self.st.hand_max - len(self.hand[p])
            return [(KEEP, m) for m in range(1 << len(self.drawn)) if m.bit_count() <= room]
        if ph == P_CARGO:
            if self._units_out(p) + 1 > self.st.mat_cap:
                return []
            return [(CARGO, r) for r in (0, 1) if self.pad[r] >= 0 and self.st.sh_mat[self.pad[r]]]
        if ph == P_EXTRA:
            cards = [a for a in range(8) if self.xsp[a] == p]
            return [(PASS,), *self._card_actions(p, cards, extra=True)]
        if ph == P_RETRIEVE:
            return [(RETRIEVE, s) for s in self._cube_sources(p)]
        if ph == P_XSPACE:
            q = self.xq[0]
            free = [a for a in range(8) if self.xsp[a] == -1]
            if self.res[q] > 0:
                return [(XSPACE, a, -1) for a in free]
            n = self.st.np
            slots = [s for s in range(4) if self.colc[s * n + q] > 0]
            return [(XSPACE, a, s) for a in free for s in slots]
        if ph == P_GOAL:
            when, step = self.st.goal_when, self.goal_step
            if step == GS_TAKEN or (when == 1 and step == GS_END):
                return []
            goals: list[Any] = [(GOAL, g) for g in self._goals_met(p)]
            if goals and when == 2 and step == GS_EARLY:
                goals.append((GOAL, -1))  # wait for the end of the turn
            return goals
        if ph == P_FPICK:
            return [(FPICK, c) for c in self.fpick]
        return []

    def _cube_sources(self, p: int) -> list[int]:
        n = self.st.np
        out = [s for s in range(4) if self.colc[s * n + p] > 0]
        out += [4 + a for a in range(8) if self.xsp[a] == p]
        return out

    def _card_actions(self, p: int, cards: list[int], extra: bool) -> list[Any]:
        st = self.st
        out: list[Any] = []
        n = st.np
        # one pass over the compartments
        free = [0, 0, 0, 0, 0]
        cov = [0, 0, 0, 0, 0]
        mine = [0, 0, 0, 0, 0]
        astro = self.unity[p]
        if not extra or _any_iss_action(cards):
            # the compartments matter only to Long Stay, Install, Outside Jobs and Experiments
            ctype, ccover, cocc = self.ctype, self.ccover, self.cocc
            for j in range(len(ctype)):
                t, cv, q = ctype[j], ccover[j], cocc[j]
                if cv:
                    cov[t] = cov[t] + 1
                elif q == -1:
                    free[t] = free[t] + 1
                elif q == p and t != LS:
                    astro += 1
                    mine[t] = mine[t] + 1
        mine_crane = mine[3] > 0
        for a in cards:
            if a == TRAIN:
                if self.earth[p] > 0:
                    sha = self.sha
                    for r in range(2):
                        c = self.pad[r]
                        if c < 0:
                            continue
                        seated = 0
                        for i in range(r * n, r * n + n):
                            seated += sha[i]
                        if seated < st.sh_seats[c]:
                            out.append(_TRAINS[r])
            elif a == LOAD:
                pad0, pad1 = self.pad[0], self.pad[1]
                pads = 0  # bit mask of the pads taking materials
                if pad0 >= 0 and st.sh_mat[pad0]:
                    pads |= 1
                if pad1 >= 0 and st.sh_mat[pad1]:
                    pads |= 2
                k = st.mat_cap - (self.shm[p] + self.shm[n + p])
                if st.load_materials < k:
                    k = st.load_materials
                if pads and k > 0:
                    out.extend(_loads(pads, k))
            elif a == CONSTRUCT:
                if self.final:
                    out.append(_NO_CONSTRUCT)
                    continue
                k = st.construct_cubes
                have = self.res[p] + (1 if extra else -1)
                short = max(0, k - have)
                if short == 0:
                    out.extend(_plain_constructs(k))
                else:
                    tgts = _multisets(range(4), k)
                    srcs = [s for s in self._cube_sources(p) if not (extra and s == 4 + a)]
                    pool = [s for s in srcs if s < 4 for _ in range(self.colc[s * n + p])]
                    pool += [s for s in srcs if s >= 4]
                    combos = sorted(set(_subsets_sorted(pool, short)))
                    if not combos:
                        k2 = have + len(pool)
                        tgts = _multisets(range(4), k2)
                        combos = [tuple(sorted(pool))]
                    out.extend((CONSTRUCT, t, sc) for t in tgts for sc in combos)
            elif a == PLAN:
                ed = self.edeck
                decks = _DECKS[(1 if ed[0] else 0) | (2 if ed[1] else 0) | (4 if ed[2] else 0)]
                out.extend(_plans(decks, min(st.plan_draw, len(decks))))
            elif a == LONG_STAY:
                if self.iss[p] >= 1 and self.ls[p] < st.ls_max and free[LS] and astro:
                    out.append(_LONG_STAY)
            elif a == INSTALL:
                if astro and (cov[0] or cov[1] or cov[2] or cov[3] or cov[4]):
                    imax = st.install_max
                    out.extend(_installs(tuple(cov), astro if astro < imax else imax, imax))
            elif a == OUTSIDE:
                kmax = min(st.outside_max, self.iss[p], st.ext_max - self.ext[p])
                if kmax > 0:
                    modes = []
                    if mine_crane:
                        modes.append(0)
                    if free[3] and astro - mine_crane > 0:
                        modes.append(1)
                    for k in range(1, kmax + 1):
                        for m in modes:
                            out.append((OUTSIDE, k, m))
            elif a == EXPERIMENT:
                # (a card's staffings come from _exp_classes's cache; a memo keyed by the
                # hand's cards must not live on Static, which every view reaches: issue 12)
                cnt = (free[0], mine[0], free[1], mine[1], free[2], mine[2], free[3], mine[3],
                       free[4], mine[4])
                iss_p, ext_p = self.iss[p], self.ext[p]
                for e in sorted(self.hand[p]):  # (a hand holds each card once)
                    if iss_p < st.exp_iss[e] or ext_p < st.exp_ext[e]:
                        continue
                    for cls in _exp_classes(st.exp_comps[e], st.exp_long[e], cnt, astro):
                        out.append((EXPERIMENT, e, cls))
        return out

    def _free_comp(self, t: int) -> int:
        ctype, ccover, cocc = self.ctype, self.ccover, self.cocc
        for c in range(len(ctype)):
            if ctype[c] == t and not ccover[c] and cocc[c] == -1:
                return c
        return -1

    def exp_options(self, p: int, e: int) -> list[tuple[int, ...]]:
        """Canonical ways ``p`` can perform experiment ``e`` now (rulebook: Conduct Experiments).

        Returns:
            Sorted class tuples (``type*2 + mine``), one per distinct outcome; empty if the card
            cannot be performed (materials, compartments or astronauts lacking).
        """
        card = self.st.exp_cards[e]
        if self.iss[p] < card.iss or self.ext[p] < card.ext:
            return []
        cnt = [0] * 10
        mine_total = 0
        ctype, ccover, cocc = self.ctype, self.ccover, self.cocc
        for c in range(len(ctype)):
            if ccover[c]:
                continue
            o = cocc[c]
            if o == -1:
                cnt[ctype[c] * 2] = cnt[ctype[c] * 2] + 1
            elif o == p and ctype[c] != LS:
                cnt[ctype[c] * 2 + 1] = cnt[ctype[c] * 2 + 1] + 1
                mine_total += 1
        return list(_exp_classes(card.comps, card.long, tuple(cnt), self.unity[p] + mine_total))

    # -- goals (rulebook: Goals) --------------------------------------------------------------
    def goal_progress(self, p: int, g: int) -> int:
        """The count goal ``g`` measures for player ``p`` (compare with ``Static.needs[g]``)."""
        st = self.st
        n = st.np
        if g == 0:
            return len(self.done[p])
        if g == 1:
            return sum(1 for e in self.done[p] if st.exp_level[e] == 3)
        if g == 2:
            return self.sha[p] + self.sha[n + p]
        if g == 3:
            return self.shm[p] + self.shm[n + p]
        if g == 4:
            return max(self.colc[s * n + p] for s in range(4))
        if g == 5:
            return self.tok[p]
        if g == 6:
            return self.ls[p]
        if g == 7:
            return self.ext[p]
        if g == 8:
            return len(self.owned[p])
        nat = {st.sh_nation[c] for c in self.owned[p]}
        return int(self.tok[p] >= 1 and self.ls[p] >= 1 and len(nat) == 2)

    def _goals_met(self, p: int) -> list[int]:
        needs = self.st.needs
        return [g for g in self.offer if self.goal_progress(p, g) >= needs[g]]

    # -- applying ------------------------------------------------------------------------------
    def _do(self, a: Any) -> None:
        tag: int = a[0]
        p = self.turn_player
        st = self.st
        if tag < 8:
            if self.phase == P_EXTRA:
                self.xsp[tag] = -1
                self.res[p] = self.res[p] + 1
                self.extra_used += 1
                self._perform(p, a, extra=True)
                if tag == PLAN:
                    self.keep_extra = True
                    self.phase = P_KEEP
                else:
                    self.phase = P_EXTRA
            else:
                if not self.final:
                    self.res[p] = self.res[p] - 1
                    self.on_card = p
                self.cur_action = tag
                self._perform(p, a, extra=False)
                if tag == PLAN:
                    self.keep_extra = False
                    self.phase = P_KEEP
                else:
                    self._after_normal()
        elif tag == COUNTDOWN:
            self._countdown(a[1], st.cd[self.cur_action])
            self.phase = P_GOAL
        elif tag == KEEP:
            self._keep(p, a[1])
            if self.keep_extra:
                self.phase = P_EXTRA
            else:
                self._after_normal()
        elif tag == CARGO:
            self.shm[a[1] * st.np + p] = self.shm[a[1] * st.np + p] + 1
            self.phase = P_EXTRA
        elif tag == PASS:
            self.extra_used = st.extra_per_turn
            self.phase = P_EXTRA
        elif tag == RETRIEVE:
            self._retrieve(p, a[1])
            self.phase = P_ACTION
        elif tag == XSPACE:
            q = self.xq.pop(0)
            if a[2] >= 0:
                self.colc[a[2] * st.np + q] = self.colc[a[2] * st.np + q] - 1
                self.res[q] = self.res[q] + 1
            self.res[q] = self.res[q] - 1
            self.xsp[a[1]] = q
        elif tag == GOAL:
            if a[1] >= 0:
                self._take_goal(p, a[1])
            if self.goal_step == GS_EARLY:
                self.goal_step = GS_TAKEN if a[1] >= 0 else GS_END
                self.phase = P_COUNTDOWN
            else:
                self.phase = -1
        elif tag == FPICK:
            assert self.st.robot is not None
            self.st.robot.resume(self, a[1])

    def _retrieve(self, p: int, src: int) -> None:
        if src < 4:
            self.colc[src * self.st.np + p] = self.colc[src * self.st.np + p] - 1
        else:
            self.xsp[src - 4] = -1
        self.res[p] = self.res[p] + 1

    def _take_goal(self, p: int, g: int) -> None:
        self._public = None
        self.offer.remove(g)
        self.pgoals[p].append(g)
        self._tell(E_GOAL, p, g)

    def _after_normal(self) -> None:
        """Module preparation (step 4), then the countdown step; with ``goal_timing``
        ``before_countdown`` or ``either`` the goal step comes first (rulebook: Goals)."""
        p = self.turn_player
        if not self.final:
            slot = self.rows[self.cur_action]
            self.colc[slot * self.st.np + p] = self.colc[slot * self.st.np + p] + 1
            self.on_card = -1
            self.phase = P_COUNTDOWN
        else:
            self.phase = P_GOAL
        if self.st.goal_when and not self.st.solo:
            self.goal_step = GS_EARLY
            self.phase = P_GOAL

    def _keep(self, p: int, mask: int) -> None:
        st = self.st
        for i, e in enumerate(self.drawn):
            if mask >> i & 1:
                self.hand[p].append(e)
            else:
                self.edeck[st.exp_level[e] - 1].insert(0, e)
                self.eknow[e] = self.eknow.get(e, 0) | 1 << p
        self.drawn = []

    def _perform(self, p: int, a: Any, extra: bool) -> None:
        """Do one action card's action (rulebook: Earth Actions, ISS Actions)."""
        st = self.st
        n = st.np
        tag: int = a[0]
        if tag == TRAIN:
            self.earth[p] = self.earth[p] - 1
            self.sha[a[1] * n + p] = self.sha[a[1] * n + p] + 1
        elif tag == LOAD:
            for r in a[1:]:
                self.shm[r * n + p] = self.shm[r * n + p] + 1
        elif tag == CONSTRUCT:
            for s in a[2]:
                self._retrieve(p, s)
            for t in a[1]:
                self.res[p] = self.res[p] - 1
                self.colc[t * n + p] = self.colc[t * n + p] + 1
        elif tag == PLAN:
            self.drawn = [self.edeck[d].pop() for d in a[1:]]
        elif tag == LONG_STAY:
            c = self._free_comp(LS)
            self._take_astro(p)
            self.cocc[c] = p
            self.iss[p] = self.iss[p] - 1
            self.ls[p] = self.ls[p] + 1
        elif tag == INSTALL:
            types = a[1]
            for t in types:
                for c in range(len(self.ctype)):
                    if self.ccover[c] and self.ctype[c] == t:
                        self.ccover[c] = 0
                        self.tok[p] = self.tok[p] + 1
                        break
            for _ in types:
                self._take_astro(p)
                self.unity[p] = self.unity[p] + 1
        elif tag == OUTSIDE:
            k, new = a[1], a[2]
            if new:
                c = self._free_comp(3)
                self._take_astro(p)
                self.cocc[c] = p
            self.iss[p] = self.iss[p] - k
            self.ext[p] = self.ext[p] + k
        elif tag == EXPERIMENT:
            self.do_experiment(p, a[1], a[2])
            self.hand[p].remove(a[1])

    def do_experiment(self, p: int, e: int, classes: tuple[int, ...]) -> None:
        """Pay and staff experiment ``e`` with compartment ``classes`` (see :meth:`exp_options`)."""
        st = self.st
        self.iss[p] = self.iss[p] - st.exp_iss[e]
        self.ext[p] = self.ext[p] - st.exp_ext[e]
        long_ = st.exp_long[e]
        ctype, ccover, cocc = self.ctype, self.ccover, self.cocc
        picked: list[int] = []
        # your astronauts' compartments first (a stable sort of the classes by ``-(cl & 1)``)
        order = [cl for cl in classes if cl & 1] + [cl for cl in classes if not cl & 1]
        for cl in order:
            t, mine = cl >> 1, cl & 1
            want = p if mine else -1
            for c in range(len(ctype)):
                if ctype[c] == t and not ccover[c] and cocc[c] == want and c not in picked:
                    picked.append(c)
                    break
        # one astronaut per compartment: take every moving astronaut before any returns
        for cl in order:
            if not cl & 1:
                self._take_astro(p, exclude=picked)
        for c, cl in zip(picked, order, strict=True):
            if long_:
                cocc[c] = p
            else:
                if cl & 1:
                    cocc[c] = -1
                self.unity[p] = self.unity[p] + 1
        self._public = None
        self.done[p].append(e)
        if self.eknow:
            self.eknow.pop(e, None)

    # -- countdown and launch (rulebook: Player Turn 5-6, Launch, Extra Action) ----------------
    def _countdown(self, r: int, v: int) -> None:
        self.cd[r] = max(0, self.cd[r] - v)
        if self.cd[r] == 0:
            self._launch(r, self.turn_player)

    def _launch(self, r: int, launcher: int) -> None:
        st = self.st
        n = st.np
        c = self.pad[r]
        self._public = None
        self.launches[r] = self.launches[r] + 1
        self._tell(E_LAUNCH, c)
        ctype, cocc = self.ctype, self.cocc
        # 1. astronaut replacement (FEDOR's astronauts stay on the ISS: Solo Mode, Launch 1)
        if st.sh_repl[c]:
            for q in range(n):
                if q != st.fedor:
                    self.earth[q] = self.earth[q] + self.unity[q]
                    self.unity[q] = 0
            for k in range(len(cocc)):
                q = cocc[k]
                if q < 0:
                    continue
                if ctype[k] == LS:
                    cocc[k] = -1
                    self.unity[q] = self.unity[q] + 1
                elif q != st.fedor:
                    cocc[k] = -1
                    self.earth[q] = self.earth[q] + 1
        # 2. new astronauts
        for q in range(n):
            self.unity[q] = self.unity[q] + self.sha[r * n + q]
            self.sha[r * n + q] = 0
        # 3. new materials
        for q in range(n):
            u = self.shm[r * n + q]
            if u:
                self.iss[q] = min(st.iss_max, self.iss[q] + u)
                self.shm[r * n + q] = 0
        winners: list[int] = []
        # 4. new module
        if st.sh_mod[c]:
            best, bslot = -1, 0
            for s in range(4):
                if self.col[s] < 0:
                    continue
                tot = sum(self.colc[s * n:s * n + n])
                if tot > best:
                    best, bslot = tot, s
            m = self.col[bslot]
            cubes = self.colc[bslot * n:bslot * n + n]
            self._dock(m)
            self._tell(E_DOCK, m)
            top = max(cubes)
            if top > 0:
                winners = [q for q in range(n) if cubes[q] == top]
            for q in range(n):
                self.res[q] = self.res[q] + cubes[q]
            self._public = None
            del self.col[bslot]
            del self.colc[bslot * n:bslot * n + n]
            self.col.append(self.mdeck.pop() if self.mdeck else -1)
            self.colc.extend([0] * n)
        # 5. module inspection
        if st.sh_type[c] == 0:
            got = [0] * n
            for s in range(4):
                for q in range(n):
                    if self.colc[s * n + q] > 0:
                        self.colc[s * n + q] = self.colc[s * n + q] - 1
                        self.res[q] = self.res[q] + 1
                        got[q] = got[q] + 1
            top = max(got)
            if top > 0:
                for q in range(n):
                    if got[q] == top and q not in winners:
                        winners.append(q)
        # 6. shuttle card
        self._public = None
        self.owned[launcher].append(c)
        self._next_shuttle(r)
        # extra actions, clockwise from the launcher
        order = [(launcher + i) % n for i in range(n)]
        self.xq.extend(q for q in order if q in winners)
        self.extras_won += len(winners)
        for q in order:
            if q in winners:
                self._tell(E_EXTRA_WON, q)

    # -- the automatic flow -------------------------------------------------------------------
    def _start_turn(self) -> None:
        self.extra_used = 0
        self.goal_step = 0
        self.phase = P_CARGO
        if self.turn_player == self.sp:
            self._tell(E_ROUND)
        self._tell(E_TURN, self.turn_player)

    def _end_turn(self) -> None:
        st = self.st
        n = st.np
        self.turns += 1
        if self.final:
            self.final_done += 1
            if self.final_done >= n:
                self._finish("last_shuttle")
                return
        elif self.triggered and self.turn_player == (self.sp - 1) % n:
            self.final = True
            self._tell(E_FINAL)
        if self.turns >= st.max_turns:
            self._finish("cap")
            return
        self.turn_player = (self.turn_player + 1) % n
        self._start_turn()

    def _finish(self, reason: str) -> None:
        self.phase = P_OVER
        self.end_reason = reason
        self.current_seat = -1
        self._legal = []
        self._tell(E_OVER)

    def _advance(self) -> None:
        """Run forced steps until a seat has a real choice (two or more legal actions)."""
        st = self.st
        while True:
            ph = self.phase
            p = self.turn_player
            if ph == P_OVER:
                return
            if ph == -1:  # end of turn
                self._end_turn()
                continue
            if ph == P_CARGO and p == st.fedor:
                assert st.robot is not None
                st.robot.turn(self)
                continue
            if ph == P_XSPACE or (ph == P_GOAL and self.xq and self.goal_step != GS_EARLY):
                if not self.xq:
                    self.phase = P_GOAL
                    continue
                self.phase = P_XSPACE
                q = self.xq[0]
                if q == st.fedor:
                    assert st.robot is not None
                    self.xq.pop(0)
                    st.robot.extra(self)  # may pause in P_FPICK for the human's pick
                    continue
                legal = self._compute_legal()
                if not legal:
                    self.xq.pop(0)
                    continue
                if len(legal) == 1:
                    self._tell(E_FORCED, legal[0], q)
                    self._do(legal[0])
                    continue
                self.current_seat = q
                self._legal = legal
                return
            if ph == P_CARGO:
                if self._pad_loaded(0) or self._pad_loaded(1):
                    self.phase = P_EXTRA
                    continue
            elif ph == P_EXTRA:
                if self.extra_used >= st.extra_per_turn or p not in self.xsp:
                    self.phase = P_RETRIEVE
                    continue
            elif ph == P_RETRIEVE:
                if self.final or self.res[p] > 0:
                    self.phase = P_ACTION
                    continue
            elif ph == P_COUNTDOWN:
                if self.final or st.cd[self.cur_action] == 0:
                    self.phase = P_GOAL
                    continue
            elif ph == P_GOAL and st.solo:
                self.phase = -1
                continue
            elif ph == P_FPICK:
                self.current_seat = 0
                self._legal = self._compute_legal()
                return
            legal = self._compute_legal()
            if len(legal) >= 2:
                self.current_seat = p if p != st.fedor else 0
                self._legal = legal
                return
            if len(legal) == 1:
                self._tell(E_FORCED, legal[0], p)
                self._do(legal[0])
                continue
            # no option: skip the step
            if ph == P_CARGO:
                self.phase = P_EXTRA
            elif ph == P_GOAL and self.goal_step == GS_EARLY:
                self.goal_step = GS_END
                self.phase = P_COUNTDOWN
            elif ph == P_COUNTDOWN or ph == P_GOAL:
                self.phase = -1 if ph == P_GOAL else P_GOAL
            else:
                raise AssertionError(f"no legal action in phase {PHASE_NAMES[ph]}")

    # -- scoring (rulebook: Endgame) ----------------------------------------------------------
    def score_parts(self, p: int) -> dict[str, int]:
        """The end-of-game points of player ``p`` by part (rulebook: Endgame)."""
        st, o = self.st, self.st.opts
        types = {st.sh_type[c] for c in self.owned[p]}
        exp_pts = sum(st.exp_cards[e].points for e in self.done[p])
        parts = {
            "tokens": o.token_points * self.tok[p],
            "external": o.external_points * self.ext[p],
            "long_stay": o.long_stay_points[self.ls[p]],
            "goals": o.goal_points * len(self.pgoals[p]),
            "shuttles": o.set_points[len(types) - 1] if types else 0,
            "experiments": exp_pts,
            "penalties": -o.unperformed_penalty * len(self.hand[p]),
        }
        bonus = o.seat_bonus(p, self.sp)
        if bonus and o.start_bonus_kind == "points":  # what-if seat compensation (start_bonus)
            parts["start_bonus"] = bonus
        parts["score"] = sum(parts.values())
        return parts

    def score(self, p: int) -> int:
        """``score_parts(p)["score"]`` from the typed tables, without the parts (the search's
        evaluation reads it at the end of every rollout)."""
        st = self.st
        sh_type = st.sh_type
        types = 0
        ntypes = 0
        for c in self.owned[p]:
            if not types >> sh_type[c] & 1:
                types |= 1 << sh_type[c]
                ntypes += 1
        total = st.token_points * self.tok[p] + st.external_points * self.ext[p] \
            + st.long_stay_points[self.ls[p]] + st.goal_points * len(self.pgoals[p]) \
            - st.unperformed_penalty * len(self.hand[p])
        if ntypes:
            total += st.set_points[ntypes - 1]
        for e in self.done[p]:
            total += st.exp_points[e]
        if st.points_bonus:
            total += st.opts.seat_bonus(p, self.sp)
        return total

    def result(self) -> GameRecord:
        if not self.is_terminal():
            raise RuntimeError("the game is not over")
        st = self.st
        n = st.np
        parts = [self.score_parts(p) for p in range(n)]
        scores = [x["score"] for x in parts]
        keys = [(scores[p], len(self.done[p])) for p in range(n)]
        best = max(keys)
        top_score = max(scores)
        leaders = [p for p in range(n) if scores[p] == top_score]
        winners = [p for p in range(n) if keys[p] == best]
        tie_break = len(leaders) > 1 and len(winners) == 1
        shared = len(winners) > 1
        names = [f"seat{p}" for p in range(n)]
        if st.solo:
            names = ["seat0", "fedor"]
        if self.end_reason == "cap":
            winner = ""
        elif shared:
            winner = "tie"
        else:
            winner = names[winners[0]]
        others = sorted(scores, reverse=True)
        margin = others[0] - others[1] if n > 1 else 0
        order = sorted(range(n), key=lambda p: keys[p], reverse=True)
        rank = [1 + sum(1 for q in range(n) if keys[q] > keys[p]) for p in range(n)]
        measures = {
            "turns": self.turns,
            "launches_russia": self.launches[0],
            "launches_usa": self.launches[1],
            "launches": self.launches[0] + self.launches[1],
            "tie_break": tie_break,
            "shared_win": shared,
            "winning_score": top_score,
            "winning_margin": margin,
            "end_nation": NATIONS[self.trigger_nation] if self.trigger_nation >= 0 else "",
            "shuttles_removed": st.opts.remove_shuttles,
            "modules_docked": len(self.docked) - 3,
            "goals_taken": sum(len(g) for g in self.pgoals),
            "extra_actions_won": self.extras_won,
            "fedor_score": scores[st.fedor] if st.solo else None,
            "fedor_experiments": len(self.done[st.fedor]) if st.solo else None,
        }
        del order
        seat_rows = []
        for p in range(st.nseats):
            x = parts[p]
            seat_rows.append({
                "seat": p,
                "score": x["score"],
                "tokens": x["tokens"],
                "external": x["external"],
                "long_stay": x["long_stay"],
                "goals": x["goals"],
                "shuttles": x["shuttles"],
                "experiments": x["experiments"],
                "penalties": x["penalties"],
                "n_experiments": len(self.done[p]),
                "n_shuttles": len(self.owned[p]),
                "won": winner == names[p],
                "rank": rank[p],
            })
        return GameRecord(winner, self.end_reason, self.turns // n, measures, seat_rows)

    # -- views ---------------------------------------------------------------------------------
    def view(self, seat: int) -> IssView:
        st = self.st
        p = seat
        v = IssView()
        v.seat = seat
        v.player = p
        v.st = st
        v.phase = self.phase
        v.turn_player = self.turn_player
        v.sp = self.sp
        v.final = self.final
        v.triggered = self.triggered
        v.turns = self.turns
        v.rows = self.rows
        pub = self._public
        if pub is None:
            pub = self._public = _Public(
                tuple(self.col), tuple(self.ctype), tuple(self.cmod), tuple(self.docked),
                tuple(self.offer), tuple(self.launches), tuple(self.fdisc), tuple(self.fpick),
                tuple([tuple(x) for x in self.pgoals]), tuple([tuple(x) for x in self.owned]),
                tuple([tuple(x) for x in self.done]))
        v.col = pub.col
        v.colc = tuple(self.colc)
        v.mdeck_n = len(self.mdeck)
        v.ctype = pub.ctype
        v.ccover = tuple(self.ccover)
        v.cocc = tuple(self.cocc)
        v.cmod = pub.cmod
        v.pool = self.pool
        v.unity = tuple(self.unity)
        v.earth = tuple(self.earth)
        v.pad = tuple(self.pad)
        v.cd = tuple(self.cd)
        v.sha = tuple(self.sha)
        v.shm = tuple(self.shm)
        v.sdeck_n = (len(self.sdeck[0]), len(self.sdeck[1]))
        v.iss = tuple(self.iss)
        v.ext = tuple(self.ext)
        v.ls = tuple(self.ls)
        v.tok = tuple(self.tok)
        v.pgoals = pub.pgoals
        v.offer = pub.offer
        v.owned = pub.owned
        v.hand = tuple(self.hand[p])
        v.hand_sizes = tuple([len(h) for h in self.hand])
        # card backs show the level: the sorted levels of every hand
        lv = st.exp_level
        hls = []
        known = _HAND_LEVELS
        for h in self.hand:
            key = 0  # the hand's count of each level (1-3), as digits in base 256 (< 256 cards)
            for e in h:
                key += 1 << 8 * (lv[e] - 1)
            hl = known.get(key)
            if hl is None:
                hl = known[key] = tuple(sorted([lv[e] for e in h]))
            hls.append(hl)
        v.hand_levels = tuple(hls)
        v.done = pub.done
        v.xsp = tuple(self.xsp)
        v.res = tuple(self.res)
        v.edeck_n = (len(self.edeck[0]), len(self.edeck[1]), len(self.edeck[2]))
        v.drawn = tuple(self.drawn) if (self.turn_player == p and self.phase == P_KEEP) else ()
        v.xq = tuple(self.xq)
        v.fdisc = pub.fdisc
        v.fdeck_n = len(self.fdeck)
        v.fnext_back = st.cards.fedor[self.fdeck[-1]].back if self.fdeck else -1
        v.launches = pub.launches
        v.extra_used = self.extra_used
        v.docked = pub.docked
        v.removed_n = (len(self.removed[0]), len(self.removed[1]))
        v.on_card = self.on_card
        v.cur_action = self.cur_action
        v.goal_step = self.goal_step
        v.keep_extra = self.keep_extra
        v.fpick = pub.fpick
        v.fcont = self.fcont
        v.eknown = self._known_places(p) if self.eknow else ()
        return v

    def _known_places(self, p: int) -> tuple[tuple[int, int, int], ...]:
        """Where player ``p`` knows the experiment cards it saw put under their decks are
        (see ``eknow``): ``(card, 0, i)`` ``i``-th from the bottom of its deck, ``(card, 1,
        q)`` in player ``q``'s hand, ``(card, 2, q)`` drawn by ``q``, still to keep."""
        out = []
        lv = self.st.exp_level
        for e in sorted(self.eknow):
            if not self.eknow[e] >> p & 1:
                continue
            d = self.edeck[lv[e] - 1]
            if e in d:
                out.append((e, 0, d.index(e)))
            elif e in self.drawn:
                out.append((e, 2, self.turn_player))
            else:
                out.append((e, 1, next(q for q, h in enumerate(self.hand) if e in h)))
        return tuple(out)

    # -- text ------------------------------------------------------------------------------------
    def action_text(self, action: Any) -> str:
        return text.action_text(self, action)


@functools.lru_cache(maxsize=65536)
def _exp_classes(comps: tuple[int, ...], long_: bool, cnt: tuple[int, ...],
                 astro: int) -> tuple[tuple[int, ...], ...]:
    """Sorted distinct class tuples staffing an experiment (see :meth:`IssState.exp_options`).

    Args:
        comps: the card's compartment types (``ANY`` allowed); long_: long-term card.
        cnt: per class ``type*2 + mine`` the number of usable compartments (length 10).
        astro: the player's acting astronauts (Unity + own non-long-stay compartments).
    """
    if len(comps) > astro:
        return ()
    cnt_ = list(cnt)
    found: set[tuple[int, ...]] = set()
    chosen: list[int] = []

    def rec(i: int) -> None:
        if i == len(comps):
            found.add(tuple(sorted(chosen)))
            return
        t = comps[i]
        types = (0, 1, 3, 4) if (t == ANY and long_) else (range(5) if t == ANY else (t,))
        for tt in types:
            for cl in (tt * 2, tt * 2 + 1):
                if cnt_[cl] > 0:
                    cnt_[cl] = cnt_[cl] - 1
                    chosen.append(cl)
                    rec(i + 1)
                    chosen.pop()
                    cnt_[cl] = cnt_[cl] + 1

    rec(0)
    return tuple(sorted(found))


#: a hand's key (``IssState.view``) -> its sorted levels (public: card backs show them)
_HAND_LEVELS: dict[int, tuple[int, ...]] = {}
#: the action cards, for the normal action's legal actions
_ALL_CARDS: Final = [0, 1, 2, 3, 4, 5, 6, 7]
# (typed Any: compiled, a typed tuple constant would be built anew at each read)
_TRAINS: Final[Any] = ((TRAIN, 0), (TRAIN, 1))
_LONG_STAY: Final[Any] = (LONG_STAY,)
_NO_CONSTRUCT: Final[Any] = (CONSTRUCT, (), ())
#: (pads mask, materials) -> the Load Material actions (see ``_loads``)
_LOADS: dict[int, tuple[tuple[int, ...], ...]] = {}


def _any_iss_action(cards: list[int]) -> bool:
    """Whether an ISS action card (Long Stay .. Conduct Experiments) is among ``cards``."""
    for a in cards:
        if a >= LONG_STAY:
            return True
    return False


def _loads(pads: int, k: int) -> tuple[tuple[int, ...], ...]:
    """The Load Material actions of ``k`` materials onto the pads of bit mask ``pads`` (one
    pad: all on it; both: every split, pad 0's share first)."""
    key = k * 4 + pads
    hit = _LOADS.get(key)
    if hit is None:
        if pads != 3:
            hit = ((LOAD, *([0 if pads == 1 else 1] * k)),)
        else:
            hit = tuple([(LOAD, *([0] * (k - j) + [1] * j)) for j in range(k + 1)])
        _LOADS[key] = hit
    return hit


#: bit mask of the non-empty experiment decks -> those decks (levels 0/1/2), in order
_DECKS = tuple(tuple(d for d in range(3) if m >> d & 1) for m in range(8))


# memos of the action lists below (plain dicts: compiled code reads them natively)
_PLANS: dict[tuple[tuple[int, ...], int], tuple[tuple[int, ...], ...]] = {}
_INSTALLS: dict[tuple[tuple[int, ...], int, int], tuple[tuple[Any, ...], ...]] = {}
_PLAIN: dict[int, tuple[tuple[Any, ...], ...]] = {}


def _plans(decks: tuple[int, ...], k: int) -> tuple[tuple[int, ...], ...]:
    hit = _PLANS.get((decks, k))
    if hit is None:
        hit = _PLANS[decks, k] = tuple((PLAN, *c) for c in combinations(decks, k))
    return hit


def _installs(cov: tuple[int, ...], kmax: int, per_type: int) -> tuple[tuple[Any, ...], ...]:
    key = (cov, kmax, per_type)
    hit = _INSTALLS.get(key)
    if hit is None:
        types = [t for t in range(5) for _ in range(min(cov[t], per_type))]
        out = []
        for k in range(1, kmax + 1):
            for combo in sorted(set(combinations(types, k))):
                out.append((INSTALL, combo))
        hit = _INSTALLS[key] = tuple(out)
    return hit


def _plain_constructs(k: int) -> tuple[tuple[Any, ...], ...]:
    hit = _PLAIN.get(k)
    if hit is None:
        hit = _PLAIN[k] = tuple((CONSTRUCT, t, ())
                                for t in combinations_with_replacement(range(4), k))
    return hit


@functools.cache
def _multisets_cached(items: tuple[int, ...], k: int) -> tuple[tuple[int, ...], ...]:
    return tuple(combinations_with_replacement(items, k))


def _multisets(items: Any, k: int) -> tuple[tuple[int, ...], ...]:
    """Sorted multisets of size ``k`` from ``items``."""
    return _multisets_cached(tuple(items), k)


def _subsets_sorted(items: list[int], k: int) -> list[tuple[int, ...]]:
    """Sorted k-subsets of a list (duplicates in ``items`` give repeated tuples)."""
    return [tuple(sorted(c)) for c in combinations(items, k)]


COMP_CODES_ = COMP_CODES
