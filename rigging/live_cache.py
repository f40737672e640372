"""What a live-preview drag update reuses: the per-chain cache entry and the fingerprints it is compared by.

:mod:`live_preview` keeps one :class:`ChainPreview` per chain and re-solves only when a fingerprint of what the
solve reads (settings, rest geometry, inputs) or of the pose it wrote no longer matches; the overlay's shoulder
frame is built here from a cached solution, on first use.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any

import bpy
import numpy as np

from ..solver.chain_common import ChainState
from ..solver.spaces import shoulder_local_basis
from . import live_solve
from .chain_solve import ChainSolution
from .rig import ChainRig

# Chain properties that are the last bake's report and record, not inputs of the solve. The record of the
# channels baked (``baked_channels``) matters to the checks only, which run on every update that touches the
# armature: counted as a setting, it made the update after every bake read the chain again.
_REPORT_PROPS = frozenset({"rna_type", "name", "bake_start", "bake_end", "error_max", "error_mean",
                           "limited_frames", "worst_frames", "active_worst_index", "baked_channels"})
# The pose counts as "still ours" within this tolerance (float32 storage of the channels).
_POSE_TOLERANCE = 1e-5

@dataclass
class ChainPreview:
    """What the live preview knows about one chain (keyed by armature and chain name)."""

    inputs: tuple[Any, ...] | None = None  # fingerprint of everything the last solve read
    rig: ChainRig | None = None
    solution: ChainSolution | None = None
    message: str | None = None  # why the chain cannot be solved, for the panel
    state: Any = None  # solver continuity (bend / direction) for the next solve
    written: tuple[float, ...] | None = None  # pose channels as last written by the preview
    arm_world: np.ndarray = field(default_factory=lambda: np.eye(4))  # armature world matrix of the solve
    solver: live_solve.FrameSolver | None = None  # the rig's rest geometry as floats, for the one-frame solve
    checked: tuple[Any, ...] | None = None  # (armature, parent) matrices of the last passed parent-scale check
    posed_with: str | None = None  # the limit strategy of the last pose write (which channels it owned)
    blend_at: tuple[float, bytes] | None = None  # (frame, fk_blend key) read when the armature was last touched
    _frame: tuple[np.ndarray, np.ndarray, tuple[float, float]] | None = None
    # ((rig, base, armature world) it was made from, (plane_to_world, x, y)): a target drag keeps the shoulder
    # frame, whose (read-only) arrays the fast solve shares between its solutions.
    _plane: tuple[tuple[Any, ...], tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None

    def _overlay_frame(self) -> tuple[np.ndarray, np.ndarray, tuple[float, float]]:
        # Built on first use (the overlay or the panel), not in the handler: only the active chain needs it.
        if self._frame is None:
            rig, sol = self.rig, self.solution
            assert rig is not None and sol is not None
            made_from = (rig, sol.base, sol.armature_world)
            if self._plane is None or any(a is not b for a, b in zip(self._plane[0], made_from, strict=True)):
                self._plane = (made_from, plane_frame(rig, sol, self.arm_world))
            self._frame = overlay_frame(rig, sol, self._plane[1])
        return self._frame

    @property
    def plane_to_world(self) -> np.ndarray:
        """(4, 4): shoulder-space (x, y, normal) -> world, for the overlay."""
        return self._overlay_frame()[0]

    @property
    def elbow_world(self) -> np.ndarray:
        """(3,): the elbow in world space, for the overlay."""
        return self._overlay_frame()[1]

    @property
    def center_2d(self) -> tuple[float, float]:
        """The shoulder in shoulder space (moved by Move Root)."""
        return self._overlay_frame()[2]


# (attrgetter of the settings, indices of pointer and of array settings), made on first use (bl_rna is then known)
_setting_reader: tuple[Any, tuple[int, ...], tuple[int, ...]] | None = None


def settings_fingerprint(chain: bpy.types.PropertyGroup) -> tuple[Any, ...]:
    """The chain's settings as plain values (pointers by name, arrays as tuples), compared between updates."""
    global _setting_reader
    if _setting_reader is None:
        props = [p for p in chain.bl_rna.properties if p.identifier not in _REPORT_PROPS and p.type != "COLLECTION"]
        # One attrgetter reads them all in C; only pointers and arrays need a Python step after it.
        _setting_reader = (operator.attrgetter(*(p.identifier for p in props)),
                           tuple(i for i, p in enumerate(props) if p.type == "POINTER"),
                           tuple(i for i, p in enumerate(props) if getattr(p, "is_array", False)))
    read, pointers, arrays = _setting_reader
    values = list(read(chain))
    for i in pointers:
        if values[i] is not None:
            values[i] = values[i].name
    for i in arrays:
        values[i] = tuple(values[i])
    return tuple(values)


