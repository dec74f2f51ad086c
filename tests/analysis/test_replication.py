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


# -- seed blocks of a sweep or study (issue 26, item 1) --------------------------------------


def test_block_seeds_are_spawned_from_the_run_seed():
    """Block 1 plays from the run seed itself; the others from SeedSequence(seed).spawn."""
    seeds = sweeps.block_seeds(7, 3)
    kids = np.random.SeedSequence(7).spawn(3)
    assert seeds[0] == 7 and len(set(seeds)) == 3
    assert seeds[1:] == [int(k.generate_state(1, np.uint64)[0]) >> 1 for k in kids[1:]]
    assert seeds == sweeps.block_seeds(7, 3) and sweeps.block_seeds(8, 3)[1:] != seeds[1:]
    assert all(0 <= s < 2**63 for s in seeds)
    with pytest.raises(ValueError, match="--blocks is the number of independent seed blocks"):
        sweeps.check_blocks(0)


def _blocks(tmp_path: Path, blocks: int = 2, games: int = 300) -> Path:
    install()
    path = tmp_path / "run"
    sweeps.sweep(load_game("coin"), {"edge": [400, 600]}, path, seed=3, games=games, jobs=1,
                 blocks=blocks)
    return path


def test_a_sweep_in_two_blocks_keeps_the_first_and_reports_them_pooled(tmp_path: Path):
    from balancelab.reports import build_run_report, to_markdown
    from balancelab.simulate import runs

    path = _blocks(tmp_path)
    one = tmp_path / "one"
    sweeps.sweep(load_game("coin"), {"edge": [400, 600]}, one, seed=3, games=300, jobs=1)
    block2 = tmp_path / "run-block2"
    m1, m2, m_one = (runs.read_manifest(p) for p in (path, block2, one))
    # the first block is the run a one-block sweep writes: the same games (bar the folder's
    # name, the run id), the same configuration
    from balancelab.analysis import games_frame

    assert games_frame(path).drop("run_id").equals(games_frame(one).drop("run_id"))
    assert m1["identity"] == m_one["identity"]
    assert m2["config"]["seed"] == sweeps.block_seeds(3, 2)[1]
    assert m2["config"]["games"] == 300 and m2["config"]["variants"] == m1["config"]["variants"]
    rep = build_run_report(path)
    md = " ".join(to_markdown(rep).split())
    assert "Replication on independent seed blocks" in md
    assert "The run played its design in 2 independent seed blocks (the run and run-block2" in md
    # a chosen seed is named; a derived 19-digit block seed is named by its block
    assert m2["config"]["seed"] >= 1_000_000
    assert "seed 3: " in md and "block 2: " in md and str(m2["config"]["seed"]) + ":" not in md
    assert "pooled over 2 seed blocks" in md and "Cochran's Q" in md
    # the comparisons are the pooled games': 600 a setting, not the first block's 300
    pooled = replication.replicate([path, block2]).row(0, named=True)
    assert pooled["n_a"] == 600 and pooled["holds"]
    assert f"{100 * pooled['diff']:+.1f} points" in md
    assert not rep.short.startswith("Does not replicate")


def test_no_headline_when_a_block_decides_the_opposite(tmp_path: Path, monkeypatch):
    """A change decided pooled that a block decides the other way is not the report's
    answer: "In short" says it does not replicate, naming the block's seed."""
    from balancelab import analysis
    from balancelab.reports import build_run_report

    path = _blocks(tmp_path)
    real = analysis.replicate

    def contradicted(*a, **k):
        rep = real(*a, **k)
        return rep.with_columns(pl.lit(False).alias("holds"),
                                pl.lit(["raises", "lowers"]).alias("block_verdicts"))

    monkeypatch.setattr(analysis, "replicate", contradicted)
    rep = build_run_report(path)
    assert rep.short.startswith("Does not replicate on 2 seed blocks: ")
    assert "raises red's win rate pooled, but block 2 decides the opposite" in rep.short
    assert rep.short in rep.warnings


