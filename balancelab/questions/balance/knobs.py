"""What a balance question moves and aims at: knobs (a rule option with an order), targets
(a win rate, equal seats or a measure's mean), the defaults of a balance run and its errors.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from balancelab.simulate.options import OptionError, RuleOptions, format_value, parse_value

MANIFEST = "balance.json"
#: Run seed of the confirmation games = the search seed + this (fresh seeds, never searched).
CONFIRM_SEED_OFFSET = 1_000_003
#: Default precision: ±1.5 percentage points (win-rate units).
PRECISION = 0.015
#: Search games per look at a setting (the first batch), and per optuna trial.
BATCH = 400
#: Looks at one setting during the bisection (batch, 2×batch, 4×batch, ...).
SEARCH_LOOKS = 4
#: Most confirmation games per setting.
CONFIRM_MAX = 200_000
#: Settings confirmed after a several-knob search.
CONFIRM_BEST = 3
#: Trials of a several-knob search.
TRIALS = 24
#: Points of a float knob's ``lo..hi`` grid.
FLOAT_GRID = 11
LEVEL = 0.95


class BalanceError(ValueError):
    """Bad knob or target, or a balance folder that holds another question."""


class Unreachable(BalanceError):  # noqa: N818 - it is a finding, worded for the designer
    """No setting in the knob's range reaches the target (the message names the closest)."""


class Interrupted(RuntimeError):  # noqa: N818
    """Ctrl-C: the finished chunks are kept; the same command continues."""


# -- knobs and targets -------------------------------------------------------------------------


@dataclass(frozen=True)
class Knob:
    """An ordered rule option and the settings to search.

    Attributes:
        name: the option's name.
        values: the settings, in order (ints, floats, bools or strings).
        default: the rulebook's (or the assumed) default.
        source: the option's source (``rulebook: …``, ``assumed: …``, ``what-if: …``).
    """

    name: str
    values: tuple[Any, ...]
    default: Any
    source: str

    @property
    def what_if(self) -> bool:
        return self.source.startswith("what-if")

    def label(self, v: Any) -> str:
        return f"{self.name}={format_value(v)}"

    @property
    def spec(self) -> str:
        """The settings as typed: ``lo..hi`` for a run of consecutive integers, else a list."""
        v = self.values
        if len(v) > 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in v) and \
                list(v) == list(range(v[0], v[-1] + 1)):
            return f"{self.name}={v[0]}..{v[-1]}"
        return f"{self.name}={','.join(format_value(x) for x in v)}"

    def distance(self, v: Any) -> float:
        """How far ``v`` is from the rulebook's setting, in steps of this knob's range."""
        if v == self.default:
            return 0.0
        if numeric(v) and numeric(self.default):
            step = _step(self.values)
            return abs(float(v) - float(self.default)) / step
        if self.default in self.values:
            return float(abs(self.values.index(v) - self.values.index(self.default)))
        return float(len(self.values))


