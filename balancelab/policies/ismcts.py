"""Information-set Monte Carlo tree search for any seat of any game (``ismcts``), and its
cheating twin ``oracle``.

``ismcts`` is single-observer ISMCTS (Cowling, Powley & Whitehouse 2012, "Information Set
Monte Carlo Tree Search", IEEE TCIAIG 4(2)): ONE tree over the searching seat's information
sets, grown over ``iterations`` iterations per decision. Each iteration

1. **determinizes**: samples a fresh world consistent with the seat's view through
   ``Game.determinize(view, rng)`` (hidden hands and deck order re-dealt). The policy reads the
   view and the legal actions only, never the real state, so two states that differ only in
   what the seat cannot see give the same decisions for the same seed (tested);
2. **selects** down the tree by UCB1 restricted to the actions legal in *this* world, with
   availability counts: a child's exploration term uses the number of iterations in which it
   was available, not its parent's visits (the paper's ISMCTS selection), so an action that is
   rarely legal is not over-explored;
3. **expands** one untried legal action (the seat's scripted default choice first, then in the
   order of the legal actions; with ``bias > 0`` the scripted choice keeps a progressive bias,
   ``bias / (n + 1)`` added to its UCB value, Chaslot et al. 2008, "Progressive strategies for
   Monte-Carlo tree search", New Math. and Nat. Computation 4(3), so the tree departs from the
   scripted player only where the others' rollouts earn it), then **rolls out** with the
   scripted default policies of every seat (``Game.default_policies``), cut after ``depth``
   decisions at the first state the game calls settled (``Game.settled``: not inside Obcy's
   ALIENS phase, whose attacks come after all the ALIENS have moved) and scored by
   ``Game.evaluate`` (0.5 where a game offers none);
4. **backs up** the value for the searching side (1 win, 0.5 tie or draw, 0 loss or a game
   stopped by the round cap) along the path.

Whose decisions are in the tree: the searching seat's, and its teammates' with
``teammates=tree`` (a team game such as 2001's crew: the tree plays the teammates in the
sampled world, one joint plan); every other seat is played by its scripted default, in the
tree and in the rollouts, as part of the world (the paper's single-observer tree treats the
opponents' moves the same way when they are unobserved). The tree is *open loop* below the
root: a node is the sequence of tree decisions since the root, whatever the opponents and
chance did between them; a multi-step turn (Obcy's pick a character, walk, act, end) is a
path down the tree, so the search plans a whole turn, not its first step only.

The decision is the root action visited most (ties: the scripted default's choice, then the
first legal), which is the robust child of the paper.

``oracle`` is the same search handed the TRUE state (every hand, the deck order) by the game
loop (``Policy.sees_state``): each iteration copies it instead of determinizing, with a fresh
stream for the chance still to come (future shuffles and dice are not known to it). It is a
cheat, an upper bound on what any player could do with this search, and never a default.
``oracle:sees=hands`` sees every hand but not the order of the face-down piles: each iteration
re-deals the cards in no hand among their piles (``Game.reshuffle_piles``), so the bound
splits into what the hands are worth and what the deck order, which no player can know, adds.

Budgets are counted in iterations, never in seconds, so results do not depend on machine load.
Reproducibility: each iteration's world and rollout streams derive from the seat's own
Generator, drawn in a fixed order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Final

import numpy as np
from mypy_extensions import mypyc_attr

from balancelab.policies.base import Param, Policy, PolicyError, RngSource, register
from balancelab.policies.search import (
    MAX_BUDGET,
    MAX_DEPTH,
    choice_param,
    determinizer,
    int_param,
    number_param,
    scripted_factory,
    scripted_shadow,
    seat_value,
)
from balancelab.simulate.core import Action, Game, State, View
from balancelab.simulate.options import RuleOptions
from balancelab.simulate.play import gc_paused
from balancelab.simulate.seeding import PcgStream, SeedSource, seeded_draws, seeded_generator


class _Node:
    """One node of the tree: a decision of a tree seat, reached by a sequence of tree
    decisions from the root. Children are keyed by action."""

    __slots__ = ("children", "n", "w", "avail", "fav", "fav_known", "seat", "order")

    def __init__(self) -> None:
        self.children: dict[Action, _Node] = {}
        self.n = 0  # visits
        self.w = 0.0  # sum of values (for the searching side)
        self.avail = 0  # iterations in which this node's action was legal at its parent
        self.fav: Action | None = None  # the scripted default's choice where first expanded
        self.fav_known = False
        self.seat = -1  # the seat deciding here (once reached)
        self.order: list[Action] | None = None  # the scripted ranking, with ``widen``


@mypyc_attr(allow_interpreted_subclasses=True)  # plug-ins (and tests) subclass it
class IsmctsPolicy(Policy):
    """Single-observer information-set MCTS (see the module docstring).

    Parameters (spec ``ismcts:iterations=200,depth=20``):
        iterations: iterations (determinizations) per decision (the budget; >= 1).
        depth: decisions (with more than one legal action) per rollout after the tree is left;
            the rollout is then cut at the first settled state (``Game.settled``) and scored
            by ``Game.evaluate``. ``0`` plays rollouts to the end.
        c: UCB1 exploration constant (>= 0; values are in [0, 1]).
        teammates: ``tree`` (the searcher's teammates' decisions are in the tree) or
            ``default`` (they play their scripted default, like the opponents).
        reuse: keep the subtree below the chosen action as the next decision's root (open
            loop), and top its visits up to ``iterations`` (at least a quarter of them new).
        bias: progressive bias toward the scripted default's choice at every tree node
            (>= 0; ``bias / (n + 1)`` on its UCB value after ``n`` visits; 0: none, the
            favourite is only tried first).
        widen: progressive widening (>= 0; 0: every legal action is a candidate): a node
            visited ``n`` times considers only the first ``widen + floor(sqrt(n) / 2)``
            legal actions of the scripted default's ranking (``Policy.ranked``: its choice
            first, then its scores' order where it scores them).
        belief: how each iteration's world deals what the seat cannot see: one of the game's
            ``beliefs`` (``uniform``: at random; 2001's crew also ``hal-model``, HAL's hand
            weighted by its public plays: :mod:`balancelab.policies.odyssey.belief`).

    Raises:
        PolicyError: a bad parameter value (at construction).
        NotImplementedError: the game offers no ``determinize`` (at the first decision).
        RuntimeError: ``determinize`` returned a world in which this seat is not to move.
    """

    name: ClassVar[str] = "ismcts"
    params: ClassVar[dict[str, Any]] = {
        "iterations": Param(200, low=1, high=MAX_BUDGET, help="tree iterations per decision"),
        "depth": Param(20, low=0, high=MAX_DEPTH,
                       help="decisions per iteration below the root (0: to the end)"),
        "c": 0.7, "teammates": "tree", "reuse": True, "bias": 0.0,
        "widen": Param(0, low=0, high=MAX_BUDGET,
                       help="progressive widening's first candidates (0: every action)"),
        "belief": "uniform"}

    def __init__(self, game: Game, options: RuleOptions, seat: int, rng: RngSource,
                 **params: Any) -> None:
        super().__init__(game, options, seat, rng, **params)
        self.iterations = int_param(self.name, self.cfg, "iterations", low=1)
        self.depth = int_param(self.name, self.cfg, "depth", low=0)
        self.c = number_param(self.name, self.cfg, "c")
        self.bias = number_param(self.name, self.cfg, "bias")
        self.widen = int_param(self.name, self.cfg, "widen", low=0)
        self.teammates = choice_param(self.name, self.cfg, "teammates", ("tree", "default"))
        self._determinize = determinizer(self.name, game, self.cfg)
        #: the game deals its worlds from a :class:`PcgStream` too (``determinize_streams``):
        #: the same draws as the world's Generator, which is then built only if it draws again
        self._streams = getattr(type(game), "determinize_streams", False) is True
        if not isinstance(self.cfg["reuse"], bool):
            raise PolicyError(f"{self.name}: reuse must be true or false; "
                              f"got {self.cfg['reuse']!r}")
        self.reuse: bool = self.cfg["reuse"]
        self.side = game.side_of_seat(options, seat)
        self.seat_name = game.seats(options)[seat]
        n_seats = len(game.seats(options))
        self._n_seats = n_seats
        sides = [game.side_of_seat(options, k) for k in range(n_seats)]
        #: seats whose decisions the tree makes
        self._tree_seat = [k == seat or (self.teammates == "tree" and sides[k] == self.side)
                           for k in range(n_seats)]
        self._factories = [scripted_factory(game.name, sides[k], game.default_policies.get(
            sides[k], "random")) for k in range(n_seats)]
        self._evaluate: Callable[[State, int], float | None] = game.evaluate
        self._settled: Callable[[State], bool] = game.settled
        #: This seat's scripted default, kept for the whole game and shown every decision:
        #: the root's favourite (:func:`~balancelab.policies.search.scripted_shadow`).
        self._shadow = scripted_shadow(game, options, seat, self.rng)
        #: The subtree below the last decision's action, reused as the next root when
        #: ``reuse`` is on (open loop: the tree's next decision after that action).
        self._next: _Node | None = None
        #: Iterations run by this policy so far (for benchmarks).
        self.iterations_run = 0
        #: Iterations whose sampled world did not offer the real legal actions at the root
        #: (the view lacks something the legal actions show); they still inform the tree.
        self.mismatches = 0

    # -- the decision ------------------------------------------------------------------------

    def act(self, view: View, legal: Sequence[Action]) -> Action:
        """Choose one of ``legal`` by ISMCTS over worlds sampled from ``view``.

        Args:
            view: this seat's view (the only information read).
            legal: the legal actions (non-empty).

        Returns:
            The most visited root action among ``legal``.
        """
        if len(legal) == 1:
            return legal[0]
        order = self._preference(view, legal)
        return self._search(legal, order, lambda entropy: self._world_from_view(view, entropy))

    def _world_from_view(self, view: View, entropy: int) -> State:
        # the world's stream: the first child of SeedSequence(entropy).spawn(2)
        rng: np.random.Generator | PcgStream = PcgStream(entropy, _WORLD) if self._streams \
            else seeded_generator(entropy, _WORLD)
        world = self._determinize(view, rng)
        if world.current_seat != self.seat:
            raise RuntimeError(
                f"{self.game.name}.determinize gave a world where seat {world.current_seat} "
                f"moves, but seat {self.seat} is to decide")
        return world

    def _search(self, legal: Sequence[Action], order: list[Action] | None,
                world_of: Callable[[int], State]) -> Action:
        nxt = self._next
        root = nxt if self.reuse and nxt is not None and nxt.seat == self.seat else _Node()
        fav = order[0] if order else None
        root.fav, root.fav_known = fav, True
        if self.widen:
            root.order = order
        legal_set = set(legal)
        # a reused subtree already holds visits: top it up to the budget (a quarter at least)
        todo = max(self.iterations - root.n, -(-self.iterations // 4))
        # each iteration's entropy, drawn at once (the same numbers as one draw an iteration:
        # nothing else draws from the seat's Generator while the decision iterates)
        entropies: list[int] = self.rng.integers(2**63, size=todo).tolist()
        with gc_paused():  # the iterations make no reference cycles (a tree has no parent links)
            for entropy in entropies:
                # the world and the rollouts draw from the two children of
                # SeedSequence(entropy).spawn(2)
                world = world_of(entropy)
                self._iterate(root, world, _RolloutSeeds(entropy, self._n_seats), legal_set)
                self.iterations_run += 1
        best: Action | None = None
        best_key: tuple[int, int] | None = None
        for a in legal:
            ch = root.children.get(a)
            key = (ch.n if ch is not None else -1, 1 if a == fav else 0)
            if best_key is None or key > best_key:
                best, best_key = a, key
        assert best is not None
        self._next = root.children.get(best)
        return best

    def _iterate(self, root: _Node, s: State, seeds: _RolloutSeeds,
                 legal_set: set[Action]) -> None:
        """One iteration from world ``s``: select, expand, roll out, back up."""
        # each seat's scripted player, made when the seat first decides (most iterations
        # never reach some seats; a player is the same whenever it is made)
        pols: list[Policy | None] = [None] * self._n_seats
        path = [root]
        node: _Node | None = root
        first = True
        steps = 0
        depth = self.depth
        settled = self._settled
        tree_seat = self._tree_seat
        while not s.is_terminal():
            legal = s.legal_actions()
            if len(legal) == 1:
                s._apply(legal[0])
                continue
            seat = s.current_seat
            if node is not None and tree_seat[seat]:
                if first:
                    first = False
                    if any(a not in legal_set for a in legal) or len(legal) != len(legal_set):
                        self.mismatches += 1
                # the iteration's scripted player of this seat sees every decision (its
                # memory stays whole for the rollout); its choice is the node's favourite
                if self.widen:
                    order = self._player(pols, seeds, seat).ranked(s.view(seat), legal)
                    scripted = order[0]
                    if node.order is None:
                        node.order = order
                else:
                    scripted = self._player(pols, seeds, seat).act(s.view(seat), legal)
                node.seat = seat
                if not node.fav_known:
                    node.fav, node.fav_known = scripted, True
                a = self._select(node, legal)
                child = node.children.get(a)
                if child is None:  # expansion: a new leaf, then the rollout
                    child = node.children[a] = _Node()
                    child.avail = 1
                    path.append(child)
                    node = None
                else:
                    path.append(child)
                    node = child
                s._apply(a)
                continue
            if node is None:  # rollout
                if depth and steps >= depth and settled(s):
                    break
                steps += 1
            a = self._player(pols, seeds, seat).act(s.view(seat), legal)
            s._apply(a)
        value = self._value(s)
        for nd in path:
            nd.n += 1
            nd.w += value

    def _player(self, pols: list[Policy | None], seeds: _RolloutSeeds, seat: int) -> Policy:
        """The iteration's scripted player of ``seat`` (made on first use)."""
        p = pols[seat]
        if p is None:
            p = pols[seat] = self._factories[seat](self.game, self.options, seat,
                                                   seeds.maker(seat))
        return p

    def _select(self, node: _Node, legal: Sequence[Action]) -> Action:
        """The tree's action at ``node`` among this world's ``legal`` actions (with ``widen``,
        among the first of the node's ranking only): an untried one if any (the scripted
        default's choice first), else UCB1 with availability counts."""
        order = node.order
        if order is not None and self.widen:
            k = self.widen + math.isqrt(node.n) // 2
            if k < len(legal):
                allowed = set(legal)
                cand = []
                for a in order:
                    if a in allowed:
                        cand.append(a)
                        if len(cand) >= k:
                            break
                if cand:
                    legal = cand
        children = node.children
        untried: Action | None = None
        fav = node.fav
        if fav is not None and fav not in children and fav in legal:
            untried = fav
        best: Action | None = None
        best_u = -math.inf
        log = math.log
        c = self.c
        bias = self.bias
        for a in legal:
            ch = children.get(a)
            if ch is None:
                if untried is None:
                    untried = a
                continue
            ch.avail += 1
            u = ch.w / ch.n + c * math.sqrt(log(ch.avail) / ch.n)
            if bias and a == fav:
                u += bias / (ch.n + 1)
            if u > best_u:
                best, best_u = a, u
        if untried is not None:
            return untried
        assert best is not None
        return best

    def _value(self, s: State) -> float:
        return seat_value(s, s.is_terminal(), self._evaluate, self.seat, self.side,
                          self.seat_name)

    def _preference(self, view: View, legal: Sequence[Action]) -> list[Action] | None:
        """The scripted default's ranking of ``legal`` for this seat, its choice first (with
        ``widen``; else its choice alone), or None when the seat's default is not scripted
        or chose an action not in ``legal``."""
        if self._shadow is None:
            return None
        if self.widen:
            order = self._shadow.ranked(view, legal)
        else:
            order = [self._shadow.act(view, legal)]
        return order if order[0] in legal else None


