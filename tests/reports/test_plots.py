"""Plots a designer can trust: measured on the drawn figures (text extents after a draw, axis
limits, bin edges, font sizes in page pixels), on frames shaped like the analysis frames."""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.text import Text

from balancelab.reports import page, plots

# -- frames like the analysis frames ----------------------------------------------------------

#: 8 variants of a 1-4 player seat game, labels as long as a real sweep's
SEAT_VARIANTS = [(v, p, f"players={p},remove_shuttles={str(r).lower()}")
                 for v, (p, r) in enumerate(itertools.product((1, 2, 3, 4), (False, True)))]


def seat_rates() -> pl.DataFrame:
    rows = []
    for v, p, label in SEAT_VARIANTS:
        for s in range(p):
            rows.append({"variant": v, "variant_label": label, "contender": f"seat{s}",
                         "seat": s, "rate": 0.9 / p, "lo": 0.8 / p, "hi": 1.0 / p,
                         "fair_share": 0.95 / p})
    return pl.DataFrame(rows)


def side_rates(hal: list[float]) -> pl.DataFrame:
    """HAL against the crew per hal_extra_turns value (HAL's rate ± 0.4 points)."""
    rows = []
    for v, h in enumerate(hal):
        for c, r in (("hal", h), ("crew", 1 - h)):
            rows.append({"variant": v, "variant_label": f"crew=3,hal_extra_turns={v - 1}",
                         "hal_extra_turns": v - 1, "contender": c, "seat": -1, "rate": r,
                         "lo": r - 0.004, "hi": r + 0.004, "fair_share": 0.5})
    return pl.DataFrame(rows)


def seat_outcomes() -> pl.DataFrame:
    rows = []
    for v, p, label in SEAT_VARIANTS:
        names = [f"seat{s}" for s in range(p)] + (["fedor"] if p == 1 else []) + [
            "tie", "capped"]
        for name in names:
            share = 0.0 if name == "capped" else 0.03 if name == "tie" else 0.97 / (
                len(names) - 2)
            rows.append({"variant": v, "variant_label": label, "outcome": name,
                         "count": int(1000 * share), "games": 1000, "rate": share,
                         "lo": share, "hi": share})
    return pl.DataFrame(rows)


def seat_scores() -> pl.DataFrame:
    rng = np.random.default_rng(1)
    rows = []
    for _v, p, label in SEAT_VARIANTS:
        for s in range(p):
            for x in rng.normal(30, 8, 40).round():
                rows.append({"variant_label": label, "seat": s, "seat_name": f"seat{s}",
                             "score": int(x)})
    return pl.DataFrame(rows)


def margins() -> pl.DataFrame:
    """Winner's margins 0..29 as Float64 (as ``analysis.winner_margin`` gives them), every
    value present: 996 games at 5 and 384 at 11 among them."""
    rows = []
    for v, _p, label in SEAT_VARIANTS:
        for m in range(30):
            n = 996 if m == 5 else 384 if m == 11 else 30 + 3 * (29 - m)
            rows += [{"variant_label": label, "variant": v, "margin": float(m)}] * (n // 8)
    return pl.DataFrame(rows)


def comparisons(n: int = 6) -> pl.DataFrame:
    return pl.DataFrame([{
        "option": "hal_extra_turns", "value_a": str(i), "value_b": str(i + 1),
        "context": f"crew={2 + i % 3}", "contender": "hal", "diff": 0.01 * (i - 2),
        "lo": 0.01 * (i - 3), "hi": 0.01 * (i - 1),
        "verdict": ["raises", "lowers", "equivalent", "inconclusive"][i % 4]}
        for i in range(n)])


def figures() -> dict[str, Figure]:
    rates = side_rates([0.978, 0.985, 0.994])
    return {
        "winrates (seats)": plots.winrates(seat_rates()),
        "winrates (sides)": plots.winrates(rates),
        "outcomes": plots.outcomes(seat_outcomes()),
        "winrate_vs_option": plots.winrate_vs_option(rates, "hal_extra_turns", "hal"),
        "heatmap": plots.heatmap(pl.DataFrame({"crew": [2, 3, 4], "0": [0.97, 0.98, 0.99],
                                               "1": [0.98, 0.99, 0.995]}),
                                 "hal_extra_turns", "crew", "hal"),
        "distribution": plots.distribution(margins(), "margin", "Winner's margin",
                                           xlabel="points ahead of the runner-up"),
        "score_boxes": plots.score_boxes(seat_scores()),
        "differences": plots.differences(comparisons()),
    }


@pytest.fixture(scope="module")
def drawn() -> dict[str, Figure]:
    figs = figures()
    for fig in figs.values():
        plots.png_bytes(fig)  # what the report shows: drawn, text at its final size
    return figs


# -- measuring a drawn figure -----------------------------------------------------------------


def _undrawn(fig: Figure) -> set[int]:
    """The tick labels outside their axis's view (kept by matplotlib, never drawn)."""
    out = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            a, b = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not a - 1e-9 * abs(b - a) <= tick.get_loc() <= b + 1e-9 * abs(b - a):
                    out |= {id(tick.label1), id(tick.label2)}
    return out


def texts(fig: Figure) -> list[Text]:
    """Every drawn, non-empty text of the figure (tick labels included)."""
    skip = _undrawn(fig)
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()
            and (t.axes is None or t.axes.get_visible()) and id(t) not in skip]


