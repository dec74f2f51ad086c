"""One strict, library-backed schema convention for every file balancelab reads.

The data files of all three games (the Discovery Board, the ISS card tables, the Obcy
characters, items, missions and combat table) and a run folder's ``run.json`` are each declared
as pydantic (v2) models deriving from :class:`Strict`: every key typed, unknown keys refused,
no silent coercion (``draw = "one"`` is an error, not ``int("one")``; ``3.0`` is not an
integer). :func:`validate` turns pydantic's report into ONE line naming the file, the key (its
path in the file, ``spaces[3].picturefone``), what was expected and what was given, the
allowed keys, and "did you mean" for a misspelt key.

Why pydantic: it is already installed here and well kept, validates nested TOML/JSON tables
against plain type annotations (``list[Space]``, ``Literal["GRV", ...]``), reports every
error with its location, type and input (what the one-line message needs), and gives the
allowed keys of each model (``model_fields``) for "did you mean". msgspec is faster but its
errors carry only a message string (no structured location or allowed keys); attrs needs
cattrs for nested structures and has no unknown-key errors of its own.
"""

from __future__ import annotations

import difflib
import tomllib
import types
import typing
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from balancelab.simulate.errors import DataError

__all__ = ["DataError", "Strict", "validate", "load_toml", "explain"]

M = TypeVar("M", bound=BaseModel)


class Strict(BaseModel):
    """Base of every file schema: typed keys, unknown keys refused, no coercion."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


def validate(model: type[M], data: Any, where: str | Path) -> M:
    """``data`` (parsed TOML or JSON) as ``model``.

    Raises:
        DataError: one line naming ``where``, the key, expected type, given value and (for
            an unknown or missing key) the allowed keys with "did you mean".
    """
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise DataError(explain(model, exc, str(where))) from None


def load_toml(path: Path, model: type[M], where: str | None = None) -> M:
    """Read and validate a TOML file.

    Raises:
        DataError: the file is missing, unreadable, not TOML, or does not match ``model``.
    """
    name = where or str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(f"{name}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{name}: cannot read it ({exc.__class__.__name__}: "
                        f"{getattr(exc, 'strerror', None) or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise DataError(f"{name}: not valid TOML ({exc})") from None
    return validate(model, data, name)


def explain(model: type[BaseModel], exc: ValidationError, where: str) -> str:
    """The first error of a pydantic ValidationError as one line (see :func:`validate`)."""
    errors = exc.errors(include_url=False)
    # a misspelt key is both unknown and (its right spelling) missing: name the misspelling
    extra = [x for x in errors if x.get("type") == "extra_forbidden"]
    e = extra[0] if extra else errors[0]
    loc = tuple(e.get("loc", ()))
    kind = str(e.get("type", ""))
    key = _loc_text(loc)
    if kind == "extra_forbidden" and loc:
        allowed = _allowed_keys(model, loc[:-1])
        close = difflib.get_close_matches(str(loc[-1]), allowed, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}? " if close else ""
        return (f"{where}: unknown key {key!r}; {hint}allowed keys"
                f"{_in(loc[:-1])}: {', '.join(allowed)}")
    if kind == "missing" and loc:
        allowed = _allowed_keys(model, loc[:-1])
        return (f"{where}: missing key {key!r}; keys{_in(loc[:-1])}: "
                f"{', '.join(allowed)}")
    msg = str(e.get("msg", "is invalid"))
    msg = msg[0].lower() + msg[1:] if msg else msg
    msg = msg.replace("input should be", "should be").replace("Input should be", "should be")
    given = e.get("input")
    shown = repr(given) if not isinstance(given, (dict, list)) else type(given).__name__
    if not loc:
        return f"{where}: {msg}; got {shown}"
    return f"{where}: key {key!r} {msg}; got {shown}"


def _in(loc: tuple[Any, ...]) -> str:
    return f" of {_loc_text(loc)}" if loc else ""


def _loc_text(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _allowed_keys(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The keys of the (sub-)model at ``loc`` (list indices and dict keys followed)."""
    t: Any = model
    for part in loc:
        t = _step(t, part)
        if t is None:
            return []
    m = _model(t)
    return [] if m is None else [f.alias or n for n, f in m.model_fields.items()]


def _model(t: Any) -> type[BaseModel] | None:
    """``t`` (unwrapped from ``X | None``) when it is a pydantic model class, else None. (Typed
    so that mypy without pydantic installed, as in pip's isolated build, accepts it too.)"""
    t = _unwrap(t)
    return t if isinstance(t, type) and issubclass(t, BaseModel) else None


def _unwrap(t: Any) -> Any:
    origin = typing.get_origin(t)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(t) if a is not type(None)]
        return _unwrap(args[0]) if len(args) == 1 else t
    return t


def _step(t: Any, part: Any) -> Any:
    m = _model(t)
    if m is not None:
        f = m.model_fields.get(str(part))
        return None if f is None else f.annotation
    t = _unwrap(t)
    origin = typing.get_origin(t)
    args = typing.get_args(t)
    if origin in (list, tuple) and args:
        return args[0]
    if origin is dict and len(args) == 2:
        return args[1]
    return None


def close_key(name: str, allowed: list[str]) -> str:
    """`` did you mean 'x'?`` for a near miss, else ``""``."""
    close = difflib.get_close_matches(name, allowed, n=1, cutoff=0.6)
    return f" did you mean {close[0]!r}?" if close else ""