class OraclePolicy(IsmctsPolicy):
    """A CHEAT: :class:`IsmctsPolicy` on the true state (every hand, the deck order) instead
    of sampled worlds; future chance (shuffles, dice) is drawn afresh per iteration. An upper
    bound for the designer ("even a player who sees everything wins at most X%"), never a
    default; runs and reports that use it say so.

    Parameters: those of :class:`IsmctsPolicy`, and
        sees: ``all`` (every hand and the deck order) or ``hands`` (every hand; the
            face-down piles re-dealt each iteration by ``Game.reshuffle_piles``).

    Raises:
        PolicyError: a bad parameter value (at construction).
        NotImplementedError: ``sees=hands`` on a game that cannot re-deal its piles (at the
            first decision).
    """

    name: ClassVar[str] = "oracle"
    sees_state: ClassVar[bool] = True
    params: ClassVar[dict[str, Any]] = {**IsmctsPolicy.params, "sees": "all"}

    def __init__(self, game: Game, options: RuleOptions, seat: int, rng: RngSource,
                 **params: Any) -> None:
        super().__init__(game, options, seat, rng, **params)
        self.sees = choice_param(self.name, self.cfg, "sees", _SEES)

    def act(self, view: View, legal: Sequence[Action]) -> Action:
        raise RuntimeError("oracle plays from the true state: the game loop must call "
                           "act_on_state (play.play does, for a policy with sees_state)")

    def act_on_state(self, state: State, legal: Sequence[Action]) -> Action:
        """Choose one of ``legal`` by the tree search on copies of ``state`` (the truth)."""
        if len(legal) == 1:
            return legal[0]
        order = self._preference(state.view(self.seat), legal)

        hands_only = self.sees == "hands"
        reshuffle = self.game.reshuffle_piles

        def world_of(entropy: int) -> State:
            rng = seeded_generator(entropy, _WORLD)
            w = state.copy()
            w.rng = rng  # the deck order is known; the chance to come is not
            if hands_only:  # ... unless it sees the hands only
                reshuffle(w, rng)
            return w

        return self._search(legal, order, world_of)


