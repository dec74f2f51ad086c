"""Command-line flags generated from a game's :class:`~balancelab.simulate.options.RuleOptions`.

``balancelab simulate GAME`` is one command per registered game (plug-ins included), built on
first use from the game's option declarations: each option becomes a typed flag with its
range or choices, its default, its help line and source, so that ``--help`` lists them,
click checks the values (its own messages: ``'5' is not one of '2', '3', '4'``), and shell
completion offers the choices. An integer option with choices becomes a choice flag, a number
with ``low``/``high`` a range, a true/false option ``--flag/--no-flag``, a data option a path,
and a list option (``hand_start``) comma-separated values checked against its range.

The command's own options (``--games``, ``--seed``…) come from the signature of the library
function it calls; a rule option whose name clashes with one of them is reachable through
``--set`` only.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from balancelab.simulate.options import (
    OptionError,
    RuleOptions,
    _base_type,
    _check_value,
    format_value,
    parse_value,
)

#: The help panel of the generated rule-option flags.
RULE_PANEL = "Rule options (default: the rulebook's)"


def flag(name: str) -> str:
    """The flag of an option name: ``hal_extra_turns`` → ``--hal-extra-turns``."""
    return "--" + name.replace("_", "-")


def _help(f: dataclasses.Field[Any]) -> str:
    m = f.metadata
    return f"{m.get('help', '')} [{m.get('source', '')}]".replace("[", "\\[")


def rule_parameter(game: str, f: dataclasses.Field[Any]) -> tuple[Any, Callable[[Any], Any]]:
    """The typer annotation of one rule option's flag, and how its parsed value becomes the
    option's value (for :meth:`RuleOptions.from_strings`)."""
    m = f.metadata
    t = _base_type(f)
    name = getattr(t, "__name__", str(t))
    common: dict[str, Any] = {"help": _help(f), "rich_help_panel": RULE_PANEL,
                              "show_default": format_value(f.default)}
    choices = m.get("choices")
    if choices is not None:
        values = {format_value(c): format_value(c) for c in choices}
        kind: Any = enum.Enum(f"{game}_{f.name}", values)  # type: ignore[misc]
        return (Annotated[kind | None, typer.Option(flag(f.name), **common)],
                lambda v: v.value)
    if t is bool or name == "bool":
        return (Annotated[bool | None, typer.Option(
            f"{flag(f.name)}/--no-{flag(f.name)[2:]}", **common)], lambda v: v)
    if m.get("data") in ("file", "dir"):
        file = m["data"] == "file"
        return (Annotated[Path | None, typer.Option(
            flag(f.name), file_okay=file, dir_okay=not file, metavar=m["data"].upper(),
            **{**common, "show_default": format_value(f.default) or "none"})], str)
    bounds = {k: m[k] for k in ("low", "high") if m.get(k) is not None}
    if name in ("int", "float"):
        return (Annotated[int | None if name == "int" else float | None,
                          typer.Option(flag(f.name), min=bounds.get("low"),
                                       max=bounds.get("high"), **common)], lambda v: v)
    if name.startswith("tuple"):
        def parse(raw: str) -> str:
            try:
                value = parse_value(game, f, raw)
                _check_value(game, f, value)
            except (OptionError, ValueError) as exc:
                raise typer.BadParameter(str(exc)) from None
            return format_value(value)

        words = "INTEGERS" if "int" in name else "NUMBERS" if "float" in name else "VALUES"
        return (Annotated[str | None, typer.Option(flag(f.name), parser=parse, metavar=words,
                                                   **common)], lambda v: v)
    return Annotated[str | None, typer.Option(flag(f.name), **common)], lambda v: v


def game_command(
    game: Any,
    run: Callable[..., Any],
    *,
    help: str,
    skip: tuple[str, ...] = (),
) -> Any:
    """A click command ``game`` with ``run``'s own options plus one flag per rule option.

    ``run`` is called with its own options (``skip`` left out), ``game=<name>`` and
    ``rule_values=`` the rule options given on the command line (name → value).
    """
    own = inspect.signature(run, eval_str=True)
    params = [p for n, p in own.parameters.items() if n not in (*skip, "game", "rule_values")]
    taken = {n for n in own.parameters} | {o.lstrip("-").replace("-", "_")
                                           for p in params for o in _decls(p)}
    convert: dict[str, Callable[[Any], Any]] = {}
    options_type: type[RuleOptions] = game.options_type
    for f in dataclasses.fields(options_type):
        if f.name in taken:
            continue  # reachable through --set only
        annotation, to_value = rule_parameter(game.name, f)
        convert[f.name] = to_value
        params.append(inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=None,
                                        annotation=annotation))

    def command(**kwargs: Any) -> Any:
        given = {k: kwargs.pop(k) for k in list(kwargs) if k in convert}
        rule = {k: convert[k](v) for k, v in given.items() if v is not None}
        return run(game=game.name, rule_values=rule, **kwargs)

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    command.__doc__ = help
    sub = typer.Typer(rich_markup_mode="rich", add_completion=False)
    sub.command(name=game.name, short_help=game.title, help=help)(command)
    return typer.main.get_command(sub)


def _decls(p: inspect.Parameter) -> list[str]:
    """The flags a typer-annotated parameter declares (``--games``, ``-n``)."""
    meta = getattr(p.annotation, "__metadata__", ())
    out: list[str] = []
    for m in meta:
        out += [d.split("/")[0] for d in (getattr(m, "param_decls", None) or ())
                if d.startswith("--")]
    return out


class GameCommands(TyperGroup):
    """A group with one generated command per registered game (built on first use).

    ``command_for(name)`` (set by the CLI) builds the command of a game name.
    """

    command_for: Callable[[str], Any] | None = None

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not args and not ctx.resilient_parsing:  # (completion parses without arguments)
            raise _usage_error()(f"missing the game: one of {', '.join(_names())}", ctx)
        return list(super().parse_args(ctx, args))

    def list_commands(self, ctx: Any) -> list[str]:
        return _names()

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in _names():
            raise _usage_error()(f"unknown game {cmd_name!r}; valid games: "
                                 f"{', '.join(_names())}", ctx)
        assert self.command_for is not None
        from balancelab.plugins import PluginError

        try:
            return self.command_for(cmd_name)
        except PluginError as exc:  # a plug-in game that cannot be loaded: one line, exit 1
            raise typer.BadParameter.__mro__[2](str(exc)) from None


def _names() -> list[str]:
    from balancelab import games

    return games.names()


def _usage_error() -> Any:
    """typer's own click's UsageError (typer may vendor click)."""
    return typer.BadParameter.__mro__[1]