def numeric(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _step(values: Sequence[Any]) -> float:
    nums = sorted(float(x) for x in values)
    gaps = [b - a for a, b in zip(nums, nums[1:], strict=False) if b > a]
    return min(gaps) if gaps else 1.0


def parse_knob(options_type: type[RuleOptions], base: RuleOptions, text: str) -> Knob:
    """``limit_lif=7..14`` or ``crew_talk=none,logic,open`` → a :class:`Knob`.

    Raises:
        BalanceError: no ``=``, an unknown option, an option that is neither numeric nor
            ordered, a reversed or empty range, or a value outside the option's allowed ones.
    """
    name, eq, spec = text.partition("=")
    name = name.strip().replace("-", "_")
    spec = spec.strip()
    if not eq or not name or not spec:
        raise BalanceError(f"--knob takes OPTION=LO..HI or OPTION=V1,V2,…; got {text!r}")
    fields = {f.name: f for f in dataclasses.fields(options_type)}
    if name not in fields:
        try:
            options_type.from_strings({name: "0"})
        except OptionError as exc:
            raise BalanceError(f"unknown knob: {exc}") from None
    f = fields[name]
    default = f.default
    choices = f.metadata.get("choices")
    ordered = isinstance(default, (int, float)) or choices is not None
    if isinstance(default, tuple) or not ordered:
        raise BalanceError(
            f"knob {name!r} is not numeric or ordered (its values are "
            f"{'lists' if isinstance(default, tuple) else 'free text'}); a knob is a number "
            "option (e.g. limit_lif=7..14) or one with a list of allowed values")
    values: list[Any]
    if ".." in spec:
        lo_s, _, hi_s = spec.partition("..")
        try:
            lo, hi = parse_value(options_type.GAME, f, lo_s), parse_value(options_type.GAME, f,
                                                                           hi_s)
        except OptionError as exc:
            raise BalanceError(f"--knob {text}: {exc}") from None
        if isinstance(lo, bool) or not numeric(lo):
            if choices is None:
                raise BalanceError(f"--knob {text}: a range needs numbers")
            i, j = list(choices).index(lo), list(choices).index(hi)
            values = list(choices[i:j + 1])
        elif isinstance(default, float):
            values = [float(x) for x in np.linspace(float(lo), float(hi), FLOAT_GRID)]
        else:
            values = list(range(int(lo), int(hi) + 1))
        if not values or lo > hi:
            raise BalanceError(f"--knob {text}: the range is empty (low above high)")
    else:
        try:
            values = [parse_value(options_type.GAME, f, p) for p in spec.split(",") if p.strip()]
        except OptionError as exc:
            raise BalanceError(f"--knob {text}: {exc}") from None
        if len(set(values)) < len(values):
            raise BalanceError(f"--knob {text}: a value is given twice")
    for v in values:
        try:
            base.replace(**{name: v})
        except OptionError as exc:
            raise BalanceError(f"--knob {text} goes outside the allowed values: {exc}") from None
    return Knob(name, tuple(values), default, str(f.metadata.get("source", "")))


@dataclass(frozen=True)
class Target:
    """What a setting should reach.

    Attributes:
        kind: ``"rate"`` (a contender's win rate), ``"equal"`` (seats=equal) or ``"mean"``.
        name: the contender, ``"seats"``, or the measure.
        value: the target value (a rate in [0, 1], 0 for equal seats, a measure's mean).
        text: as the user wrote it.
    """

    kind: str
    name: str
    value: float
    text: str

    def tolerance(self, precision: float) -> float:
        """The half-width the confirmation must reach: ``precision`` for rates and gaps, a
        fraction ``precision`` of the target for a mean."""
        if self.kind == "mean" and self.value != 0:
            return precision * abs(self.value)
        return precision


def parse_target(game: Any, options: RuleOptions, text: str) -> Target:
    """``crew=0.5``, ``seat0=25%``, ``seats=equal`` or ``turns=40`` → a :class:`Target`.

    Raises:
        BalanceError: no ``=``, an unknown side, seat or measure (the message lists the valid
            ones), a rate outside [0, 1], or ``seats=equal`` for a team game.
    """
    name, eq, val = text.partition("=")
    name, val = name.strip(), val.strip()
    if not eq or not name or not val:
        raise BalanceError(f"--target takes SIDE=RATE, seats=equal or MEASURE=VALUE; got "
                           f"{text!r}")
    seats = list(game.seats(options))
    team = len(game.sides) > 1
    contenders = list(game.sides) if team else seats
    measures = ["rounds", "decisions", *game.measure_schema]
    if name == "seats":
        if val != "equal":
            raise BalanceError(f"--target seats takes 'equal'; got {text!r}")
        if team:
            raise BalanceError(f"seats=equal needs a game whose wins go to seats; in {game.name} "
                               f"they go to sides ({', '.join(game.sides)}): target a side's "
                               "rate, e.g. " + f"{game.sides[-1]}=0.5")
        if len(seats) < 2:
            raise BalanceError("seats=equal needs at least two seats")
        return Target("equal", "seats", 0.0, text)
    try:
        x = float(val[:-1]) / 100 if val.endswith("%") else float(val)
    except ValueError:
        raise BalanceError(f"--target {name} takes a number; got {val!r}") from None
    if name in contenders:
        if not 0.0 <= x <= 1.0:
            raise BalanceError(f"--target {text}: a win rate is in [0, 1] (or 0%..100%)")
        return Target("rate", name, x, text)
    if name in measures:
        return Target("mean", name, x, text)
    raise BalanceError(f"unknown target {name!r}; valid: {', '.join(contenders)} (win rate), "
                       + ("seats=equal, " if not team else "")
                       + f"or a measure's mean: {', '.join(measures)}")


