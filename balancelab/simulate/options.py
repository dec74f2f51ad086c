"""Rule options: one frozen dataclass per game, shared parsing, validation and labels.

Every game declares its options as a frozen dataclass deriving from :class:`RuleOptions`, with
each field made by :func:`option`. A field records where its default comes from
(``"rulebook: <section>"``, ``"assumed: <reason>"`` or ``"what-if: <meaning>"``), its allowed
values (``choices``) or range (``low``/``high``), and a help line. From that one declaration the
package derives the CLI flags (``--hal-extra-turns 1``, ``--set key=value``), validation with
clear errors, the canonical variant label (``crew=3,hal_extra_turns=1``) and the parquet option
columns.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping
from typing import Any, ClassVar, Self


class OptionError(ValueError):
    """A rule option has an unknown name or a value outside its allowed set or range."""


def option(
    default: Any,
    *,
    source: str,
    help: str,
    choices: tuple[Any, ...] | None = None,
    low: float | None = None,
    high: float | None = None,
    key: bool = False,
    data: str = "",
    late: bool = False,
) -> Any:
    """Declare one rule option (a dataclass field with balancelab metadata).

    Args:
        default: the rulebook's value, or our assumption where the rulebook is silent.
        source: ``"rulebook: <section>"``, ``"assumed: <reason>"`` or ``"what-if: <meaning>"``.
        help: one line for ``balancelab games`` and ``--help``.
        choices: the allowed values, if a closed set.
        low, high: inclusive bounds for a number.
        key: True for the options that answer a game's key question; they always appear in the
            variant label, even at their default.
        data: ``"file"`` or ``"dir"`` for an option naming a user's data file or directory
            (a board, card tables): its content's hash enters the run's identity and manifest
            (:meth:`RuleOptions.data_paths`), so an edited file is never mixed into a run.
        late: True for an option added after runs were written: at its default it stays out
            of a run's identity (:meth:`RuleOptions.identity_dict`), so those runs still
            read and resume.
    """
    if data not in ("", "file", "dir"):
        raise ValueError(f"option data kind must be '', 'file' or 'dir'; got {data!r}")
    meta = {
        "source": source,
        "help": help,
        "choices": choices,
        "low": low,
        "high": high,
        "key": key,
        "data": data,
        "late": late,
    }
    if isinstance(default, (list, dict, set)):
        raise TypeError("rule option defaults must be immutable (use a tuple)")
    return dataclasses.field(default=default, metadata=meta)


@dataclasses.dataclass(frozen=True)
class RuleOptions:
    """Base class of every game's options.

    Subclasses are frozen dataclasses whose fields are made with :func:`option`. Instances are
    validated on construction: an unknown name or a bad value raises :class:`OptionError` whose
    message names the valid choices or the allowed range.
    """

    GAME: ClassVar[str] = ""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = _check_type(self.GAME, f, getattr(self, f.name))
            if value is not getattr(self, f.name):
                object.__setattr__(self, f.name, value)
            _check_value(self.GAME, f, value)
        self.check()

    def check(self) -> None:
        """Cross-field validation; subclasses override. Raises :class:`OptionError`."""

    # -- construction ----------------------------------------------------------------------
    @classmethod
    def specs(cls) -> list[dataclasses.Field[Any]]:
        """The option fields in declaration order."""
        return list(dataclasses.fields(cls))

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in dataclasses.fields(cls)]

    @classmethod
    def from_strings(cls, values: Mapping[str, Any]) -> Self:
        """Build options from names (``hal_extra_turns`` or ``hal-extra-turns``) and values.

        Values may be strings (as typed on the command line) or already typed.

        Raises:
            OptionError: an unknown option (the message lists the valid ones) or a bad value.
        """
        kwargs = {f.name: parse_value(cls.GAME, f, raw) for f, raw in cls._named(values)}
        return cls(**kwargs)

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> Self:
        """Build options from names and typed values (the Python API): a string is the value
        of a text option only, never parsed (``crew='3'`` is refused: crew takes an integer);
        a list is taken as a tuple.

        Raises:
            OptionError: an unknown option (the message lists the valid ones), a value of the
                wrong type or a bad value.
        """
        kwargs = {f.name: tuple(raw) if isinstance(raw, list) else raw
                  for f, raw in cls._named(values)}
        return cls(**kwargs)

    @classmethod
    def _named(cls, values: Mapping[str, Any]) -> list[tuple[dataclasses.Field[Any], Any]]:
        """Each (field, value) of ``values``, whose names may use ``-`` for ``_``.

        Raises:
            OptionError: an unknown option (the message lists the valid ones).
        """
        by_name = {f.name: f for f in dataclasses.fields(cls)}
        out = []
        for raw_name, raw in values.items():
            name = str(raw_name).replace("-", "_")
            if name not in by_name:
                close = difflib.get_close_matches(name, list(by_name), n=3)
                if close:
                    hint = (f"did you mean {' or '.join(close)}? (balancelab games {cls.GAME} "
                            "lists them all)")
                elif len(by_name) <= 12:
                    hint = f"valid options: {', '.join(sorted(by_name))}"
                else:
                    hint = f"balancelab games {cls.GAME} lists its {len(by_name)} rule options"
                raise OptionError(f"unknown option {raw_name!r} for game {cls.GAME!r}; {hint}")
            out.append((by_name[name], raw))
        return out

    def replace(self, **changes: Any) -> Self:
        """A copy with some options changed (validated)."""
        return self.from_strings({**self.as_dict(), **changes})

    # -- presentation ----------------------------------------------------------------------
    def as_dict(self) -> dict[str, Any]:
        """Every option as ``{name: value}`` (tuples kept as tuples)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def identity_dict(self) -> dict[str, Any]:
        """:meth:`as_dict` without the options declared ``late`` that are at their default:
        what enters a run's identity (a run written before such an option existed keeps its
        identity)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if not (f.metadata.get("late") and getattr(self, f.name) == f.default)}

    def data_paths(self) -> dict[str, tuple[str, str]]:
        """The data files this variant reads: option name → (``"file"``/``"dir"``, path), for
        the options declared with ``data=`` and set (non-empty)."""
        out = {}
        for f in dataclasses.fields(self):
            kind = f.metadata.get("data", "")
            value = getattr(self, f.name)
            if kind and value:
                out[f.name] = (kind, str(value))
        return out

    def columns(self) -> dict[str, Any]:
        """Flat parquet columns: tuples become comma-joined strings."""
        return {k: _flat(v) for k, v in self.as_dict().items()}

    def changed(self) -> dict[str, Any]:
        """The options that differ from their defaults."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != f.default
        }

    def label(self) -> str:
        """Canonical variant label: key options always, other options where changed.

        Example: ``crew=3,hal_extra_turns=1``.
        """
        parts = []
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.metadata.get("key") or v != f.default:
                parts.append(f"{f.name}={format_value(v)}")
        return ",".join(parts) or "default"


