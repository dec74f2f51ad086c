"""The commands that ask a question: ``compare``, ``sweep``, ``study``, ``balance``,
``sensitivity``. Each resolves the game's (or study's) name once, calls
:mod:`balancelab.questions` and prints what it returns."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from balancelab.cli.args import game_flags, parse_game_args, parse_policies
from balancelab.cli.common import (
    CONTINUE,
    GAME_OPTION_CONTEXT,
    MAX_SEED,
    Backend,
    FixedOpts,
    Jobs,
    PolicyOpts,
    Quiet,
    check_jobs,
    console,
    continue_with_resume_flag,
    domain_errors,
    err,
    kept_and_exit,
    named_progress,
    study_progress,
)

if TYPE_CHECKING:
    from balancelab.simulate.core import Game

#: This module's commands (added to the app in :mod:`balancelab.cli`, in --help's order).
commands = typer.Typer()


PrecisionDiff = Annotated[float | None, typer.Option(
    help="Play in rounds until every change of the question (each step "
    "of the focus option) has its interval, at the level Holm's correction may print it at, "
    "within ±E (0.01 = ±1 percentage point).")]
Decide = Annotated[bool, typer.Option(
    help="Play in rounds until every change of the question is decided (raises, "
    "lowers or equivalent within ±margin) by sequential probability ratio tests on the "
    "paired games (as chess engine testers run them), looked at every 100 games.")]
Detect = Annotated[float | None, typer.Option(
    help="Before playing, print the games per setting needed to detect a change "
    "of D in win rate (0.01 = 1 percentage point) with 80% power under the question's "
    "correction; without --games, print only.")]
Margin = Annotated[float | None, typer.Option(
    help="Equivalence margin in win-rate units (0.02 = ±2 percentage points); "
    "default per game: odyssey 0.02, iss and obcy 0.025.")]
Blocks = Annotated[int, typer.Option(
    min=1, max=20, help="Independent seed blocks: the design is played once per block, each "
    "from its own seed (block 1 from --seed, the others derived from it); the report pools "
    "them, shows each block's estimate and Cochran's Q, and states a change as a finding "
    "only where no block decides the opposite.")]
Pairs = Annotated[str | None, typer.Option(
    help="Compare the focus option's neighbouring settings (adjacent, the "
    "default) or every pair of settings (all).")]


@commands.command(short_help="Compare runs: change in win rates and measures, with verdicts.")
@domain_errors
def compare(
    runs: Annotated[list[Path], typer.Argument(help="Two or more run folders; the first is "
                                                    "the baseline.")],
    out: Annotated[
        Path | None, typer.Option(help="Where to write the report (default: a folder "
                                  "compare-<first>-vs-<second> beside the first run).")
    ] = None,
    margin: Margin = None,
) -> None:
    """Compare runs against the first: each side's or seat's change in win rate (paired on
    the games both runs played from the same seed, whatever their sizes), one family with
    the three verdicts (raises / lowers, equivalent within the game's margin, inconclusive),
    and the correlation and games pairing saved.

    Example: balancelab simulate iss --players 4 --out runs/base, then the same with
    --remove-shuttles --out runs/removed, then balancelab compare runs/base runs/removed
    """
    from balancelab.questions.compare import compare as do_compare

    paths = do_compare(runs, out, margin)
    console.print(paths.headline, highlight=False, markup=False)
    console.print(f"Markdown: {paths.markdown}\nHTML: {paths.html}")


def _print_plan(game: Game, grid: dict[str, Any], change: float, base: dict[str, Any],
                focus: str | None, pairs: str | None) -> None:
    """The --detect plan: games per setting for each question, in words."""
    from balancelab.questions import sweep as sweeps

    for q in sweeps.plan(game, grid, change, base=base, focus=focus, pairs=pairs):
        console.print(
            f"To detect a change of {100 * change:.1f} points in win rate with 80% power "
            f"among the {q['family_size']} changes of {q['option']} (Holm, 95%): about "
            f"{q['games']:,} games per setting (assuming win rates near 50% and no gain "
            f"from pairing; about {q['games_at_10']:,} at rates near 10% or 90%).",
            highlight=False, markup=False)


@commands.command(context_settings=GAME_OPTION_CONTEXT,
                  short_help="Play every combination of some rule options in one run, and report.")
@domain_errors
def sweep(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="odyssey, iss or obcy.")],
    grid: Annotated[
        list[str],
        typer.Option("--grid", "-g", help="OPTION=V1,V2,… (repeatable); every combination is "
                     "one variant of ONE run, paired by seed."),
    ],
    games: Annotated[
        int | None, typer.Option("--games", "-n", min=1,
                                 help="Games per variant (default 1000; with --precision, "
                                 "the first round).")
    ] = None,
    precision: Annotated[
        float | None,
        typer.Option(help="Play in rounds until every win rate's 95% Wilson interval (the "
                     "ones the report prints) is within ±E, in win-rate units (0.01 = ±1 "
                     "percentage point)."),
    ] = None,
    max_games: Annotated[
        int | None, typer.Option(min=1, help="Most games per variant a --precision, "
                                 "--precision-diff or --decide run may play (default "
                                 "200,000).")
    ] = None,
    precision_diff: PrecisionDiff = None,
    decide: Decide = False,
    detect: Detect = None,
    focus: Annotated[str | None, typer.Option(
        help="The --grid option whose steps are the question (default: each --grid option "
        "is its own question).")] = None,
    pairs: Pairs = None,
    margin: Margin = None,
    blocks: Blocks = 2,
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="Run seed.")] = 0,
    jobs: Jobs = -1,
    policy: Annotated[
        list[str] | None,
        typer.Option("--policy", "-p", help="SIDE=POLICY or SEAT=POLICY, repeatable."),
    ] = None,
    set_: Annotated[
        list[str] | None, typer.Option("--set", help="Fixed rule option KEY=VALUE.")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Run folder (default: runs/<game>-sweep-…).")
                   ] = None,
    resume: Annotated[bool, typer.Option(help="Complete or extend an existing sweep.")] = False,
    force: Annotated[bool, typer.Option(help="Replace an existing run folder.")] = False,
    quiet: Quiet = False,
) -> None:
    """Play every combination of the --grid options in one run and report it.

    Example: balancelab sweep odyssey --grid crew=2,3,4 --grid hal_extra_turns=-1,0,1
    --precision 0.01
    """
    from balancelab.questions import inputs
    from balancelab.questions import sweep as sweeps
    from balancelab.reports import write_report

    check_jobs(jobs)
    g = inputs.load_game(game)
    base = parse_game_args(game_flags(ctx), set_ or [])
    parsed = inputs.parse_grid(grid)
    pols = parse_policies(policy or [])
    variants = inputs.grid_variants(g, parsed, base)
    sweeps.check_sizes(games, precision, max_games, precision_diff, decide)
    if detect is not None:
        _print_plan(g, parsed, detect, base, focus, pairs)
        if games is None:
            return
    path = out or sweeps.default_folder(g, variants, pols, seed)
    CONTINUE.set(continue_with_resume_flag())
    bar, progress = study_progress(quiet)
    with bar:
        res = sweeps.sweep(g, parsed, path, base=base, policies=pols, seed=seed,
                           games=games, precision=precision, precision_diff=precision_diff,
                           decide=decide, focus=focus, pairs=pairs, margin=margin,
                           max_games=max_games, jobs=jobs, force=force, resume=resume,
                           progress=progress, blocks=blocks)
    if res.interrupted:
        raise kept_and_exit(path, continue_with_resume_flag())
    if res.reused:
        err.print(f"{path} already holds these {res.games:,} games per variant (same grid, "
                  "options, policies and seed); showing them. Pass --force to play them again.")
    for r in res.rounds:
        err.print(f"{r['games']:,} games per variant: widest interval ±"
                  f"{100 * r['max_half_width']:.2f} percentage points"
                  + (" (decided)" if decide and r.get("reached") else ""))
    paths = write_report([path])
    console.print(paths.headline, highlight=False, markup=False)
    console.print(f"Run: {path}\nMarkdown: {paths.markdown}\nHTML: {paths.html}")


@commands.command(short_help="Run a named balance study and answer its question in words.")
@domain_errors
def study(
    name: Annotated[str | None, typer.Argument(help="hal-difficulty, queen-variants, "
                                                    "iss-shuttle-removal or skill-ladder "
                                                    "(or --file).")] = None,
    game: Annotated[str | None, typer.Argument(
        help="skill-ladder only: the game (odyssey, iss or obcy).")] = None,
    games: Annotated[
        int | None, typer.Option("--games", "-n", min=1,
                                 help="Games per variant (default 2000).")
    ] = None,
    precision: Annotated[
        float | None, typer.Option(help="Play until every win rate's 95% Wilson interval "
                                   "is within ±E (0.01 = ±1 percentage point) instead of a "
                                   "fixed --games.")
    ] = None,
    max_games: Annotated[int | None, typer.Option(
        min=1, help="Cap per variant for --precision, --precision-diff or --decide (default "
        "200,000).")] = None,
    precision_diff: PrecisionDiff = None,
    decide: Decide = False,
    detect: Detect = None,
    pairs: Pairs = None,
    margin: Margin = None,
    blocks: Blocks = 2,
    policy: Annotated[
        list[str] | None,
        typer.Option("--policy", "-p", help="A policy pairing SIDE=POLICY[;SIDE=POLICY] "
                     "(repeatable: each --policy is one pairing and one run; the verdicts "
                     "side by side). A study keeps one answer per pairing: re-running it "
                     "with another pairing adds that answer."),
    ] = None,
    policies_deprecated: Annotated[
        list[str] | None, typer.Option("--policies", hidden=True,
                                       help="Deprecated spelling of --policy."),
    ] = None,
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="Run seed.")] = 0,
    jobs: Jobs = -1,
    out: Annotated[Path | None, typer.Option(help="Study folder (default: "
                                                  "runs/study-<name>-seed<seed>).")] = None,
    resume: Annotated[bool, typer.Option(help="Complete or extend an existing study.")] = False,
    force: Annotated[bool, typer.Option(help="Replace existing run folders.")] = False,
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", help="Hold a rule option fixed in every variant, KEY=VALUE "
                     "(repeatable), e.g. hal_turn_every=2; one of the study's grid options "
                     "narrows the grid to that value (hal-difficulty --set crew=4: the "
                     "question at 4 crew only)."),
    ] = None,
    verdict_games: Annotated[int | None, typer.Option(
        min=1, help="skill-ladder: games per variant of the verdict runs (default: the "
        "game's ladder's).")] = None,
    budget_scale: Annotated[float, typer.Option(
        min=0.0001, help="skill-ladder: multiply the search rungs' budgets (iterations, "
        "playouts; 0.1 for a quick try).")] = 1.0,
    minutes: Annotated[float | None, typer.Option(
        min=0.0, help="skill-ladder: the time budget in wall minutes on --jobs workers "
        "(default 10): the screen and the confirmation size their games by the rungs' "
        "measured cost to fit it (the first round and the least confirmation are played "
        "whatever it is).")] = None,
    openspiel: Annotated[bool, typer.Option(
        "--openspiel", help="skill-ladder: add OpenSpiel's IS-MCTS bot as an outside rung "
        "(needs pip install 'balancelab[openspiel]').")] = False,
    quiet: Quiet = False,
    file: Annotated[Path | None, typer.Option(
        "--file", "-f", dir_okay=False,
        help="A study described in a TOML file (keys: name, game, question, \\[grid], "
        "optional focus, measures, \\[base]), instead of a named one.")] = None,
) -> None:
    """Run a named study: the games it needs, a report per policy pairing, and a study
    report whose first lines answer the question in plain words with numbers.

    [bold]skill-ladder GAME[/] ranks each side's rungs (random, scripted, tuned, search,
    ismcts at two budgets; the oracle, a cheat, for reference) by measurement: a screen on
    paired deals against the other side's scripted default drops the rungs decided below the
    leader, then the top two play fresh deals, and the strongest is named only when its lead
    is decided there (else a tie). Then the game's key verdict at the top two fair rungs.
    --games sets the screen's first round, --minutes the time budget (default 10: at most 15
    minutes a game on 2 cores, compiled).

    Example: balancelab study hal-difficulty --policy "crew=default" --policy
    "crew=search:rollouts=100" --set hal_turn_every=2

    Example: balancelab study skill-ladder obcy --games 10

    [bold]--file study.toml[/] runs your own study, described like the built-in ones
    (balancelab/data/studies/*.toml): name, game, question, a \\[grid] table of option =
    \\[values], and optionally focus (the grid option the question is about), measures and
    a \\[base] table of fixed options.

    Example: balancelab study --file my-study.toml --games 500"""
    from balancelab.questions import study as studies
    from balancelab.questions import sweep as sweeps

    check_jobs(jobs)
    if name is not None and file is not None:
        raise ValueError(f"give a study name ({name}) or --file, not both")
    if name is None and file is None:
        raise ValueError("name a study (hal-difficulty, queen-variants, iss-shuttle-removal, "
                         "skill-ladder) or give --file study.toml")
    target: str | studies.Study = studies.load_study(file) if file is not None else str(name)
    if name == "skill-ladder":
        _skill_ladder(game, games=games, verdict_games=verdict_games, seed=seed, jobs=jobs,
                      out=out, force=force, resume=resume, budget_scale=budget_scale,
                      minutes=minutes, openspiel=openspiel, quiet=quiet)
        return
    if game is not None:
        raise ValueError(f"study {name} takes no game argument (got {game!r}); only "
                         "skill-ladder does")
    if policies_deprecated:
        err.print("[yellow]warning:[/] --policies is deprecated; use --policy (one pairing "
                  "per --policy, as before)", highlight=False)
    pairings = [*(policy or []), *(policies_deprecated or [])]
    st, g = studies.check_study(target)
    sweeps.check_sizes(games, precision, max_games, precision_diff, decide)
    fixed = parse_game_args([], set_ or [])
    asked = studies.narrowed(st, {k.replace("-", "_"): v for k, v in fixed.items()})
    if detect is not None:
        base = {**asked.base, **{k: v for k, v in fixed.items() if k not in asked.grid}}
        _print_plan(g, asked.grid, detect, base, asked.focus, pairs)
        if games is None:
            return
    CONTINUE.set(continue_with_resume_flag())
    bar, progress = study_progress(quiet)
    with bar:
        res = studies.run_study(st, g, out, policies=pairings, seed=seed, games=games,
                                precision=precision, precision_diff=precision_diff,
                                decide=decide, pairs=pairs, margin=margin,
                                max_games=max_games, jobs=jobs, force=force, resume=resume,
                                progress=progress, fixed=fixed, blocks=blocks)
    if res.interrupted or res.report is None:
        raise kept_and_exit(res.path, continue_with_resume_flag())
    console.print(res.report.headline, highlight=False, markup=False)
    console.print(f"Study: {res.path}\nMarkdown: {res.report.markdown}\n"
                  f"HTML: {res.report.html}")


def _skill_ladder(game: str | None, *, games: int | None, verdict_games: int | None,
                  seed: int, jobs: int, out: Path | None, force: bool, resume: bool,
                  budget_scale: float, minutes: float | None, openspiel: bool,
                  quiet: bool) -> None:
    from balancelab.questions import ladder, rungs
    from balancelab.questions.inputs import load_game

    rungs.check_game(game)
    assert game is not None
    g = load_game(game)
    CONTINUE.set(continue_with_resume_flag())
    bar, progress = study_progress(quiet)
    with bar:
        res = ladder.run_ladder(g, out, seed=seed, games=games, verdict_games=verdict_games,
                                budget_scale=budget_scale, minutes=minutes,
                                openspiel=openspiel, jobs=jobs, force=force,
                                resume=resume, progress=progress)
    if res.interrupted:
        raise kept_and_exit(res.path, continue_with_resume_flag())
    console.print(res.report.headline, highlight=False, markup=False)
    console.print(f"Study: {res.path}\nMarkdown: {res.report.markdown}\n"
                  f"HTML: {res.report.html}")


@commands.command(context_settings=GAME_OPTION_CONTEXT,
                  short_help="Find the setting of a rule that makes a game fair (or hits a "
                  "target).")
@domain_errors
def balance(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="odyssey, iss or obcy.")],
    target: Annotated[str, typer.Option(
        "--target", "-t", help="SIDE=RATE or SEAT=RATE (crew=0.5), seats=equal, or "
        "MEASURE=VALUE (turns=40).")],
    knob: Annotated[list[str], typer.Option(
        "--knob", "-k", help="A rule option to move: OPTION=LO..HI or OPTION=V1,V2,… "
        "(repeatable: several knobs are searched with optuna).")],
    precision: Annotated[float, typer.Option(
        help="Confirm until the 95% interval is within ±E, in win-rate units (0.015 = ±1.5 "
        "percentage points; for a measure, a fraction of the target).")] = 0.015,
    batch: Annotated[int, typer.Option(min=10, help="Search games per look at a setting "
                                       "(and per optuna trial).")] = 400,
    trials: Annotated[int, typer.Option(min=1, help="Settings optuna proposes (several "
                                        "knobs).")] = 24,
    confirm: Annotated[int, typer.Option(min=1, help="Best settings confirmed on fresh seeds "
                                         "(several knobs).")] = 3,
    max_games: Annotated[int, typer.Option(min=1, help="Most confirmation games per "
                                           "setting.")] = 200_000,
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="Search seed (confirmation: "
                                      "seed + 1,000,003).")] = 0,
    jobs: Jobs = -1,
    backend: Backend = "loky",
    policy: PolicyOpts = None,
    set_: FixedOpts = None,
    out: Annotated[Path | None, typer.Option(help="Balance folder (default: "
                                             "runs/balance-<game>-…).")] = None,
    force: Annotated[bool, typer.Option(help="Replace a folder holding another balance "
                                        "run.")] = False,
    quiet: Quiet = False,
) -> None:
    """Find which setting of a rule option (a knob) reaches a target: a side's or seat's win
    rate, equal seats, or a measure's mean; confirm it on fresh seeds to --precision and write
    a report whose first line is the answer.

    One knob: a noisy bisection on common seeds, ending with the two neighbouring settings
    that bracket the target. Several knobs: optuna proposes settings, the best few are
    confirmed. Running the same command again continues an interrupted run.

    Example: balancelab balance odyssey --crew 3 --target crew=0.5 --knob limit_lif=7..14
    """
    from balancelab.questions import balance as bal
    from balancelab.questions.inputs import load_game

    check_jobs(jobs)
    cfg = bal.BalanceConfig.from_text(
        load_game(game), parse_game_args(game_flags(ctx), set_ or []), knob, target,
        policies=parse_policies(policy or []), seed=seed, precision=precision, batch=batch,
        trials=trials, confirm=confirm, max_games=max_games)
    from balancelab.simulate.executors import check_backend

    check_backend(backend, None)  # refused before the progress bar
    bar, progress = named_progress(quiet)
    try:
        with bar:
            res = bal.balance(cfg, out, jobs=jobs, backend=backend, progress=progress,
                              force=force)
    except bal.Interrupted:
        path = out or cfg.default_folder()
        raise kept_and_exit(path) from None
    console.print("\n".join(res.headline), highlight=False, markup=False)
    assert res.report is not None
    console.print(f"Games: {res.games:,}\nFolder: {res.path}\nMarkdown: "
                  f"{res.report.markdown}\nHTML: {res.report.html}", highlight=False)


@commands.command(context_settings=GAME_OPTION_CONTEXT,
                  short_help="Which rule numbers and assumptions does the answer rest on?")
@domain_errors
def sensitivity(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="odyssey, iss or obcy.")],
    games: Annotated[int, typer.Option("--games", "-n", min=1,
                                       help="Games per setting (common seeds).")] = 1000,
    rate: Annotated[str | None, typer.Option(
        help="The side or seat whose win rate to follow (default: odyssey crew, obcy "
        "expedition, iss seat0).")] = None,
    study: Annotated[str | None, typer.Option(
        help="Also recompute this study's verdicts under every perturbation "
        "(hal-difficulty, queen-variants, iss-shuttle-removal).")] = None,
    only: Annotated[list[str] | None, typer.Option(
        "--only", help="Perturb only these options (repeatable).")] = None,
    data: Annotated[list[str] | None, typer.Option(
        "--data", help="Your own data file or folder (odyssey board TOML, iss card-table "
        "folder, obcy map JSON), tried besides the shipped alternatives (repeatable).")] = None,
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="Run seed.")] = 0,
    jobs: Jobs = -1,
    backend: Backend = "loky",
    policy: PolicyOpts = None,
    set_: FixedOpts = None,
    at: Annotated[list[str] | None, typer.Option(
        "--at", help="Run at this setting OPTION=V instead of the rulebook's (repeatable; "
        "balance prints the command for the setting it recommends).")] = None,
    out: Annotated[Path | None, typer.Option(help="Run folder (default: "
                                             "runs/sensitivity-<game>-…).")] = None,
    force: Annotated[bool, typer.Option(help="Replace an existing run folder.")] = False,
    quiet: Quiet = False,
) -> None:
    """Move every rule number and assumed value of a game one step each way (assumed boards
    and card tables through named alternatives), all on common seeds, and report how much
    the headline win rate (and with --study a study's verdicts) moves: paired 95% intervals,
    Holm across rows, a tornado plot. Running the same command again continues an
    interrupted run.

    Example: balancelab sensitivity odyssey --crew 3 --at limit_lif=5
    """
    from balancelab.questions import sensitivity as sens
    from balancelab.questions.inputs import load_game
    from balancelab.questions.study import check_study

    check_jobs(jobs)
    g = load_game(game)
    bad = next((a for a in at or [] if "=" not in a), None)
    if bad is not None:
        raise ValueError(f"--at takes OPTION=VALUE (e.g. limit_lif=5); got {bad!r}")
    values = parse_game_args(game_flags(ctx), [*(set_ or []), *(at or [])])
    st = check_study(study)[0] if study is not None else None
    bar, progress = study_progress(quiet)
    with bar:
        res = sens.run(g, values, out, rate=rate, study=st, only=[
            o.replace("-", "_") for o in only or []], data=data or [],
            policies=parse_policies(policy or []), seed=seed, games=games, jobs=jobs,
            backend=backend, force=force, progress=progress)
    if res.interrupted:
        raise kept_and_exit(res.path)
    console.print("\n".join(res.headline), highlight=False, markup=False)
    assert res.report is not None
    console.print(f"Games: {res.games:,}\nRun: {res.path}\nMarkdown: {res.report.markdown}"
                  f"\nHTML: {res.report.html}", highlight=False)
