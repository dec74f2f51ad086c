"""Win rates, comparisons and sweeps on hand-made frames and on runs of a tiny test game."""

import shutil
import textwrap
from pathlib import Path

import polars as pl
import pytest
from coin_game import install

from balancelab import analysis
from balancelab.questions import inputs
from balancelab.questions import study as studies
from balancelab.questions import sweep as sweeps
from balancelab.questions.inputs import load_game
from balancelab.simulate import runs


def _seat_frame(policies_by_game):
    """A seat game (wins named by seat) with one variant; winner = seat holding policy 'strong'."""
    rows = []
    for i, pols in enumerate(policies_by_game):
        seats = [f"seat{k}" for k in range(len(pols))]
        strong = [s for s, p in zip(seats, pols, strict=True) if p == "strong"]
        winner = strong[0] if (i % 5) else seats[-1]
        rows.append({"run_id": "r", "game": "fake", "game_version": "1",
                     "variant_label": "players=3", "players": 3, "policy_player": "mixed",
                     "policies": ";".join(f"{s}={p}" for s, p in zip(seats, pols, strict=True)),
                     "game_index": i, "seed": 1, "winner": winner, "end_reason": "score",
                     "rounds": 10, "decisions": 50})
    return pl.DataFrame(rows)


def test_wins_draws_losses_capped_add_up():
    df = pl.DataFrame({
        "variant_label": ["x"] * 6, "policy_a": ["p"] * 6, "policy_b": ["q"] * 6,
        "policies": ["a=p;b=q"] * 6, "game_index": list(range(6)), "seed": [0] * 6,
        "winner": ["a", "a", "b", "draw", "", "a"],
        "end_reason": ["w", "w", "w", "d", "cap", "w"], "rounds": [1] * 6,
    })
    r = analysis.win_rates(df)
    assert r["contender"].to_list() == ["a", "b"]
    a = r.row(0, named=True)
    assert (a["wins"], a["draws"], a["losses"], a["capped"], a["games"]) == (3, 1, 1, 1, 6)
    assert all((r["wins"] + r["draws"] + r["losses"] + r["capped"] == r["games"]).to_list())
    o = analysis.outcome_rates(df)
    assert o["count"].sum() == 6
    assert dict(zip(o["outcome"], o["count"], strict=True))["capped"] == 1


def test_seat_swap_mirrors_seat_results():
    """Exchanging two seats' policies mirrors the seat results (here seat0 <-> seat1)."""
    n = 200
    one = _seat_frame([["strong", "weak", "weak"]] * n)
    two = _seat_frame([["weak", "strong", "weak"]] * n)
    r1 = analysis.win_rates(one).select("contender", "wins", "rate")
    r2 = analysis.win_rates(two).select("contender", "wins", "rate")
    w1 = dict(zip(r1["contender"], r1["wins"], strict=True))
    w2 = dict(zip(r2["contender"], r2["wins"], strict=True))
    assert w1["seat0"] == w2["seat1"] and w1["seat1"] == w2["seat0"]
    assert w1["seat2"] == w2["seat2"]
    pol1 = analysis.policy_rates(one)
    pol2 = analysis.policy_rates(two)
    assert pol1.drop("variant_label").equals(pol2.drop("variant_label"))
    strong = pol1.filter(pl.col("policy") == "strong").row(0, named=True)
    assert strong["games"] == n and strong["wins"] == n * 4 // 5
    assert strong["fair_share"] == pytest.approx(1 / 3)


@pytest.fixture(scope="module")
def coin_sweep(tmp_path_factory):
    install()
    path = tmp_path_factory.mktemp("runs") / "coin-sweep"
    sweeps.sweep(load_game("coin"), {"edge": [450, 500, 550], "draw": [0, 100]}, path, games=600,
                  jobs=1, seed=5)
    return path


