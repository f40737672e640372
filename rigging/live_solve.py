"""One frame of :func:`solver.chain_step.solve_chain` in plain floats: the live preview's drag updates.

``solve_chain`` (``rigging.chain_solve``, the bake's) is written for thousands of frames; on one frame its ~100
small numpy calls cost about twenty times the solve itself (~1 ms per chain on a busy machine, against a 0.2 ms
budget). For an analytic two-bone chain this module computes the same :class:`ChainSolution` from the same inputs
with Python floats and one call of the solver's single-target path (``solver.solve_two_bone`` on a ``(2,)``
target), so the solve is the bake's and only the matrix glue is written twice. ``tests/blender/test_live_solve.py``
compares every field with ``solve_chain`` on randomized rigs (planes, parents with scale, poles, limits,
strategies, upper bone locations).

Everything else goes through ``solve_chain`` (CCD/FABRIK chains, non-finite or singular inputs), so its messages
and fallbacks stay the only ones. The inputs are read as tuples (:func:`read_inputs`): compared as they are, they
are the live preview's cheap fingerprint of "nothing moved".
"""

from __future__ import annotations

import functools
import inspect
import itertools
import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import bpy
import numpy as np

from .. import solver
from ..solver.chain_step import ERROR_RESOLUTION, NON_FINITE, limits_of, strategy_options
from ..solver.options import Options
from ..solver.two_bone.arguments import cached_options, single_bend
from ..solver.two_bone.single_frame import solve_single
from . import chain_checks
from .chain_solve import ChainSamples, ChainSolution, solve_chain
from .rig import ChainRig

Rows = tuple[tuple[float, ...], ...]  # a 4x4 matrix as Blender's rows
_VALID = np.ones(1, dtype=bool)  # every solution's ``valid`` (the fast path runs on finite inputs only)
_VALID.flags.writeable = False
# solve_two_bone's defaults of the options the live solve leaves alone (eps, zero_distance, pole_deadzone, ...).
_SOLVER_DEFAULTS = {name: p.default for name, p in inspect.signature(solver.solve_two_bone).parameters.items()
                    if p.default is not inspect.Parameter.empty}


class FrameInputs(NamedTuple):
    """What one frame's solve reads, as tuples of floats (exact copies of Blender's float32 values).

    A named tuple: made and compared on every drag update of every chain, which a frozen dataclass's
    ``__init__`` and ``__eq__`` (field by field in Python) made cost more than reading the values.
    """

    frame: float
    armature: Rows  # armature object world matrix
    target: tuple[float, ...]  # target world location
    parent: Rows | None  # the upper bone's parent pose matrix (armature space)
    pole: tuple[float, ...] | None  # pole world location
    upper_location: tuple[float, ...] | None  # the upper bone's own pose location, when the solve reads it

    def parent_samples(self) -> tuple[np.ndarray, np.ndarray | None]:
        """``(armature, parent)`` of :meth:`samples` alone (the parent-scale check reads nothing else)."""
        arm = np.array(self.armature, dtype=np.float64)[None]
        return arm, None if self.parent is None else arm @ np.array(self.parent, dtype=np.float64)

    def samples(self) -> ChainSamples:
        """The same inputs as ``solve_chain`` takes them (one frame)."""
        arm = np.array(self.armature, dtype=np.float64)[None]
        parent = None if self.parent is None else arm @ np.array(self.parent, dtype=np.float64)
        pole = None if self.pole is None else _translation(self.pole)
        loc = None if self.upper_location is None else np.array([self.upper_location], dtype=np.float64)
        return ChainSamples(armature=arm, target=_translation(self.target), parent=parent, pole=pole,
                            upper_location=loc)


def _translation(p: tuple[float, ...]) -> np.ndarray:
    m = np.eye(4)[None]
    m[0, :3, 3] = p
    return m


def _rows(m: Any) -> Rows:
    return m[0][:], m[1][:], m[2][:], m[3][:]


