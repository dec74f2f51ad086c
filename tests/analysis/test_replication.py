"""Replication on independent seed blocks: pooled verdict, each block's estimate, Cochran's Q
and when a finding may be stated (issue 26)."""

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from coin_game import install
from scipy import stats as sst

from balancelab.analysis import replication
from balancelab.questions import sweep as sweeps
from balancelab.questions.inputs import load_game


def test_cochran_q_by_hand():
    """One 2,000-game seed at +4.5 points (se 1.35), 4,000 fresh deals at +1.6 (se 0.97):
    Q = Σ w (d - d̄)² = 3.04 on 1 degree of freedom, p 0.081."""
    q, p = replication.cochran_q([0.045, 0.016], [0.0135, 0.0097])
    w = np.array([1 / 0.0135**2, 1 / 0.0097**2])
    mean = (w[0] * 0.045 + w[1] * 0.016) / w.sum()
    assert q == pytest.approx(w[0] * (0.045 - mean) ** 2 + w[1] * (0.016 - mean) ** 2)
    assert q == pytest.approx(3.04, abs=0.01) and p == pytest.approx(sst.chi2.sf(q, 1))
    assert replication.cochran_q([0.01, 0.01, 0.01], [0.01, 0.02, 0.005]) == (0.0, 1.0)
    with pytest.raises(ValueError, match="two or more"):
        replication.cochran_q([0.01], [0.01])


def _two_seeds(tmp_path: Path) -> list[Path]:
    install()
    out = []
    for seed in (1, 2):
        path = tmp_path / f"s{seed}"
        sweeps.sweep(load_game("coin"), {"edge": [400, 600]}, path, seed=seed, games=600, jobs=1)
        out.append(path)
    return out


def test_a_change_that_replicates_holds(tmp_path: Path):
    rep = replication.replicate(_two_seeds(tmp_path))
    row = rep.row(0, named=True)
    assert row["contender"] == "red" and row["blocks"] == 2
    assert row["block_seeds"] == [1, 2]
    assert row["verdict"] == "raises" and row["block_verdicts"] == ["raises", "raises"]
    assert all(d > 0.1 for d in row["block_diffs"])
    assert row["q_p"] > 0.01 and row["holds"]
    assert row["n_a"] == 1200


def test_a_block_deciding_the_opposite_stops_the_headline(tmp_path: Path):
    """The second seed's two settings' games exchanged (red's edge 600 read as 400 and back):
    that block says 'lowers', the pooled change does not hold, Q rejects agreement."""
    a, b = _two_seeds(tmp_path)
    from balancelab.analysis import games_frame

    fb = games_frame(b)
    first = fb.filter(pl.col("edge") == 400).select("variant", "variant_label", "edge").row(0)
    second = fb.filter(pl.col("edge") == 600).select("variant", "variant_label", "edge").row(0)
    swapped = fb.with_columns(*[
        pl.when(pl.col("edge") == 400).then(pl.lit(b_)).otherwise(pl.lit(a_))
        .cast(fb.schema[c]).alias(c)
        for c, a_, b_ in zip(["variant", "variant_label", "edge"], first, second, strict=True)])
    rep = replication.replicate([games_frame(a), swapped])
    row = rep.row(0, named=True)
    assert row["block_verdicts"][0] == "raises" and row["block_verdicts"][1] == "lowers"
    assert row["q_p"] < 1e-6 and not row["holds"]


def test_one_seed_is_refused(tmp_path: Path):
    with pytest.raises(ValueError, match="at least two run seeds"):
        replication.replicate(_two_seeds(tmp_path)[0])


def test_compare_of_one_design_on_two_seeds_reports_the_replication(tmp_path: Path):
    from balancelab.reports import build_compare_report, to_markdown

    md = " ".join(to_markdown(build_compare_report(_two_seeds(tmp_path))).split())
    rep = replication.replicate(_two_seeds(tmp_path / "again")).row(0, named=True)
    assert "## Replication on independent seed blocks" in md or \
        "Replication on independent seed blocks" in md
    d1, d2 = (f"{100 * d:+.1f}" for d in rep["block_diffs"])
    assert (f"raises red's win rate pooled over 2 seed blocks "
            f"({100 * rep['diff']:+.1f} points") in md
    assert f"seed 1: {d1} points (raises), seed 2: {d2} points (raises); the blocks agree" in md
    assert md.count("it holds.") == 1


def test_seat_games_of_two_seeds_are_counted_once():
    """Two runs' seat games share game indices: the seats were joined to their games on the
    index alone, so pooled seeds counted every game four times (a pooled interval half as
    wide as it should be)."""
    from balancelab import analysis

    rows = [{"run_id": "r", "game": "fake", "game_version": "1", "variant": 0,
             "variant_label": "players=2", "policy_player": "p",
             "policies": "seat0=p;seat1=p", "game_index": i, "seed": seed,
             "winner": f"seat{(i + seed) % 2}", "end_reason": "score", "rounds": 10,
             "decisions": 50}
            for seed in (1, 2) for i in range(30)]
    df = pl.DataFrame(rows).with_columns(pl.col("variant").cast(pl.Int32))
    assert analysis.contender_rows(df).height == 2 * 30 * 2
    rates = analysis.win_rates(df)
    assert rates["games"].to_list() == [60, 60] and rates["wins"].to_list() == [30, 30]
