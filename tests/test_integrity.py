"""Run folders that cannot lie (issue 17): damaged chunks, edited manifests, changed data
files, the one-writer lock, bounded resources, typed options and policy parameters."""

from __future__ import annotations

import json
import re
import shutil
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from balancelab.policies.base import Param, PolicyError, param_specs, resolve
from balancelab.simulate import runs
from balancelab.simulate.options import OptionError
from balancelab.simulate.runs import (
    RunConfig,
    RunError,
    load_games,
    plan_chunks,
    read_manifest,
    replay,
    run,
    verify_run,
)
from balancelab.simulate.runs.folder import RunLock
from balancelab.simulate.runs.plan import MAX_GAMES, MAX_SEED

RANDOM = {"hal": "random", "crew": "random"}


def _config(games: int = 40, seed: int = 1, **opts: object) -> RunConfig:
    from balancelab.games import get_game

    g = get_game("odyssey")
    return RunConfig(game="odyssey", variants=[g.options_type.from_strings(opts)],
                     policies=RANDOM, seed=seed, games=games, chunk_games=10)


def _files(path: Path) -> dict[str, bytes]:
    return {p.relative_to(path).as_posix(): p.read_bytes()
            for p in sorted((path / "games").rglob("*.parquet"))}


@pytest.fixture
def made(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    """A finished 40-game run (4 chunks) and its files."""
    path = tmp_path / "a" / "r"
    run(_config(), path, jobs=1, backend="sequential")
    return path, _files(path)


CHUNK = "games/variant=0/chunk-000001.parquet"


def test_the_manifest_records_each_chunks_rows_size_and_checksum(made: tuple) -> None:
    path, files = made
    m = read_manifest(path)
    import hashlib

    rec = m["chunks"]["0:1"]
    data = files[CHUNK]
    assert rec == {"start": 10, "stop": 20, "rows": 10, "bytes": len(data),
                   "sha256": hashlib.sha256(data).hexdigest()}
    assert m["chunks_done"] == ["0:0", "0:1", "0:2", "0:3"] and m["games_written"] == 40


@pytest.mark.parametrize("damage, word", [
    ("delete", "missing"), ("empty", "truncated"), ("truncate", "truncated"),
    ("garbage", "foreign"), ("foreign", "foreign"),
])
def test_a_damaged_chunk_is_named_and_resume_replays_it_to_the_same_bytes(
        made: tuple, tmp_path: Path, damage: str, word: str) -> None:
    path, files = made
    f = path / CHUNK
    if damage == "delete":
        f.unlink()
    elif damage == "empty":
        f.write_bytes(b"")
    elif damage == "truncate":
        f.write_bytes(files[CHUNK][:100])
    elif damage == "garbage":
        f.write_bytes(b"x" * len(files[CHUNK]))
    else:  # the same chunk of another run (another seed)
        other = tmp_path / "other" / "r"
        run(_config(seed=9), other, jobs=1, backend="sequential")
        shutil.copy(other / CHUNK, f)
    with pytest.raises(RunError, match=rf"is damaged: {word}[^;]*: {CHUNK}; repair it with: "
                       rf"balancelab resume"):
        load_games(path)
    assert not runs.holds_finished(_config(), path)
    summary = run(_config(), path, jobs=1, backend="sequential", resume=True)
    assert summary.repaired == [CHUNK] and summary.games_played == 10
    assert _files(path) == files
    verify_run(path)


def test_a_stray_copy_is_never_counted_and_resume_sets_it_aside(made: tuple) -> None:
    path, files = made
    shutil.copy(path / CHUNK, path / "games" / "variant=0" / "chunk-000001 (copy).parquet")
    shutil.copy(path / CHUNK, path / "games" / "variant=0" / "chunk-000009.parquet")
    with pytest.raises(RunError, match=r"stray \(not recorded by the run\): games/variant=0/"
                       r"chunk-000001 \(copy\)\.parquet, games/variant=0/chunk-000009"):
        load_games(path)
    summary = run(_config(), path, jobs=1, backend="sequential", resume=True)
    assert summary.games_played == 0 and len(summary.set_aside) == 2
    assert (path / "set-aside" / "games" / "variant=0" / "chunk-000009.parquet").exists()
    assert load_games(path).height == 40  # not 50
    assert _files(path) == files


def test_an_unrecorded_planned_chunk_is_replayed_not_a_stray(tmp_path: Path) -> None:
    full = tmp_path / "full" / "r"
    run(_config(), full, jobs=1, backend="sequential")
    part = tmp_path / "part" / "r"
    run(_config(games=20), part, jobs=1, backend="sequential")
    m = json.loads((part / "run.json").read_text())
    m["config"]["games"] = 40  # as if killed between moving chunk 2 in and recording it
    m["games_total"], m["chunks_total"], m["complete"] = 40, 4, False
    (part / "run.json").write_text(json.dumps(m))
    shutil.copy(full / "games/variant=0/chunk-000002.parquet",
                part / "games/variant=0/chunk-000002.parquet")
    assert load_games(part).height == 20  # the unrecorded chunk is not read
    summary = run(_config(), part, jobs=1, backend="sequential", resume=True)
    assert summary.set_aside == [] and summary.games_played == 20
    assert _files(part) == _files(full)


@pytest.mark.parametrize("text, message", [
    ("[]", "must hold a JSON object"),
    ("null", "it holds null"),
    ("{not json", "is not valid JSON"),
])
def test_a_manifest_that_is_not_an_object_is_one_line(made: tuple, text: str,
                                                      message: str) -> None:
    path, _ = made
    (path / "run.json").write_text(text)
    for call in (lambda: load_games(path), lambda: replay(path, 0, 0),
                 lambda: run(_config(), path, jobs=1, backend="sequential", resume=True)):
        with pytest.raises(RunError, match=message) as e:
            call()
        assert "\n" not in str(e.value)


@pytest.mark.parametrize("edit, message", [
    (lambda m: m.pop("config"), r"missing key 'config'"),
    (lambda m: m["config"].pop("seed"), r"missing key 'config.seed'"),
    (lambda m: m["config"].update(seed="7"), r"key 'config.seed' should be a valid integer"),
    (lambda m: m["config"].update(seed=2**64), r"config.seed' should be less than or equal"),
    (lambda m: m["config"].update(sede=1), r"unknown key 'config.sede'; did you mean 'seed'"),
    (lambda m: m.update(chunks=[]), r"key 'chunks' should be a valid dictionary"),
    (lambda m: m["config"].update(seed=2), r"was edited: its seed, options, policies"),
    (lambda m: m["config"]["policies"].update(hal="default"), r"was edited: its seed"),
    (lambda m: m["config"]["variants"][0].update(crew=4), r"was edited: its seed"),
    (lambda m: m["config"].update(games=20), r"was edited: it records chunk 0:2"),
    (lambda m: m.update(games_written=30), r"was edited: it says 30 of 40 games"),
])
def test_an_edited_manifest_is_refused_never_replayed(made: tuple, edit: object,
                                                      message: str) -> None:
    path, _ = made
    m = json.loads((path / "run.json").read_text())
    edit(m)  # type: ignore[operator]
    (path / "run.json").write_text(json.dumps(m))
    with pytest.raises(RunError, match=message) as e:
        load_games(path)
    assert "\n" not in str(e.value)
    with pytest.raises(RunError, match=message):
        replay(path, 0, 3)  # trace would replay another game than the stored row
    with pytest.raises(RunError, match=message):
        runs.resume_config(path)


def _board(tmp_path: Path) -> Path:
    from importlib import resources

    f = tmp_path / "myboard.toml"
    f.write_text((resources.files("balancelab") / "data" / "odyssey_board.toml").read_text())
    return f


def test_an_edited_data_file_is_detected_never_mixed(tmp_path: Path) -> None:
    board = _board(tmp_path)
    config = _config(board_file=str(board))
    path = tmp_path / "r"
    run(config, path, jobs=1, backend="sequential")
    m = read_manifest(path)
    import hashlib

    assert m["data_files"] == [{"variant": 0, "option": "board_file", "path": str(board),
                                "sha256": hashlib.sha256(board.read_bytes()).hexdigest()}]
    assert runs.holds_finished(_config(board_file=str(board)), path)
    board.write_text(board.read_text() + "\n# edited: the same board, other bytes\n")
    assert not runs.holds_finished(_config(board_file=str(board)), path)
    for call in (
        lambda: run(_config(games=60, board_file=str(board)), path, jobs=1,
                    backend="sequential", resume=True),
        lambda: replay(path, 0, 0),
    ):
        with pytest.raises(RunError, match=r"board_file '.*myboard.toml' changed since the run"):
            call()
    # the content, not the path, is the identity: same path, other content, other run
    assert _config(board_file=str(board)).identity() != m["identity"]
    board.unlink()
    with pytest.raises(RunError, match="board_file: no such file"):
        _config(board_file=str(board)).identity()


def test_a_run_without_data_files_keeps_its_identity() -> None:
    # the identity of runs that name no data file is unchanged by the data-file hashing
    assert "data_files" not in json.dumps(_config().to_json())
    assert _config().data_files() == []


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace("picturephone = true", "picturefone = true", 1),
     r"unknown key 'spaces\[\d\]\.picturefone'; did you mean 'picturephone'\? allowed keys"),
    (lambda t: t.replace("draw = 1", 'draw = "one"', 1),
     r"key 'spaces\[\d\]\.draw' should be a valid integer; got 'one'"),
    (lambda t: t.replace('system = "LIF"', 'system = "LIFE"', 1),
     r"key 'spaces\[\d\]\.system' should be 'GRV', 'MEM', 'COM' or 'LIF'; got 'LIFE'"),
    (lambda t: t.replace("door = 7", "door = 9", 1),
     r"key 'edges\[\d\]\.door' should be less than or equal to 7; got 9"),
    (lambda t: t + "\n[[edges]]\na = \"NOWHERE\"\nb = \"CORRIDOR\"\n",
     r"names an unknown space 'NOWHERE'"),
    (lambda t: t.replace("[[spaces]]", "[[spaces]]\nname2 = 'x'", 1),
     r"unknown key 'spaces\[0\]\.name2'; did you mean 'name'"),
    (lambda t: "this is = not toml [", r"not valid TOML"),
])
def test_a_board_file_is_validated_strictly(tmp_path: Path, edit: object, message: str) -> None:
    from balancelab.simulate.odyssey.board import BoardError, load_board

    board = _board(tmp_path)
    board.write_text(edit(board.read_text()))  # type: ignore[operator]
    with pytest.raises(BoardError, match=message) as e:
        load_board(str(board))
    assert str(board) in str(e.value) and "\n" not in str(e.value)