def rest_fingerprint(armature: bpy.types.Object, rig: ChainRig) -> tuple[float, ...]:
    """Rest matrices the rig was read from: they change only in Edit Mode, which a pose write never does.

    Returns:
        The parent's and the chain bones' ``matrix_local`` and the last bone's tail, as one tuple of floats.
    """
    bones = armature.data.bones
    names = rig.bone_names if rig.parent_name is None else (rig.parent_name, *rig.bone_names)
    values: list[float] = []
    for name in names:
        for row in bones[name].matrix_local:
            values.extend(row)
    values.extend(bones[names[-1]].tail_local)
    return tuple(values)


def pose_snapshot(rig: ChainRig) -> tuple[float, ...]:
    """The chain's pose channels the preview writes (each bone's rotation in its mode, the upper bone's location
    and scale), as one tuple of floats."""
    pose = rig.armature.pose.bones
    values: list[float] = []
    for name in rig.bone_names:
        pb = pose[name]
        mode = pb.rotation_mode
        values.extend(pb.rotation_quaternion if mode == "QUATERNION" else
                      pb.rotation_axis_angle if mode == "AXIS_ANGLE" else pb.rotation_euler)
    upper = pose[rig.bone_names[0]]
    values.extend(upper.location)
    values.extend(upper.scale)
    return tuple(float(v) for v in values)


def same_pose(a: tuple[float, ...] | None, b: tuple[float, ...]) -> bool:
    """Whether two :func:`pose_snapshot` tuples agree within the float32 storage of the channels."""
    return a is not None and len(a) == len(b) and max(abs(x - y) for x, y in zip(a, b, strict=True)) <= _POSE_TOLERANCE


def plane_frame(rig: ChainRig, sol: ChainSolution,
                 arm_world: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(plane_to_world, x, y) of frame 0 of a solution.

    The shoulder space in world space, and its 2D axes in the upper bone's rest-local axes.
    """
    x, y = shoulder_local_basis(rig.local_axes[0])
    basis = np.eye(4)
    basis[:3, 0], basis[:3, 1], basis[:3, 2] = x, y, rig.local_axes[0]
    return arm_world @ sol.base[0] @ basis, x, y


def overlay_frame(rig: ChainRig, sol: ChainSolution, plane: tuple[np.ndarray, np.ndarray, np.ndarray]
                   ) -> tuple[np.ndarray, np.ndarray, tuple[float, float]]:
    """(plane_to_world, elbow_world, center_2d) of frame 0 of a solution, for the overlay.

    Args:
        rig: the chain.
        sol: its solution.
        plane: :func:`plane_frame` of the solution (the same for every solution of one shoulder frame).
    """
    plane_to_world, x, y = plane
    offset = sol.root_offset[0]
    center = (float(offset @ x), float(offset @ y))
    s = float(rig.rest_angles[0] + sol.deltas[0, 0])
    elbow_2d = np.array(center) + float(rig.lengths[0]) * float(sol.stretch[0]) * np.array([np.cos(s), np.sin(s)])
    elbow = plane_to_world[:3, :2] @ elbow_2d + plane_to_world[:3, 3]
    return plane_to_world, elbow, center


def continuing(state: Any, rig: ChainRig) -> Any:
    """The cached solver state if the chain's solver can continue it, else None (a fresh start).

    Switching a chain between ANALYTIC and CCD/FABRIK, or changing its length, leaves the other solver's state
    in the cache; handing it over made the handler raise and kept the old solution (and its flags) on show.
    """
    if isinstance(state, ChainState):
        return state if not rig.two_bone and len(state.angles) == len(rig.bone_names) else None
    return state if rig.two_bone else None
