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
from typing import Any, Final, final

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
#: PCG64's 128-bit LCG multiplier (numpy's ``PCG_DEFAULT_MULTIPLIER_128``,
#: ``(2549297995355413924 << 64) + 4865540595714422341``) in 32-bit limbs, lowest first.
_P0: Final = 2681009733
_P1: Final = 1132846948
_P2: Final = 533093796
_P3: Final = 593554693
#: entropies below this take :func:`_pool4`'s machine-integer path
_FAST_ENTROPY: Final = 1 << 63


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


def _mul_wide(a: i64, b: i64) -> tuple[i64, i64]:
    """``a * b`` for 32-bit ``a``, ``b`` as its (low, high) 32-bit words, from ``b``'s 16-bit
    halves (every intermediate value below 2**50, as :func:`_mul32`)."""
    bh = a * (b >> 16)
    lo = a * (b & 0xFFFF) + ((bh & 0xFFFF) << 16)
    return lo & _M32, (bh >> 16) + (lo >> 32)


def _mix(x: i64, y: i64) -> i64:
    r = (_mul32(_MIX_L, x) - _mul32(_MIX_R, y)) & _M32
    return r ^ (r >> 16)


def _hashed(x: i64, h: i64, mult: i64 = _MULT_A) -> tuple[i64, i64]:
    """One word through the seed sequence's hash (``mult``: the pool's, or the state's
    ``_MULT_B``): (the hashed word, the next hash constant)."""
    v = (x ^ h) & _M32
    h = _mul32(h, mult)
    v = _mul32(v, h)
    return v ^ (v >> 16), h


def pool(entropy: int, key: tuple[int, ...] = ()) -> list[int]:
    """The 4-word pool of ``SeedSequence(entropy, spawn_key=key)``.

    Raises:
        ValueError: ``entropy`` or a key word is negative.
    """
    m0, m1, m2, m3, _ = _pool4(entropy, key)
    return [m0, m1, m2, m3]


def _pool4(entropy: int, key: tuple[int, ...]) -> tuple[i64, i64, i64, i64, i64]:
    """:func:`pool` in machine integers: the four words, then the hash constant after them
    (numpy's loops over the pool unrolled over four locals: a list of words would box each).

    Raises:
        ValueError: ``entropy`` or a key word is negative.
    """
    if entropy < 0 or any(k < 0 for k in key):
        raise ValueError(f"seed entropy and spawn key must be >= 0; got {entropy}, {key}")
    extra: list[int] = []  # the words after the pool's first four
    if entropy < _FAST_ENTROPY:  # (the searches' seeds: at most two words)
        e: i64 = entropy
        e0, e1, e2, e3 = e & _M32, e >> 32, 0, 0
    else:
        ent: list[int] = []
        _words(entropy, ent)
        while len(ent) < _POOL:  # numpy pads the run entropy (only needed when a key follows)
            ent.append(0)
        e0, e1, e2, e3 = ent[0], ent[1], ent[2], ent[3]
        extra = ent[_POOL:]
    for k in key:
        _words(k, extra)
    h: i64 = _INIT_A
    m0, h = _hashed(e0, h)
    m1, h = _hashed(e1, h)
    m2, h = _hashed(e2, h)
    m3, h = _hashed(e3, h)
    # every word mixed into every other, in numpy's order (by source, then destination)
    v, h = _hashed(m0, h)
    m1 = _mix(m1, v)
    v, h = _hashed(m0, h)
    m2 = _mix(m2, v)
    v, h = _hashed(m0, h)
    m3 = _mix(m3, v)
    v, h = _hashed(m1, h)
    m0 = _mix(m0, v)
    v, h = _hashed(m1, h)
    m2 = _mix(m2, v)
    v, h = _hashed(m1, h)
    m3 = _mix(m3, v)
    v, h = _hashed(m2, h)
    m0 = _mix(m0, v)
    v, h = _hashed(m2, h)
    m1 = _mix(m1, v)
    v, h = _hashed(m2, h)
    m3 = _mix(m3, v)
    v, h = _hashed(m3, h)
    m0 = _mix(m0, v)
    v, h = _hashed(m3, h)
    m1 = _mix(m1, v)
    v, h = _hashed(m3, h)
    m2 = _mix(m2, v)
    for x in extra:  # then each further word into every pool word
        w: i64 = x
        v, h = _hashed(w, h)
        m0 = _mix(m0, v)
        v, h = _hashed(w, h)
        m1 = _mix(m1, v)
        v, h = _hashed(w, h)
        m2 = _mix(m2, v)
        v, h = _hashed(w, h)
        m3 = _mix(m3, v)
    return m0, m1, m2, m3, h