def test_iss_card_tables_are_validated_strictly(tmp_path: Path) -> None:
    from balancelab.simulate.iss.cards import load_cards
    from balancelab.simulate.schema import DataError

    src = Path(__file__).resolve().parents[1] / "balancelab" / "data"
    for f in src.glob("iss_*.toml"):
        shutil.copy(f, tmp_path / f.name)
    t = (tmp_path / "iss_shuttles.toml").read_text()
    (tmp_path / "iss_shuttles.toml").write_text(t.replace("\nastronauts =", "\nastronuts =", 1))
    with pytest.raises(DataError, match=r"iss_shuttles.toml: unknown key 'shuttle\[0\]\."
                       r"astronuts'; did you mean 'astronauts'"):
        load_cards(str(tmp_path))
    with pytest.raises(DataError, match="no such directory"):
        load_cards(str(tmp_path / "nope"))


def test_the_package_data_of_every_game_matches_its_schema() -> None:
    import tomllib

    from balancelab.simulate import datafiles as D
    from balancelab.simulate.schema import validate

    src = Path(__file__).resolve().parents[1] / "balancelab" / "data"
    validate(D.BoardFile, tomllib.loads((src / "odyssey_board.toml").read_text()), "board")
    for name, model in D.ISS_FILES.items():
        validate(model, tomllib.loads((src / name).read_text()), name)
    for name, model in (("obcy_characters.toml", D.ObcyCharacters),
                        ("obcy_missions.toml", D.ObcyMissions),
                        ("obcy_combat.toml", D.ObcyCombat)):
        validate(model, tomllib.loads((src / name).read_text()), name)
    validate(D.ObcyMap, json.loads((src / "obcy_map.json").read_text()), "map")
    for key, entry in tomllib.loads((src / "obcy_items.toml").read_text()).items():
        validate(D.ObcyValue, entry, key)


