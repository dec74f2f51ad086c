"""Report figures: one function per figure, matplotlib's object API (no pyplot state), Agg.

Each function takes analysis frames and returns a :class:`matplotlib.figure.Figure`;
:func:`png_bytes` renders it to PNG bytes that are identical for identical data (no
``Software`` metadata, fixed size and dpi). Figures are drawn in the main process only.

What a designer can trust in every figure (``tests/reports/test_plots.py`` checks each):

- drawn for the report page's column (:data:`PAGE_PX` wide, the ``max-width`` of
  ``report.html``), never wider, so the browser never shrinks it, and no text is smaller than
  :data:`MIN_PX` pixels on the page;
- categories (variants, seats) one per row or one per panel: labels never overlap; several
  groups of a distribution are small multiples, never overlaid outlines;
- legends inside the figure (below the plot);
- win-rate axes from 0 to 100% (a zoomed axis says so in its title); a chart of two sides draws
  the 50% line, a chart of seats marks each variant's fair share;
- integer data (rounds, margins) binned on integers: every bin holds the same whole numbers.
"""

from __future__ import annotations

import io
import math
import textwrap
from typing import Any

import numpy as np
import polars as pl
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import MaxNLocator, PercentFormatter

DPI = 100
#: Width in CSS pixels of the report page's column (``page.CSS``: ``body{max-width}``).
PAGE_PX = 1100
#: Smallest text on the page, in CSS pixels.
MIN_PX = 12.0
#: Default figure width in inches (1,000 px: the page's column, less its margins).
WIDTH = 10.0
#: Text sizes in points (at :data:`DPI`, 1 pt = 1.39 px): tick labels and notes, body.
SMALL_PT = 9.0
TEXT_PT = 10.0
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
          "#7f7f7f"]
#: Outcomes that are nobody's win (kept grey in the outcome chart).
NOBODY = ("draw", "tie", "capped")
EVEN = "#444444"