class ArmatureReads:
    """What every chain of one armature reads alike in one update, read once for all of them.

    The evaluated armature, its world matrix, the pose matrices of the chains' parent bones and the IK
    constraints that move its bones, of one depsgraph state: made per update (by ``live_preview.refresh``),
    never kept. Read on first use, inside the first chain's :func:`read_inputs` (whose errors the preview
    reports per chain).
    """

    def __init__(self, armature: bpy.types.Object, depsgraph: bpy.types.Depsgraph) -> None:
        self._armature, self._depsgraph = armature, depsgraph
        self._evaluated: Any = None
        self._world: Rows | None = None
        self._parents: dict[str, Rows] = {}
        self._ik_reach: chain_checks.IkReach | None = None

    @property
    def evaluated(self) -> Any:
        """The evaluated armature object."""
        if self._evaluated is None:
            self._evaluated = self._armature.evaluated_get(self._depsgraph)
        return self._evaluated

    @property
    def world(self) -> Rows:
        """The evaluated armature's world matrix."""
        if self._world is None:
            self._world = _rows(self.evaluated.matrix_world)
        return self._world

    @property
    def ik_reach(self) -> chain_checks.IkReach:
        """The armature's acting IK constraints and the bones they move (:func:`chain_checks.ik_reach`)."""
        if self._ik_reach is None:
            self._ik_reach = chain_checks.ik_reach(self._armature)
        return self._ik_reach

    def parent(self, name: str) -> Rows:
        """The pose matrix (armature space) of bone ``name``."""
        rows = self._parents.get(name)
        if rows is None:
            rows = self._parents[name] = _rows(self.evaluated.pose.bones[name].matrix)
        return rows


def read_inputs(rig: ChainRig, depsgraph: bpy.types.Depsgraph, frame: float,
                shared: ArmatureReads | None = None) -> FrameInputs:
    """The current state of everything the chain's solve reads, from the evaluated depsgraph.

    Args:
        rig: the chain.
        depsgraph: the evaluated state to read.
        frame: the scene frame (recorded in the inputs, not read).
        shared: the armature's reads of this update, shared by its chains (made here when None).
    """
    chain = rig.chain
    arm = shared if shared is not None else ArmatureReads(rig.armature, depsgraph)
    parent = None if rig.parent_name is None else arm.parent(rig.parent_name)
    pole = chain.pole
    if pole is not None:
        pole = pole.evaluated_get(depsgraph).matrix_world.translation[:]
    # The upper bone's own location moves the shoulder, unless the chain owns (and writes) that channel (Move
    # Root) or the bone is connected (Blender ignores its location).
    location = None
    if rig.location_bone is None and not rig.armature.data.bones[rig.bone_names[0]].use_connect:
        loc = arm.evaluated.pose.bones[rig.bone_names[0]].location[:]
        location = loc if any(loc) else None
    return FrameInputs(float(frame), arm.world, chain.target.evaluated_get(depsgraph).matrix_world.translation[:],
                       parent, pole, location)