def test_one_writer_per_run_folder(made: tuple) -> None:
    path, _ = made
    with RunLock(path), pytest.raises(RunError, match=r"being written by another balancelab "
                                                     r"\(process \d+\)"):
        run(_config(games=60), path, jobs=1, backend="sequential", resume=True)
    # released: the next writer takes it (a dead writer's lock file is simply reused)
    assert (path / ".lock").exists()
    run(_config(games=60), path, jobs=1, backend="sequential", resume=True)
    assert read_manifest(path)["games_written"] == 60


def test_an_odyssey_command_on_an_iss_run_says_so(tmp_path: Path) -> None:
    path = tmp_path / "r"
    run(RunConfig(game="iss", variants=[], games=2, chunk_games=1), path, jobs=1,
        backend="sequential")
    with pytest.raises(RunError, match=r"holds a run of 'iss', not 'odyssey'"):
        run(_config(), path, jobs=1, backend="sequential", resume=True)


@pytest.mark.parametrize("kw, message", [
    ({"seed": MAX_SEED + 1}, r"--seed must be in \[0, 9,223,372,036,854,775,807\]"),
    ({"seed": -1}, r"--seed must be in"),
    ({"seed": 1.5}, r"--seed takes a whole number"),
    ({"games": MAX_GAMES + 1}, r"--games must be in \[1, 1,000,000,000\]"),
    ({"games": 0}, r"--games must be in"),
    ({"games": True}, r"--games takes a whole number"),
])
def test_seed_and_games_ranges_are_checked_before_any_folder(tmp_path: Path, kw: dict,
                                                             message: str) -> None:
    args = {"game": "odyssey", "variants": [], "policies": RANDOM, **kw}
    with pytest.raises(RunError, match=message):
        RunConfig(**args)
    assert RunConfig(game="odyssey", variants=[], seed=np.int64(3)).seed == 3


