"""Seeded Generators without numpy's per-seed overhead, for the search policies' inner loop.

``seeded_generator(entropy, key)`` is ``np.random.default_rng(np.random.SeedSequence(entropy,
spawn_key=key))``: the same PCG64 stream, bit for bit (tested against numpy). numpy's
``SeedSequence`` mixes its entropy through a dozen small array operations, each under an
``errstate`` context, which cost more than a whole ISMCTS iteration's tree bookkeeping; this
module hashes the few words in plain (compiled) integer arithmetic and hands the bit generator
the finished seed words.

The algorithm is numpy's ``SeedSequence`` (O'Neill's seed_seq hashing, pool of 4 32-bit
words: ``numpy/random/bit_generator.pyx``); ``SeedSequence(e).spawn(n)[i]`` is the sequence of
entropy ``e`` and spawn key ``(i,)``.
"""

from __future__ import annotations

import struct
import sys
from typing import Any, Final

import numpy as np
from mypy_extensions import i64
from numpy.random import PCG64, Generator
from numpy.random.bit_generator import ISeedSequence

_M32: Final = 0xFFFFFFFF
_INIT_A: Final = 0x43B0D7E5
_MULT_A: Final = 0x931E8875
_INIT_B: Final = 0x8B51F9DD
_MULT_B: Final = 0x58F38DED
_MIX_L: Final = 0xCA01F9DD
_MIX_R: Final = 0x4973F715
#: numpy's default pool size (32-bit words).
_POOL: Final = 4
#: little-endian 32- and 64-bit words (how numpy's SeedSequence pairs words).
_LE32: Final = np.dtype("<u4")
_LE64: Final = np.dtype("<u8")
_NATIVE_LE: Final = sys.byteorder == "little"
#: packers of n little-endian 32-bit words, by n
_PACKERS: dict[int, struct.Struct] = {}
#: PCG64's 128-bit LCG multiplier (numpy's ``PCG_DEFAULT_MULTIPLIER_128``).
_PCG_MULT: Final = (2549297995355413924 << 64) + 4865540595714422341
_M64: Final = (1 << 64) - 1
_M128: Final = (1 << 128) - 1


def _words(n: int, out: list[int]) -> None:
    """Append the 32-bit words of ``n`` >= 0, least significant first (0 is one word)."""
    if n == 0:
        out.append(0)
    while n > 0:
        out.append(n & _M32)
        n >>= 32


def _mul32(a: i64, b: i64) -> i64:
    """``(a * b) & 0xFFFFFFFF`` for 32-bit ``a``, ``b``, from 16-bit halves: every
    intermediate value stays below 2**50, so the compiled code's 64-bit machine integers
    (``i64``) never overflow and give Python's results."""
    al = a & 0xFFFF
    bl = b & 0xFFFF
    return (al * bl + (((a >> 16) * bl + al * (b >> 16)) << 16)) & _M32


def _mix(x: i64, y: i64) -> i64:
    r = (_mul32(_MIX_L, x) - _mul32(_MIX_R, y)) & _M32
    return r ^ (r >> 16)


def pool(entropy: int, key: tuple[int, ...] = ()) -> list[int]:
    """The 4-word pool of ``SeedSequence(entropy, spawn_key=key)``.

    Raises:
        ValueError: ``entropy`` or a key word is negative.
    """
    if entropy < 0 or any(k < 0 for k in key):
        raise ValueError(f"seed entropy and spawn key must be >= 0; got {entropy}, {key}")
    ent: list[int] = []
    _words(entropy, ent)
    if key:
        while len(ent) < _POOL:  # numpy pads the run entropy when a spawn key follows
            ent.append(0)
        for k in key:
            _words(k, ent)
    h: i64 = _INIT_A
    v: i64 = 0
    mixer: list[i64] = [0] * _POOL
    for i in range(_POOL):
        v = ent[i] if i < len(ent) else 0
        v = (v ^ h) & _M32
        h = _mul32(h, _MULT_A)
        v = _mul32(v, h)
        mixer[i] = v ^ (v >> 16)
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                v = (mixer[src] ^ h) & _M32
                h = _mul32(h, _MULT_A)
                v = _mul32(v, h)
                mixer[dst] = _mix(mixer[dst], v ^ (v >> 16))
    for src in range(_POOL, len(ent)):
        for dst in range(_POOL):
            v = (ent[src] ^ h) & _M32
            h = _mul32(h, _MULT_A)
            v = _mul32(v, h)
            mixer[dst] = _mix(mixer[dst], v ^ (v >> 16))
    return [int(x) for x in mixer]