def overlaps(fig: Figure) -> list[tuple[str, str]]:
    """Pairs of texts whose drawn extents overlap (by more than a pixel each way)."""
    r = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    boxes = [(t.get_text(), t.get_window_extent(r).expanded(1.0, 1.0).padded(-1.0))
             for t in texts(fig)]
    return [(a, b) for (a, ba), (b, bb) in itertools.combinations(boxes, 2)
            if ba.width > 0 and bb.width > 0 and ba.overlaps(bb)]


def _figure(name: str) -> Figure:
    fig = figures()[name]
    plots.png_bytes(fig)
    return fig


# -- the tests --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(figures()))
def test_no_two_labels_overlap(drawn: dict[str, Figure], name: str) -> None:
    assert overlaps(drawn[name]) == []


def test_twenty_seat_boxes_are_small_multiples_with_separate_labels() -> None:
    fig = _figure("score_boxes")
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == 8  # one per variant: 1+2+3+4 seats twice = 20 boxes
    assert sorted(len(ax.get_xticklabels()) for ax in panels) == [1, 1, 2, 2, 3, 3, 4, 4]
    assert overlaps(fig) == []


@pytest.mark.parametrize("name", list(figures()))
def test_text_and_legends_stay_inside_the_figure(drawn: dict[str, Figure], name: str) -> None:
    fig = drawn[name]
    r = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    inside = fig.bbox.padded(1.0)
    legends = fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    for item in [*legends, *texts(fig)]:
        box = item.get_window_extent(r)
        assert inside.x0 <= box.x0 and box.x1 <= inside.x1, (name, item)
        assert inside.y0 <= box.y0 and box.y1 <= inside.y1, (name, item)


def test_the_outcome_legend_is_inside_the_figure() -> None:
    fig = _figure("outcomes")
    legends = fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    assert len(legends) == 1
    box = legends[0].get_window_extent(fig.canvas.get_renderer())  # type: ignore[attr-defined]
    assert fig.bbox.x0 <= box.x0 and box.x1 <= fig.bbox.x1
    assert fig.bbox.y0 <= box.y0 and box.y1 <= fig.bbox.y1
    assert {t.get_text() for t in legends[0].get_texts()} == {
        "seat0", "seat1", "seat2", "seat3", "fedor", "tie"}  # capped: no game, left out


@pytest.mark.parametrize("name", list(figures()))
def test_text_is_readable_at_the_pages_width(drawn: dict[str, Figure], name: str) -> None:
    fig = drawn[name]
    assert fig.get_figwidth() * fig.dpi <= plots.PAGE_PX  # never shrunk by the browser
    smallest = min(plots.page_px(fig, float(t.get_fontsize())) for t in texts(fig))
    assert smallest >= plots.MIN_PX, name


def test_the_pages_width_is_the_reports_column() -> None:
    assert f"max-width:{plots.PAGE_PX}px" in page.CSS.replace(" ", "")


def test_readable_raises_small_text_of_figures_drawn_elsewhere() -> None:
    fig = plots._fig(14.0, 3.0)  # asked wider than the page: kept at the page's width
    assert fig.get_figwidth() * fig.dpi == plots.PAGE_PX
    ax = fig.add_subplot()
    ax.set_xticks([0, 1], ["a", "b"], fontsize=5)
    ax.set_title("tiny", fontsize=4)
    plots.png_bytes(fig)
    assert min(plots.page_px(fig, float(t.get_fontsize())) for t in texts(fig)) >= plots.MIN_PX


def test_win_rate_axes_run_from_0_to_100_percent() -> None:
    """HAL at 97.8-99.4% against difficulty: on 0-100%, not on a 97.8-99.4% axis."""
    rates = side_rates([0.978, 0.985, 0.994])
    ax = plots.winrate_vs_option(rates, "hal_extra_turns", "hal").axes[0]
    lo, hi = ax.get_ylim()
    assert lo <= 0.0 and hi >= 1.0 and hi - lo <= 1.05
    assert "zoom" not in ax.get_title()
    for fig in (plots.winrates(rates), plots.winrates(seat_rates()),
                plots.outcomes(seat_outcomes())):
        assert fig.axes[0].get_xlim() == (0.0, 1.0)


