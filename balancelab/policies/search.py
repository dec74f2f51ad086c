"""A search policy for any seat of any game: determinized flat Monte Carlo with paired worlds.

At each decision where more than one action is legal, the policy

1. samples *worlds* consistent with its seat's view through the one game-specific function
   the engine contract offers for it, ``Game.determinize(view, rng)`` (hidden cards and deck
   order re-dealt from what the seat cannot see). It reads the view and the legal actions
   only, never the real state, so two states that differ only in what the seat cannot see
   give the same decisions for the same seed (tested);
2. plays each candidate action in a world, then plays the world on with a fast *rollout
   policy* until the game ends or ``depth`` decisions have been made (a playout is cut only
   at a settled state, ``Game.settled``: in Obcy not inside the ALIENS phase, whose attacks
   come after every ALIEN has moved, so a cut never scores moves before they strike);
3. allocates its budget of ``rollouts`` playouts per decision by **sequential halving**
   (Karnin, Koren & Somekh 2013): ``ceil(log2 k)`` rounds over the ``k`` legal actions, each
   round spending an equal share of the budget on the surviving actions and keeping the better
   half. It is the budget-counted bandit for picking the best arm (simple regret), and needs
   no exploration constant;
4. evaluates the actions of one round on **common worlds**: every surviving action is played
   from a copy of the same sampled world (same hidden cards, same chance stream, same rollout
   random numbers), so the comparison between actions is paired and the noise of the deal
   cancels out of it;
5. plays the survivor. The *favourite* — the seat's scripted default choice, from one
   instance of it kept for the whole game and shown every decision (scripted players
   remember) — is never eliminated and wins ties, so search departs from the default only
   on evidence; where the playouts cannot tell actions apart it plays like the default, not
   like ``legal[0]``.
   With ``z > 0`` the evidence must also be significant: the survivor's mean gain over the
   favourite, paired on the worlds both were played in, must exceed ``z`` standard errors.
   With win/loss playouts, a small budget and many legal actions, the best of many noisy
   means beats the favourite by luck at most decisions (the winner's curse); measured on
   odyssey (``hal_turn_every=2``, 16 scripted playouts to the end per decision) the crew on
   search won 8% of 50 deals at ``z=0`` (the scripted crew: 94% of the same deals) and 90%
   of 100 at ``z=1`` (scripted: 88%); but HAL on search won 34% of 35 deals at ``z=0``
   (scripted HAL: 6%) and only 19% of 100 at ``z=1`` (scripted: 11%). No single ``z`` is
   best: ``0`` (the default) where decisions are few and decisive, ``1`` where a seat has
   many near-equivalent actions per decision.

Value of a playout, for this seat: 1 if its side won (``GameRecord.winner`` equals
``game.side_of_seat(seat)`` or the seat's name), 0.5 for ``"tie"`` or ``"draw"``, 0 for a loss
or a game stopped by the round cap (``""``, not a win). A playout cut after ``depth``
decisions scores 0.5 (unknown outcome), unless the game offers the optional hook
``Game.evaluate(state, seat) -> float`` (a cheap estimate in [0, 1] of the seat's side's
chance to win; not part of the required contract), which then scores it. A neutral value keeps
the comparison between actions fair — cut playouts only add noise, equal for every action of a
paired world — but carries no signal: where wins are too rare to be seen within the playouts,
search can only play like its favourite (below). ``depth=0`` plays every playout to the end.

Where the budget goes. A turn made of many small decisions (move, then each action, then end
turn) makes search costly, so the budget is spent only where a decision exists:

* the game loop (:func:`~balancelab.simulate.play.play`) never asks a seat with one legal
  action, so those cost nothing;
* inside a playout, only decisions with more than one legal action count toward ``depth``;
* with ``k`` legal actions, sequential halving spends about ``rollouts`` playouts in all, not
  ``rollouts`` per action, and drops the clearly worse actions after a few worlds.

Rollout policies (``rollout=``): ``random`` (uniform over the legal actions, from a block of
pre-drawn uniforms; the fastest) or ``default`` (the game's scripted default policy for every
seat, as named by ``Game.default_policies``; slower per step but much more informed). Which
pays depends on the game; see the README ladder. Measured: ``default`` pays wherever random
play is far from real play — on iss (2 players, mirrored seats against ``builder``) search
with 50 random playouts scored 0.38–0.56, with 10 scripted playouts cut at depth 10 and
scored by ``IssGame.evaluate`` 0.94; on odyssey a random crew never wins, so random playouts
give the crew no signal at all.

Reproducibility: every random number (world sampling, rollout choices, the scripted rollout
policies' streams) derives from the seat's own Generator, drawn in a fixed order, so a game is
a pure function of its seed.

Budgets are counted in playouts, never in seconds, so results do not depend on machine load.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import numpy as np
from mypy_extensions import mypyc_attr

from balancelab.policies import base
from balancelab.policies.base import Param, Policy, PolicyError, RngSource, register
from balancelab.simulate.core import Action, Game, State, View
from balancelab.simulate.options import RuleOptions
from balancelab.simulate.seeding import FixedSeed, seeded_generator

#: Uniforms drawn per refill of a world's rollout random numbers.
_BLOCK = 512
#: Winner values that share the win.
_SHARED = ("tie", "draw")


def seat_value(s: State, finished: bool, evaluate: Callable[[State, int], float | None],
               seat: int, side: str, seat_name: str) -> float:
    """A playout's value for ``seat`` in [0, 1]: 1 a win of its side or seat, 0.5 a shared
    result, 0 a loss; a playout cut before the end (``finished`` False) is scored by the
    game's ``evaluate`` estimate, clipped to [0, 1] (0.5 when the game has none)."""
    if not finished:
        estimate = evaluate(s, seat)
        return 0.5 if estimate is None else min(1.0, max(0.0, float(estimate)))
    winner = s.result().winner
    if winner == side or winner == seat_name:
        return 1.0
    if winner in _SHARED:
        return 0.5
    return 0.0