def test_sweep_is_one_run_paired_by_seed(coin_sweep: Path):
    df = analysis.games_frame(coin_sweep)
    assert df["variant"].n_unique() == 6 and df.height == 3600
    assert analysis.swept_options(df) == ["edge", "draw"]
    comp = analysis.compare_variants(coin_sweep)
    assert comp["paired"].all()
    # each option is a question: edge's 2 neighbouring steps x 2 draw settings, and draw's one
    # step x 3 edge settings; one row per change of a two-sided game (red; blue's beside it)
    assert comp.height == 7 and set(comp["contender"]) == {"red"}
    assert dict(comp.group_by("option").agg(pl.col("family_size").first()).iter_rows()) == {
        "edge": 4, "draw": 3}
    for (_fam,), sub in comp.partition_by("family", as_dict=True).items():  # Holm per family
        assert sub["p_holm"].to_list() == pytest.approx(
            list(analysis.holm(sub["p_value"].to_numpy())))
    every = analysis.compare_variants(coin_sweep, pairs="all")
    assert every.height == 9  # 3 edge pairs x 2 draw values + 1 draw pair x 3 edges
    red_edge = every.filter((pl.col("option") == "edge") & (pl.col("value_a") == "450")
                            & (pl.col("value_b") == "550"))
    assert set(red_edge["verdict"]) == {"raises"}
    # adding draws cannot change red's wins (same uniform draw decides red first): the
    # change is exactly 0, and the paired interval is tight enough to call it equivalent
    red_draw = comp.filter(pl.col("option") == "draw")
    assert red_draw["diff"].to_list() == [0.0, 0.0, 0.0]
    assert set(red_draw["verdict"]) == {"equivalent"}
    assert (red_draw["other_diff"] < 0).all() and (red_draw["draws_capped"] > 0).all()
    grid = analysis.heat_grid(analysis.sweep_table(coin_sweep), "edge", "draw", "red")
    assert grid.columns == ["draw", "450", "500", "550"] and grid.height == 2


def test_a_focus_is_one_family_and_the_others_are_held_fixed(coin_sweep: Path):
    comp = analysis.compare_variants(coin_sweep, focus="edge")
    assert set(comp["option"]) == {"edge"} and comp.height == 4
    assert set(comp["family_size"]) == {4}
    with pytest.raises(ValueError, match="not an option the run sweeps; swept: edge, draw"):
        analysis.compare_variants(coin_sweep, focus="crew")
    with pytest.raises(ValueError, match="adjacent or all"):
        analysis.compare_variants(coin_sweep, pairs="some")


def test_printed_intervals_never_contradict_their_verdicts(coin_sweep: Path):
    for comp in (analysis.compare_variants(coin_sweep, pairs="all"),
                 analysis.compare_measures(coin_sweep, pairs="all")):
        for r in comp.iter_rows(named=True):
            v, lo, hi = r["verdict"], r["lo"], r["hi"]
            assert (v == "raises") == (lo > 0) and (v == "lowers") == (hi < 0)
            if v == "equivalent":
                assert -r["margin"] < lo and hi < r["margin"]
            if v == "inconclusive":
                assert lo <= 0 <= hi and (lo <= -r["margin"] or hi >= r["margin"])
            assert (r["p_holm"] < 0.05) == (v in ("raises", "lowers"))


def test_compare_runs_paired_and_unpaired(tmp_path: Path, coin_sweep: Path):
    from balancelab.games import get_game
    from balancelab.simulate import runs

    install()
    g = get_game("coin")
    for name, seed, edge, n in (("a", 1, 500, 500), ("b", 1, 600, 500), ("c", 2, 600, 500),
                                ("d", 1, 600, 750)):
        cfg = runs.RunConfig("coin", [g.options_type(edge=edge)], seed=seed, games=n)
        runs.run(cfg, tmp_path / name, jobs=1)
    comp = analysis.compare_runs([tmp_path / "a", tmp_path / "b", tmp_path / "c"])
    assert comp.height == 2 and set(comp["contender"]) == {"red"}
    assert set(comp["family_size"]) == {2}
    assert comp.filter(pl.col("value_b") == "b")["paired"].all()
    assert not comp.filter(pl.col("value_b") == "c")["paired"].any()
    assert "edge 500→600" in comp["context"][0]
    # same seed, different sizes: paired on the 500 games both played (they were counted as
    # independent samples before)
    ad = analysis.compare_runs([tmp_path / "a", tmp_path / "d"]).row(0, named=True)
    ab = comp.row(0, named=True)
    assert ad["paired"] and ad["n_a"] == ad["n_b"] == 500 and ad["games_left_out"] == 250
    assert (ad["diff"], ad["raw_lo"], ad["raw_hi"]) == pytest.approx(
        (ab["diff"], ab["raw_lo"], ab["raw_hi"]))
    assert ad["correlation"] > 0.5 and 0.5 < ad["games_saved"] < 1
    with pytest.raises(ValueError):
        analysis.compare_runs([tmp_path / "a"])