class FrameSolver:
    """The rest geometry of one rig as floats, and its one-frame solve."""

    def __init__(self, rig: ChainRig) -> None:
        self.two_bone = rig.two_bone
        x, y = rig.shoulder_basis
        self.x, self.y = tuple(x.tolist()), tuple(y.tolist())
        self.axes = tuple(tuple(r) for r in rig.axes_2d.tolist())
        self.upper_rest = _rows(rig.upper_rest.tolist())
        self.parent_to_upper = _rows(rig.parent_to_upper.tolist())
        self.lengths = tuple(float(v) for v in rig.lengths)
        self.rest = tuple(float(v) for v in rig.rest_angles)
        self.resolution = ERROR_RESOLUTION * float(np.sum(rig.lengths))
        self._source, self._settings = rig.lengths, rig.settings
        self._last: tuple[Any, _Shoulder] | None = None
        # The settings are the rig's (a settings change reads a new rig): what the solver takes of them.
        self._limits = limits_of(rig)
        # (world scale, the resolved options, the bend): what solve_two_bone would resolve on every call
        self._options: tuple[float, Options, int] | None = None

    def made_for(self, rig: ChainRig) -> bool:
        """Whether ``rig`` is the rig this was made from.

        ``dataclasses.replace`` keeps its arrays and settings; a new ``read_chain`` makes new arrays and copies
        the settings anew.
        """
        return rig.lengths is self._source and rig.settings is self._settings

    def solve(self, rig: ChainRig, inputs: FrameInputs, *, fps: float, previous: Any) -> ChainSolution:
        """``solve_chain(rig, [frame], inputs.samples(), fps=fps, previous=previous, smooth_root=False)``.

        Args:
            rig: the rig this solver was made for (:meth:`made_for`).
            inputs: the frame's inputs (:func:`read_inputs`).
            fps: the scene's frame rate (target smoothing, in the fallback only).
            previous: the solver state of the last solve, for continuity (None: a fresh start).

        Returns:
            The one-frame solution, the same as ``solve_chain``'s.
        """
        # Stretch to reach is composed around the solver in solve_chain only.
        fallback = not self.two_bone or not self._finite(inputs) or rig.settings.stretch_to_reach
        if not fallback:
            sol = self._solve(rig, inputs, previous)
            if sol is not None:
                return sol
        return solve_chain(rig, np.array([inputs.frame]), inputs.samples(), fps=fps, previous=previous,
                           smooth_root=False)

    def _finite(self, inputs: FrameInputs) -> bool:
        """:func:`_finite`; the matrices of the last shoulder frame passed it already (a drag moves the target)."""
        last = self._last
        if last is None or last[0] != (inputs.armature, inputs.parent, inputs.upper_location):
            return _finite(inputs)
        values = [*inputs.target, *(inputs.pole or ())]
        return math.isfinite(sum(values)) and max(map(abs, values)) < NON_FINITE

    def _shoulder(self, inputs: FrameInputs) -> _Shoulder | None:
        """The shoulder frame of these inputs; a drag moves only the target, so the last one is usually it."""
        key = (inputs.armature, inputs.parent, inputs.upper_location)
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        arm = inputs.armature
        base = self.upper_rest if inputs.parent is None else _mul(inputs.parent, self.parent_to_upper)
        parent_frame = base
        if inputs.upper_location is not None:
            base = _shifted(base, inputs.upper_location)
        world = _mul(arm, base)  # the shoulder frame in world space: its inverse takes world points to 2D
        (c00, c01, c02, c03), (c10, c11, c12, c13), (c20, c21, c22, c23) = world[0], world[1], world[2]
        # Adjugate rows of the linear part (cross products of its columns), as spaces.invert_matrices.
        r0 = (c11 * c22 - c21 * c12, c21 * c02 - c01 * c22, c01 * c12 - c11 * c02)
        r1 = (c12 * c20 - c22 * c10, c22 * c00 - c02 * c20, c02 * c10 - c12 * c00)
        r2 = (c10 * c21 - c20 * c11, c20 * c01 - c00 * c21, c00 * c11 - c10 * c01)
        det = c00 * r0[0] + c10 * r0[1] + c20 * r0[2]
        if not math.isfinite(det) or det == 0.0:
            return None
        (x0, x1, x2), (y0, y1, y2) = self.x, self.y
        # The 2D axes pulled back through the inverse: u = wx . (p - origin), v = wy . (p - origin).
        wx = tuple((x0 * r0[i] + x1 * r1[i] + x2 * r2[i]) / det for i in range(3))
        wy = tuple((y0 * r0[i] + y1 * r1[i] + y2 * r2[i]) / det for i in range(3))
        # A point (u, v) of the 2D frame in world space: origin + u * ex + v * ey.
        ex = tuple(world[i][0] * x0 + world[i][1] * x1 + world[i][2] * x2 for i in range(3))
        ey = tuple(world[i][0] * y0 + world[i][1] * y1 + world[i][2] * y2 for i in range(3))
        matrices: list[float] = [v for m in (base, arm, parent_frame) for row in m for v in row]
        if not math.isfinite(sum(matrices)):
            return None
        flat = np.array(matrices, dtype=np.float64)
        flat.flags.writeable = False  # shared by the solutions of this shoulder frame
        shoulder = _Shoulder(origin=(c03, c13, c23), wx=wx, wy=wy, ex=ex, ey=ey,
                             # World length of one shoulder-space unit: the frame's local +Y (axes_2d's x).
                             world_scale=math.sqrt(c01 * c01 + c11 * c11 + c21 * c21),
                             base=flat[0:16].reshape(1, 4, 4), armature=flat[16:32].reshape(1, 4, 4),
                             parent_frame=None if inputs.upper_location is None else flat[32:48].reshape(1, 4, 4))
        self._last = (key, shoulder)
        return shoulder

    def _solve(self, rig: ChainRig, inputs: FrameInputs, previous: Any) -> ChainSolution | None:
        sh = self._shoulder(inputs)
        if sh is None:
            return None
        (o0, o1, o2), (wx0, wx1, wx2), (wy0, wy1, wy2) = sh.origin, sh.wx, sh.wy
        (ex0, ex1, ex2), (ey0, ey1, ey2) = sh.ex, sh.ey

        def to_2d(p: tuple[float, ...]) -> tuple[float, float]:
            d0, d1, d2 = p[0] - o0, p[1] - o1, p[2] - o2
            return wx0 * d0 + wx1 * d1 + wx2 * d2, wy0 * d0 + wy1 * d1 + wy2 * d2

        world_scale = sh.world_scale
        if self._options is None or self._options[0] != world_scale:
            self._options = (world_scale, *self._resolved(rig, world_scale))
        # chain_step._solve_one's call for one frame (a single target is not filtered: no smoothing), as
        # solve_two_bone runs it for a (2,) target, without re-resolving its options on every drag update.
        tx, ty = to_2d(inputs.target)
        pole = None if inputs.pole is None else to_2d(inputs.pole)
        if not math.isfinite(tx + ty + (0.0 if pole is None else pole[0] + pole[1])):
            return None  # solve_two_bone would refuse it: solve_chain's fallback says why
        result = solve_single(tx, ty, self._options[1], self._options[2], pole, previous)
        (u, v), (su, sv) = result.end.tolist(), result.solved_target.tolist()
        tip = (o0 + u * ex0 + v * ey0, o1 + u * ex1 + v * ey1, o2 + u * ex2 + v * ey2)
        solved = (o0 + su * ex0 + sv * ey0, o1 + su * ex1 + sv * ey1, o2 + su * ex2 + sv * ey2)
        target = inputs.target
        error = math.sqrt((tip[0] - target[0]) ** 2 + (tip[1] - target[1]) ** 2 + (tip[2] - target[2]) ** 2)
        if error < self.resolution * world_scale:
            error = 0.0
        ox, oy = result.root_offset.tolist()
        (ax0, ax1, ax2), (ay0, ay1, ay2) = self.axes
        values = [inputs.frame, float(result.shoulder_angle) - self.rest[0], float(result.elbow_angle) - self.rest[1],
                  ox * ax0 + oy * ay0, ox * ax1 + oy * ay1, ox * ax2 + oy * ay2, float(result.stretch), error,
                  float(result.sensitivity) / max(world_scale, 1e-12), *tip, *target, *solved]
        if not math.isfinite(sum(values)):  # NaN or inf anywhere (the inputs were below NON_FINITE)
            return None
        # One array, viewed as the fields: fifteen small arrays cost more than the solve.
        flat = np.array(values, dtype=np.float64)
        # The frozen dataclass's __init__ sets each of its 19 fields through object.__setattr__ (as long as the
        # rest of this glue); filling the instance dict gives the same object (as solver.two_bone does).
        sol = object.__new__(ChainSolution)
        sol.__dict__.update(
            frames=flat[0:1], valid=_VALID, deltas=flat[1:3].reshape(1, 2),
            root_offset=flat[3:6].reshape(1, 3), stretch=flat[6:7], error=flat[7:8],
            flags=_flags(int(result.flags)), sensitivity=flat[8:9],
            tip_world=flat[9:12].reshape(1, 3), target_world=flat[12:15].reshape(1, 3),
            solved_target_world=flat[15:18].reshape(1, 3), base=sh.base, state=result.state,
            armature_world=sh.armature, parent_frame=sh.parent_frame, rotations=None, scale=None)
        return sol

    def _keywords(self, rig: ChainRig, world_scale: float) -> dict[str, Any]:
        """``solve_two_bone``'s keywords from the chain's settings, as ``chain_step._solve_one`` gives them."""
        s = rig.settings
        return {"bend": int(s.bend), "limits": self._limits, "inner_softness": float(s.inner_softness),
                "root_smoothing": 0, "softness": float(s.softness), "smoothing": None,
                **strategy_options(s, world_scale)}

    def _resolved(self, rig: ChainRig, world_scale: float) -> tuple[Options, int]:
        """The options and the bend ``solve_two_bone`` resolves from :meth:`_keywords` for a single target.

        Resolved once per world scale: on a drag update the resolution (argument tuple, cache lookup, target
        array) cost a third of the solve.

        Raises:
            ValueError: the bend is not +1 or -1 (as ``solve_two_bone`` raises it).
        """
        kw = {**_SOLVER_DEFAULTS, **self._keywords(rig, world_scale)}
        a, b = self.lengths
        opts = cached_options(float(a), float(b), kw["softness"], kw["inner_softness"], kw["eps"],
                              kw["zero_distance"], kw["pole_deadzone"], kw["limits"], kw["strategy"],
                              kw["max_root_offset"], kw["root_smoothing"], kw["stretch_range"],
                              kw["initial_direction"])
        return opts, single_bend(kw["bend"])