def _state_words(mixer: list[int], n32: int) -> list[int]:
    """The first ``n32`` 32-bit words of ``SeedSequence.generate_state`` from ``mixer``."""
    h: i64 = _INIT_B
    out: list[int] = []
    for i in range(n32):
        v: i64 = (mixer[i % _POOL] ^ h) & _M32
        h = _mul32(h, _MULT_B)
        v = _mul32(v, h)
        out.append(v ^ (v >> 16))
    return out


class _SeedWords:
    """A finished seed for a bit generator's constructor (numpy's ``ISeedSequence``): the
    ``generate_state`` of a ``SeedSequence`` with this pool (a read-only array: the bit
    generator only reads it)."""

    def __init__(self, mixer: list[int]) -> None:
        self.mixer = mixer

    def generate_state(self, n_words: int, dtype: Any = np.uint32) -> Any:
        wide = dtype is np.uint64 or (dtype is not np.uint32
                                      and np.dtype(dtype) == np.dtype(np.uint64))
        n32 = 2 * n_words if wide else n_words
        packer = _PACKERS.get(n32)
        if packer is None:
            packer = _PACKERS[n32] = struct.Struct(f"<{n32}I")
        # as numpy's SeedSequence: 64-bit words from little-endian pairs of 32-bit ones
        words = np.frombuffer(packer.pack(*_state_words(self.mixer, n32)),
                              dtype=_LE64 if wide else _LE32)
        if _NATIVE_LE:
            return words
        return words.astype(np.uint64 if wide else np.uint32)


ISeedSequence.register(_SeedWords)


def seeded_generator(entropy: int, key: tuple[int, ...] = ()) -> Generator:
    """``np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=key))``, faster.

    Args:
        entropy: the seed, an int >= 0 (the draws here are below ``2**63``).
        key: the spawn key: ``(i,)`` for child ``i`` of ``SeedSequence(entropy).spawn(n)``.

    Returns:
        A PCG64 Generator drawing exactly the numbers numpy's would.

    Raises:
        ValueError: a negative seed or key word.
    """
    seed: Any = _SeedWords(pool(entropy, key))  # an ISeedSequence (registered above)
    return Generator(PCG64(seed))


def seeded_draws(entropy: int, key: tuple[int, ...], n: int) -> list[int]:
    """``seeded_generator(entropy, key).integers(2**63, size=n).tolist()``, without making
    the Generator: numpy's PCG64 (a 128-bit LCG with the XSL-RR output, seeded from the
    first four 64-bit words of the seed sequence's state) stepped in integer arithmetic.
    numpy draws ``integers(2**63)`` by Lemire's method, which for a power of two never
    rejects and keeps the top 63 bits of one 64-bit output (tested against numpy).

    Raises:
        ValueError: a negative seed or key word.
    """
    state, inc = _pcg64_seeded(entropy, key)
    out: list[int] = []
    for _ in range(n):
        state = (state * _PCG_MULT + inc) & _M128
        x = ((state >> 64) ^ state) & _M64
        rot = state >> 122
        out.append((((x >> rot) | (x << (64 - rot))) & _M64) >> 1)
    return out


class SeedSource:
    """A function making a seat's Generator, ``seeded_generator(seed())``, that also tells
    the seed: a policy that only draws small integers can then step the same stream in
    integer arithmetic (:class:`SmallDraws`) instead of making the Generator. Subclasses
    give :meth:`seed` (it may compute the seed on first use)."""

    def seed(self) -> int:
        """The seed (entropy of the sequence, no spawn key)."""
        raise NotImplementedError

    def __call__(self) -> Generator:
        return seeded_generator(self.seed())


