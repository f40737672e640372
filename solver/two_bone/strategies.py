"""The strategies' pass, on the frames a limit acted on.

``move_root`` shifts the root by what is missing (smoothed over frames); ``stretch`` scales both bones by the
best candidate factor.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .. import closed_forms
from ..closed_forms import ARRAYS, dist2
from ..limits import JointLimits, elbow_aim_range, smooth_root_offset
from ..options import Options
from ..result import SolverState
from .kernel import BLOCK, F_LIM_E, F_LIM_S, F_ROOT, F_STRETCH, Frames, fk
from .limits_pass import LIMIT_CHUNK, resolve

FloatArray = NDArray[np.float64]


def _cap(vec: FloatArray, cap: float) -> FloatArray:
    """Shorten the (k, 2) rows longer than ``cap`` to length ``cap`` (a new array)."""
    x = vec[:, 0]
    y = vec[:, 1]
    norm = np.sqrt(x * x + y * y)
    out = np.array(vec)
    over = np.flatnonzero(norm > cap)
    if over.size:
        factor = cap / norm[over]
        out[over, 0] *= factor
        out[over, 1] *= factor
    return out


def apply_move_root(out: Frames, opts: Options, previous: SolverState | None) -> FloatArray:
    """The ``move_root`` strategy on ``out`` in place; returns the ``(N, 2)`` root offset.

    Limited frames ask for the missing vector (solved target - tip), capped at ``max_root_offset``; the
    offsets are smoothed over frames (``previous.root_offset`` is the history), capped again, and each moved
    frame is re-solved from its moved root, keeping the accepted pose where that is closer.
    """
    n = out.shoulder.shape[0]
    limited = np.flatnonzero(out.flags & (F_LIM_S | F_LIM_E))
    prev = previous.root_offset if previous is not None else None
    offset = np.zeros((n, 2))
    if limited.size == 0 and (prev is None or prev == (0.0, 0.0)):
        return offset
    missing = out.solved[limited] - out.end[limited]
    offset[limited] = _cap(missing, opts.max_root_offset)
    offset = _cap(smooth_root_offset(offset, opts.root_smoothing, prev), opts.max_root_offset)
    moved_all = np.flatnonzero((offset[:, 0] != 0.0) | (offset[:, 1] != 0.0))
    for start in range(0, moved_all.size, BLOCK):
        moved = moved_all[start : start + BLOCK]
        ox = offset[moved, 0]
        oy = offset[moved, 1]
        sx = out.solved[moved, 0]
        sy = out.solved[moved, 1]
        s, e, lim_s, lim_e = resolve(sx - ox, sy - oy, out.directions(moved), out.bend[moved], opts, opts.eps)
        ex, ey, end_x, end_y = fk(s, e, opts.a, opts.b, ox, oy)
        # Never worse than keeping the accepted pose on the moved root (possible once smoothing bent the
        # offset away from the missing vector): that pose's tip is simply the accepted tip + offset.
        old_x = out.end[moved, 0] + ox
        old_y = out.end[moved, 1] + oy
        use_new = dist2(end_x, end_y, sx, sy) <= dist2(old_x, old_y, sx, sy)
        out.shoulder[moved] = np.where(use_new, s, out.shoulder[moved])
        out.elbow_angle[moved] = np.where(use_new, e, out.elbow_angle[moved])
        out.elbow[moved, 0] = np.where(use_new, ex, out.elbow[moved, 0] + ox)
        out.elbow[moved, 1] = np.where(use_new, ey, out.elbow[moved, 1] + oy)
        out.end[moved, 0] = np.where(use_new, end_x, old_x)
        out.end[moved, 1] = np.where(use_new, end_y, old_y)
        out.flags[moved] |= F_ROOT | np.where(use_new & lim_s, F_LIM_S, 0).astype(np.uint16)
        out.flags[moved] |= np.where(use_new & lim_e, F_LIM_E, 0).astype(np.uint16)
    return offset


def stretch_factor(
    solved_distance: FloatArray,
    elbow_limited: FloatArray,
    a: float,
    b: float,
    stretch_range: tuple[float, float],
) -> FloatArray:
    """Bone scale that makes a chain whose elbow sits at ``elbow_limited`` span ``solved_distance``.

    The chain spans ``D = sqrt(a^2 + b^2 + 2ab cos(elbow))``; the factor ``d / D`` is clipped to
    ``stretch_range`` (``max`` where D = 0): :func:`solver.closed_forms.stretch_factor`.
    """
    k_lo, k_hi = stretch_range
    return np.asarray(closed_forms.stretch_factor(solved_distance, elbow_limited, a, b, k_lo, k_hi, ARRAYS))


def stretch_candidates(
    solved_x: FloatArray,
    solved_y: FloatArray,
    solved_distance: FloatArray,
    bend: NDArray[np.int8],
    a: float,
    b: float,
    limits: JointLimits,
    stretch_range: tuple[float, float],
) -> list[FloatArray]:
    """Bone scale factors worth trying on limited frames, each clipped to ``stretch_range``.

    - Elbow at each bound of its allowed range: the chain then spans ``D(e)``, so ``k = d / D(e)``
      (:func:`stretch_factor`).
    - Shoulder at each bound ``s``: the scaled tip ``k (a u + b v)`` meets the target when ``T / k`` is at
      distance ``b`` from ``a u`` (u = (cos s, sin s)): ``w^2 d^2 - 2 w a (T.u) + a^2 - b^2 = 0`` with
      ``w = 1/k``; the positive root nearest to 1 (none real: 1); :func:`solver.closed_forms.shoulder_stretch`.
    """
    cands: list[FloatArray] = []
    e_lo, e_hi = elbow_aim_range(limits, bend)
    for e_bound in (e_lo, e_hi):
        cands.append(stretch_factor(solved_distance, e_bound, a, b, stretch_range))
    if limits.shoulder is not None:
        k_lo, k_hi = stretch_range
        for s_bound in limits.shoulder:
            k = closed_forms.shoulder_stretch(solved_x, solved_y, solved_distance, s_bound, a, b, k_lo, k_hi, ARRAYS)
            cands.append(np.asarray(k))
    return cands


def apply_stretch(out: Frames, opts: Options) -> FloatArray:
    """The ``stretch`` strategy on ``out`` in place; returns the ``(N,)`` bone scale (``out.stretch``).

    Every candidate of :func:`stretch_candidates` is re-solved with scaled bones; the closest tip wins, the
    smallest stretch on ties, no stretch unless it gets closer.
    """
    scale = out.stretch
    limited = np.flatnonzero(out.flags & (F_LIM_S | F_LIM_E))
    if limited.size == 0 or opts.limits is None:
        return scale
    a, b = opts.a, opts.b
    # A miss within the reach margin (eps: the target is held that far inside full reach) is not worth a
    # stretch: with a tie tolerance equal to the margin, rounding decided such ties.
    tol = max(1e-9 * opts.total, 2.0 * opts.eps)
    n_cands = 4 if opts.limits.shoulder is not None else 2
    chunk = max(1, LIMIT_CHUNK // n_cands)
    for start in range(0, limited.size, chunk):
        idx = limited[start : start + chunk]
        sx = out.solved[idx, 0]
        sy = out.solved[idx, 1]
        bend = out.bend[idx]
        cands = stretch_candidates(sx, sy, out.solved_distance[idx], bend, a, b, opts.limits, opts.stretch_range)
        # Every new candidate of every frame in one re-solve (Python overhead is per call, not per frame).
        # A factor of 1 or one already tried re-solves to a pose already scored, which cannot win: skipped.
        k_all = np.concatenate(cands)
        c = len(cands)
        m = idx.size
        fresh = k_all != 1.0
        for j in range(1, c):
            part = fresh[j * m : (j + 1) * m]
            for i in range(j):
                part &= cands[j] != cands[i]
        rows = np.flatnonzero(fresh)
        k_rows = k_all[rows]
        frame = rows % m
        sx_rows = sx[frame]
        sy_rows = sy[frame]
        s_rows, e_rows, lim_s_rows, lim_e_rows = resolve(
            sx_rows / k_rows,
            sy_rows / k_rows,
            out.directions(idx[frame]),
            bend[frame],
            opts,
            opts.eps / k_rows,
        )
        _, _, end_x, end_y = fk(s_rows, e_rows, a * k_rows, b * k_rows, 0.0, 0.0)
        err_all = np.full(k_all.size, np.inf)
        err_all[rows] = np.sqrt(dist2(end_x, end_y, sx_rows, sy_rows))
        s_all = np.zeros(k_all.size)
        s_all[rows] = s_rows
        e_all = np.zeros(k_all.size)
        e_all[rows] = e_rows
        lim_s_all = np.zeros(k_all.size, dtype=bool)
        lim_s_all[rows] = lim_s_rows
        lim_e_all = np.zeros(k_all.size, dtype=bool)
        lim_e_all[rows] = lim_e_rows
        lim_all = np.where(lim_s_all, F_LIM_S, 0) | np.where(lim_e_all, F_LIM_E, 0)

        best_err = np.sqrt(dist2(out.end[idx, 0], out.end[idx, 1], sx, sy))
        best_k = np.ones(idx.size)
        best_s = out.shoulder[idx]
        best_e = out.elbow_angle[idx]
        best_lim = np.zeros(idx.size, dtype=np.uint16)
        for j in range(c):
            part = slice(j * idx.size, (j + 1) * idx.size)
            k = k_all[part]
            err = err_all[part]
            # Closer by more than rounding, or as close with less stretch: accepting the error wins ties.
            better = (err < best_err - tol) | ((err <= best_err + tol) & (np.abs(k - 1.0) < np.abs(best_k - 1.0)))
            best_err = np.where(better, err, best_err)
            best_k = np.where(better, k, best_k)
            best_s = np.where(better, s_all[part], best_s)
            best_e = np.where(better, e_all[part], best_e)
            best_lim = np.where(better, lim_all[part], best_lim).astype(np.uint16)
        ex, ey, end_x, end_y = fk(best_s, best_e, a * best_k, b * best_k, 0.0, 0.0)
        stretched = best_k != 1.0
        out.shoulder[idx] = best_s
        out.elbow_angle[idx] = best_e
        out.elbow[idx, 0] = ex
        out.elbow[idx, 1] = ey
        out.end[idx, 0] = end_x
        out.end[idx, 1] = end_y
        out.flags[idx] |= np.where(stretched, best_lim | F_STRETCH, 0).astype(np.uint16)
        scale[idx] = best_k
    return scale