class _RolloutSeeds:
    """The seeds of one iteration's scripted players: ``n`` draws of ``2**63`` from the
    rollouts' child of ``SeedSequence(entropy)`` (spawn key ``(1,)``), one a seat, made only
    when a player first draws (scripted players rarely do: most iterations seed nothing)."""

    __slots__ = ("entropy", "n", "seeds")

    def __init__(self, entropy: int, n: int) -> None:
        self.entropy = entropy
        self.n = n
        self.seeds: list[int] | None = None

    def seed(self, seat: int) -> int:
        """The seed of ``seat``'s player."""
        seeds = self.seeds
        if seeds is None:
            seeds = self.seeds = seeded_draws(self.entropy, (1,), self.n)
        return seeds[seat]

    def maker(self, seat: int) -> SeedSource:
        """A function making the Generator of ``seat``'s player (a :class:`SeedSource`)."""
        return _SeatSeed(self, seat)


class _SeatSeed(SeedSource):
    """The Generator of one seat's scripted player in one iteration (``seeded_generator`` of
    its seed in :class:`_RolloutSeeds`, computed on first use)."""

    def __init__(self, seeds: _RolloutSeeds, seat: int) -> None:
        self.seeds = seeds
        self.seat = seat

    def seed(self) -> int:
        return self.seeds.seed(self.seat)