def test_precision_rounds_extend_the_run(tmp_path: Path):
    install()
    path = tmp_path / "prec"
    res = sweeps.sweep(load_game("coin"), {"edge": [200, 800]}, path, precision=0.04, games=250,
                       jobs=1)
    assert res.rounds[-1]["max_half_width"] <= 0.04
    assert len(res.rounds) >= 2 and res.games == res.rounds[-1]["games"]
    st = analysis.precision_status(path)  # the printed Wilson intervals
    assert st["half_width"].max() <= 0.04 and set(st["method"]) == {"Wilson score"}
    assert analysis.games_frame(path).height == 2 * res.games
    from balancelab.reports.run_report import build_run_report

    head = " ".join(build_run_report(path).headline)
    assert "95% Wilson interval was within" in head and "keep their level" in head
    assert "would not be valid" not in head
    shutil.rmtree(path)


def test_precision_run_stops_at_its_cap_and_contradictory_sizes_are_refused(tmp_path: Path):
    install()
    path = tmp_path / "capped"
    res = sweeps.sweep(load_game("coin"), {"edge": [450, 550]}, path, precision=0.01, games=250,
                        max_games=600, jobs=1)
    assert res.games == 600 and res.rounds[-1]["max_half_width"] > 0.01
    with pytest.raises(inputs.StudyError, match="plays 250 games .* more than --max-games 100"):
        sweeps.sweep(load_game("coin"), {"edge": [450]}, tmp_path / "x", precision=0.01, games=250,
                      max_games=100)
    with pytest.raises(inputs.StudyError, match="plays 1,000 games"):  # the default round
        sweeps.sweep(load_game("coin"), {"edge": [450]}, tmp_path / "x", precision=0.01,
                     max_games=500)
    with pytest.raises(inputs.StudyError, match="without one, --games"):
        sweeps.sweep(load_game("coin"), {"edge": [450]}, tmp_path / "y", games=250, max_games=100)
    with pytest.raises(inputs.StudyError, match="one stopping rule"):
        sweeps.sweep(load_game("coin"), {"edge": [450]}, tmp_path / "y", precision=0.01,
                     decide=True)
    with pytest.raises(inputs.StudyError, match="without one, --games"):
        studies.run_study(*studies.check_study("hal-difficulty"), tmp_path / "z", games=10,
                          max_games=100)
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()
    assert not (tmp_path / "z").exists()


def test_a_finished_sweep_run_again_is_shown_not_refused(tmp_path: Path):
    install()
    path = tmp_path / "again"
    first = sweeps.sweep(load_game("coin"), {"edge": [450, 550]}, path, games=200, jobs=1)
    stamp = (path / "run.json").stat().st_mtime_ns
    again = sweeps.sweep(load_game("coin"), {"edge": [450, 550]}, path, games=200, jobs=1)
    assert not first.reused and again.reused and again.games == 200
    assert (path / "run.json").stat().st_mtime_ns == stamp  # nothing played or rewritten
    with pytest.raises(runs.RunError, match="already holds this run"):  # --resume
        sweeps.sweep(load_game("coin"), {"edge": [450, 550]}, path, games=400, jobs=1)


def test_study_for_a_missing_engine_says_so(monkeypatch):
    from balancelab import games

    games.register("balancelab.simulate.ghost:GAME", name="ghost")  # loaded at first use
    monkeypatch.setitem(studies.STUDIES, "ghost-study",
                        studies.Study("ghost-study", "ghost", {"x": [1, 2]}, "?"))
    try:
        with pytest.raises(inputs.StudyError, match="not available"):
            studies.check_study("ghost-study")
    finally:
        games.unregister("ghost")
    with pytest.raises(inputs.StudyError, match="valid studies"):
        studies.check_study("no-such-study")


def test_parse_grid_and_pairing():
    install()
    from balancelab.games import get_game

    assert inputs.parse_grid(["crew=2,3,4", "hal-extra-turns=-1,0,1"]) == {
        "crew": ["2", "3", "4"], "hal_extra_turns": ["-1", "0", "1"]}
    with pytest.raises(ValueError):
        inputs.parse_grid(["crew"])
    g = get_game("coin")
    assert inputs.parse_pairing("red=search:rollouts=20,depth=3,blue=random", g) == {
        "red": "search:rollouts=20,depth=3", "blue": "random"}
    assert inputs.parse_pairing("red=random;blue=random", g) == {"red": "random",
                                                                   "blue": "random"}


