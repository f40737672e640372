"""The block kernel: the analytic first pass over one cache-sized block of frames.

Distance, held direction, pole side, soft IK, hard clamp, half-angle solve and FK, written into the output
buffers (:class:`Frames`) that the later passes share.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np
from numpy.typing import NDArray

from .. import closed_forms
from ..closed_forms import ARRAYS
from ..limits import TAU
from ..options import Options, clamp_bounds
from ..result import IKFlag
from ..soft import soft_distance, soft_inner_distance

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]
Carry = float | FloatArray  # one chain's carried value, or one per row of a batch of chains (solver.two_bone.batch)

BLOCK = 8192  # frames per block: keeps every temporary in L2 cache (about 4x faster than whole arrays)

F_OUTER = np.uint16(IKFlag.CLAMPED_OUTER)
F_INNER = np.uint16(IKFlag.CLAMPED_INNER)
F_SOFT = np.uint16(IKFlag.SOFTENED)
F_LIM_S = np.uint16(IKFlag.LIMITED_SHOULDER)
F_LIM_E = np.uint16(IKFlag.LIMITED_ELBOW)
F_ROOT = np.uint16(IKFlag.ROOT_MOVED)
F_STRETCH = np.uint16(IKFlag.STRETCHED)
F_HELD = np.uint16(IKFlag.DIRECTION_HELD)


@dataclass
class Frames:
    """Output buffers for N frames, filled block by block."""

    shoulder: FloatArray
    elbow_angle: FloatArray
    elbow: FloatArray
    end: FloatArray
    solved: FloatArray
    distance: FloatArray
    solved_distance: FloatArray
    stretch: FloatArray
    flags: NDArray[np.uint16]
    bend: NDArray[np.int8]

    @classmethod
    def empty(cls, n: int) -> Frames:
        """All float outputs are views of one allocation.

        Fresh memory costs a page fault per 4 KiB on first write, several times the solve itself. The
        allocator keeps one large freed chunk for the next request of the same size, while a dozen separate
        arrays of this size are returned to the system and faulted in again on every solve.
        """
        buf = np.empty(11 * n)
        stretch = buf[10 * n :]
        stretch.fill(1.0)
        return cls(
            elbow=buf[: 2 * n].reshape(n, 2),
            end=buf[2 * n : 4 * n].reshape(n, 2),
            solved=buf[4 * n : 6 * n].reshape(n, 2),
            shoulder=buf[6 * n : 7 * n],
            elbow_angle=buf[7 * n : 8 * n],
            distance=buf[8 * n : 9 * n],
            solved_distance=buf[9 * n : 10 * n],
            stretch=stretch,
            flags=np.zeros(n, dtype=np.uint16),
            bend=np.empty(n, dtype=np.int8),
        )

    def rows(self, sl: slice) -> Frames:
        """The buffers of rows ``sl`` (views): one chain's part of a batch of chains."""
        return Frames(*(getattr(self, name)[sl] for name in _FRAMES_FIELDS))

    def directions(self, idx: IntArray) -> FloatArray:
        """Unit directions of the given frames (the solved distance is never 0)."""
        return np.asarray(self.solved[idx] / self.solved_distance[idx, None])


# Frames' field names in order, read once: dataclasses.fields() per chain of a batch was ~1.5% of a 20-frame
# crowd bake.
_FRAMES_FIELDS = tuple(f.name for f in fields(Frames))


def _forward_fill(valid: NDArray[np.bool_], first: IntArray | int = 0) -> tuple[IntArray, NDArray[np.bool_]]:
    """Index of the latest valid frame at or before each frame, and whether one exists since ``first`` (in a
    batch of chains, per row its own chain's first row: a valid row of the chain before it does not count)."""
    idx = np.where(valid, np.arange(valid.size), -1)
    np.maximum.accumulate(idx, out=idx)
    return idx, idx >= first


def _held_direction(
    tx: FloatArray,
    ty: FloatArray,
    raw_d: FloatArray,
    d_min: float,
    zero: float,
    carry: tuple[Carry, Carry],
    first: IntArray | int,
) -> tuple[FloatArray, FloatArray, NDArray[np.bool_] | None]:
    if d_min > zero:
        return tx / raw_d, ty / raw_d, None
    valid = raw_d > zero
    safe = np.where(valid, raw_d, 1.0)
    dx = tx / safe
    dy = ty / safe
    idx, have = _forward_fill(valid, first)
    dx = np.where(have, dx[idx], carry[0])
    dy = np.where(have, dy[idx], carry[1])
    return dx, dy, ~valid