def test_a_huge_run_is_planned_in_constant_memory(tmp_path: Path) -> None:
    plan = plan_chunks(1, MAX_GAMES, 1)
    assert len(plan) == MAX_GAMES and plan[-1].start == MAX_GAMES - 1
    assert plan.get("0:999999999") == plan[-1] and plan.get("0:1000000000") is None

    class Stop(KeyboardInterrupt):
        pass

    def stop(done: int, total: int) -> None:
        raise Stop()

    tracemalloc.start()
    try:
        summary = run(RunConfig(game="odyssey", variants=[], policies=RANDOM,
                                games=MAX_GAMES), tmp_path / "big", jobs=1,
                      backend="sequential", progress=stop)
    except Stop:
        summary = None
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert summary is None or summary.games_written == 0
    assert peak < 30 * 2**20, f"{peak / 2**20:.0f} MB before the first game"


def test_never_more_workers_than_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                        ) -> None:
    import joblib

    seen: list[int] = []
    real = joblib.Parallel.__init__

    def spy(self: object, n_jobs: int | None = None, **kw: object) -> None:
        seen.append(int(n_jobs or 0))
        real(self, n_jobs=n_jobs, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(joblib.Parallel, "__init__", spy)
    run(_config(games=20), tmp_path / "r", jobs=1000, backend="threading")
    assert seen and max(seen) <= 2  # 2 chunks (and no more than the cores)


# -- typed options and policy parameters ----------------------------------------------------


def test_options_take_their_declared_types_exactly() -> None:
    from balancelab.simulate.odyssey.rules import OdysseyOptions

    o = OdysseyOptions(crew=np.int64(3))
    assert type(o.crew) is int and o.crew == 3
    for bad, shown in ((3.0, "3.0 (float)"), (True, "true (bool)"), ("3", "'3' (str)")):
        with pytest.raises(OptionError, match=rf"option 'crew' of game 'odyssey' takes an "
                           rf"integer \(one of 2, 3, 4\); got {re.escape(shown)}"):
            OdysseyOptions(crew=bad)


@pytest.mark.parametrize("spec, message", [
    ("squad:spread=2.5",
     r"policy 'squad' parameter 'spread' takes an integer in \[1, 6\]; got 2.5"),
    ("squad:arm=abc", r"policy 'squad' parameter 'arm' takes an integer in \[0, 1\]; got abc"),
    ("squad:danger=high", r"parameter 'danger' takes a number in \[0, 4\]; got high"),
    ("squad:danger=nan", r"parameter 'danger' takes a number in \[0, 4\]; got nan"),
    ("squad:sprad=2", r"has no parameter 'sprad'; did you mean 'spread'\?"),
    ("squad:spread", r"must be key=value"),
    ("squad:spread=1,spread=2", r"'spread' is given twice"),
])
def test_policy_parameters_are_typed_and_named(spec: str, message: str) -> None:
    from balancelab.games import get_game

    with pytest.raises(PolicyError, match=message):
        resolve(get_game("obcy"), "expedition", spec)


def test_a_policy_parameter_runs_and_is_recorded_as_given() -> None:
    from balancelab.games import get_game

    g = get_game("obcy")
    assert resolve(g, "expedition", "squad:danger=2,spread=2") == "squad:danger=2,spread=2"
    from balancelab.policies.base import build

    p = build(g, g.options_type(), 0, "squad:danger=2,spread=2", np.random.default_rng(0))
    assert type(p.cfg["spread"]) is int and type(p.cfg["danger"]) is float


def test_param_declarations() -> None:
    class Demo:
        params = {"n": Param(3, low=1, high=5), "mode": Param("a", choices=("a", "b")),
                  "w": 0.5, "on": True}

    specs = param_specs(Demo)
    assert [p.type for p in specs.values()] == ["int", "str", "float", "bool"]
    assert specs["n"].parse("4", "demo", "n") == 4
    with pytest.raises(PolicyError, match=r"'n' takes an integer in \[1, 5\]; got 9"):
        specs["n"].parse("9", "demo", "n")
    with pytest.raises(PolicyError, match=r"'mode' takes one of a, b; got c"):
        specs["mode"].parse("c", "demo", "mode")
    assert specs["on"].parse("false", "demo", "on") is False
    assert specs["w"].parse("1", "demo", "w") == 1.0
