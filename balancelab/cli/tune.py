"""``balancelab tune``: a scripted player's parameters tuned with optuna."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from balancelab.cli.args import parse_game_args, parse_policies
from balancelab.cli.common import MAX_SEED, Quiet, console, domain_errors, progress_bar

#: This module's commands (added to the app in :mod:`balancelab.cli`, in --help's order).
commands = typer.Typer()


@commands.command(short_help="Tune a scripted player's parameters against the other side (optuna).")
@domain_errors
def tune(
    game: Annotated[str, typer.Argument(help="odyssey, iss or obcy.")],
    side: Annotated[str, typer.Option(help="The side to tune (crew, hal, expedition, ...).")],
    policy: Annotated[str, typer.Option(help="Policy to tune (default: the side's).")] = "default",
    budget: Annotated[int, typer.Option(min=1, help="Games for the search in all.")] = 3000,
    trial_games: Annotated[int, typer.Option(min=1, help="Games per trial.")] = 200,
    fresh_games: Annotated[
        int, typer.Option(min=1, help="Fresh games for the before/after check, each.")] = 2000,
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED,
                                      help="Seed of the sampler and of the games.")] = 0,
    set_: Annotated[
        list[str] | None, typer.Option("--set", help="Rule option KEY=VALUE (repeatable).")
    ] = None,
    against: Annotated[
        list[str] | None,
        typer.Option(help="SIDE=POLICY to play against (default: the other sides' defaults).")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Tune folder (default: tunes/<...>).")] = None,
    cap_penalty: Annotated[float, typer.Option(
        min=0.0, help="Wins a game stopped by the round cap costs in the search's objective "
        "(it is never a win).")] = 1.0,
    quiet: Quiet = False,
) -> None:
    """Tune POLICY's numeric parameters for SIDE against the other side's defaults.

    Every trial plays --trial-games games on the same seeds; optuna's TPE sampler (seeded)
    proposes the values; the first trial is POLICY's own values (a preset or parameters in
    the spec are the starting point). Resumable: the study lives in <out>/study.sqlite3; run
    the same command again to continue. The best set and the starting set are then played
    on --fresh-games fresh seeds. A trial scores its win rate less --cap-penalty for each
    game stopped by the round cap (a capped game is no win, and a set that merely stalls
    must not look as good as one that loses). Example: balancelab tune odyssey --side crew
    --budget 3000
    """
    from balancelab.questions import tune as T
    from balancelab.questions.inputs import load_game

    options = {k: v for k, v in parse_game_args([], set_ or []).items()}
    config = T.TuneConfig(load_game(game), side, policy, budget, trial_games, seed, options,
                          fresh_games, parse_policies(against or []), cap_penalty)
    folder = out or config.default_folder()
    T.check(config)  # bad input: refused before the bar
    bar = progress_bar(quiet)
    with bar:
        task = bar.add_task("games", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        result = T.tune(config, folder, progress=progress)
    for line in T.describe(config, result):
        console.print(line, highlight=False, soft_wrap=True)  # specs stay copyable
    console.print(f"  {folder}/result.json; {result.seconds:.0f} s", highlight=False)