def _state_words(mixer: list[int], n32: int) -> list[int]:
    """The first ``n32`` 32-bit words of ``SeedSequence.generate_state`` from ``mixer``."""
    h: i64 = _INIT_B
    out: list[int] = []
    for i in range(n32):
        v, h = _hashed(mixer[i % _POOL], h, _MULT_B)
        out.append(v)
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
    the Generator (:class:`PcgStream`'s :meth:`~PcgStream.draw63`).

    Raises:
        ValueError: a negative seed or key word.
    """
    g = PcgStream(entropy, key)
    return [g.draw63() for _ in range(n)]


class SeedSource:
    """A function making a seat's Generator, ``seeded_generator(seed())``, that also tells
    the seed: a policy that only draws small integers can then step the same stream in
    integer arithmetic (:class:`PcgStream`) instead of making the Generator. Subclasses
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


@final
class PcgStream:
    """The stream of ``seeded_generator(entropy, key)`` (numpy's PCG64: a 128-bit LCG with
    the XSL-RR output, seeded from the seed sequence's first four 64-bit state words as PCG's
    ``srandom``), stepped in machine integers without making the Generator, for the few draws
    the searches' inner loop makes. The same numbers as the Generator's (tested against
    numpy): :meth:`integers` for ranges below ``2**32`` (numpy's 32-bit outputs: each 64-bit
    output gives its low half, then, at the next 32-bit draw, its high half; Lemire's
    multiply-shift with rejection), :meth:`shuffle` of a list (numpy's masked rejection per
    swap), :meth:`draw63` (``integers(2**63)``: the top 63 bits of one 64-bit output, Lemire
    never rejects for a power of two). :meth:`snapshot` hands the stream on to a state.

    The 128-bit state is four 32-bit limbs: every product is split so that no intermediate
    value reaches ``2**63`` (compiled, ``i64`` arithmetic is native and must not overflow).

    Raises:
        ValueError: a negative seed or key word.
    """

    def __init__(self, entropy: int, key: tuple[int, ...] = ()) -> None:
        m0, m1, m2, m3, _ = _pool4(entropy, key)
        h: i64 = _INIT_B  # the state words (``_state_words`` of the pool, 8 of them)
        w0, h = _hashed(m0, h, _MULT_B)
        w1, h = _hashed(m1, h, _MULT_B)
        w2, h = _hashed(m2, h, _MULT_B)
        w3, h = _hashed(m3, h, _MULT_B)
        w4, h = _hashed(m0, h, _MULT_B)
        w5, h = _hashed(m1, h, _MULT_B)
        w6, h = _hashed(m2, h, _MULT_B)
        w7, h = _hashed(m3, h, _MULT_B)
        # 64-bit words (w0 | w1 << 32), ...: the initial state (high, low), then the stream's
        # (high, low); the increment is the stream shifted left once, plus one
        self.i0: i64 = (w6 << 1 & _M32) | 1
        self.i1: i64 = (w7 << 1 | w6 >> 31) & _M32
        self.i2: i64 = (w4 << 1 | w7 >> 31) & _M32
        self.i3: i64 = (w5 << 1 | w4 >> 31) & _M32
        # ``srandom``: state = increment + initial state, then one step
        c: i64 = self.i0 + w2
        self.s0: i64 = c & _M32
        c = self.i1 + w3 + (c >> 32)
        self.s1: i64 = c & _M32
        c = self.i2 + w0 + (c >> 32)
        self.s2: i64 = c & _M32
        c = self.i3 + w1 + (c >> 32)
        self.s3: i64 = c & _M32
        self._step()
        self.half: i64 = -1  # the buffered high half of the last 64-bit output (-1: none)

    def _step(self) -> None:
        """state = state * multiplier + increment (mod 2**128), limb by limb."""
        s0, s1, s2 = self.s0, self.s1, self.s2
        l00, h00 = _mul_wide(s0, _P0)
        l01, h01 = _mul_wide(s0, _P1)
        l10, h10 = _mul_wide(s1, _P0)
        l02, h02 = _mul_wide(s0, _P2)
        l11, h11 = _mul_wide(s1, _P1)
        l20, h20 = _mul_wide(s2, _P0)
        c: i64 = l00 + self.i0
        self.s0 = c & _M32
        c = h00 + l01 + l10 + self.i1 + (c >> 32)
        self.s1 = c & _M32
        c = h01 + h10 + l02 + l11 + l20 + self.i2 + (c >> 32)
        self.s2 = c & _M32
        c = h02 + h11 + h20 + _mul32(s0, _P3) + _mul32(s1, _P2) + _mul32(s2, _P1) \
            + _mul32(self.s3, _P0) + self.i3 + (c >> 32)
        self.s3 = c & _M32

    def _next64(self) -> tuple[i64, i64]:
        """The next 64-bit output as its (low, high) 32-bit halves."""
        self._step()
        hi = self.s3 ^ self.s1  # (state >> 64) ^ state, the low 64 bits
        lo = self.s2 ^ self.s0
        rot = self.s3 >> 26  # state >> 122
        if rot >= 32:
            hi, lo = lo, hi
            rot -= 32
        if rot:
            hi, lo = (hi >> rot | lo << (32 - rot)) & _M32, (lo >> rot | hi << (32 - rot)) & _M32
        return lo, hi

    def _next32(self) -> i64:
        half = self.half
        if half >= 0:
            self.half = -1
            return half
        lo, hi = self._next64()
        self.half = hi
        return lo

    def draw63(self) -> int:
        """The next ``integers(2**63)``."""
        lo, hi = self._next64()
        return hi << 31 | lo >> 1

    def integers(self, n: int) -> int:
        """The next ``integers(n)`` for ``1 <= n <= 2**32`` (0 <= result < n)."""
        if n == 1:
            return 0  # numpy draws nothing for a range of one
        b: i64 = n
        low, high = _mul_wide(self._next32(), b)
        if low < b:
            threshold = (_M32 - (b - 1)) % b
            while low < threshold:
                low, high = _mul_wide(self._next32(), b)
        return high

    def shuffle(self, x: list[int]) -> None:
        """Shuffle ``x`` in place as ``Generator.shuffle`` shuffles a list: from the last
        place down, swap with a place drawn in ``[0, i]`` (numpy's ``random_interval``)."""
        i: i64 = len(x) - 1
        while i > 0:
            mask = i
            mask |= mask >> 1
            mask |= mask >> 2
            mask |= mask >> 4
            mask |= mask >> 8
            mask |= mask >> 16
            j = self._next32() & mask
            while j > i:
                j = self._next32() & mask
            x[i], x[j] = x[j], x[i]
            i -= 1

    def snapshot(self) -> tuple[Any, Any]:
        """The stream as a snapshot ``(PCG64, its state dict)`` for a state to build its
        Generator from at its first draw (:attr:`State.rng
        <balancelab.simulate.core.State.rng>`): it then draws what this stream would."""
        state = _join128(self.s0, self.s1, self.s2, self.s3)
        inc = _join128(self.i0, self.i1, self.i2, self.i3)
        half = self.half
        return PCG64, {"bit_generator": "PCG64", "state": {"state": state, "inc": inc},
                       "has_uint32": 1 if half >= 0 else 0, "uinteger": half if half >= 0 else 0}


def _join128(l0: int, l1: int, l2: int, l3: int) -> int:
    """The 128-bit int of four 32-bit limbs, lowest first (Python ints: no overflow)."""
    return l3 << 96 | l2 << 64 | l1 << 32 | l0


def seeded_snapshot(entropy: int, key: tuple[int, ...] = ()) -> tuple[Any, Any]:
    """``seeded_generator(entropy, key)`` as a snapshot ``(PCG64, its state dict)`` for a
    state to build its Generator from at its first draw (:attr:`State.rng
    <balancelab.simulate.core.State.rng>`), without making one: most sampled worlds never
    draw.

    Raises:
        ValueError: a negative seed or key word.
    """
    return PcgStream(entropy, key).snapshot()


def draw_seed(rng: Generator) -> int:
    """``int(rng.integers(2**63))``: the same number, the same draws spent. For PCG64 it is
    read straight from the bit generator (numpy's Lemire method keeps the top 63 bits of one
    64-bit output: :func:`seeded_draws`), at a sixth of the cost of ``integers``."""
    bits = rng.bit_generator
    if type(bits) is PCG64:
        return int(bits.random_raw()) >> 1
    return int(rng.integers(2**63))