def test_a_run_extended_after_it_finished_is_a_second_look(tmp_path: Path):
    """A second sweep with more games on the same folder (not a stopping rule's round) is
    recorded in the manifest and the report says the intervals are from a second look."""
    from balancelab.reports import build_run_report
    from balancelab.simulate import runs

    install()
    path = tmp_path / "run"
    sweeps.sweep(load_game("coin"), {"edge": [400, 600]}, path, seed=3, games=200, jobs=1)
    assert "extensions" not in runs.read_manifest(path)
    assert not any("second look" in w for w in build_run_report(path).warnings)
    sweeps.sweep(load_game("coin"), {"edge": [400, 600]}, path, seed=3, games=300, jobs=1,
                 resume=True)
    assert runs.read_manifest(path)["extensions"] == [
        {"from": 200, "to": 300, "planned": False}]
    warns = build_run_report(path).warnings
    assert any(w.startswith("A second look: the run was extended after it had finished "
                            "(200 → 300 games per variant)") for w in warns)


def test_a_stopping_rules_rounds_are_planned_looks(tmp_path: Path):
    from balancelab.reports import build_run_report
    from balancelab.simulate import runs

    install()
    path = tmp_path / "run"
    res = sweeps.sweep(load_game("coin"), {"edge": [500, 510]}, path, seed=3, games=100,
                       precision=0.045, max_games=400, jobs=1)
    assert len(res.rounds) >= 2
    ext = runs.read_manifest(path)["extensions"]
    assert ext and all(e["planned"] for e in ext)
    assert not any("second look" in w for w in build_run_report(path).warnings)


def test_one_stopping_round_is_one_round():
    from balancelab.reports.sentences import stopping_sentence

    text = stopping_sentence({"stop": "precision", "target": 0.05,
                              "rounds": [{"games": 1000, "max_half_width": 0.03,
                                          "reached": True}]})
    assert "1 round: 1,000 games" in text and "1 rounds" not in text


def test_a_study_plays_two_seed_blocks_and_shows_them(tmp_path: Path):
    from balancelab.questions import study as studies
    from balancelab.reports import to_markdown

    install()
    st = studies.Study(name="coin-edge", game="coin", grid={"edge": [400, 600]},
                       question="Coin: does red's edge move red's win rate?", focus="edge")
    res = studies.run_study(st, load_game("coin"), tmp_path / "study", games=300, jobs=1)
    run = res.runs["defaults"] if "defaults" in res.runs else next(iter(res.runs.values()))
    assert (run.parent / f"{run.name}-block2" / "run.json").is_file()
    rep = studies.build_study_report(st, res.runs)
    md = " ".join(to_markdown(rep).split())
    assert "### Replication on independent seed blocks" in md
    assert "raises red's win rate pooled over 2 seed blocks" in md


def test_the_findings_page_is_written_from_the_studies_on_two_blocks(tmp_path: Path):
    """One command writes the findings page from the studies' reports: each study's
    command, question, "In short", its replication on the seed blocks; one block refused."""
    from balancelab.questions import findings
    from balancelab.questions import study as studies

    install()
    st = studies.Study(name="coin-edge", game="coin", grid={"edge": [400, 600]},
                       question="Coin: does red's edge move red's win rate?", focus="edge")
    out = findings.write_findings(tmp_path / "findings.md", tmp_path / "runs",
                                  findings=[findings.Finding(st, 300)], jobs=1)
    md = out.read_text()
    assert md.startswith("# Findings\n\nGenerated by `python docs/findings.py`")
    assert "## Coin: does red's edge move red's win rate?" in md
    assert "`balancelab study --file coin-edge.toml --games 300 --blocks 2 --seed 0`" in md
    assert "In short: " in md and "### Replication on independent seed blocks" in md
    assert "raises red's win rate pooled over 2 seed blocks" in md
    with pytest.raises(ValueError, match="at least 2 seed blocks"):
        findings.write_findings(tmp_path / "f.md", tmp_path / "runs", blocks=1,
                                findings=[findings.Finding(st, 300)], jobs=1)