def _fig(w: float = WIDTH, h: float = 4.0) -> Figure:
    """A figure at most the page's width (:data:`PAGE_PX`)."""
    fig = Figure(figsize=(min(w, PAGE_PX / DPI), h), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def page_px(fig: Figure, points: float) -> float:
    """Size on the report page, in CSS pixels, of ``points`` of this figure's text (a figure
    wider than :data:`PAGE_PX` is shrunk by the browser, and its text with it)."""
    scale = min(1.0, PAGE_PX / (fig.get_figwidth() * fig.dpi))
    return points * fig.dpi / 72.0 * scale


def readable(fig: Figure) -> Figure:
    """Raise every text of ``fig`` smaller than :data:`MIN_PX` on the page to it (a safety net
    for figures drawn outside this module; the figures here are drawn at readable sizes)."""
    floor = MIN_PX / page_px(fig, 1.0)
    fig.canvas.draw()  # creates the tick labels
    for ax in fig.axes:
        for axis, name in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            sizes = [float(t.get_fontsize()) for t in axis.get_ticklabels(which="both")]
            if sizes and min(sizes) < floor:
                ax.tick_params(axis=name, which="both", labelsize=floor)  # type: ignore[arg-type]
    for t in fig.findobj(Text):
        if float(t.get_fontsize()) < floor:
            t.set_fontsize(floor)
    return fig


def png_bytes(fig: Figure) -> bytes:
    """The figure as PNG bytes (text raised to :data:`MIN_PX`), deterministic for the same
    figure content."""
    readable(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return buf.getvalue()


def _pct_axis(ax: Any, axis: str = "y", decimals: int | None = None) -> None:
    (ax.xaxis if axis == "x" else ax.yaxis).set_major_formatter(
        PercentFormatter(1.0, decimals=decimals))


def _legend(fig: Figure, ax: Axes, ncols: int | None = None) -> None:
    """The axes' legend below the plot, inside the figure (constrained layout makes room)."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="outside lower center", fontsize=SMALL_PT,
                   ncols=ncols or min(len(handles), 6), frameon=False)


def _even_line(ax: Axes, axis: str = "y") -> None:
    """The 50% line of a chart of two sides: where neither side is favoured."""
    line = ax.axvline if axis == "x" else ax.axhline
    line(0.5, color=EVEN, linestyle="--", linewidth=1, label="50%: even", zorder=1)


def _colors(names: list[str]) -> dict[str, str]:
    """One colour per contender, the same in every figure: seat *k* takes colour *k*, other
    names the unused colours in order (``seat1`` is red in the win rates and the outcomes)."""
    out = {n: COLORS[int(n[4:]) % len(COLORS)] for n in names
           if n.startswith("seat") and n[4:].isdigit()}
    free = iter([c for c in COLORS if c not in out.values()] + COLORS)
    return {n: out[n] if n in out else next(free) for n in names}


def _lines(label: str) -> int:
    return label.count("\n") + 1


def _text_in(points: float, lines: int) -> float:
    """Height in inches of ``lines`` lines of text of ``points`` points."""
    return lines * points * 1.3 / 72.0


def tick_labels(labels: list[str]) -> list[str]:
    """Variant labels as axis ticks: the ``key=value`` parts shared by every label dropped
    (they are in the title and tables), one part per line.

    Example: ``["crew=2,h=1", "crew=3,h=1"]`` → ``["crew=2", "crew=3"]``.
    """
    parts = [lab.split(",") for lab in labels]
    common = set.intersection(*(set(p) for p in parts)) if len(parts) > 1 else set()
    return ["\n".join(x for x in p if x not in common) or lab
            for p, lab in zip(parts, labels, strict=True)]


def _panel_title(label: str, cols: int) -> str:
    """A tick label (one part per line) as the title of a panel in a row of ``cols``,
    wrapped to the panel's width (a character is about 0.55 of the text's size wide)."""
    chars = int(0.8 * WIDTH * DPI / cols / (0.55 * SMALL_PT * DPI / 72))
    return textwrap.fill(label.replace("\n", ", "), max(16, chars))


def _two_sided(frame: pl.DataFrame, key: str = "contender") -> bool:
    """Every variant has exactly two possible winners (two sides, or two seats)."""
    n = frame.filter(~pl.col(key).is_in(NOBODY)).group_by("variant").agg(
        pl.col(key).n_unique().alias("_k")).get_column("_k")
    return bool(n.len()) and bool((n == 2).all())


def _value_text(ax: Axes, y: float, r: float, lo: float, hi: float) -> None:
    """A bar's rate written beside it (beyond its interval), or inside near 100%: a 1% bar
    is read, not guessed."""
    if not math.isfinite(r):
        return
    if hi <= 0.86:
        ax.text(hi + 0.01, y, f"{100 * r:.1f}%", ha="left", va="center", fontsize=SMALL_PT,
                zorder=4, bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5,
                                "alpha": 0.8})
    else:
        ax.text(max(lo - 0.01, 0.02), y, f"{100 * r:.1f}%", ha="right", va="center",
                fontsize=SMALL_PT, color="white")


def winrates(rates: pl.DataFrame, title: str = "Win rate by variant (Wilson 95%)") -> Figure:
    """Horizontal bars of each contender's win rate, one group of rows per variant, with
    interval error bars and the rate written beside each bar; the 50% line where every
    variant has two contenders, each variant's fair share where seats compete.

    Args:
        rates: a :func:`balancelab.analysis.win_rates` frame.
    """
    variants = rates.select("variant", "variant_label").unique(maintain_order=True)
    labels = tick_labels(variants.get_column("variant_label").to_list())
    conts = rates.get_column("contender").unique(maintain_order=True).to_list()
    groups = [rates.filter(pl.col("variant") == v).filter(pl.col("rate").is_not_nan())
              for v in variants.get_column("variant").to_list()]
    gap = 0.5
    fewest = max(1, min(g.height for g in groups)) + gap
    # one bar is at least a line of text high, a group with its gap at least its label
    bar = max(0.2, max(_text_in(SMALL_PT, _lines(lab)) for lab in labels) / fewest)
    color = _colors(conts)
    n_rows = sum(g.height for g in groups) + gap * len(groups)
    fig = _fig(WIDTH, 1.6 + bar * n_rows)
    ax = fig.add_subplot()
    y0, centers = 0.0, []
    seats = bool((rates.get_column("seat") >= 0).any())
    fair_done = False
    for g in groups:
        ys = y0 + np.arange(g.height)
        centers.append(float(ys.mean()) if g.height else y0)
        for yy, r in zip(ys, g.iter_rows(named=True), strict=True):
            ax.barh(yy, r["rate"], 0.8, xerr=[[r["rate"] - r["lo"]], [r["hi"] - r["rate"]]],
                    capsize=2, color=color[r["contender"]], error_kw={"linewidth": 1})
            _value_text(ax, yy, r["rate"], r["lo"], r["hi"])
        if seats and g.height and g.get_column("fair_share")[0] is not None:
            f = float(g.get_column("fair_share")[0])
            ax.plot([f, f], [ys[0] - 0.45, ys[-1] + 0.45], color=EVEN, linestyle=":",
                    linewidth=1.5, label=None if fair_done else "fair share")
            fair_done = True
        y0 += g.height + gap
    for c in conts:  # one legend entry per contender
        ax.barh([np.nan], [np.nan], color=color[c], label=c)
    if _two_sided(rates):
        _even_line(ax, "x")
    ax.set_yticks(centers, labels, fontsize=SMALL_PT)
    ax.set_ylim(y0 - gap / 2 - 0.5, -0.5 - gap / 2)  # first variant on top
    ax.set_xlim(0, 1)
    _pct_axis(ax, "x")
    ax.set_xlabel("win rate")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    _legend(fig, ax)
    return fig


def outcomes(out: pl.DataFrame) -> Figure:
    """One 100% bar per variant of how its games ended (wins, draws, capped), each share
    written in its segment when it is wide enough; outcomes no game had are left out.

    Args:
        out: a :func:`balancelab.analysis.outcome_rates` frame.
    """
    variants = out.select("variant", "variant_label").unique(maintain_order=True)
    labels = tick_labels(variants.get_column("variant_label").to_list())
    seen = out.group_by("outcome").agg(pl.col("count").sum()).filter(pl.col("count") > 0)
    names = [o for o in out.get_column("outcome").unique(maintain_order=True).to_list()
             if o in set(seen.get_column("outcome").to_list())]
    row = max(0.45, _text_in(SMALL_PT, max(map(_lines, labels))) + 0.1)
    fig = _fig(WIDTH, 1.9 + row * len(labels))
    ax = fig.add_subplot()
    left = np.zeros(len(labels))
    y = np.arange(len(labels))
    greys = iter(["#9a9a9a", "#c4c4c4", "#6f6f6f"])
    color = _colors([n for n in names if n not in NOBODY])
    for name in names:
        sub = variants.join(out.filter(pl.col("outcome") == name),
                            on=["variant", "variant_label"], how="left")
        r = sub.get_column("rate").fill_null(0.0).to_numpy()
        ax.barh(y, r, 0.7, left=left, label=name,
                color=next(greys) if name in NOBODY else color[name])
        for i in np.flatnonzero(r >= 0.06):
            ax.text(left[i] + r[i] / 2, y[i], f"{100 * r[i]:.0f}%", ha="center", va="center",
                    fontsize=SMALL_PT, color="black" if name in NOBODY else "white")
        left += r
    if _two_sided(out, "outcome"):
        _even_line(ax, "x")
    ax.set_yticks(y, labels, fontsize=SMALL_PT)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    _pct_axis(ax, "x")
    ax.set_xlabel("share of games")
    ax.set_title("How games ended")
    _legend(fig, ax, min(len(names) + 1, 7))
    return fig


def winrate_vs_option(rates: pl.DataFrame, option: str, contender: str,
                      by: str | None = None, zoom: bool = False) -> Figure:
    """One contender's win rate against an option, one line per value of ``by``, on an axis
    from 0 to 100% (the 50% line where every variant has two contenders).

    Args:
        rates: a :func:`balancelab.analysis.sweep_table` frame.
        option: the option on the x axis.
        contender: the side or seat plotted.
        by: a second option (one line per value), or None.
        zoom: fit the axis to the intervals instead; the title then says it is zoomed.
    """
    fig = _fig(WIDTH * 0.75, 4.2)
    ax = fig.add_subplot()
    sub = rates.filter(pl.col("contender") == contender)
    groups = [(None, sub)] if by is None else [
        (k[0], g) for k, g in sorted(sub.partition_by(by, as_dict=True).items(),
                                     key=lambda kv: kv[0])
    ]
    xs_all = sorted(sub.get_column(option).unique().to_list())
    pos = {v: i for i, v in enumerate(xs_all)}
    for j, (val, g) in enumerate(groups):
        g = g.sort(option)
        xs = np.array([pos[v] for v in g.get_column(option).to_list()], dtype=float)
        r = g.get_column("rate").to_numpy()
        lo, hi = g.get_column("lo").to_numpy(), g.get_column("hi").to_numpy()
        off = (j - (len(groups) - 1) / 2) * 0.04
        ax.errorbar(xs + off, r, yerr=[r - lo, hi - r], marker="o", capsize=3,
                    color=COLORS[j % len(COLORS)],
                    label=None if by is None else f"{by}={_fmt(val)}")
        if bool((g.get_column("seat") >= 0).all()):  # a seat: its fair share, dotted
            ax.plot(xs + off, g.get_column("fair_share").to_numpy(), linestyle=":",
                    color=COLORS[j % len(COLORS)], linewidth=1.5,
                    label="fair share (dotted)" if j == 0 else None)
    ax.set_xticks(np.arange(len(xs_all)), [_fmt(v) for v in xs_all], fontsize=SMALL_PT)
    ax.set_xlabel(option)
    ax.set_ylabel(f"{contender} win rate")
    title = f"{contender} win rate against {option} (Wilson 95%)"
    if zoom:
        lo_all = float(sub.get_column("lo").min())  # type: ignore[arg-type]
        hi_all = float(sub.get_column("hi").max())  # type: ignore[arg-type]
        pad = max(0.005, 0.1 * (hi_all - lo_all))
        ax.set_ylim(max(0.0, lo_all - pad), min(1.0, hi_all + pad))
        a, b = ax.get_ylim()
        _pct_axis(ax, decimals=1)
        title += f"\nzoomed: the axis runs from {100 * a:.1f}% to {100 * b:.1f}%, not 0–100%"
    else:
        ax.set_ylim(-0.02, 1.02)  # 0 to 100%, the markers at either end not cut
        _pct_axis(ax)
        if _two_sided(rates):
            _even_line(ax)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    _legend(fig, ax)
    return fig


def heatmap(grid: pl.DataFrame, x: str, y: str, contender: str) -> Figure:
    """Heat map of a contender's win rate over two options, each cell annotated.

    Args:
        grid: a :func:`balancelab.analysis.heat_grid` frame (``y`` column, one column per x).
    """
    xs = [c for c in grid.columns if c != y]
    ys = [_fmt(v) for v in grid.get_column(y).to_list()]
    z = grid.select(xs).to_numpy().astype(float)
    fig = _fig(2.0 + 1.1 * len(xs), 1.4 + 0.6 * len(ys))
    ax = fig.add_subplot()
    im = ax.imshow(z, cmap="RdBu_r", vmin=0, vmax=1, aspect="auto")
    for i in range(z.shape[0]):
        for j in range(z.shape[1]):
            if np.isfinite(z[i, j]):
                ax.text(j, i, f"{100 * z[i, j]:.1f}%", ha="center", va="center",
                        fontsize=SMALL_PT,
                        color="white" if abs(z[i, j] - 0.5) > 0.3 else "black")
    ax.set_xticks(np.arange(len(xs)), xs, fontsize=SMALL_PT)
    ax.set_yticks(np.arange(len(ys)), ys, fontsize=SMALL_PT)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.set_title(f"{contender} win rate")
    cb = fig.colorbar(im, ax=ax, format="{x:.0%}")
    cb.ax.tick_params(labelsize=SMALL_PT)
    return fig


def integer_bins(lo: int, hi: int, most: int = 60) -> np.ndarray:
    """Bin edges for whole numbers ``lo..hi``: at most ``most`` bins, each holding the same
    count of whole numbers (edges at half-integers), so no bin is empty for lack of one.

    Example: ``integer_bins(0, 3)`` → ``[-0.5, 0.5, 1.5, 2.5, 3.5]``.
    """
    width = max(1, math.ceil((hi - lo + 1) / most))
    n = math.ceil((hi - lo + 1) / width)
    return lo - 0.5 + width * np.arange(n + 1, dtype=float)


def _panels(fig: Figure, n: int, ncols: int = 4, **kw: Any) -> list[Axes]:
    """``n`` small multiples in rows of at most ``ncols``, sharing axes (unused cells off)."""
    cols = min(n, ncols)
    rows = math.ceil(n / cols)
    axs = fig.subplots(rows, cols, squeeze=False, **kw).ravel()
    for ax in axs[n:]:
        ax.set_visible(False)
    for ax in axs[max(0, n - cols):n]:  # the lowest panel of each column keeps its x labels
        ax.xaxis.set_tick_params(labelbottom=True)
    return list(axs[:n])


def distribution(games: pl.DataFrame | pl.LazyFrame, column: str, title: str | None = None,
                 group: str = "variant_label", xlabel: str | None = None) -> Figure:
    """Histogram of a numeric column, one panel per group (small multiples on shared axes),
    each titled with its group and mean; whole-number data (whatever its dtype) on
    :func:`integer_bins`.

    Args:
        games: a games (or seats) frame holding ``column`` and ``group``, or a lazy scan
            of one (only those two columns are read).
        title: the figure's title (default ``Distribution of <column>``).
        xlabel: the x axis in words, with its unit (default ``column``).
    """
    lf = games.lazy()
    # each group's distinct values and their counts: the histogram of a million games is
    # built from a few hundred numbers, never from the per-game values
    counts = (lf.select(pl.col(group), pl.col(column).cast(pl.Float64).alias("_x"))
              .drop_nulls("_x").with_row_index("_r")
              .group_by(group, "_x").agg(pl.len().alias("_n"), pl.col("_r").min())
              .collect())
    if counts.height == 0:
        fig = _fig(WIDTH, 2.0)
        fig.add_subplot().set_title(f"{column}: no data")
        return fig
    x_all = counts.get_column("_x").to_numpy()
    lo, hi = float(x_all.min()), float(x_all.max())
    integer = bool(np.all(x_all == np.round(x_all)))
    bins = integer_bins(int(lo), int(hi)) if integer else np.linspace(
        lo, hi if hi > lo else lo + 1, 41)
    first = counts.group_by(group).agg(pl.col("_r").min()).sort("_r")
    groups = first.get_column(group).to_list()
    names = tick_labels([str(g) for g in groups]) if len(groups) > 1 else [str(groups[0])]
    cols = min(len(groups), 4)
    fig = _fig(WIDTH, (3.6 if len(groups) == 1 else 1.3 + 2.2 * math.ceil(len(groups) / cols)))
    axs = _panels(fig, len(groups), cols, sharex=True, sharey=True)
    for j, (gval, ax) in enumerate(zip(groups, axs, strict=True)):
        sub = counts.filter(pl.col(group) == gval).sort("_x")
        x, w = sub.get_column("_x").to_numpy(), sub.get_column("_n").to_numpy()
        mean = float(np.average(x, weights=w))
        ax.hist(x, bins=list(bins), weights=w / w.sum(), histtype="bar", rwidth=1.0,
                color=COLORS[0], alpha=0.85)
        ax.axvline(mean, color="black", linestyle="--", linewidth=1)
        head = _panel_title(names[j], cols) if len(groups) > 1 else ""
        ax.set_title(f"{head}\nmean {mean:.1f}" if head else f"mean {mean:.1f}",
                     fontsize=SMALL_PT)
        ax.tick_params(labelsize=SMALL_PT)
        ax.grid(alpha=0.3)
        if integer:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=6 if cols > 2 else 10))
        _pct_axis(ax)
    fig.supxlabel(xlabel or column, fontsize=TEXT_PT)
    fig.supylabel("share of games", fontsize=TEXT_PT)
    fig.suptitle(title or f"Distribution of {column}")
    return fig


def score_boxes(seats: pl.DataFrame, column: str = "score") -> Figure:
    """Box plots of a per-seat score: one panel per variant (small multiples, shared score
    axis), one box per seat.

    Args:
        seats: a seats frame with ``variant_label``, ``seat``, ``seat_name`` and ``column``.
    """
    keys = seats.select("variant_label", "seat", "seat_name").unique().sort(
        ["variant_label", "seat"])
    variants = keys.get_column("variant_label").unique(maintain_order=True).to_list()
    names = tick_labels([str(v) for v in variants]) if len(variants) > 1 else [
        str(variants[0])]
    cols = min(len(variants), 4)
    fig = _fig(WIDTH, 1.2 + 2.8 * math.ceil(len(variants) / cols))
    axs = _panels(fig, len(variants), cols, sharey=True)
    for vl, name, ax in zip(variants, names, axs, strict=True):
        rows = keys.filter(pl.col("variant_label") == vl)
        data = [seats.filter((pl.col("variant_label") == vl) & (pl.col("seat") == s))
                .get_column(column).cast(pl.Float64).to_numpy()
                for s in rows.get_column("seat").to_list()]
        bp = ax.boxplot(data, patch_artist=True, showfliers=False)
        for patch, s in zip(bp["boxes"], rows.get_column("seat").to_list(), strict=True):
            patch.set_facecolor(COLORS[int(s) % len(COLORS)])
            patch.set_alpha(0.5)
        ax.set_xticks(np.arange(1, rows.height + 1), rows.get_column("seat_name").to_list(),
                      fontsize=SMALL_PT)
        ax.tick_params(axis="y", labelsize=SMALL_PT)
        ax.set_title(_panel_title(name, cols), fontsize=SMALL_PT)
        ax.grid(axis="y", alpha=0.3)
    fig.supylabel(column, fontsize=TEXT_PT)
    fig.suptitle(f"{column} by seat (box: middle half of games; whiskers: 1.5 box lengths)")
    return fig


def differences(comp: pl.DataFrame, title: str = "Differences in win rate") -> Figure:
    """Forest plot of differences with the intervals their verdicts used (one row per
    comparison; green raises, red lowers, blue equivalent, grey inconclusive).

    Args:
        comp: a :func:`balancelab.analysis.compare_variants` frame (``diff``, ``lo``, ``hi``).
    """
    n = comp.height
    labels = [textwrap.fill(textwrap.shorten(_row_label(r), 90, placeholder=" …"), 48)
              for r in comp.iter_rows(named=True)]
    row = max(0.45, _text_in(SMALL_PT, max(map(_lines, labels), default=1)) + 0.1)
    fig = _fig(WIDTH, 1.5 + row * max(n, 1))
    ax = fig.add_subplot()
    y = np.arange(n)[::-1]
    d, lo, hi = (comp.get_column(c).to_numpy() * 100 for c in ("diff", "lo", "hi"))
    palette = {"raises": "#2ca02c", "lowers": "#d62728", "equivalent": "#1f77b4"}
    colors = [palette.get(v, "#7f7f7f") for v in comp.get_column("verdict").to_list()]
    for i in range(n):
        ax.plot([lo[i], hi[i]], [y[i], y[i]], color=colors[i], linewidth=2)
        ax.plot([d[i]], [y[i]], "o", color=colors[i])
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, labels, fontsize=SMALL_PT)
    ax.set_ylim(-0.6, n - 0.4)
    ax.tick_params(axis="x", labelsize=SMALL_PT)
    ax.set_xlabel("difference (percentage points)")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    return fig


def _row_label(r: dict[str, object]) -> str:
    if r.get("option") == "run":  # two runs: say what differs, not their long names
        return f"{r['contender']}: {r.get('context') or 'run B vs A'}"
    ctx = f" @ {r['context']}" if r.get("context") else ""
    return f"{r['contender']}: {r['option']} {r['value_a']}→{r['value_b']}{ctx}"


def _fmt(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)
