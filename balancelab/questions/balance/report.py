"""The balance run's report: the settings played, the response curve, method and
provenance."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import polars as pl

from balancelab.questions.balance.knobs import CONFIRM_SEED_OFFSET, numeric
from balancelab.questions.balance.measure import Point
from balancelab.questions.balance.session import BalanceResult, Session
from balancelab.reports import formatting, page, plots
from balancelab.reports import games as hooks
from balancelab.reports import words as W
from balancelab.simulate.options import format_value


def _fmt_setting(game: str, setting: dict[str, Any]) -> str:
    """A setting in words: ``limit of LIF 9, 3 crewmembers``."""
    return W.variant(game, ",".join(f"{k}={format_value(v)}" for k, v in setting.items()))


def response_figure(s: Session) -> Any:
    """Rate (or mean, or seat-share difference) against the knob, with 95% intervals: search
    points (seeds ``seed``) and confirmations (fresh seeds)."""
    fig = plots._fig(7.0, 4.2)
    ax = fig.add_subplot()
    knob = s.cfg.knobs[0]
    t = s.cfg.target
    rest = s.cfg.knobs[1:]

    def xpos(v: Any) -> float:
        return float(v) if numeric(v) else float(knob.values.index(v))

    groups: dict[str, list[Point]] = {}
    for p in s.points:
        g = _fmt_setting(s.cfg.game.name, {k.name: p.setting[k.name] for k in rest}) if rest else ""
        groups.setdefault(f"{p.phase}|{g}", []).append(p)
    gnames = sorted({k.split("|")[1] for k in groups})
    for key, pts in sorted(groups.items()):
        phase, g = key.split("|")
        ci = gnames.index(g)
        last: dict[Any, Point] = {}
        for p in pts:
            last[p.setting[knob.name]] = p  # the most games at each setting
        xs = np.array([xpos(v) for v in last])
        order = np.argsort(xs)
        ys = np.array([p.est for p in last.values()])[order]
        lo = np.array([p.lo for p in last.values()])[order]
        hi = np.array([p.hi for p in last.values()])[order]
        xs = xs[order] + (0.08 if phase == "confirm" else 0.0)
        lab = ("confirmed on fresh seeds" if phase == "confirm" else "search (common seeds)")
        ax.errorbar(xs, ys, yerr=[ys - lo, hi - ys], fmt="o" if phase == "confirm" else "s",
                    color=plots.COLORS[ci % len(plots.COLORS)], capsize=3,
                    label=lab + (f", {g}" if g else ""),
                    linestyle="-" if phase == "search" and not rest else "none")
    ax.axhline(t.value, color="#444", linestyle="--", linewidth=1,
               label=f"target: {s.target_words()}")
    ax.axvline(xpos(knob.default), color="#999", linestyle=":", linewidth=1,
               label=f"rulebook: {W.setting(s.cfg.game.name, knob.name, knob.default)}")
    if not numeric(knob.values[0]):
        ax.set_xticks(range(len(knob.values)), [format_value(v) for v in knob.values])
    elif len(knob.values) <= 16:
        ax.set_xticks([float(v) for v in knob.values], [format_value(v) for v in knob.values])
    ax.set_xlabel(W.label(s.cfg.game.name, knob.name) + (" (what-if)" if knob.what_if else ""))
    if t.kind == "rate":
        plots._pct_axis(ax)
        ax.set_ylabel(f"{hooks.word(s.cfg.game.name, t.name)}'s win rate")
    elif t.kind == "mean":
        ax.set_ylabel(f"mean {W.words(s.cfg.game.name, t.name)}")
    else:
        names = s.game.seats(s.base)
        n = len(names)
        ax.set_ylabel(f"{W.contender(s.cfg.game.name, names[0], n)} minus "
                      f"{W.contender(s.cfg.game.name, names[-1], n)} win share")
        plots._pct_axis(ax)
    ax.set_title("Response curve (95% intervals)")
    ax.legend(fontsize=7, loc="best")
    return fig


def write_balance_report(s: Session, res: BalanceResult) -> page.ReportPaths:
    t = s.cfg.target
    rows = s.points

    def fmt(p: Point, which: str) -> str:
        if which == "metric":
            e, lo, hi = p.metric, p.metric_lo, p.metric_hi
        else:
            e, lo, hi = p.est, p.lo, p.hi
        if t.kind == "mean":
            return f"{e:.3g} [{lo:.3g}, {hi:.3g}]"
        return f"{formatting.pct(e)} {formatting.interval(lo, hi)}"

    metric_name = ("win rate of " + hooks.word(s.cfg.game.name, t.name) if t.kind == "rate" else
                   f"mean {W.words(s.cfg.game.name, t.name)}" if t.kind == "mean" else
                   "largest seat gap")
    seats = s.game.seats(s.base)
    stat_name = metric_name if t.kind != "equal" else (
        f"{W.contender(s.cfg.game.name, seats[0], len(seats))} minus "
        f"{W.contender(s.cfg.game.name, seats[-1], len(seats))}")
    conf = [p for p in rows if p.phase == "confirm"]
    search = [p for p in rows if p.phase == "search"]
    blocks: list[str | page.Table | page.Image] = []
    if conf:
        blocks.append(page.Table("Confirmation on fresh seeds", pl.DataFrame({
            "setting": [_fmt_setting(s.cfg.game.name, p.setting) for p in conf],
            "games": [f"{p.n:,}" for p in conf],
            f"{metric_name} [95%]": [fmt(p, "metric") for p in conf],
            "target inside": ["yes" if s.reaches(p) else "no" for p in conf],
            "steps from the rulebook": [f"{s.distance(p.setting):g}" for p in conf],
            "note": [p.note or "–" for p in conf],
        })))
    if search:
        blocks.append(page.Table("Search (common seeds)", pl.DataFrame({
            "step": [str(i + 1) for i in range(len(search))],
            "setting": [_fmt_setting(s.cfg.game.name, p.setting) for p in search],
            "games": [f"{p.n:,}" for p in search],
            f"{stat_name} [95%]": [fmt(p, "stat") for p in search],
            "decision": [p.note or "–" for p in search],
        })))
    if rows:
        blocks.append(page.figure("response.png", response_figure(s),
                                  "The response curve: the target's statistic against the knob, "
                                  "95% intervals; search points share seeds, confirmations "
                                  "use fresh ones."))
    method = (
        "One knob: noisy bisection on common seeds (both ends first, then the middle of the "
        "bracket, each setting in doubling batches until its interval, Bonferroni-corrected "
        "over looks and steps, excludes the target). " if len(s.cfg.knobs) == 1 else
        f"Several knobs: optuna's TPE sampler (seed {s.cfg.seed}) proposed {s.cfg.trials} "
        f"settings, each playing {s.cfg.batch:,} more games on the common search seeds; the "
        f"best {s.cfg.confirm} were confirmed. ")
    method += (f"Confirmation: fresh seeds (run seed {s.cfg.seed + CONFIRM_SEED_OFFSET}), "
               f"until the 95% interval is within ±{s.tol_words()}. Among the confirmed "
               "settings whose interval holds the target, the one closest to the rulebook is "
               "recommended.")
    if t.kind == "equal":
        method += (" seats=equal: the search follows the first seat's win share minus the last "
                   "seat's (shared wins split); the answer reports the largest gap between any "
                   "two seats, its interval Bonferroni-widened over the seat pairs.")
    prov = page.Table("Provenance", pl.DataFrame({
        "item": ["question", "game", "fixed options", "policies", "search seed",
                 "confirmation seed", "games played (all sessions)", "folder"],
        "value": [s.question(), f"{s.cfg.game.name} (rules version {s.game.version})",
                  W.variant(s.cfg.game.name, s.context()) if s.context() else "defaults",
                  json.dumps(s.cfg.policies) if s.cfg.policies
                  else "defaults", str(s.cfg.seed), str(s.cfg.seed + CONFIRM_SEED_OFFSET),
                  f"{res.games:,}", str(s.path)],
    }))
    rep = page.Report(f"balancelab balance: {s.question()}", list(res.headline), [],
                        [page.Section("Settings played", blocks),
                         page.Section("Method", [method, prov])])
    return page.write(rep, s.path / "report")