def test_a_zoomed_win_rate_axis_says_so_in_its_title() -> None:
    rates = side_rates([0.978, 0.985, 0.994])
    ax = plots.winrate_vs_option(rates, "hal_extra_turns", "hal", zoom=True).axes[0]
    lo, hi = ax.get_ylim()
    assert 0.9 < lo < 0.974 and 0.998 < hi <= 1.0
    assert f"zoomed: the axis runs from {100 * lo:.1f}% to {100 * hi:.1f}%" in ax.get_title()


def _lines_at_half(fig: Figure) -> int:
    ax = fig.axes[0]
    return sum(1 for ln in ax.get_lines() if ln.get_label() == "50%: even"
               and (np.allclose(ln.get_xdata(), 0.5) or np.allclose(ln.get_ydata(), 0.5)))


def test_two_sided_charts_draw_the_50_percent_line() -> None:
    rates = side_rates([0.978, 0.985, 0.994])
    assert _lines_at_half(plots.winrates(rates)) == 1
    assert _lines_at_half(plots.winrate_vs_option(rates, "hal_extra_turns", "hal")) == 1
    sides = pl.DataFrame([{"variant": 0, "variant_label": "crew=3", "outcome": o, "count": c,
                           "games": 1000, "rate": c / 1000, "lo": 0.0, "hi": 1.0}
                          for o, c in (("hal", 990), ("crew", 10), ("capped", 0))])
    assert _lines_at_half(plots.outcomes(sides)) == 1
    # seats 1-4: no 50% line, the fair share per variant instead
    assert _lines_at_half(plots.winrates(seat_rates())) == 0
    assert _lines_at_half(plots.outcomes(seat_outcomes())) == 0
    fair = [ln for ln in plots.winrates(seat_rates()).axes[0].get_lines()
            if ln.get_linestyle() == ":"]
    assert sorted({round(float(ln.get_xdata()[0]), 4) for ln in fair}) == sorted(
        {round(0.95 / p, 4) for _v, p, _l in SEAT_VARIANTS})


def test_a_one_percent_bar_has_its_rate_written() -> None:
    ax = plots.winrates(side_rates([0.99])).axes[0]
    assert {"99.0%", "1.0%"} <= {t.get_text() for t in ax.texts}


def _bars(ax) -> list[Rectangle]:
    return [p for p in ax.patches if isinstance(p, Rectangle)]


def test_integer_data_is_binned_on_integers() -> None:
    """The winner's margin (Float64 whole numbers): a bar at 5 and at 11, none empty."""
    fig = plots.distribution(margins(), "margin")
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == len(SEAT_VARIANTS)
    for ax in panels:
        bars = _bars(ax)
        assert len(bars) == 30
        for b in bars:  # every bin one whole number wide, centred on it, not empty
            assert b.get_width() == pytest.approx(1.0)
            assert (b.get_x() + 0.5) == pytest.approx(round(b.get_x() + 0.5))
            assert b.get_height() > 0
        heights = {round(b.get_x() + 0.5): b.get_height() for b in bars}
        assert heights[5] == max(heights.values()) and heights[11] > heights[12]


@given(st.integers(-50, 50), st.integers(0, 2000), st.integers(1, 80))
def test_integer_bins_hold_the_same_whole_numbers_each(lo: int, span: int, most: int) -> None:
    edges = plots.integer_bins(lo, lo + span, most)
    widths = np.diff(edges)
    assert len(widths) <= most and np.all(widths == widths[0])
    assert widths[0] == int(widths[0]) >= 1
    assert edges[0] == lo - 0.5 and edges[-1] >= lo + span + 0.5


def test_several_groups_are_small_multiples_not_overlaid() -> None:
    fig = _figure("distribution")
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == 8
    assert {len({p.get_facecolor() for p in _bars(ax)}) for ax in panels} == {1}
    titles = [ax.get_title() for ax in panels]
    assert titles[0].startswith("players=1,") and "mean" in titles[0]
    assert len(set(titles)) == 8


def test_game_length_is_labelled_in_the_games_own_words() -> None:
    from balancelab.reports import words as W

    assert W.label("odyssey", "rounds") == "crew turns"
    assert W.label("iss", "rounds") == "rounds"
    assert W.meaning("iss", "rounds").startswith("completed rounds (every player one turn")
    assert W.meaning("obcy", "rounds").startswith("game rounds")
    frame = pl.DataFrame({"variant_label": ["a"] * 3, "rounds": [14, 15, 17]})
    fig = plots.distribution(frame, "rounds", "Game length", xlabel="crew turns")
    assert fig.get_supxlabel() == "crew turns"
    assert fig.axes[0].get_title() == "mean 15.3"
