"""The run plan: a run's configuration (:class:`RunConfig`, what determines its results) and
its chunks (:class:`ChunkPlan`, fixed multiples of a chunk size that is a pure function of the
configuration, so the same seed gives the same parquet bytes on any machine)."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from balancelab.games import get_game
from balancelab.policies import base as policies
from balancelab.simulate.core import Game
from balancelab.simulate.errors import RunError, os_reason
from balancelab.simulate.options import RuleOptions

#: The largest run seed (the games table stores it as a signed 64-bit integer).
MAX_SEED = 2**63 - 1
#: The most games per variant a run may plan.
MAX_GAMES = 1_000_000_000
#: Auto-sized runs are cut into at least this many chunks where the game's chunk size allows.
MIN_CHUNKS = 32
#: ... but an auto-sized chunk is never smaller than the game's ``chunk_games / MAX_SPLIT``.
MAX_SPLIT = 8


# -- configuration ---------------------------------------------------------------------------


@dataclass
class RunConfig:
    """Everything that determines a run's results.

    Attributes:
        game: game name.
        variants: one options object per variant (a sweep has several).
        policies: side or seat name → policy spec (``{"crew": "search:rollouts=200"}``); sides
            not named play their game's default.
        seed: the run seed (non-negative int).
        games: games per variant.
        rotate: rotate differing policies through the seats of a side, every permutation
            equally often (game *i* takes permutation ``i % n!``).
        chunk_games: games per chunk (default: :func:`auto_chunk_games` of the game's
            ``chunk_games`` and ``games``).
        chunk_auto: True when ``chunk_games`` was chosen automatically (then resuming a run
            keeps the run's original chunk size, so ``--games`` can extend it).
    """

    game: str
    variants: list[RuleOptions]
    policies: dict[str, str] = field(default_factory=dict)
    seed: int = 0
    games: int = 1000
    rotate: bool = True
    chunk_games: int | None = None
    chunk_auto: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        g = get_game(self.game)
        self.seed = checked_int("--seed", self.seed, 0, MAX_SEED)
        self.games = checked_int("--games", self.games, 1, MAX_GAMES)
        if self.chunk_games is None:
            self.chunk_games = auto_chunk_games(g.chunk_games, self.games)
            self.chunk_auto = True
        self.chunk_games = checked_int("--chunk-games", self.chunk_games, 1, MAX_GAMES)
        if not self.variants:
            self.variants = [g.options_type()]
        # validate policy names against every variant's seats
        for v in self.variants:
            self.seat_specs(v)

    @property
    def game_obj(self) -> Game:
        return get_game(self.game)

    def seat_specs(self, options: RuleOptions) -> list[str]:
        """The resolved policy spec of each seat for one variant (before rotation).

        Raises:
            PolicyError: an unknown side/seat name, policy or policy parameter.
        """
        g = self.game_obj
        seats = g.seats(options)
        names = set(g.sides) | set(seats)
        for key in self.policies:
            if key not in names and key not in g.sides:
                raise policies.PolicyError(
                    f"unknown side or seat {key!r} for {g.name!r} with "
                    f"{options.label()}; valid: {', '.join(dict.fromkeys([*g.sides, *seats]))}"
                )
        out = []
        for i, seat in enumerate(seats):
            side = g.side_of_seat(options, i)
            spec = self.policies.get(seat, self.policies.get(side, "default"))
            out.append(policies.resolve(g, side, spec))
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "variants": [v.as_dict() for v in self.variants],
            "policies": dict(sorted(self.policies.items())),
            "seed": self.seed,
            "games": self.games,
            "rotate": self.rotate,
            "chunk_games": self.chunk_games,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> RunConfig:
        g = get_game(d["game"])
        variants = [g.options_type.from_strings(_untuple(v)) for v in d["variants"]]
        return cls(
            game=d["game"],
            variants=variants,
            policies=dict(d["policies"]),
            seed=int(d["seed"]),
            games=int(d["games"]),
            rotate=bool(d["rotate"]),
            chunk_games=int(d["chunk_games"]),
        )

    def data_files(self) -> list[dict[str, Any]]:
        """The data files the variants read (a board, card tables), with their content's hash.

        Returns:
            One ``{"variant", "option", "path", "sha256"}`` per variant and data option set.

        Raises:
            RunError: a data file or directory that does not exist or cannot be read.
        """
        out = []
        for i, v in enumerate(self.variants):
            for name, (kind, where) in v.data_paths().items():
                out.append({"variant": i, "option": name, "path": where,
                            "sha256": data_hash(name, kind, where)})
        return out

    def identity(self, game_version: str | None = None,
                 data: list[dict[str, Any]] | None = None) -> str:
        """A short hash of what determines the results (not the game count): the game's
        rules version, variants, policies, seed, seat rotation, chunk size, and the content
        hash of every data file (:meth:`data_files`; ``data`` gives recorded ones instead).
        """
        d = self.to_json()
        d.pop("games")
        d["variants"] = [v.identity_dict() for v in self.variants]
        d["game_version"] = self.game_obj.version if game_version is None else game_version
        files = self.data_files() if data is None else data
        if files:  # runs without data files keep the identity they always had
            d["data_files"] = sorted(
                (int(f["variant"]), str(f["option"]), str(f["sha256"])) for f in files)
        raw = json.dumps(d, sort_keys=True, default=str).encode()
        return hashlib.sha1(raw).hexdigest()[:8]

    def default_run_name(self) -> str:
        """``<game>-<label>-seed<seed>`` for one variant, ``<game>-sweep-<hash>`` for several:
        one folder name (a data option gives its file's or folder's name, not its path; a
        character a file name cannot hold becomes ``_``)."""
        if len(self.variants) == 1:
            v = self.variants[0]
            data = v.data_paths()
            parts = []
            for part in v.label().split(","):
                name, _, value = part.partition("=")
                if name in data:  # a user's data file or folder: its name (issue 30 G6)
                    value = os.path.basename(os.path.normpath(value))
                parts.append(name + value)
            label = re.sub(r"[^\w.+-]", "_", "-".join(parts))
            pol = "" if not self.policies else "-" + self.identity()
            return f"{self.game}-{label}-seed{self.seed}{pol}"
        return f"{self.game}-sweep-{self.identity()}-seed{self.seed}"


def checked_int(flag: str, value: Any, low: int, high: int) -> int:
    """``value`` as an int in ``[low, high]`` (numpy integers accepted, floats and bools not).

    Raises:
        RunError: naming the flag, the allowed range and the value given.
    """
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise RunError(f"{flag} takes a whole number in [{low:,}, {high:,}]; got {value!r}")
    v = int(value)
    if not low <= v <= high:
        raise RunError(f"{flag} must be in [{low:,}, {high:,}]; got {v:,}")
    return v


def data_hash(option: str, kind: str, where: str) -> str:
    """SHA-256 of a data file's bytes, or of a directory's files (names and bytes, sorted).

    Raises:
        RunError: the file or directory is missing or unreadable.
    """
    p = Path(where)
    h = hashlib.sha256()
    try:
        if kind == "dir":
            if not p.is_dir():
                raise RunError(f"{option}: no such directory {where!r}")
            for f in sorted(q for q in p.iterdir() if q.is_file()):
                h.update(f.name.encode() + b"\0" + hashlib.sha256(f.read_bytes()).digest())
        else:
            if not p.is_file():
                raise RunError(f"{option}: no such file {where!r}")
            h.update(p.read_bytes())
    except OSError as exc:
        raise RunError(f"{option}: cannot read {where!r}: {os_reason(exc)}") from None
    return h.hexdigest()


def _untuple(d: dict[str, Any]) -> dict[str, Any]:
    return {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}


# -- chunks ----------------------------------------------------------------------------------




@dataclass(frozen=True)
class Chunk:
    """Games ``[start, stop)`` of one variant."""

    variant: int
    index: int
    start: int
    stop: int

    @property
    def key(self) -> str:
        return f"{self.variant}:{self.index}"

    @property
    def filename(self) -> str:
        return f"chunk-{self.index:06d}.parquet"


def auto_chunk_games(chunk_games: int, games: int) -> int:
    """The chunk size of a run: a pure function of the game's chunk size and the games per variant.

    A game's ``chunk_games`` is sized so that one chunk takes ~0.2–2 s on one core: long enough
    that the per-chunk cost (dispatch, pickling the columns back, building the frame, one
    parquet file, one manifest rewrite: a few ms) stays small, short enough that progress,
    Ctrl-C and resume are fine-grained and a worker holds little. A small run would then be
    only a few chunks and leave workers idle, so the size is halved (``c, c/2, c/4, ...``)
    until the run has at least :data:`MIN_CHUNKS` chunks, but never below
    ``chunk_games / MAX_SPLIT`` (~25–250 ms of work, where the per-chunk cost would start to
    show). It never depends on the core count or on measured speed: the same configuration
    gives the same chunks, hence the same parquet bytes, on any machine.

    Examples:
        >>> auto_chunk_games(1000, 100_000), auto_chunk_games(1000, 10_000)
        (1000, 250)
        >>> auto_chunk_games(1000, 1000), auto_chunk_games(1000, 40)
        (125, 125)
    """
    size = max(1, chunk_games)
    floor = max(1, chunk_games // MAX_SPLIT)
    while -(-games // size) < MIN_CHUNKS and size // 2 >= floor:
        size //= 2
    return size


class ChunkPlan(Sequence[Chunk]):
    """Every chunk of a run, interleaved across variants so a partial run covers all of them.

    Lazy: a chunk is computed from its position, so a plan of any size takes constant memory
    (``--games 1000000000`` plans a million chunks without holding them).
    """

    def __init__(self, n_variants: int, games: int, chunk_games: int) -> None:
        self.n_variants = n_variants
        self.games = games
        self.chunk_games = chunk_games
        self.n_chunks = -(-games // chunk_games)

    def __len__(self) -> int:
        return self.n_chunks * self.n_variants

    @overload
    def __getitem__(self, i: int) -> Chunk: ...

    @overload
    def __getitem__(self, i: slice) -> list[Chunk]: ...

    def __getitem__(self, i: int | slice) -> Chunk | list[Chunk]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(i)
        c, v = divmod(i, self.n_variants)
        return self.chunk(v, c)

    def chunk(self, variant: int, index: int) -> Chunk:
        """Chunk ``index`` of ``variant``."""
        cg = self.chunk_games
        return Chunk(variant, index, index * cg, min(self.games, (index + 1) * cg))

    def get(self, key: str) -> Chunk | None:
        """The chunk of a key ``"<variant>:<index>"``, or None when the plan has none."""
        try:
            v, c = (int(x) for x in key.split(":"))
        except ValueError:
            return None
        if not (0 <= v < self.n_variants and 0 <= c < self.n_chunks):
            return None
        return self.chunk(v, c)


def plan_chunks(n_variants: int, games: int, chunk_games: int) -> ChunkPlan:
    """Every chunk of a run (a lazy :class:`ChunkPlan`), interleaved across variants."""
    return ChunkPlan(n_variants, games, chunk_games)



def cheating_specs(config: RunConfig) -> list[str]:
    """The run's policy specs that CHEAT (``Policy.sees_state``: they are handed the true
    state, every hand and the deck order, not their seat's view), sorted; empty for a fair
    run. Manifests record them and reports warn about them."""
    g = config.game_obj
    out = set()
    for v in config.variants:
        for seat, spec in enumerate(config.seat_specs(v)):
            side = g.side_of_seat(v, seat)
            factory, _ = policies._factory_and_params(g.name, side, spec)
            if getattr(factory, "sees_state", False):
                out.add(spec)
    return sorted(out)