def _pole_bend(
    dx: FloatArray, dy: FloatArray, pole: FloatArray, deadzone: float, carry: int | NDArray[np.int8],
    first: IntArray | int,
) -> NDArray[np.int8]:
    px = pole[:, 0]
    py = pole[:, 1]
    cross = dx * py - dy * px
    decided = np.abs(cross) > deadzone * np.hypot(px, py)
    side = np.where(cross < 0.0, 1, -1).astype(np.int8)
    idx, have = _forward_fill(decided, first)
    fallback = np.int8(carry) if isinstance(carry, int) else carry
    return np.where(have, side[idx], fallback).astype(np.int8)


def solve_block(
    out: Frames,
    sl: slice,
    targets: FloatArray,
    bend: int | NDArray[np.int8],
    pole: FloatArray | None,
    opts: Options,
    carry_dir: tuple[Carry, Carry],
    carry_bend: int | NDArray[np.int8],
    phi_out: FloatArray | None,
    first: IntArray | int = 0,
) -> tuple[FloatArray, FloatArray, int | NDArray[np.int8]]:
    """First pass over one block: analytic solve, soft IK, FK (and the target angles for :func:`limit_pass`).

    Results go straight into the output slices and temporaries are reused (``out=``): a block fits in cache,
    so the cost is the number of array passes; the plain path makes about fifty, with no trigonometry in FK.

    Args:
        out: the output buffers; the block writes rows ``sl``.
        sl: the block's rows.
        targets: (rows, 2) contiguous, the targets the block aims at.
        bend: the fixed side (one, or per row); replaced per row by the pole's side when ``pole`` is given.
        pole: (rows, 2) or None.
        opts: the options (shared by every chain of a batch: :mod:`.batch` groups chains by them).
        carry_dir, carry_bend: direction and pole side for rows before the first valid one of their chain
            (one chain's, or per row for a batch).
        phi_out: where the target angles go (for the limits pass), or None.
        first: per row, the block row its chain starts on (0 when it started in an earlier block); a plain 0
            for one chain.

    Returns:
        Per row the unit direction (x, y) the block solved along, and the side used: the carries of the rows
        after (one chain continues from its last row).
    """
    a, b, total, inner = opts.a, opts.b, opts.total, opts.inner
    raw_d = out.distance[sl]
    # |x + iy| of the interleaved (x, y) rows: one SIMD pass, no overflow or underflow of the squares.
    np.abs(targets.view(np.complex128)[:, 0], out=raw_d)
    tx = targets[:, 0]
    ty = targets[:, 1]
    tmp = np.empty_like(raw_d)
    d_min, d_max = float(raw_d.min()), float(raw_d.max())
    dx, dy, held = _held_direction(tx, ty, raw_d, d_min, opts.zero_distance, carry_dir, first)
    if pole is not None:
        bend = _pole_bend(dx, dy, pole, opts.pole_deadzone, carry_bend, first)
    flags = out.flags[sl]
    if held is not None:
        flags[held] |= F_HELD

    soft = raw_d
    if opts.outer_width > 0.0:
        soft = soft_distance(soft, total, opts.outer_width)
        flags[raw_d > total - opts.outer_width] |= F_SOFT
    if opts.inner_width > 0.0:
        flags[soft < inner + opts.inner_width] |= F_SOFT
        soft = soft_inner_distance(soft, inner, opts.inner_width)
    if soft is not raw_d:
        d_min, d_max = float(soft.min()), float(soft.max())
    lo, hi = clamp_bounds(a, b, opts.eps)
    if d_max > hi:
        flags[soft > hi] |= F_OUTER
    if d_min < lo:
        flags[soft < lo] |= F_INNER
    d = out.solved_distance[sl]
    np.clip(soft, lo, hi, out=d)

    # Half-angle factors of closed_forms.half_angles (scalar lengths: b - a + d and a - b + d are d - r and d + r).
    dmr = d - inner
    dpr = d + inner
    lmd = total - d
    lpd = d + total
    q_in = dmr * dpr  # d^2 - r^2
    p_out = lmd * lpd  # L^2 - d^2
    near, far = (dmr, dpr) if a >= b else (dpr, dmr)
    near *= lmd
    far *= lpd
    # cos/sin of the doubled half angles, divided by the *computed* sum of squares (not the exact 4ad, 4ab):
    # that keeps them consistent with the arctan2 angles to rounding even where d - r cancels.
    a_cos = far - near
    a_den = far + near
    cos_m = q_in - p_out
    m_den = q_in + p_out
    np.sqrt(near, out=near)
    np.sqrt(far, out=far)
    alpha = np.arctan2(near, far)
    alpha *= 2.0
    np.sqrt(q_in, out=q_in)
    np.sqrt(p_out, out=p_out)
    m = np.arctan2(p_out, q_in)
    m *= 2.0
    phi = np.arctan2(dy, dx)

    s = out.shoulder[sl]
    e = out.elbow_angle[sl]
    a_sin = near
    a_sin *= far
    ks = q_in
    ks *= p_out
    if isinstance(bend, int):
        if bend > 0:
            np.subtract(phi, alpha, out=s)
            e[...] = m
        else:
            np.add(phi, alpha, out=s)
            np.negative(m, out=e)
        sin_sign: float | FloatArray = 2.0 * bend
        ks *= sin_sign
    else:
        bend_f = bend.astype(np.float64)
        alpha *= bend_f
        np.subtract(phi, alpha, out=s)
        np.multiply(m, bend_f, out=e)
        sin_sign = bend_f
        sin_sign *= 2.0
        ks *= sin_sign
    _wrap_pi_inplace(s, tmp)

    sx = np.multiply(d, dx)
    sy = np.multiply(d, dy)
    out.bend[sl] = bend

    # FK from the same factors instead of cos/sin of the angles (those cost ~8 ns each per frame):
    # elbow = a (cos s, sin s) with s = phi - bend alpha; tip = elbow rotated by bend m, scaled by b/a, added.
    inv = np.divide(a, a_den, out=a_den)
    a_cos *= inv  # a cos(alpha)
    a_sin *= inv
    a_sin *= sin_sign  # bend a sin(alpha)
    inv = np.divide(b / a, m_den, out=m_den)
    kc = cos_m
    kc *= inv
    kc += 1.0  # 1 + b/a cos(m)
    ks *= inv  # bend b/a sin(m)
    ex = np.multiply(dx, a_cos)
    np.multiply(dy, a_sin, out=tmp)
    ex += tmp
    ey = np.multiply(dy, a_cos, out=a_cos)
    np.multiply(dx, a_sin, out=tmp)
    ey -= tmp
    end_x = np.multiply(ex, kc)
    np.multiply(ey, ks, out=tmp)
    end_x -= tmp
    end_y = np.multiply(ey, kc, out=kc)
    np.multiply(ex, ks, out=tmp)
    end_y += tmp

    if phi_out is not None:
        phi_out[...] = phi
    # Contiguous temporaries above, one strided copy per output column here (strided ufuncs cost 3x).
    solved = out.solved[sl]
    solved[:, 0] = sx
    solved[:, 1] = sy
    elbow = out.elbow[sl]
    elbow[:, 0] = ex
    elbow[:, 1] = ey
    end = out.end[sl]
    end[:, 0] = end_x
    end[:, 1] = end_y
    return dx, dy, bend


def _wrap_pi_inplace(x: FloatArray, scratch: FloatArray) -> None:
    """:func:`solver.limits.wrap_pi` into ``x`` itself (same operations, so the same rounding)."""
    np.subtract(x, math.pi, out=scratch)
    np.divide(scratch, TAU, out=scratch)
    np.ceil(scratch, out=scratch)
    scratch *= TAU
    x -= scratch


def fk(
    s: FloatArray,
    e: FloatArray,
    a: FloatArray | float,
    b: FloatArray | float,
    root_x: FloatArray | float,
    root_y: FloatArray | float,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Forward kinematics of frames (:func:`solver.closed_forms.fk`, as the single-frame path)."""
    return closed_forms.fk(s, e, a, b, root_x, root_y, ARRAYS)
