"""A runner worker imports neither polars nor pyarrow (nor scipy, matplotlib): ~30 MB or more.

Each check runs in a fresh interpreter, so that this test process's own imports (polars comes
with the test suite) cannot hide a violation.
"""

from __future__ import annotations

import json
import subprocess
import sys

from balancelab.simulate.runs import write

HEAVY = ("polars", "pyarrow", "scipy", "matplotlib", "pandas", "pydantic")

#: What a worker does: import play_chunk's module and the game registry, play chunks with the
#: default policies of each game; then report the heavy packages loaded and the value types.
_WORKER = """
import json, sys
from balancelab.simulate.worker import play_chunk
from balancelab.games import get_game
from balancelab.policies import base
types = set()
for name, opts, n in (("odyssey", {}, 3), ("iss", {"players": "4"}, 2), ("obcy", {}, 1)):
    g = get_game(name)
    o = g.options_type.from_strings(opts)
    specs = [base.resolve(g, g.side_of_seat(o, k), "default") for k in range(len(g.seats(o)))]
    games, seats, _, _ = play_chunk(name, opts, specs, True, 5, 0, n, {"run_id": "t"})
    for cols in (games, seats or {}):
        types |= {type(v).__name__ for col in cols.values() for v in col}
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[1].split(",")))
print(json.dumps({"heavy": heavy, "types": sorted(types)}))
"""


def test_worker_side_imports_no_polars_or_pyarrow() -> None:
    out = subprocess.run([sys.executable, "-c", _WORKER, ",".join(HEAVY)],
                         capture_output=True, text=True, check=True, timeout=300)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert res["heavy"] == []
    # plain Python values only (no numpy scalars: they pickle larger and slower)
    assert set(res["types"]) <= {"str", "int", "bool", "float", "NoneType"}


def test_runner_dispatches_the_worker_module_function() -> None:
    # joblib pickles play_chunk by reference: a worker imports the module it is defined in
    assert write.play_chunk.__module__ == "balancelab.simulate.worker"


_LOKY = """
import json, sys
from joblib.externals.loky import get_reusable_executor
from balancelab.simulate.worker import play_chunk
ex = get_reusable_executor(max_workers=1)
games, _, _, _ = ex.submit(play_chunk, "odyssey", {}, ["random"] * 4, True, 1, 0, 2, {}).result()
assert len(games["winner"]) == 2
mods = ex.submit(eval, "sorted(__import__('sys').modules)").result()
ex.shutdown()
print(json.dumps(sorted({m.split(".")[0] for m in mods} & set(sys.argv[1].split(",")))))
"""


def test_a_real_loky_worker_imports_no_polars_or_pyarrow() -> None:
    out = subprocess.run([sys.executable, "-c", _LOKY, ",".join(HEAVY)],
                         capture_output=True, text=True, check=True, timeout=300)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
