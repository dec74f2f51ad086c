"""The suite's results as rich tables: speed and scaling, the ratios to the anchor, search
primitives and memory, the adapters' costs."""

from __future__ import annotations

from typing import Any


def tables(results: dict[str, Any]) -> list[Any]:
    """Rich renderables of :func:`bench`'s results: speed and scaling, search primitives and
    memory, and a line per game that could not be imported."""
    from rich.table import Table
    from rich.text import Text

    n = results["jobs"]
    speed = Table("game", "policies", "games/s", "decisions/s", "dec/game",
                  f"games/s ×{n}", "speed-up", "eff.",
                  title=f"Throughput: 1 worker, then {n} workers "
                  f"({results['machine']['cpus']} cores; engine "
                  f"{results['machine'].get('engine', 'unknown')})")
    other = Table("game", "copy()/s", "rollouts/s", "steps/rollout", "ismcts it/s", "run games",
                  "driver MB", f"driver+{n}w MB", "run games/s",
                  title="Search primitives; peak memory of runs (default policies)")
    adapters = Table("game", "decision µs", "PettingZoo observe() µs", "×",
                     "OpenSpiel legal + string µs", "×",
                     title="Adapters: cost per fresh state against one random decision "
                     "(×: the multiple; goal ≤ 10; OpenSpiel: legal_actions() + "
                     "observation_string())")
    missing = []
    for g in results["games"]:
        if "error" in g:
            missing.append(Text(f"{g['game']}: {g['error']}", style="dim"))
            continue
        setting = g.get("setting", "defaults")
        name = g["game"] if setting == "defaults" else f"{g['game']} ({setting})"
        for label, r in g["policies"].items():
            s, sc = r["single"], r["scaling"]
            speed.add_row(name, label, f"{s['games_per_s']:,.0f}",
                          f"{s['decisions_per_s']:,.0f}", f"{s['decisions_per_game']:.1f}",
                          f"{sc['games_per_s_n']:,.0f}", f"{sc['speedup']:.2f}×",
                          f"{sc['efficiency']:.2f}")
        ad = g.get("adapters")
        if ad:
            cells = [f"{ad['decision_us']:.1f}"]
            for k in ("observe", "openspiel"):
                us = ad[f"{k}_us"]
                cells += ["not installed", ""] if us is None else [
                    f"{us:.1f}", f"{ad[f'{k}_ratio']:.1f}×"]
            adapters.add_row(name, *cells)
        sr = g["search"]
        first = [name, f"{sr['copies_per_s']:,.0f}", f"{sr['rollouts_per_s']:,.0f}",
                 f"{sr['steps_per_rollout']:.0f}",
                 f"{sr.get('ismcts_iterations_per_s', float('nan')):,.0f}"]
        mems = g["memory"] or [{"games": 0, "skipped": "not measured"}]
        for i, m in enumerate(mems):
            lead = first if i == 0 else [""] * 5
            if "skipped" in m:
                other.add_row(*lead, f"{m['games']:,}", f"[dim]skipped: {m['skipped']}[/]",
                              "", "")
                continue
            total = "n/a" if m["total_peak_mb"] is None else f"{m['total_peak_mb']:,.0f}"
            other.add_row(*lead, f"{m['games']:,}", f"{m['driver_peak_mb']:,.0f}", total,
                          f"{m['games_per_s']:,.0f}")
    anchored = anchor_table(results)
    notes = []
    m = results["machine"]
    if m.get("load_1min", 0) > 0.5 * (m["cpus"] or 1):
        notes.append(Text(
            f"note: the machine was busy when the suite started (load {m['load_1min']} on "
            f"{m['cpus']} cores); speed-ups and rates are lower than on idle cores.",
            style="yellow"))
    return [speed, *anchored, other, *([adapters] if adapters.row_count else []),
            *missing, *notes]


def anchor_table(results: dict[str, Any]) -> list[Any]:
    """The ratios to the anchor (a one-table list), or [] when it was not measured."""
    from rich.table import Table

    if "anchor" not in results:
        return []
    a = results["anchor"]
    table = Table("game", "policies", "decisions/s", "anchor steps/s", "ratio",
                  title=f"Against the anchor: {a['name']} (steps/s measured just before and "
                  f"after each of ours; {a['samples']} measurements, "
                  f"{a['steps_per_s_min']:,.0f}–{a['steps_per_s_max']:,.0f})")
    for g in results["games"]:
        if "error" in g:
            continue
        setting = g.get("setting", "defaults")
        name = g["game"] if setting == "defaults" else f"{g['game']} ({setting})"
        for label, r in g["policies"].items():
            s = r["single"]
            table.add_row(name, label, f"{s['decisions_per_s']:,.0f}",
                          f"{s['anchor_steps_per_s']:,.0f}", f"{s['anchor_ratio']:.2f}×")
    return [table]
