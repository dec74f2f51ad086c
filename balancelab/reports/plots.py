"""Report figures: one function per figure, matplotlib's object API (no pyplot state), Agg.

Each function takes analysis frames and returns a :class:`matplotlib.figure.Figure`;
:func:`png_bytes` renders it to PNG bytes that are identical for identical data (no
``Software`` metadata, fixed size and dpi). Figures are drawn in the main process only.
"""

from __future__ import annotations

import io
import textwrap

import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

DPI = 100
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
          "#7f7f7f"]


def _fig(w: float = 7.0, h: float = 4.0) -> Figure:
    fig = Figure(figsize=(w, h), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def png_bytes(fig: Figure) -> bytes:
    """The figure as PNG bytes, deterministic for the same figure content."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return buf.getvalue()


def _pct_axis(ax: object) -> None:
    from matplotlib.ticker import PercentFormatter

    ax.yaxis.set_major_formatter(PercentFormatter(1.0))  # type: ignore[attr-defined]


def tick_labels(labels: list[str]) -> list[str]:
    """Variant labels as axis ticks: the ``key=value`` parts shared by every label dropped
    (they are in the title and tables), one part per line.

    Example: ``["crew=2,h=1", "crew=3,h=1"]`` → ``["crew=2", "crew=3"]``.
    """
    parts = [lab.split(",") for lab in labels]
    common = set.intersection(*(set(p) for p in parts)) if len(parts) > 1 else set()
    return ["\n".join(x for x in p if x not in common) or lab
            for p, lab in zip(parts, labels, strict=True)]


def winrates(rates: pl.DataFrame, title: str = "Win rate by variant (Wilson 95%)") -> Figure:
    """Grouped bars of each contender's win rate per variant, with interval error bars.

    Args:
        rates: a :func:`balancelab.analysis.win_rates` frame.
    """
    fig = _fig(max(6.0, 1.0 + 1.4 * rates.get_column("variant").n_unique()), 4.2)
    ax = fig.add_subplot()
    variants = rates.select("variant", "variant_label").unique(maintain_order=True)
    labels = variants.get_column("variant_label").to_list()
    conts = rates.get_column("contender").unique(maintain_order=True).to_list()
    width = 0.8 / max(1, len(conts))
    x = np.arange(len(labels))
    for j, c in enumerate(conts):
        sub = variants.join(rates.filter(pl.col("contender") == c), on=["variant", "variant_label"],
                            how="left")
        r = sub.get_column("rate").fill_null(np.nan).to_numpy()
        lo = sub.get_column("lo").fill_null(np.nan).to_numpy()
        hi = sub.get_column("hi").fill_null(np.nan).to_numpy()
        ax.bar(x + (j - (len(conts) - 1) / 2) * width, r, width, label=c,
               color=COLORS[j % len(COLORS)], yerr=[r - lo, hi - r], capsize=3)
    ax.set_xticks(x, tick_labels(labels), fontsize=8)
    ax.set_ylim(0, 1)
    _pct_axis(ax)
    ax.set_ylabel("win rate")
    ax.set_title(title)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return fig


def outcomes(out: pl.DataFrame) -> Figure:
    """Stacked bars of how games ended (wins, draws, capped) per variant.

    Args:
        out: a :func:`balancelab.analysis.outcome_rates` frame.
    """
    variants = out.select("variant", "variant_label").unique(maintain_order=True)
    labels = variants.get_column("variant_label").to_list()
    names = out.get_column("outcome").unique(maintain_order=True).to_list()
    fig = _fig(max(6.0, 1.0 + 1.4 * len(labels)), 4.0)
    ax = fig.add_subplot()
    bottom = np.zeros(len(labels))
    x = np.arange(len(labels))
    for j, name in enumerate(names):
        sub = variants.join(out.filter(pl.col("outcome") == name), on=["variant", "variant_label"],
                            how="left")
        r = sub.get_column("rate").fill_null(0.0).to_numpy()
        ax.bar(x, r, 0.6, bottom=bottom, label=name, color=COLORS[j % len(COLORS)])
        bottom += r
    ax.set_xticks(x, tick_labels(labels), fontsize=8)
    ax.set_ylim(0, 1)
    _pct_axis(ax)
    ax.set_ylabel("share of games")
    ax.set_title("How games ended")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def winrate_vs_option(rates: pl.DataFrame, option: str, contender: str,
                      by: str | None = None) -> Figure:
    """One contender's win rate against an option, one line per value of ``by``.

    Args:
        rates: a :func:`balancelab.analysis.sweep_table` frame.
        option: the option on the x axis.
        contender: the side or seat plotted.
        by: a second option (one line per value), or None.
    """
    fig = _fig(6.0, 4.0)
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
    ax.set_xticks(np.arange(len(xs_all)), [_fmt(v) for v in xs_all])
    ax.set_xlabel(option)
    ax.set_ylabel(f"{contender} win rate")
    _pct_axis(ax)
    ax.set_title(f"{contender} win rate against {option} (Wilson 95%)")
    ax.grid(alpha=0.3)
    if by is not None:
        ax.legend(fontsize=8)
    return fig


def heatmap(grid: pl.DataFrame, x: str, y: str, contender: str) -> Figure:
    """Heat map of a contender's win rate over two options, each cell annotated.

    Args:
        grid: a :func:`balancelab.analysis.heat_grid` frame (``y`` column, one column per x).
    """
    xs = [c for c in grid.columns if c != y]
    ys = [_fmt(v) for v in grid.get_column(y).to_list()]
    z = grid.select(xs).to_numpy().astype(float)
    fig = _fig(1.5 + 1.1 * len(xs), 1.2 + 0.8 * len(ys))
    ax = fig.add_subplot()
    im = ax.imshow(z, cmap="RdBu_r", vmin=0, vmax=1, aspect="auto")
    for i in range(z.shape[0]):
        for j in range(z.shape[1]):
            if np.isfinite(z[i, j]):
                ax.text(j, i, f"{100 * z[i, j]:.1f}%", ha="center", va="center", fontsize=9,
                        color="white" if abs(z[i, j] - 0.5) > 0.3 else "black")
    ax.set_xticks(np.arange(len(xs)), xs)
    ax.set_yticks(np.arange(len(ys)), ys)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.set_title(f"{contender} win rate")
    fig.colorbar(im, ax=ax, format="{x:.0%}")
    return fig


def distribution(games: pl.DataFrame | pl.LazyFrame, column: str, title: str | None = None,
                 group: str = "variant_label") -> Figure:
    """Histogram (step outlines) of an integer or numeric column per group.

    Args:
        games: a games (or seats) frame holding ``column`` and ``group``, or a lazy scan
            of one (only those two columns are read).
    """
    fig = _fig(6.5, 3.8)
    ax = fig.add_subplot()
    lf = games.lazy()
    dtype = lf.collect_schema()[column]
    # each group's distinct values and their counts: the histogram of a million games is
    # built from a few hundred numbers, never from the per-game values
    counts = (lf.select(pl.col(group), pl.col(column).cast(pl.Float64).alias("_x"))
              .drop_nulls("_x").with_row_index("_r")
              .group_by(group, "_x").agg(pl.len().alias("_n"), pl.col("_r").min())
              .collect())
    if counts.height == 0:
        ax.set_title(f"{column}: no data")
        return fig
    lo = float(counts.get_column("_x").min())  # type: ignore[arg-type]
    hi = float(counts.get_column("_x").max())  # type: ignore[arg-type]
    integer = dtype.is_integer() or dtype == pl.Boolean
    if integer and hi - lo <= 80:
        bins = np.arange(lo - 0.5, hi + 1.5, 1.0)
    else:
        bins = np.linspace(lo, hi if hi > lo else lo + 1, 41)
    first = counts.group_by(group).agg(pl.col("_r").min()).sort("_r")
    groups = first.get_column(group).to_list()
    for j, gval in enumerate(groups):
        sub = counts.filter(pl.col(group) == gval).sort("_x")
        ax.hist(sub.get_column("_x").to_numpy(), bins=list(bins),
                weights=sub.get_column("_n").to_numpy(), histtype="step", density=True,
                linewidth=1.5, color=COLORS[j % len(COLORS)], label=str(gval))
    ax.set_xlabel(column)
    ax.set_ylabel("share of games")
    ax.set_title(title or f"Distribution of {column}")
    if 1 < len(groups) <= 12:
        ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return fig


def score_boxes(seats: pl.DataFrame, column: str = "score") -> Figure:
    """Box plots of a per-seat score, per variant and seat.

    Args:
        seats: a seats frame with ``variant_label``, ``seat_name`` and ``column``.
    """
    keys = seats.select("variant_label", "seat", "seat_name").unique().sort(
        ["variant_label", "seat"])
    fig = _fig(max(6.0, 0.5 * keys.height + 1.5), 4.0)
    ax = fig.add_subplot()
    data, labels, colors = [], [], []
    short = dict(zip(keys["variant_label"], tick_labels(keys["variant_label"].to_list()),
                     strict=True))
    for vl, seat, name in keys.iter_rows():
        x = seats.filter((pl.col("variant_label") == vl) & (pl.col("seat") == seat)) \
            .get_column(column).cast(pl.Float64).to_numpy()
        data.append(x)
        labels.append(f"{name}\n{short[vl]}")
        colors.append(COLORS[int(seat) % len(COLORS)])
    bp = ax.boxplot(data, patch_artist=True, showfliers=False)
    for patch, c in zip(bp["boxes"], colors, strict=True):
        patch.set_facecolor(c)
        patch.set_alpha(0.5)
    ax.set_xticks(np.arange(1, len(labels) + 1), labels, fontsize=6)
    ax.set_ylabel(column)
    ax.set_title(f"{column} by seat")
    ax.grid(axis="y", alpha=0.3)
    return fig


def differences(comp: pl.DataFrame, title: str = "Differences in win rate") -> Figure:
    """Forest plot of differences with the intervals their verdicts used (one row per
    comparison; green raises, red lowers, blue equivalent, grey inconclusive).

    Args:
        comp: a :func:`balancelab.analysis.compare_variants` frame (``diff``, ``lo``, ``hi``).
    """
    n = comp.height
    fig = _fig(9.0, 1.4 + 0.5 * max(n, 1))
    ax = fig.add_subplot()
    y = np.arange(n)[::-1]
    d, lo, hi = (comp.get_column(c).to_numpy() * 100 for c in ("diff", "lo", "hi"))
    palette = {"raises": "#2ca02c", "lowers": "#d62728", "equivalent": "#1f77b4"}
    colors = [palette.get(v, "#7f7f7f") for v in comp.get_column("verdict").to_list()]
    for i in range(n):
        ax.plot([lo[i], hi[i]], [y[i], y[i]], color=colors[i], linewidth=2)
        ax.plot([d[i]], [y[i]], "o", color=colors[i])
    ax.axvline(0, color="black", linewidth=0.8)
    labels = [textwrap.shorten(_row_label(r), 90, placeholder=" …")
              for r in comp.iter_rows(named=True)]
    labels = [textwrap.fill(lab, 45) for lab in labels]
    ax.set_yticks(y, labels, fontsize=7)
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
