"""Parsing what the command line gives: a game's rule options as extra flags and ``--set
KEY=VALUE``, and ``--policy SIDE=POLICY``."""

from __future__ import annotations

from typing import Any

import typer


def parse_game_args(args: list[str], sets: list[str]) -> dict[str, str | bool]:
    """Parse the extra ``--name value`` / ``--name=value`` / ``--flag`` and ``--set k=v`` args.

    A flag followed by nothing or by another ``--option`` means ``true``; ``--no-flag`` so
    means ``false`` (the form ``simulate``'s generated flags take: ``--no-grate-is-duct``).

    Raises:
        ValueError: a token that is not an option, or a ``--set`` without ``=``.
    """
    out: dict[str, str | bool] = {}
    i = 0
    while i < len(args):
        tok = args[i]
        if not tok.startswith("--") or tok == "--":
            raise ValueError(f"unexpected argument {tok!r}; game options look like --crew 3")
        name, eq, value = tok[2:].partition("=")
        if eq:
            out[name] = value
            i += 1
        elif i + 1 < len(args) and not (
            args[i + 1].startswith("--") and not _is_number(args[i + 1])
        ):
            out[name] = args[i + 1]
            i += 2
        elif name.startswith("no-"):
            out[name[3:]] = False
            i += 1
        else:
            out[name] = True
            i += 1
    for item in sets:
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"--set takes key=value; got {item!r}")
        key, value = key.strip(), value.strip()
        if key.replace("-", "_") in {k.replace("-", "_") for k in out} and str(
                out.get(key, out.get(key.replace("_", "-")))).lower() != value.lower():
            raise ValueError(f"{key} is given twice, as --{key.replace('_', '-')} and as "
                             f"--set {key}={value}; give it once")
        out[key] = value
    return out


def game_flags(ctx: typer.Context) -> list[str]:
    """The extra arguments (the game's rule options), after checking that none is a
    misspelling of the command's own flags (``--gmaes`` → ``did you mean --games?``).

    Raises:
        ValueError: a flag close to one of the command's own.
    """
    import difflib

    own = [o for p in ctx.command.params for o in p.opts if o.startswith("--")]
    for tok in ctx.args:
        flag = tok.partition("=")[0]
        if flag.startswith("--") and flag not in own:
            close = difflib.get_close_matches(flag, own, n=1, cutoff=0.75)
            if close and flag[2:].replace("-", "_") not in _rule_option_names():
                raise ValueError(f"unknown option {flag}; did you mean {close[0]}?")
    return list(ctx.args)


def _rule_option_names() -> set[str]:
    """Every rule option name of every game (a flag naming one is never a misspelling of a
    command's own flag: ``trace obcy --queen-variant roll`` is not ``--variant``)."""
    import dataclasses

    from balancelab.games import get_game, names

    return {f.name for name in names()
            for f in dataclasses.fields(get_game(name).options_type)}


def _is_number(tok: str) -> bool:
    try:
        float(tok)
    except ValueError:
        return False
    return True


def parse_policies(items: list[str]) -> dict[str, str]:
    """``side=spec`` or ``seat=spec`` items into a dict.

    Raises:
        ValueError: an item without ``=``, or a side or seat given two different policies.
    """
    out: dict[str, str] = {}
    for item in items:
        key, eq, spec = item.partition("=")
        if not eq or not spec:
            raise ValueError(
                f"--policy takes SIDE=POLICY (e.g. crew=default, hal=random); got {item!r}"
            )
        key, spec = key.strip(), spec.strip()
        if key in out and out[key] != spec:
            raise ValueError(f"--policy {key} is given twice ({out[key]} and {spec}); "
                             "give it once")
        out[key] = spec
    return out


def with_set(values: dict[str, Any], sets: list[str]) -> dict[str, Any]:
    """Rule options given as flags, with those given as ``--set key=value`` added.

    Raises:
        ValueError: an option given both ways with different values, or a ``--set`` without
            ``=``.
    """
    from balancelab.simulate.options import format_value

    out = dict(values)
    for key, value in parse_game_args([], sets).items():
        name = key.replace("-", "_")
        if name in out and format_value(out[name]).lower() != str(value).lower():
            raise ValueError(f"{name} is given twice, as --{name.replace('_', '-')} and as "
                             f"--set {key}={value}; give it once")
        out[name] = value
    return out