#: The spawn key of an iteration's world stream (the rollouts': ``(1,)``).
_WORLD: Final[tuple[int, ...]] = (0,)

#: What ``oracle`` sees: ``all`` (every hand and the deck order) or ``hands`` (every hand;
#: the face-down piles re-dealt each iteration by ``Game.reshuffle_piles``).
_SEES = ("all", "hands")

#: The label cheating policies carry in the policy list, manifests and reports.
CHEAT_LABEL = "CHEAT: sees the true state (all hands; the deck order unless sees=hands)"

register(
    "ismcts",
    IsmctsPolicy,
    help="information-set MCTS (one tree over the seat's information sets, a determinization "
    "per iteration, scripted rollouts cut at depth and scored by the game's evaluate); params "
    "iterations (per decision), depth, c (UCB exploration), teammates=tree|default, bias "
    "(progressive bias toward the scripted choice), widen (progressive widening in the scripted "
    "ranking), belief (how worlds deal hidden cards: uniform, or the game's model, e.g. 2001's "
    "hal-model)",
)
register(
    "oracle",
    OraclePolicy,
    help=f"{CHEAT_LABEL}: the ismcts search on the true state, an upper bound, never a default; "
    "params as ismcts, and sees=all|hands (hands: every hand, but the face-down piles "
    "re-dealt each iteration)",
)
