"""``balancelab trace``: a game a player can follow (issue 16 item 5).

Round and turn headers in every game, every automatic effect told once (no line said twice in
a row), final scores, missions by name, and every error before any output. A game played
without a trace words no event.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from balancelab.cli import app
from balancelab.games import get_game
from balancelab.policies.base import RandomPolicy
from balancelab.simulate.core import game_streams
from balancelab.simulate.obcy.rules import MISSIONS_DATA
from balancelab.simulate.play import play
from balancelab.simulate.runs import RunConfig, play_one

runner = CliRunner()

#: (trace arguments, the game, its options as strings)
GAMES = {
    "odyssey": (["odyssey", "--seed", "1"], "odyssey", {}),
    "iss": (["iss", "--players", "3", "--seed", "2"], "iss", {"players": "3"}),
    "iss-solo": (["iss", "--players", "1", "--seed", "3"], "iss", {"players": "1"}),
    "obcy": (["obcy", "--seed", "4"], "obcy", {}),
}


def _trace(args: list[str]) -> list[str]:
    res = runner.invoke(app, ["trace", *args])
    assert res.exit_code == 0, res.output
    return res.output.splitlines()


@pytest.fixture(scope="module")
def traces() -> dict[str, list[str]]:
    return {k: _trace(v[0]) for k, v in GAMES.items()}


def _record(key: str) -> object:
    args, game, opts = GAMES[key]
    g = get_game(game)
    seed = int(args[args.index("--seed") + 1])
    config = RunConfig(game=game, variants=[g.options_type.from_strings(opts)], seed=seed,
                       games=1)
    return play_one(config, 0, 0).record


@pytest.mark.parametrize("key", sorted(GAMES))
def test_no_line_is_said_twice_in_a_row(traces: dict[str, list[str]], key: str) -> None:
    lines = traces[key]
    twice = [a for a, b in zip(lines, lines[1:], strict=False) if a == b]
    assert twice == []
    assert len(lines) > 30


@pytest.mark.parametrize("key", sorted(GAMES))
def test_the_header_opens_and_the_result_closes(traces: dict[str, list[str]], key: str) -> None:
    lines = traces[key]
    title = get_game(GAMES[key][1]).title
    assert lines[0].startswith(title) and "seed" in lines[0] and "game 0" in lines[0]
    assert lines[1].startswith("seats: ")
    assert re.match(r"result: .* won \(.*\) after \d+ [a-z ]+; \d+ decisions$", lines[-1])
    assert lines[-2].startswith("== game over")


def test_iss_rounds_and_turns_are_headed(traces: dict[str, list[str]]) -> None:
    lines = traces["iss"]
    rounds = [ln for ln in lines if ln.startswith("== round ")]
    assert rounds[0] == "== round 1: seat 1 starts"
    numbers = [int(re.match(r"== round (\d+)", ln)[1]) for ln in rounds]  # type: ignore[index]
    assert numbers == list(range(1, len(numbers) + 1))
    rec = _record("iss")
    assert len(numbers) == rec.rounds  # type: ignore[attr-defined]
    assert "(the final round)" in rounds[-1]
    turns = [ln for ln in lines if ln.startswith("-- ") and ln.endswith("'s turn")]
    assert turns[:3] == ["-- seat 1's turn", "-- seat 2's turn", "-- seat 3's turn"]
    assert len(turns) == rec.measures["turns"]  # type: ignore[attr-defined]


def test_iss_ends_with_every_seats_final_score(traces: dict[str, list[str]]) -> None:
    over = traces["iss"][-2]
    scores = dict(re.findall(r"(seat \d) (-?\d+) \(", over))
    rec = _record("iss")
    assert scores == {f"seat {r['seat'] + 1}": str(r["score"])
                      for r in rec.seat_rows}  # type: ignore[attr-defined]


def test_fedor_is_shown(traces: dict[str, list[str]]) -> None:
    """FEDOR's turn (Solo Mode, FEDOR's Turn 1-4): its card, its module cubes and its
    countdown, its loads, its extra actions after a launch; and its final score."""
    text = "\n".join(traces["iss-solo"])
    for words in ("-- FEDOR's turn", "FEDOR flips ", "module preparation: FEDOR places ",
                  "FEDOR's next card lowers the countdown of ", "FEDOR loads ",
                  "FEDOR wins an extra action", "FEDOR's extra action: it flips "):
        assert words in text, words
    assert re.search(r"final scores: .*FEDOR -?\d+ \(", traces["iss-solo"][-2])


def test_obcy_rounds_and_phases_are_headed(traces: dict[str, list[str]]) -> None:
    lines = traces["obcy"]
    assert lines[2] == "== round 1: the EXPEDITION phase"
    expedition = [ln for ln in lines if re.fullmatch(r"== round \d+: the EXPEDITION phase", ln)]
    aliens = [ln for ln in lines if re.fullmatch(r"-- round \d+: the ALIENS phase", ln)]
    rec = _record("obcy")
    assert len(aliens) in (rec.rounds, rec.rounds + 1)  # type: ignore[attr-defined]
    assert len(expedition) in (len(aliens), len(aliens) + 1)


def test_obcy_missions_are_named(traces: dict[str, list[str]]) -> None:
    text = {m["id"]: m["text"] for m in MISSIONS_DATA}
    drawn = [re.search(r"mission drawn: (M\d+): (.*)$", ln) for ln in traces["obcy"]]
    drawn_ok = [m for m in drawn if m]
    assert drawn_ok
    for m in drawn_ok:
        assert m[2] == text[m[1]]


def test_a_move_or_a_retreat_is_told_once(traces: dict[str, list[str]]) -> None:
    """A decided move or retreat is the action's line; the event under it (the AP spent) does
    not say it again. A retreat with one end space is told by the event alone."""
    lines = traces["obcy"] + _trace(["obcy", "--seed", "0"])
    decided = 0
    for a, b in zip(lines, lines[1:], strict=False):
        m = re.match(r"\s*the (?:expedition|ALIENS): .*(?:moves|retreats).* to (.*)$", a)
        if m:
            decided += 1
            event = not re.match(r"\s*the (?:expedition|ALIENS): ", b)
            assert not (event and b.endswith(f" to {m[1]}")), (a, b)
    assert decided > 20
    assert any("retreats from" in ln and "ALIENS:" in ln for ln in lines)


@pytest.mark.parametrize(("game", "opts"), [("odyssey", {}), ("iss", {"players": 1}),
                                            ("iss", {"players": 4}), ("obcy", {})])
def test_an_untraced_game_words_no_event(game: str, opts: dict[str, int]) -> None:
    """Events cost nothing when nobody traces: after setup, no event is recorded."""
    g = get_game(game)
    options = g.options_type(**opts)
    fresh = g.new_initial_state(options, np.random.default_rng(5))
    setup = fresh.events()
    rules, streams = game_streams(5, 0, len(g.seats(options)))
    pols = [RandomPolicy(g, options, k, rng) for k, rng in enumerate(streams)]
    played = play(g, options, pols, np.random.default_rng(5))
    assert played.state.events() == setup
    assert not any(e.startswith("== game over") for e in setup)


def test_an_index_out_of_range_errs_before_any_output(tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = runner.invoke(app, ["simulate", "odyssey", "--games", "3", "--seed", "1",
                              "--jobs", "1", "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    for args in (["--index", "99999"], ["--variant", "5"]):
        res = runner.invoke(app, ["trace", str(out), *args])
        assert res.exit_code == 1
        assert "2001" not in res.output and "seats:" not in res.output
        assert "must be in [0, " in res.output and "Traceback" not in res.output
    assert _trace([str(out), "--index", "2"])[0].startswith("2001")


def test_odyssey_ends_with_the_systems_and_sequences(traces: dict[str, list[str]]) -> None:
    over = traces["odyssey"][-2]
    rec = _record("odyssey")
    m = rec.measures  # type: ignore[attr-defined]
    down = m["terminated_systems"].replace(",", ", ") or "none"
    assert f"systems terminated: {down};" in over
    assert over.startswith("== game over: HAL wins (three systems terminated)")
    assert rec.winner == "hal" and rec.end_reason == "three_systems_terminated"  # type: ignore[attr-defined]
    turns = [ln for ln in traces["odyssey"] if ln.startswith("-- ") and ln.endswith("'s turn")]
    assert "-- HAL's turn" in turns
    hal = turns.count("-- HAL's turn") + turns.count("-- HAL's opening turn")
    assert len(turns) - hal == rec.rounds  # type: ignore[attr-defined]


def test_trace_takes_the_true_false_rule_flags_simulate_takes() -> None:
    """``trace obcy --no-grate-is-duct`` (and the other --no- flags of simulate) trace that
    variant (issue 30: they were refused as unknown options)."""
    flags = ["--no-grate-is-duct", "--no-hatch-onto-older", "--no-discard-impossible-missions"]
    res = CliRunner().invoke(app, ["trace", "obcy", *flags, "--seed", "1"])
    assert res.exit_code == 0, res.output
    header = res.output.splitlines()[0]
    for name in ("grate_is_duct", "hatch_onto_older", "discard_impossible_missions"):
        assert f"{name}=false" in header or name.replace("_", " ") in header, header


#: what a player would not say: engine names (``PICTUREPHONE_2``, ``HAL_CORE``,
#: ``expedition_wiped_out``), 0-based seat names (``seat0``), ``key=value`` and bare grid
#: coordinates
ENGINE_WORDS = re.compile(r"[A-Za-z]+_[A-Za-z0-9_]+|\bseat\d|\w=\w|(?:to|at) \(\d+,\d+\)")


@pytest.mark.parametrize("key", sorted(GAMES))
def test_a_trace_speaks_the_players_words(traces: dict[str, list[str]], key: str) -> None:
    """Issue 28 item 5: spaces, seats and the ending in the reports' and rulebooks' words."""
    said = [ln for ln in traces[key] if ENGINE_WORDS.search(ln)]
    assert said == []


def test_2001_rounds_are_headed(traces: dict[str, list[str]]) -> None:
    """A round: every crewmember's turn, HAL's after each (Crewmember Turn); the opening HAL
    turns come before round 1 (Beginning of the Game)."""
    lines = traces["odyssey"]
    rounds = [ln for ln in lines if ln.startswith("== round ")]
    assert rounds[:2] == ["== round 1 (crew turns 1-3)", "== round 2 (crew turns 4-6)"]
    rec = _record("odyssey")
    assert len(rounds) == -(-rec.rounds // 3)  # type: ignore[attr-defined]
    first = lines.index(rounds[0])
    assert lines[first + 1] == "-- Hunter's turn"
    assert lines[:first].count("-- HAL's opening turn") == 3
    assert "Hunter moves to Picturephone 2" in lines[first + 2]
    assert lines[-1] == ("result: HAL won (three systems terminated) after 27 crew turns; "
                         "120 decisions")


def test_seats_are_named_as_the_reports_name_them(traces: dict[str, list[str]]) -> None:
    assert traces["iss"][1] == ("seats: seat 1 plays builder; seat 2 plays builder; "
                                "seat 3 plays builder")
    assert traces["iss"][-1].startswith(
        "result: seat 2 won (the last shuttle of a nation was placed)")
    assert traces["iss-solo"][1] == "seats: the solo player plays builder"
    assert traces["odyssey"][1] == ("seats: HAL plays hal-pressure; Bowman plays crew-team; "
                                    "Hunter plays crew-team; Whitehead plays crew-team")


def test_obcy_spaces_are_named_from_the_map_file(traces: dict[str, list[str]]) -> None:
    text = "\n".join(traces["obcy"])
    for words in ("RIPLEY moves to the Supply Depot (6,14)",
                  "BISHOP moves to component store 1 in the Supply Depot (5,15)",
                  "GORMAN moves to a door of the Supply Depot (4,13)",
                  "== game over: the expedition was wiped out;"):
        assert words in text, words