def test_the_findings_at_the_strongest_players_measure_each_players_edge(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``--players strongest``: each study at the strongest fair pairing, and a players table
    with the edge over the scripted default, paired on a seed block of its own (here red's
    call cannot change the coin, so the edge is exactly 0 on every deal)."""
    from balancelab.questions import findings, strongest
    from balancelab.questions import study as studies

    install()
    monkeypatch.setitem(strongest.STRONGEST, "coin",
                        (strongest.Player("red", "random", "a test"),))
    monkeypatch.setitem(strongest.EDGE_SETTING, "coin", {"edge": 600})
    st = studies.Study(name="coin-edge", game="coin", grid={"edge": [400, 600]},
                       question="Coin: does red's edge move red's win rate?", focus="edge")
    out = findings.write_findings(tmp_path / "f.md", tmp_path / "runs", players="strongest",
                                  findings=[findings.Finding(st, 100)], jobs=1, edge_games=50)
    md = out.read_text()
    assert md.startswith("# Findings at the strongest players\n\nGenerated by "
                         "`python docs/findings.py --players strongest`")
    seed3 = sweeps.block_seeds(0, 3)[2]
    assert (f"default at edge: 600, on the same deals as the side's scripted default; seed "
            f"{seed3}") in md
    row = next(x for x in md.splitlines() if x.startswith("| red | `random` |"))
    cells = [c.strip() for c in row.split("|")[3:8]]
    assert cells[0] == cells[1] and cells[2].startswith("+0.0 [") and cells[3] == "50"
    assert ('`balancelab study --file coin-edge.toml --policy "red=random" '
            '--games 100 --blocks 2 --seed 0`') in md
    edge = strongest.measure_edge(load_game("coin"), strongest.STRONGEST["coin"][0],
                                  tmp_path / "runs" / "edges-coin-seed0", games=50,
                                  seed=seed3, jobs=1)  # the finished runs are read again
    assert edge.games == 50 and edge.diff == 0.0 and edge.seconds is not None
    with pytest.raises(ValueError, match="--players is one of default, strongest"):
        findings.write_findings(tmp_path / "g.md", tmp_path / "runs", players="best",
                                findings=[findings.Finding(st, 100)], jobs=1)


def test_a_players_edge_in_a_game_whose_seats_are_one_side(tmp_path: Path):
    """ISS at 2 players: one seat at the player (rotated), the other at the default; the
    measured seat is followed through the rotation (random loses to builder, builder
    against builder wins about half)."""
    from balancelab.questions import strongest

    e = strongest.measure_edge(load_game("iss"), strongest.Player("player", "random", "a test"),
                               tmp_path, games=20, seed=3, jobs=1)
    assert e.games == 20 and e.rate == 0.0 and 0.2 <= e.rate_default <= 0.8
    assert e.diff == -e.rate_default and e.lo < e.diff < e.hi < 0


@pytest.mark.parametrize("spec", ["search:rollouts=2", "ismcts:iterations=2"])
def test_a_search_on_a_game_that_cannot_re_deal_is_refused_in_one_line(spec: str):
    """A game without ``Game.determinize`` (the coin) cannot be searched by a fair player: the
    run is refused before it starts, naming why (it was a NotImplementedError traceback at
    the first decision)."""
    from balancelab.policies import PolicyError
    from balancelab.simulate.runs import RunConfig
    from balancelab.simulate.runs.write import check_before_writing

    install()
    g = load_game("coin")
    config = RunConfig("coin", [g.options_type()], {"red": spec}, 0, 4)
    with pytest.raises(PolicyError, match=r"needs a game that re-deals what a seat cannot see "
                       r"\(Game\.determinize\); coin does not"):
        check_before_writing(config, "loky", None)
