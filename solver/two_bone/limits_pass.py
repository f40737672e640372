"""The limits pass: joint limits over all frames, after the block kernel.

Also the hard-clamped re-solve within the limits that the strategies run on their adjusted targets.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..closed_forms import ARRAYS, half_angles
from ..limits import apply_limits, wrap_pi
from ..options import Options
from .kernel import BLOCK, F_LIM_E, F_LIM_S, Frames, fk

FloatArray = NDArray[np.float64]


LIMIT_CHUNK = 4 * BLOCK  # frames per limits pass: a quarter or so hit a limit, so the box search gets ~BLOCK


def limit_pass(out: Frames, phi: FloatArray, bend: int | None, opts: Options) -> None:
    """Joint limits (the ``accept`` answer) over all frames, after the analytic pass.

    A separate pass in larger chunks: the box search runs only on limited frames, and its Python overhead
    is per call, so it should see as many of them at once as the cache allows.
    """
    assert opts.limits is not None
    a, b = opts.a, opts.b
    n = phi.shape[0]
    for start in range(0, n, LIMIT_CHUNK):
        sl = slice(start, min(start + LIMIT_CHUNK, n))
        s = out.shoulder[sl]
        e = out.elbow_angle[sl]
        sx = out.solved[sl, 0]
        sy = out.solved[sl, 1]
        side = out.bend[sl] if bend is None else bend
        s_lim, e_lim, lim_s, lim_e = apply_limits(s, e, phi[sl], sx, sy, a, b, side, opts.limits)
        flags = out.flags[sl]
        flags[lim_s] |= F_LIM_S
        flags[lim_e] |= F_LIM_E
        # Angles the limits moved (beyond re-expressing the shoulder inside its arc) need a real FK.
        moved = np.flatnonzero((s_lim != s) | (e_lim != e))
        s[...] = s_lim
        e[...] = e_lim
        if moved.size:
            ex, ey, end_x, end_y = fk(s[moved], e[moved], a, b, 0.0, 0.0)
            rows = moved + start
            out.elbow[rows, 0] = ex
            out.elbow[rows, 1] = ey
            out.end[rows, 0] = end_x
            out.end[rows, 1] = end_y


def resolve(
    tx: FloatArray,
    ty: FloatArray,
    fallback: FloatArray,
    bend: NDArray[np.int8],
    opts: Options,
    eps: FloatArray | float,
) -> tuple[FloatArray, FloatArray, NDArray[np.bool_], NDArray[np.bool_]]:
    """Hard-clamped analytic solve + best reach within limits for a strategy's adjusted frames.

    ``(tx, ty)`` are already soft-clamped targets seen from the moved root, or divided by the bone scale
    (angles do not change when the chain and its target scale together, so every re-solve uses the real
    bones); ``eps`` is the clamp margin in the same units (``opts.eps / k`` for scale ``k``).
    ``fallback`` (k, 2) is each frame's own direction, used if the adjusted target sits on the root.
    """
    a, b = opts.a, opts.b
    raw_d = np.sqrt(tx * tx + ty * ty)
    valid = raw_d > opts.zero_distance
    safe = np.where(valid, raw_d, 1.0)
    dx = np.where(valid, tx / safe, fallback[:, 0])
    dy = np.where(valid, ty / safe, fallback[:, 1])
    lo = opts.inner + eps
    hi = opts.total - eps
    mid = 0.5 * (abs(a - b) + a + b)
    collapsed = lo > hi
    d = np.clip(raw_d, np.where(collapsed, mid, lo), np.where(collapsed, mid, hi))
    m, alpha = half_angles(d, a, b, ARRAYS)
    phi = np.arctan2(dy, dx)
    bend_f = bend.astype(np.float64)
    s = phi - bend_f * alpha
    e = bend_f * m
    assert opts.limits is not None
    s, e, lim_s, lim_e = apply_limits(s, e, phi, d * dx, d * dy, a, b, bend, opts.limits)
    if opts.limits.shoulder is None:
        s = wrap_pi(s)
    return s, e, lim_s, lim_e