@dataclass(frozen=True)
class _Shoulder:
    """One shoulder frame in world space, ready for targets: what a drag of the target alone does not change."""

    origin: tuple[float, ...]  # the upper bone's head, world space
    wx: tuple[float, ...]  # u = wx . (p - origin) for a world point p (the inverse frame's 2D rows)
    wy: tuple[float, ...]
    ex: tuple[float, ...]  # world point = origin + u * ex + v * ey
    ey: tuple[float, ...]
    world_scale: float
    base: np.ndarray  # (1, 4, 4) read-only views, shared by the solutions of this frame
    armature: np.ndarray
    parent_frame: np.ndarray | None


@functools.lru_cache(maxsize=256)
def _flags(flags: int) -> np.ndarray:
    """A solution's ``(1,)`` int64 flags, shared read-only (a solution's arrays are not written to)."""
    arr = np.array([flags], dtype=np.int64)
    arr.flags.writeable = False
    return arr


def _finite(inputs: FrameInputs) -> bool:
    """solve_chain's rule (every magnitude below NON_FINITE), with the loops in C: a NaN makes the sum NaN."""
    values = [*inputs.target, *itertools.chain.from_iterable(inputs.armature), *(inputs.pole or ()),
              *(inputs.upper_location or ()), *itertools.chain.from_iterable(inputs.parent or ())]
    return math.isfinite(sum(values)) and max(map(abs, values)) < NON_FINITE


def _mul(m: Rows, n: Rows) -> Rows:
    """Product of two affine 4x4 matrices (the last row taken as 0 0 0 1)."""
    (n00, n01, n02, n03), (n10, n11, n12, n13), (n20, n21, n22, n23) = n[0], n[1], n[2]
    rows = []
    for a0, a1, a2, a3 in m[:3]:
        rows.append((a0 * n00 + a1 * n10 + a2 * n20, a0 * n01 + a1 * n11 + a2 * n21,
                     a0 * n02 + a1 * n12 + a2 * n22, a0 * n03 + a1 * n13 + a2 * n23 + a3))
    return (*rows, (0.0, 0.0, 0.0, 1.0))


def _shifted(m: Rows, loc: tuple[float, ...]) -> Rows:
    """``m @ Translation(loc)``."""
    rows = [(r[0], r[1], r[2], r[3] + r[0] * loc[0] + r[1] * loc[1] + r[2] * loc[2]) for r in m[:3]]
    return (*rows, (0.0, 0.0, 0.0, 1.0))