def test_fair_share_counts_the_possible_winners_and_none_against_fedor(tmp_path: Path):
    """Three ISS players have three possible winners (a tie is a draw, not a winner); solo
    1998 ISS has no fair share: its other possible winner is FEDOR, a bot, not a seat's
    equal (issue 26: a "fair share" of 50% was printed against it)."""
    path = tmp_path / "iss"
    sweeps.sweep(load_game("iss"), {"players": [1, 3]}, path, games=10, jobs=1)
    fair = dict(analysis.fair_shares(path).join(
        analysis.games_frame(path).select("variant", "players").unique(), on="variant")
        .select("players", "fair_share").iter_rows())
    games = analysis.games_frame(path)
    sole = dict(games.group_by("players").agg(
        (~pl.col("winner").is_in(["tie", ""])).mean()).iter_rows())
    # a shared win is nobody's win, for the fair share as for the win rates
    assert fair == {1: None, 3: pytest.approx(sole[3] / 3)}
    rates = analysis.win_rates(path)
    assert rates.filter(pl.col("contender") == "seat0")["fair_share"].to_list() == \
        [None, pytest.approx(sole[3] / 3)]


def test_a_study_opens_with_a_short_answer(tmp_path: Path):
    # 40 games: at 30 the 2-player turns difference is not always detected (seed-dependent)
    res = studies.run_study(*studies.check_study("iss-shuttle-removal"), tmp_path / "st", games=40,
                            jobs=1)
    head = res.report.headline.splitlines()
    assert head[1].startswith("In short: All shuttles → 2 shuttles removed: lowers turns")
    assert "at every setting" in head[1]  # shorter games at every player count
    assert "seat win rates: " in head[1] and len(textwrap.wrap(head[1], 80)) <= 2
    md = res.report.markdown.read_text()
    assert ("| change | held fixed | side / seat | verdict | difference [interval (level)] "
            "| games to decide |") in md
    assert "| 1 → 2 players |" not in md and "solo (against FEDOR) → 2 players" not in md
    run_md = (res.runs["default"] / "report" / "report.md").read_text()
    assert "solo (against FEDOR) → 2 players" not in run_md  # the focus option only
    # 9 seat changes: solo 1, 2 players 1 (the other seat mirrors it), 3 players 3, 4 players 4
    assert "Family shuttle removal (Setup 7) (neighbouring settings): 9 changes" in run_md
    assert ("Family shuttle removal (Setup 7) measures (neighbouring settings): 12 changes"
            in run_md)  # turns, launches and winning score at 4 player counts
    # two seed blocks of 40 games, pooled
    assert "At 80 games per setting the smallest change it detects with 80% power" in run_md


def test_the_compact_frame_gives_the_same_numbers_in_less_memory(coin_sweep: Path):
    """The report's compact frame (Categorical text, small option ints, only the columns
    read) holds the same values: every analysis gives the same rows."""
    full = analysis.games_frame(coin_sweep)
    compact = analysis.frames.compact_games_frame(coin_sweep)
    assert compact.height == full.height
    assert compact.estimated_size() < full.estimated_size()
    assert compact.schema["variant_label"] == pl.Categorical
    assert "run_id" not in compact.columns

    def rows(f: pl.DataFrame) -> list[dict]:
        return f.with_columns(pl.col(pl.Categorical).cast(pl.String)).to_dicts()

    for fn in (analysis.win_rates, analysis.policy_rates, analysis.outcome_rates,
               analysis.sweep_table, analysis.compare_variants, analysis.end_reasons,
               analysis.length_summary, analysis.seat_balance):
        assert rows(fn(compact)) == rows(fn(full)), fn.__name__
    assert analysis.swept_options(compact) == analysis.swept_options(full) == ["edge", "draw"]
    slim = analysis.frames.compact_games_frame(coin_sweep, per_game_measures=False)
    assert "rounds" not in slim.columns
    assert rows(analysis.win_rates(slim)) == rows(analysis.win_rates(full))


def test_run_folder_summaries_are_lazy_and_equal_to_the_frames(coin_sweep: Path):
    full = analysis.games_frame(coin_sweep)
    scan = runs.scan_games(coin_sweep)
    for fn in (analysis.length_summary, analysis.end_reasons, analysis.measure_summary):
        assert fn(scan).to_dicts() == fn(coin_sweep).to_dicts() == fn(full).to_dicts(), \
            fn.__name__