def format_value(v: Any) -> str:
    """How a value is written in labels, tables and on the command line: ``true``/``false``,
    a tuple (or a JSON list, as manifests hold it) joined by ``/``."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (tuple, list)):
        return "/".join(format_value(x) for x in v)
    return str(v)


def _flat(v: Any) -> Any:
    if isinstance(v, tuple):
        return format_value(v)
    return v


def _base_type(f: dataclasses.Field[Any]) -> Any:
    t = f.type
    if isinstance(t, str):
        t = {"int": int, "float": float, "bool": bool, "str": str}.get(t, t)
    return t


def _check_type(game: str, f: dataclasses.Field[Any], v: Any) -> Any:
    """``v`` as the option's declared type, exactly: a numpy integer becomes an ``int``, an
    ``int`` a ``float`` for a number option; anything else of the wrong type (``3.0`` or
    ``True`` for an integer, a string for a number) is refused, never truncated.

    Raises:
        OptionError: naming the option, what it takes and what was given.
    """
    t = _base_type(f)
    name = getattr(t, "__name__", str(t))
    if name.startswith("tuple"):
        if not isinstance(v, tuple):
            raise _type_error(game, f, v)
        inner = int if "int" in name else (float if "float" in name else str)
        return tuple(_scalar(game, f, x, inner, v) for x in v)
    scalar = {"int": int, "float": float, "bool": bool, "str": str}.get(name)
    if scalar is None:
        return v
    return _scalar(game, f, v, scalar, v)


def _scalar(game: str, f: dataclasses.Field[Any], x: Any, kind: type, whole: Any) -> Any:
    import numbers

    if kind is bool:
        if type(x) is bool:
            return x
        if type(x).__name__ == "bool_":  # numpy.bool_
            return bool(x)
        raise _type_error(game, f, whole)
    if kind is int:
        if isinstance(x, bool) or type(x).__name__ == "bool_":
            raise _type_error(game, f, whole)
        if type(x) is int:
            return x
        if isinstance(x, numbers.Integral):  # numpy integers
            return int(x)
        raise _type_error(game, f, whole)
    if kind is float:
        if isinstance(x, bool) or type(x).__name__ == "bool_":
            raise _type_error(game, f, whole)
        if isinstance(x, (numbers.Integral, numbers.Real)):
            out = float(x)
            if out != out or out in (float("inf"), float("-inf")):
                raise _type_error(game, f, whole)
            return out
        raise _type_error(game, f, whole)
    if type(x) is str:
        return x
    raise _type_error(game, f, whole)


def _type_error(game: str, f: dataclasses.Field[Any], v: Any) -> OptionError:
    shown = format_value(v) if isinstance(v, (bool, int, float, tuple)) else repr(v)
    m = f.metadata
    allowed = ""
    if m.get("choices") is not None:
        allowed = " (one of " + ", ".join(format_value(c) for c in m["choices"]) + ")"
    elif m.get("low") is not None or m.get("high") is not None:
        lo = "-inf" if m.get("low") is None else format_value(m["low"])
        hi = "inf" if m.get("high") is None else format_value(m["high"])
        allowed = f" in [{lo}, {hi}]"
    return OptionError(
        f"option {f.name!r} of game {game!r} takes {_article(_type_name(f))}{allowed}; "
        f"got {shown} ({type(v).__name__})"
    )


def parse_value(game: str, f: dataclasses.Field[Any], raw: Any) -> Any:
    """Turn a command-line string into the option's type.

    Raises:
        OptionError: the string does not parse as the option's type.
    """
    if not isinstance(raw, str):
        return raw
    t = _base_type(f)
    s = raw.strip()
    try:
        if t is bool or t == "bool":
            low = s.lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise ValueError(s)
        if t is int or t == "int":
            return int(s)
        if t is float or t == "float":
            return float(s)
        if isinstance(t, str) and t.startswith("tuple"):
            parts = [p for p in s.replace("/", ",").split(",") if p]
            inner = int if "int" in t else (float if "float" in t else str)
            return tuple(inner(p) for p in parts)
    except ValueError:
        raise OptionError(
            f"option {f.name!r} of game {game!r} takes {_article(_type_name(f))}, got {raw!r}"
        ) from None
    return s


def _type_name(f: dataclasses.Field[Any]) -> str:
    """The option's type in words: ``integer``, ``comma-separated integers``."""
    t = _base_type(f)
    name = getattr(t, "__name__", str(t))
    if name.startswith("tuple"):
        inner = "integers" if "int" in name else ("numbers" if "float" in name else "values")
        return f"comma-separated {inner}"
    return {"int": "integer", "float": "number", "bool": "true/false", "str": "text"}.get(
        name, name)