class FixedSeed(SeedSource):
    """A :class:`SeedSource` of a known seed."""

    def __init__(self, seed: int) -> None:
        self._seed = seed

    def seed(self) -> int:
        return self._seed


class SmallDraws:
    """``g.integers(n)`` for ``1 <= n < 2**32`` of ``g = seeded_generator(entropy)``, one
    call at a time, the same numbers, without making ``g``: PCG64 stepped in integer
    arithmetic as in :func:`seeded_draws`, its 32-bit outputs as numpy's (each 64-bit output
    gives its low half, then, at the next 32-bit draw, its high half) and numpy's bounded draw
    for ranges below ``2**32`` (Lemire's multiply-shift with rejection; tested against numpy).
    Only these draws: a policy using it must draw nothing else from its seat's stream.

    Raises:
        ValueError: a negative seed.
    """

    def __init__(self, entropy: int) -> None:
        w = _state_words(pool(entropy), 8)
        init = (w[0] | w[1] << 32) << 64 | w[2] | w[3] << 32
        self.inc = ((w[4] | w[5] << 32) << 64 | w[6] | w[7] << 32) << 1 & _M128 | 1
        self.state = ((self.inc + init) * _PCG_MULT + self.inc) & _M128
        self.half = -1  # the buffered high half of the last 64-bit output (-1: none)

    def _next32(self) -> int:
        half = self.half
        if half >= 0:
            self.half = -1
            return half
        state = self.state = (self.state * _PCG_MULT + self.inc) & _M128
        x = ((state >> 64) ^ state) & _M64
        rot = state >> 122
        x = ((x >> rot) | (x << (64 - rot))) & _M64
        self.half = x >> 32
        return x & _M32

    def integers(self, n: int) -> int:
        """The next ``integers(n)`` (0 <= result < n)."""
        if n == 1:
            return 0  # numpy draws nothing for a range of one
        m = self._next32() * n
        low = m & _M32
        if low < n:
            threshold = (_M32 - (n - 1)) % n
            while low < threshold:
                m = self._next32() * n
                low = m & _M32
        return m >> 32


def _pcg64_seeded(entropy: int, key: tuple[int, ...]) -> tuple[int, int]:
    """(state, increment) of numpy's PCG64 seeded from ``SeedSequence(entropy,
    spawn_key=key)``: the initial state and the stream are the first two 128-bit words of
    the seed sequence's state, set as PCG's ``srandom`` does."""
    w = _state_words(pool(entropy, key), 8)
    init = (w[0] | w[1] << 32) << 64 | w[2] | w[3] << 32
    inc = ((w[4] | w[5] << 32) << 64 | w[6] | w[7] << 32) << 1 & _M128 | 1
    return ((inc + init) * _PCG_MULT + inc) & _M128, inc


def seeded_snapshot(entropy: int, key: tuple[int, ...] = ()) -> tuple[Any, Any]:
    """``seeded_generator(entropy, key)`` as a snapshot ``(PCG64, its state dict)`` for a
    state to build its Generator from at its first draw (:attr:`State.rng
    <balancelab.simulate.core.State.rng>`), without making one: most sampled worlds never
    draw.

    Raises:
        ValueError: a negative seed or key word.
    """
    state, inc = _pcg64_seeded(entropy, key)
    return PCG64, {"bit_generator": "PCG64", "state": {"state": state, "inc": inc},
                   "has_uint32": 0, "uinteger": 0}


def draw_seed(rng: Generator) -> int:
    """``int(rng.integers(2**63))``: the same number, the same draws spent. For PCG64 it is
    read straight from the bit generator (numpy's Lemire method keeps the top 63 bits of one
    64-bit output: :func:`seeded_draws`), at a sixth of the cost of ``integers``."""
    bits = rng.bit_generator
    if type(bits) is PCG64:
        return int(bits.random_raw()) >> 1
    return int(rng.integers(2**63))