#: The most playouts (``search``) or iterations (``ismcts``) one decision may spend: a larger
#: budget would not finish a game in any useful time, so a spec asking for it is refused
#: before the run starts (issue 30: ``rollouts=99999999999999999999999`` never finished).
MAX_BUDGET = 100_000
#: The deepest playout a search policy may ask for (decisions after the candidate action).
MAX_DEPTH = 10_000

#: Policy names that would recurse if used as a rollout, opponent or favourite policy.
SEARCHERS = ("search", "ismcts", "oracle")

RolloutFn: TypeAlias = Callable[[State, int], float]


@mypyc_attr(allow_interpreted_subclasses=True)  # plug-ins (and tests) subclass it
class SearchPolicy(Policy):
    """Determinized flat Monte Carlo with sequential halving over paired worlds.

    Parameters (spec ``search:rollouts=400,depth=40,rollout=default``):
        rollouts: playouts per decision (the budget; >= 1).
        depth: decisions (with more than one legal action) per playout after the candidate
            action; a playout cut there scores 0.5. ``0`` plays to the end.
        rollout: ``random`` or ``default`` (the game's scripted default policies).
        opponents: ``same`` (other sides play the rollout policy too) or ``random`` (other
            sides play uniformly at random in playouts: an optimistic model that makes wins
            visible where the scripted opponent almost never loses).
        z: evidence needed to depart from the favourite: the chosen action's mean paired gain
            over the favourite (on the worlds both were played in) must exceed ``z`` standard
            errors (needs >= 2 common worlds). ``0`` departs on any positive gain.
        belief: how worlds deal what the seat cannot see: one of the game's ``beliefs``
            (``uniform``: at random; 2001's crew also ``hal-model``, HAL's hand weighted by
            its public plays: :mod:`balancelab.policies.odyssey.belief`).

    Raises:
        PolicyError: a bad parameter value (at construction).
        NotImplementedError: the game offers no ``determinize`` (at the first decision).
        RuntimeError: ``determinize`` returned a world in which this seat is not to move (an
            engine bug). A world whose legal actions differ from the real ones is not an
            error: that decision falls back to the scripted default (counted in ``fallbacks``).
    """

    name = "search"
    params = {"rollouts": Param(200, low=1, high=MAX_BUDGET, help="playouts per decision"),
              "depth": Param(40, low=0, high=MAX_DEPTH,
                             help="decisions per playout after the candidate (0: to the end)"),
              "rollout": "random", "opponents": "same", "z": 0.0, "belief": "uniform"}

    def __init__(
        self,
        game: Game,
        options: RuleOptions,
        seat: int,
        rng: RngSource,
        **params: Any,
    ) -> None:
        super().__init__(game, options, seat, rng, **params)
        self.rollouts = int_param("search", self.cfg, "rollouts", low=1)
        self.depth = int_param("search", self.cfg, "depth", low=0)
        self._settled: Callable[[State], bool] = game.settled
        self.rollout = choice_param("search", self.cfg, "rollout", ("random", "default"))
        self.z = number_param("search", self.cfg, "z")
        self.opponents = choice_param("search", self.cfg, "opponents", ("same", "random"))
        self._determinize = determinizer("search", game, self.cfg)
        self.side = game.side_of_seat(options, seat)
        self.seat_name = game.seats(options)[seat]
        self._n_seats = len(game.seats(options))
        self._default_factories: list[Callable[..., Policy]] | None = None
        self._evaluate: Callable[[State, int], float | None] = game.evaluate
        #: This seat's scripted default, one instance for the whole game: its choice is the
        #: favourite (a fresh one at each decision stalled the Obcy expedition: 82 of 82
        #: games at the round cap; see :func:`scripted_shadow`).
        self._shadow = scripted_shadow(game, options, seat, self.rng)
        #: Playouts made by this policy so far (for benchmarks).
        self.playouts = 0
        #: Decisions left to the scripted default because a sampled world's legal actions
        #: differed from the real ones (the view lacks something the legal actions show,
        #: e.g. a pile the seat is looking through).
        self.fallbacks = 0

    # -- the decision ------------------------------------------------------------------------

    def act(self, view: View, legal: Sequence[Action]) -> Action:
        """Choose one of ``legal`` by sequential halving over sampled worlds.

        The scripted default's choice for this seat (the *favourite*) is never eliminated
        and wins ties, so search departs from the default only on evidence: where playouts
        cannot tell the actions apart (a decision that does not matter, or a win too rare to
        be seen) it plays like the default, not like the first legal action.

        Args:
            view: this seat's view (the only information read).
            legal: the legal actions (non-empty).

        Returns:
            The action with the best mean playout value among the survivors.
        """
        k = len(legal)
        if k == 1:
            return legal[0]
        fav = self._favourite(view, legal)
        prio = [0 if legal[i] == fav else i + 1 for i in range(k)]
        fav_i = prio.index(0) if fav is not None and 0 in prio else None
        alive = list(range(k))
        total = [0.0] * k
        count = [0] * k
        value = [0.0] * k
        dsum = [0.0] * k
        dsq = [0.0] * k
        rounds = max(1, math.ceil(math.log2(k)))
        per_round = self.rollouts / rounds
        for r in range(rounds):
            if len(alive) == 1:
                break
            worlds = max(1, int(per_round // len(alive)))
            for _ in range(worlds):
                sampled = self._sample_world(view, legal)
                if sampled is None:
                    self.fallbacks += 1
                    return fav if fav is not None else legal[0]
                world, uniforms = sampled
                for i in alive:
                    s = world.copy()
                    s._apply(legal[i])
                    value[i] = self._playout(s, uniforms)
                    total[i] += value[i]
                    count[i] += 1
                if fav_i is not None:  # paired gains over the favourite, same world
                    vf = value[fav_i]
                    for i in alive:
                        d = value[i] - vf
                        dsum[i] += d
                        dsq[i] += d * d
            if r == rounds - 1:
                break
            keep = math.ceil(len(alive) / 2)
            alive = sorted(alive, key=lambda i: (-total[i] / count[i], prio[i]))[:keep]
            if fav_i is not None and fav_i not in alive:
                alive.append(fav_i)
        best = max(alive, key=lambda i: (total[i] / count[i], -prio[i]))
        if self.z > 0.0 and fav_i is not None and best != fav_i and not self._convincing(
            dsum[best], dsq[best], count[best]
        ):
            return legal[fav_i]
        return legal[best]

    def _convincing(self, dsum: float, dsq: float, m: int) -> bool:
        """Whether a paired mean gain over the favourite (sum ``dsum``, sum of squares
        ``dsq`` over ``m`` common worlds) exceeds ``z`` standard errors (``z > 0``)."""
        if dsum <= 0.0 or m < 2:
            return False
        mean = dsum / m
        var = max(0.0, (dsq - m * mean * mean) / (m - 1))
        return mean * math.sqrt(m) > self.z * math.sqrt(var)

    def _favourite(self, view: View, legal: Sequence[Action]) -> Action | None:
        """The scripted default's choice for this seat (:attr:`_shadow`, which sees every
        decision), or None when the seat's default is not a scripted policy."""
        if self._shadow is None:
            return None
        a = self._shadow.act(view, legal)
        return a if a in legal else None

    # -- worlds and playouts -----------------------------------------------------------------

    def _sample_world(
        self, view: View, legal: Sequence[Action]
    ) -> tuple[State, _Uniforms] | None:
        """One world consistent with ``view``, and the rollout random numbers shared by its
        candidate actions (common random numbers); None when the world's legal actions differ
        from the real ones."""
        # the two children of SeedSequence(entropy).spawn(2): the world, the rollouts
        entropy = int(self.rng.integers(2**63))
        world = self._determinize(view, seeded_generator(entropy, (0,)))
        if world.current_seat != self.seat:
            raise RuntimeError(
                f"{self.game.name}.determinize gave a world where seat {world.current_seat} "
                f"moves, but seat {self.seat} is to decide"
            )
        wlegal = world.legal_actions()
        if len(wlegal) != len(legal) or any(a not in wlegal for a in legal):
            return None
        return world, _Uniforms(seeded_generator(entropy, (1,)))

    def _playout(self, s: State, uniforms: _Uniforms) -> float:
        self.playouts += 1
        if self.rollout == "random":
            finished = self._random_playout(s, uniforms)
        else:
            finished = self._default_playout(s, uniforms)
        return seat_value(s, finished, self._evaluate, self.seat, self.side, self.seat_name)

    def _random_playout(self, s: State, uniforms: _Uniforms) -> bool:
        """Uniform playout; True if the game ended, False if cut at ``depth``."""
        depth = self.depth or -1
        u = uniforms.values
        j = 0
        # the hot loop: bound methods in locals (same choices as the plain loop)
        is_terminal, legal_actions, apply = s.is_terminal, s.legal_actions, s._apply
        settled = self._settled
        while not is_terminal():
            legal = legal_actions()
            n = len(legal)
            if n == 1:
                apply(legal[0])
                continue
            if j >= depth >= 0 and settled(s):
                return False
            if j == len(u):
                uniforms.extend()
            apply(legal[int(u[j] * n)])
            j += 1
        return True

    def _default_playout(self, s: State, uniforms: _Uniforms) -> bool:
        """Playout with the game's scripted default policy at every seat."""
        depth = self.depth or -1
        seeds = uniforms.seeds(self._n_seats)
        factories = self._defaults()
        # each player's Generator made only if it draws (scripted players rarely do)
        pols = [f(self.game, self.options, k, _seeded(seeds[k])) for k, f in enumerate(factories)]
        steps = 0
        while not s.is_terminal():
            legal = s.legal_actions()
            if len(legal) == 1:
                s._apply(legal[0])
                continue
            if steps >= depth >= 0 and self._settled(s):
                return False
            steps += 1
            seat = s.current_seat
            a = pols[seat].act(s.view(seat), legal)
            s._apply(a)
        return True

    def _defaults(self) -> list[Callable[..., Policy]]:
        """The factory of each seat's scripted default policy (random where the default is a
        searcher, to avoid recursion)."""
        if self._default_factories is None:
            out: list[Callable[..., Policy]] = []
            for k in range(self._n_seats):
                side = self.game.side_of_seat(self.options, k)
                name = self.game.default_policies.get(side, "random")
                if self.opponents == "random" and side != self.side:
                    name = "random"
                out.append(scripted_factory(self.game.name, side, name))
            self._default_factories = out
        return self._default_factories


def _seeded(seed: int) -> FixedSeed:
    """A function making the Generator of ``seed`` (a :class:`FixedSeed`)."""
    return FixedSeed(seed)


class _Uniforms:
    """A growing list of uniforms in [0, 1) from one Generator, shared by the playouts of the
    candidate actions of one world so that they see the same random numbers."""

    __slots__ = ("rng", "values", "_seeds")

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.values: list[float] = []
        self._seeds: list[int] | None = None

    def extend(self) -> None:
        self.values.extend(self.rng.random(_BLOCK).tolist())

    def seeds(self, n: int) -> list[int]:
        """``n`` seeds for the rollout policies' Generators (the same for every action)."""
        if self._seeds is None:
            self._seeds = [int(x) for x in self.rng.integers(2**63, size=n)]
        return self._seeds


def scripted_factory(game: str, side: str, name: str) -> Callable[..., Policy]:
    """The registered factory of policy ``name`` for ``side`` of ``game``; the random policy
    when the name is a searcher or is not registered for that side. The policy plug-ins are
    loaded first when the name is not registered yet (a search run from the library, before
    anything else loaded them, would otherwise roll out at random in silence)."""
    if name in SEARCHERS:
        return base.RandomPolicy
    for attempt in range(2):
        for e in base._REGISTRY.get(name, []):
            if (e.games is None or game in e.games) and (e.sides is None or side in e.sides):
                return e.factory
        if attempt == 0:
            base.load_plugins()
    return base.RandomPolicy


def scripted_shadow(game: Game, options: RuleOptions, seat: int,
                    rng: np.random.Generator) -> Policy | None:
    """One instance of ``seat``'s scripted default policy, for a searcher to keep for the
    whole game and show every decision of its seat (its choice is the searcher's favourite),
    or None when the default is not scripted. Scripted players remember (Obcy's expedition
    marks characters done for the round), so a fresh one each decision forgets; but it
    remembers what it *chose*, not what the searcher played instead, until its next re-plan.
    Its Generator is drawn from ``rng`` only if it ever draws (scripted players rarely do)."""
    side = game.side_of_seat(options, seat)
    f = scripted_factory(game.name, side, game.default_policies.get(side, "random"))
    if f is base.RandomPolicy:
        return None
    return f(game, options, seat, lambda: seeded_generator(int(rng.integers(2**63))))


def int_param(policy: str, cfg: dict[str, Any], key: str, low: int) -> int:
    """``cfg[key]``, an integer >= ``low`` (a search policy's parameter).

    Raises:
        PolicyError: not an integer, or below ``low``.
    """
    v = cfg[key]
    if isinstance(v, bool) or not isinstance(v, int) or v < low:
        raise PolicyError(f"{policy}: {key} must be an integer >= {low}; got {v!r}")
    return v


def determinizer(policy: str, game: Game, cfg: dict[str, Any]) -> Callable[[View, Any], State]:
    """The world sampler of a search policy: ``game.determinize`` with the policy's
    ``belief`` (one of ``game.beliefs``; ``uniform``, every game's first, passes none). It
    takes a Generator, or a :class:`~balancelab.simulate.seeding.PcgStream` where the game
    says its ``determinize_streams``.

    Raises:
        PolicyError: a game that does not re-deal what a seat cannot see (no
            ``Game.determinize``: only ``oracle``, which plays the true state, can search it),
            or a belief the game does not offer (the message names those it does).
    """
    if policy != "oracle" and type(game).determinize is Game.determinize:
        raise PolicyError(f"{policy} needs a game that re-deals what a seat cannot see "
                          f"(Game.determinize); {game.name} does not (see docs/plugins.md)")
    belief = choice_param(policy, cfg, "belief", game.beliefs)
    if belief == game.beliefs[0]:
        return game.determinize
    return functools.partial(game.determinize, belief=belief)  # type: ignore[call-arg]


def choice_param(policy: str, cfg: dict[str, Any], key: str, choices: tuple[str, ...]) -> str:
    """``cfg[key]``, one of ``choices`` (a search policy's parameter).

    Raises:
        PolicyError: not one of them (the message names them).
    """
    v = str(cfg[key])
    if v not in choices:
        raise PolicyError(f"{policy}: {key} must be one of {', '.join(choices)}; got {v!r}")
    return v


def number_param(policy: str, cfg: dict[str, Any], key: str) -> float:
    """``cfg[key]``, a finite number >= 0, as a float (a search policy's parameter).

    Raises:
        PolicyError: not a number, negative or infinite.
    """
    v = cfg[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v < math.inf:
        raise PolicyError(f"{policy}: {key} must be a number >= 0; got {v!r}")
    return float(v)


register(
    "search",
    SearchPolicy,
    help="determinized flat Monte Carlo (sequential halving, paired worlds); "
    "params rollouts (per decision), depth (decisions per playout, 0 = to the end), "
    "rollout=random|default, opponents=same|random, z (evidence to leave the scripted choice), "
    "belief (how worlds deal hidden cards: uniform, or the game's model, e.g. 2001's hal-model)",
)
