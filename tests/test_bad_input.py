"""Table-driven bad input across every command (issue 17): each case is one line on stderr,
exit code 1 (a domain error) or 2 (a usage error), no traceback, and no folder left behind.

The cases run the real entry point (``balancelab.cli.main``, as the console script does) in
this process, from an empty working directory, so a command that wrongly created
``runs/...`` before refusing would leave it there.
"""

from __future__ import annotations

import json
import shutil
import signal
import sys
from pathlib import Path

import pytest

from balancelab.simulate.runs import RunConfig, RunError, run

RANDOM = {"hal": "random", "crew": "random"}


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Run folders and files the cases point at (made once)."""
    base = tmp_path_factory.mktemp("bad-input")
    good = base / "good"
    run(RunConfig(game="odyssey", variants=[], policies=RANDOM, games=20, chunk_games=10),
        good, jobs=1, backend="sequential")
    iss = base / "issrun"
    run(RunConfig(game="iss", variants=[], games=2, chunk_games=1), iss, jobs=1,
        backend="sequential")
    damaged = base / "damaged"
    shutil.copytree(good, damaged)
    (damaged / "games" / "variant=0" / "chunk-000001.parquet").write_bytes(b"PAR1 garbage")
    edited = base / "edited"
    shutil.copytree(good, edited)
    m = json.loads((edited / "run.json").read_text())
    m["config"]["seed"] = 99
    (edited / "run.json").write_text(json.dumps(m))
    listed = base / "listed"
    shutil.copytree(good, listed)
    (listed / "run.json").write_text("[1, 2]")
    nulled = base / "nulled"
    shutil.copytree(good, nulled)
    (nulled / "run.json").write_text("null")
    noconfig = base / "noconfig"
    shutil.copytree(good, noconfig)
    m = json.loads((noconfig / "run.json").read_text())
    del m["config"]
    (noconfig / "run.json").write_text(json.dumps(m))
    notrun = base / "notrun"
    notrun.mkdir()
    (notrun / "notes.txt").write_text("mine")
    afile = base / "afile.txt"
    afile.write_text("x")
    board = base / "board.toml"
    from importlib import resources

    text = (resources.files("balancelab") / "data" / "odyssey_board.toml").read_text()
    board.write_text(text.replace("picturephone = true", "picturefone = true", 1))
    board2 = base / "board2.toml"
    board2.write_text(text.replace("draw = 1", 'draw = "one"', 1))
    badstudy = base / "bad-study.toml"
    badstudy.write_text('name = "crew-size"\ngame = "odyssey"\nquestion = "q?"\n'
                        'focus = "crews"\nmeasures = ["rounds"]\n[grid]\ncrews = [2, 4]\n')
    return {"badstudy": badstudy, "good": good, "iss": iss, "damaged": damaged,
            "edited": edited, "listed": listed,
            "nulled": nulled, "noconfig": noconfig, "notrun": notrun, "afile": afile,
            "board": board, "board2": board2, "missing": base / "does-not-exist"}


S = ["--quiet", "--jobs", "1"]
# (case id, argv with {place} placeholders, exit code, words the message must hold)
CASES: list[tuple[str, list[str], int, str]] = [
    # -- the command line itself
    ("no-such-command", ["simulat"], 2, "No such command"),
    ("games-unknown", ["games", "chess"], 1, "unknown game 'chess'"),
    ("games-extra-arg", ["games", "odyssey", "iss"], 2, "unexpected extra argument"),
    # -- simulate: games, flags, numbers
    ("sim-unknown-game", ["simulate", "chess", *S], 2,
     "unknown game 'chess'; valid games: iss, obcy, odyssey"),
    ("sim-no-game", ["simulate"], 2, "missing the game: one of iss, obcy, odyssey"),
    ("sim-games-text", ["simulate", "odyssey", "--games", "many"], 2, "'--games'"),
    ("sim-games-zero", ["simulate", "odyssey", "--games", "0"], 2, "'--games'"),
    ("sim-games-negative", ["simulate", "odyssey", "--games", "-5"], 2, "'--games'"),
    ("sim-games-huge", ["simulate", "odyssey", "--games", "10000000000"], 2, "1000000000"),
    ("sim-games-float", ["simulate", "odyssey", "--games", "2.5"], 2, "'--games'"),
    ("sim-seed-negative", ["simulate", "odyssey", "--seed", "-1"], 2, "'--seed'"),
    ("sim-seed-2-63", ["simulate", "odyssey", "--seed", str(2**63)], 2,
     "9223372036854775807"),
    ("sim-seed-text", ["simulate", "odyssey", "--seed", "abc"], 2, "'--seed'"),
    ("sim-jobs-zero", ["simulate", "odyssey", "--jobs", "0", "-q"], 1, "--jobs must be -1"),
    ("sim-jobs-neg", ["simulate", "odyssey", "--jobs", "-3", "-q"], 1, "--jobs must be -1"),
    ("sim-chunk-zero", ["simulate", "odyssey", "--chunk-games", "0"], 2, "--chunk-games"),
    ("sim-misspelt-flag", ["simulate", "odyssey", "--gmaes", "5"], 2,
     "No such option: --gmaes (Possible options: --chunk-games, --games"),
    ("sim-backend", ["simulate", "odyssey", "--backend", "spark", *S], 1,
     "unknown backend 'spark'; valid: loky, threading, sequential, dask"),
    ("sim-scheduler-no-dask", ["simulate", "odyssey", "--scheduler", "tcp://x:1", *S], 1,
     "--scheduler needs --backend dask"),
    ("sim-stray-arg", ["simulate", "odyssey", "crew", *S], 2,
     "unexpected extra argument(s) (crew)"),
    # -- simulate: rule options, generated flags checked by typer/click (issue 18)
    ("opt-unknown", ["simulate", "odyssey", "--crw", "3", *S], 2,
     "No such option: --crw (Possible options: --crew"),
    ("opt-range", ["simulate", "odyssey", "--crew", "7", *S], 2,
     "Invalid value for '--crew': Value error, '7' is not one of '2', '3', '4'"),
    ("opt-float-for-int", ["simulate", "odyssey", "--crew", "3.0", *S], 2,
     "'3.0' is not one of '2', '3', '4'"),
    ("opt-text-for-int", ["simulate", "odyssey", "--hal-revealed", "one", *S], 2,
     "Invalid value for '--hal-revealed'"),
    ("opt-int-range", ["simulate", "odyssey", "--hal-revealed", "4", *S], 2,
     "Invalid value for '--hal-revealed': Input should be less than or equal to 3"),
    ("opt-bool", ["simulate", "odyssey", "--optional-draw", "maybe", *S], 2,
     "unexpected extra argument(s) (maybe)"),
    ("opt-set-bool", ["simulate", "odyssey", "--set", "optional_draw=maybe", *S], 1,
     "takes a true/false"),
    ("opt-set-int", ["simulate", "odyssey", "--set", "hal_extra_turns=one", *S], 1,
     "'hal_extra_turns' of game 'odyssey' takes an integer"),
    ("opt-set-no-eq", ["simulate", "odyssey", "--set", "crew", *S], 1,
     "--set takes key=value"),
    ("opt-set-unknown", ["simulate", "odyssey", "--set", "crews=3", *S], 1,
     "did you mean crew"),
    ("opt-twice", ["simulate", "odyssey", "--crew", "3", "--set", "crew=4", *S], 1,
     "crew is given twice"),
    ("opt-iss-players", ["simulate", "iss", "--players", "9", *S], 2, "'--players'"),
    ("opt-obcy-variant", ["simulate", "obcy", "--queen-variant", "kings", *S], 2,
     "Invalid value for '--queen-variant': Value error, 'kings' is not one of 'roll', "
     "'tasks'"),
    ("opt-iss-tuple", ["simulate", "iss", "--countdowns", "1,x", *S], 2,
     "Invalid value for '--countdowns': option 'countdowns' of game 'iss' takes "
     "comma-separated integers"),
    ("opt-iss-tuple-range", ["simulate", "iss", "--hand-start", "1,9", *S], 2,
     "'hand_start' of game 'iss' must be in [0, 4]; got 1/9"),
    # -- data files
    ("board-missing", ["simulate", "odyssey", "--board-file", "{missing}", *S], 1,
     "does-not-exist: no such file"),
    ("board-misspelt-key", ["simulate", "odyssey", "--board-file", "{board}", *S], 1,
     "did you mean 'picturephone'"),
    ("board-bad-type", ["simulate", "odyssey", "--board-file", "{board2}", *S], 1,
     "should be a valid integer; got 'one'"),
    ("iss-data-dir-missing", ["simulate", "iss", "--data-dir", "{missing}", *S], 1,
     "data_dir: no such directory"),
    # -- policies (typed parameters)
    ("pol-no-eq", ["simulate", "odyssey", "--policy", "crew", *S], 1,
     "--policy takes SIDE=POLICY"),
    ("pol-unknown-side", ["simulate", "odyssey", "--policy", "aliens=random", *S], 1,
     "unknown side or seat 'aliens'"),
    ("pol-unknown", ["simulate", "odyssey", "--policy", "crew=genius", *S], 1,
     "unknown policy 'genius'"),
    ("pol-param-unknown", ["simulate", "odyssey", "--policy", "crew=search:rolouts=5", *S], 1,
     "did you mean 'rollouts'"),
    ("pol-param-type", ["simulate", "odyssey", "--policy", "crew=search:rollouts=abc", *S], 1,
     "parameter 'rollouts' takes an integer in [1, 100000]; got abc"),
    ("pol-param-truncated", ["simulate", "obcy", "--policy", "expedition=squad:spread=2.5",
                             *S], 1, "parameter 'spread' takes an integer in [1, 6]; got 2.5"),
    ("pol-param-int-text", ["simulate", "obcy", "--policy", "expedition=squad:arm=abc", *S],
     1, "parameter 'arm' takes an integer in [0, 1]; got abc"),
    ("pol-param-no-value", ["simulate", "odyssey", "--policy", "crew=search:rollouts", *S], 1,
     "must be key=value"),
    ("pol-no-name", ["simulate", "odyssey", "--policy", "crew=:x=1", *S], 1,
     "has no policy name"),
    # issue 30 G8: the last one was kept in silence
    ("pol-twice", ["simulate", "odyssey", "--policy", "hal=random", "--policy", "hal=hal-lif",
                   *S], 1, "--policy hal is given twice (random and hal-lif); give it once"),
    ("trace-pol-twice", ["trace", "odyssey", "-p", "crew=random", "-p", "crew=default"], 1,
     "--policy crew is given twice"),
    ("pol-search-range", ["simulate", "odyssey", "--policy", "crew=search:rollouts=0", *S], 1,
     "rollouts"),
    # issue 30 G3: an absurd budget is refused with its range (it never finished)
    ("pol-search-huge", ["simulate", "odyssey", "--policy",
                         "crew=search:rollouts=99999999999999999999999", *S], 1,
     "parameter 'rollouts' takes an integer in [1, 100000]; got 99999999999999999999999"),
    ("pol-ismcts-huge", ["simulate", "obcy", "--policy", "aliens=ismcts:iterations=10000000",
                         *S], 1, "parameter 'iterations' takes an integer in [1, 100000]"),
    ("pol-search-deep", ["simulate", "iss", "--policy", "player=search:depth=1000000", *S],
     1, "parameter 'depth' takes an integer in [0, 10000]"),
    # -- existing folders
    ("out-not-a-run", ["simulate", "odyssey", "--out", "{notrun}", *S], 1,
     "is not a balancelab run folder"),
    ("out-a-file", ["simulate", "odyssey", "--out", "{afile}", *S], 1,
     "is not a balancelab run folder"),
    ("out-another-game", ["simulate", "odyssey", "--out", "{iss}", "--resume", *S], 1,
     "holds a run of 'iss', not 'odyssey'"),
    ("out-other-run", ["simulate", "odyssey", "--crew", "4", "--out", "{good}", *S], 1,
     "holds another run"),
    ("out-edited", ["simulate", "odyssey", "--out", "{edited}", "--resume", *S], 1,
     "was edited"),
    # -- resume
    ("resume-missing", ["resume", "{missing}", *S], 1, "no run folder at"),
    ("resume-not-run", ["resume", "{notrun}", *S], 1, "is not a balancelab run"),
    ("resume-a-file", ["resume", "{afile}", *S], 1, "is a file, not a run folder"),
    ("resume-list-json", ["resume", "{listed}", *S], 1, "must hold a JSON object"),
    ("resume-null-json", ["resume", "{nulled}", *S], 1, "it holds null"),
    ("resume-no-config", ["resume", "{noconfig}", *S], 1, "missing key 'config'"),
    ("resume-edited-seed", ["resume", "{edited}", *S], 1, "was edited: its seed"),
    ("resume-shrink", ["resume", "{good}", "--games", "5", *S], 1, "can only extend it"),
    ("resume-games-huge", ["resume", "{good}", "--games", "10000000000", *S], 1,
     "--games must be in"),
    ("resume-backend", ["resume", "{good}", "--backend", "mpi", "--games", "30", *S], 1,
     "unknown backend 'mpi'"),
    ("resume-jobs", ["resume", "{good}", "--jobs", "0"], 1, "--jobs must be -1"),
    # -- trace
    ("trace-nothing", ["trace", "{missing}"], 1, "is neither a game"),
    ("trace-index-range", ["trace", "{good}", "--index", "50"], 1,
     "game index must be in [0, 19]"),
    ("trace-variant-range", ["trace", "{good}", "--variant", "3"], 1,
     "variant must be in [0, 0]"),
    ("trace-edited", ["trace", "{edited}", "--index", "3"], 1, "was edited"),
    ("trace-run-with-options", ["trace", "{good}", "--crew", "3"], 1,
     "options and policies come from the run"),
    ("trace-seed-huge", ["trace", "odyssey", "--seed", str(2**64)], 2, "'--seed'"),
    ("trace-bad-option", ["trace", "odyssey", "--crew", "9"], 1, "must be one of 2, 3, 4"),
    ("trace-bad-policy", ["trace", "odyssey", "--policy", "crew=x"], 1, "unknown policy 'x'"),
    # -- report and compare
    ("report-missing", ["report", "{missing}"], 1, "no run folder at"),
    ("report-not-run", ["report", "{notrun}"], 1, "is not a balancelab run"),
    ("report-damaged", ["report", "{damaged}"], 1,
     "is damaged: truncated: games/variant=0/chunk-000001.parquet; repair it with"),
    ("report-edited", ["report", "{edited}"], 1, "was edited"),
    ("report-list-json", ["report", "{listed}"], 1, "must hold a JSON object"),
    ("compare-one", ["compare", "{good}"], 1, "at least two run folders"),
    ("compare-missing", ["compare", "{good}", "{missing}"], 1, "no run folder at"),
    ("compare-damaged", ["compare", "{good}", "{damaged}"], 1, "is damaged"),
    # -- sweep and study
    ("sweep-no-grid", ["sweep", "odyssey"], 2, "Missing option '--grid'"),
    ("sweep-grid-unknown", ["sweep", "odyssey", "--grid", "crw=2,3", "-q"], 1, "crw"),
    ("sweep-grid-value", ["sweep", "odyssey", "--grid", "crew=2,9", "-q"], 1,
     "must be one of 2, 3, 4"),
    ("sweep-grid-no-eq", ["sweep", "odyssey", "--grid", "crew", "-q"], 1, "crew"),
    ("sweep-seed-huge", ["sweep", "odyssey", "--grid", "crew=2,3", "--seed", str(2**63)], 2,
     "'--seed'"),
    ("sweep-bad-policy", ["sweep", "odyssey", "--grid", "crew=2,3", "-p", "crew=x", "-q"], 1,
     "unknown policy 'x'"),
    ("sweep-jobs", ["sweep", "odyssey", "--grid", "crew=2,3", "--jobs", "0"], 1,
     "--jobs must be -1"),
    ("study-unknown", ["study", "chess-openings", "-q"], 1, "chess-openings"),
    ("study-jobs", ["study", "hal-difficulty", "--jobs", "0"], 1, "--jobs must be -1"),
    ("study-games-zero", ["study", "hal-difficulty", "--games", "0"], 2, "'--games'"),
    # issue 30 G7: these left an empty runs/study-… or a balance.json behind
    ("study-policy-unknown", ["study", "hal-difficulty", "--policy", "crew=genius", "-q",
                              "--games", "10"], 1, "unknown policy 'genius'"),
    ("study-file-unknown-option", ["study", "--file", "{badstudy}", "-q", "--games", "10"], 1,
     "unknown option 'crews'"),
    ("balance-backend", ["balance", "odyssey", "--crew", "3", "--target", "crew=0.5", "--knob",
                         "limit_lif=7..9", "--backend", "foo"], 1, "unknown backend 'foo'"),
    # -- bench
    ("bench-unknown", ["bench", "chess", "--memory-games", "0"], 1, "unknown game 'chess'"),
    ("bench-memory-games", ["bench", "odyssey", "--memory-games", "lots"], 1,
     "--memory-games takes comma-separated numbers"),
    ("bench-seconds", ["bench", "odyssey", "--seconds", "0"], 2, "'--seconds'"),
    ("bench-json-folder", ["bench", "odyssey", "--json", "{missing}/x/b.json"], 1,
     "does not exist"),
]


def test_the_suite_is_large_and_covers_every_command() -> None:
    assert len(CASES) >= 60
    assert len({c[0] for c in CASES}) == len(CASES)
    commands = {c[1][0] for c in CASES}
    assert {"games", "simulate", "resume", "trace", "report", "compare", "sweep", "study",
            "bench"} <= commands


def _main(args: list[str], monkeypatch: pytest.MonkeyPatch) -> object:
    """Run the real entry point (``balancelab.cli.main``) on ``args``; its exit code."""
    from balancelab import cli

    monkeypatch.setattr(sys, "argv", ["balancelab", *args])
    handlers = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(SystemExit) as exc:
            cli.main()
    finally:
        signal.signal(signal.SIGINT, handlers[0])
        signal.signal(signal.SIGTERM, handlers[1])
    return exc.value.code


def _snapshot(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


@pytest.mark.parametrize("case, argv, expected, words", CASES, ids=[c[0] for c in CASES])
def test_bad_input(case: str, argv: list[str], expected: int, words: str,
                   places: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                   capsys: pytest.CaptureFixture[str]) -> None:
    args = [a.format(**{k: str(v) for k, v in places.items()}) for a in argv]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "100")  # a narrow terminal: the message must still be 1 line
    before = _snapshot(places["good"].parent)
    code = _main(args, monkeypatch)
    captured = capsys.readouterr()
    errtext = captured.err
    assert code == expected, errtext
    lines = [ln for ln in errtext.strip().splitlines() if ln.strip()]
    assert len(lines) == 1, errtext
    assert lines[0].startswith("error: ") and words in lines[0], lines[0]
    assert "Traceback" not in errtext + captured.out
    assert list(tmp_path.iterdir()) == [], "a rejected command left a folder behind"
    assert _snapshot(places["good"].parent) == before, "a rejected command changed a folder"


# -- the Python API (issue 30 G4-G5): each bad argument is refused up front, in one line
# naming it, before a folder is made
API_CASES: list[tuple[str, dict[str, object], str]] = [
    ("crew-text", {"crew": "3"}, "option 'crew' of game 'odyssey' takes an integer"),
    ("rotate-text", {"rotate": "yes"}, "rotate must be True or False; got 'yes' (str)"),
    ("policies-list", {"policies": ["hal=random"]}, "policies must map a side or seat"),
    ("policies-values", {"policies": {"hal": 3}}, "policies must map a side or seat"),
    ("out-int", {"out": 5}, "out must be a folder (a str or Path) or None; got 5 (int)"),
    ("jobs-float", {"jobs": 2.0}, "jobs must be -1 (all cores) or at least 1 (an int)"),
    ("games-float", {"games": 20.0}, "games must be a whole number (an int); got 20.0"),
    ("seed-text", {"seed": "1"}, "seed must be a whole number"),
    ("backend-none", {"backend": None}, "backend must be a backend's name"),
    ("force-int", {"force": 1}, "force must be True or False"),
]


@pytest.mark.parametrize("case, kwargs, words", API_CASES, ids=[c[0] for c in API_CASES])
def test_api_bad_arguments(case: str, kwargs: dict[str, object], words: str, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    import balancelab

    monkeypatch.chdir(tmp_path)
    args: dict[str, object] = {"games": 20, "jobs": 1, "out": tmp_path / "run", **kwargs}
    with pytest.raises((ValueError, RunError)) as exc:  # OptionError, PolicyError, RunError
        balancelab.simulate("odyssey", **args)  # type: ignore[arg-type]
    message = str(exc.value)
    assert words in message and "\n" not in message, message
    assert list(tmp_path.iterdir()) == [], "a refused call left a folder behind"


def test_api_typed_options_are_taken_as_given(tmp_path: Path) -> None:
    """A typed option plays (a list for a tuple option too); only strings are not parsed."""
    from balancelab.games import get_game

    o = get_game("odyssey").options_type
    assert o.from_values({"crew": 3, "hal-extra-turns": 1}) == o.from_strings(
        {"crew": "3", "hal_extra_turns": "1"})


def test_a_default_run_folder_is_one_folder_named_for_the_data(tmp_path: Path) -> None:
    """``simulate iss --data-dir /abs/dir`` without ``--out``: the run folder is one folder
    named for the data folder, not ``…-data_dir/<every part of the path>-seed0`` (issue 30
    G6); a list option's values are joined by ``_``, never ``/``."""
    from balancelab.games import get_game

    mine = tmp_path / "abs" / "my-tables"
    iss = get_game("iss").options_type.from_strings({"data_dir": str(mine), "players": "3"})
    name = RunConfig(game="iss", variants=[iss]).default_run_name()
    assert name == "iss-players3-remove_shuttlesfalse-data_dirmy-tables-seed0"
    obcy = get_game("obcy").options_type.from_strings({"strengths": "5,4,4,3,3,2"})
    name = RunConfig(game="obcy", variants=[obcy]).default_run_name()
    assert "/" not in name and "strengths5_4_4_3_3_2" in name


def test_an_unreachable_scheduler_leaves_no_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """issue 30 G7: the refused run left run.json and .lock behind."""
    pytest.importorskip("dask.distributed")
    monkeypatch.chdir(tmp_path)
    assert _main(["simulate", "odyssey", "--games", "10", "--backend", "dask", "--scheduler",
                  "tcp://127.0.0.1:1", "--out", "run", *S], monkeypatch) == 1
    assert "cannot reach the dask scheduler" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_an_optional_policy_without_its_extra_says_how_to_install_it(monkeypatch) -> None:
    from balancelab.games import get_game
    from balancelab.policies import base

    monkeypatch.setitem(base.OPTIONAL_POLICIES, "fancy-bot", ("no_such_module_xyz", "fancy"))
    hint = r"'fancy-bot' needs the fancy extra: pip install 'balancelab\[fancy\]'"
    with pytest.raises(base.PolicyError, match=hint):
        base.resolve(get_game("odyssey"), "crew", "fancy-bot")