def _article(words: str) -> str:
    if words.startswith("comma"):
        return words
    return ("an " if words[0] in "aeiou" else "a ") + words


def _check_value(game: str, f: dataclasses.Field[Any], v: Any) -> None:
    meta = f.metadata
    choices = meta.get("choices")
    if choices is not None and v not in choices:
        allowed = ", ".join(format_value(c) for c in choices)
        raise OptionError(
            f"option {f.name!r} of game {game!r} must be one of {allowed}; got {format_value(v)}"
        )
    low, high = meta.get("low"), meta.get("high")
    values = v if isinstance(v, tuple) else (v,)
    for x in values:
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            continue
        if (low is not None and x < low) or (high is not None and x > high):
            lo = "-inf" if low is None else format_value(low)
            hi = "inf" if high is None else format_value(high)
            raise OptionError(
                f"option {f.name!r} of game {game!r} must be in [{lo}, {hi}]; "
                f"got {format_value(v)}"
            )


def describe(cls: type[RuleOptions]) -> list[dict[str, Any]]:
    """One dict per option: name, default, allowed values, source, help (for ``games``)."""
    out = []
    for f in dataclasses.fields(cls):
        m = f.metadata
        if m.get("choices") is not None:
            allowed = ", ".join(format_value(c) for c in m["choices"])
        elif m.get("low") is not None or m.get("high") is not None:
            lo = "" if m.get("low") is None else format_value(m["low"])
            hi = "" if m.get("high") is None else format_value(m["high"])
            allowed = f"{lo}..{hi}"
        else:
            allowed = _type_name(f)
        out.append(
            {
                "name": f.name,
                "default": format_value(f.default),
                "allowed": allowed,
                "source": m.get("source", ""),
                "help": m.get("help", ""),
            }
        )
    return out

