"""The chain bones' pose channels for :mod:`verification_compose`, straight from the values a bake just wrote.

:func:`sampling.iter_pose_channels` gives, per bone and block of frames, each transform channel as (N, k) rows:
its current values, with the values of each live F-curve on it (those a bake wrote when it passes them as
``known``). When every live transform curve of a chain's bones is one the bake wrote (and has no modifiers),
those rows need nothing from Blender but the curves' identities and the bones' current values: they are
assembled here straight into the (k, rows) columns of many chains composed together, the same values without a
pass per chain and block.
"""

from __future__ import annotations

import functools
from typing import Any, Literal

import mathutils
import numpy as np

from ..solver.rotations import rotation_property
from . import anim_keys
from .sampling.fcurves import ChannelSampler

# A bone's channel: its current values (k,) and, when F-curves animate it, (array index, values at the chain's
# frames) per curve in the order they are applied (None: not animated, one row).
Source = tuple[np.ndarray, list[tuple[int, np.ndarray]] | None]
# Per chain bone, lower bone last: its rotation mode and {"location", rotation property, "scale": Source}.
Sources = list[tuple[str, dict[str, Source]]]


_POSE_PROPS = {"location": 3, "rotation_quaternion": 4, "rotation_euler": 3, "rotation_axis_angle": 4, "scale": 3}


@functools.cache
def _matrix_order() -> Literal["C", "F"]:
    """The memory order of ``np.array(mathutils.Matrix)``: rows on 4.2, columns (its buffer) on 5.0+."""
    probe = np.array(mathutils.Matrix.Identity(4), dtype=np.float64)
    return "F" if probe.flags.f_contiguous and not probe.flags.c_contiguous else "C"


class Armature:
    """What the composition reads of one armature, each in one ``foreach_get`` for all its bones.

    A character's rig has hundreds of bones and a chain a few: per bone, Python objects are made only for the
    chains' bones (:meth:`index`, :meth:`rest`, :meth:`pose_index` look them up in Blender's collections).

    Attributes:
        lengths, connected: (B,) each bone's rest length and ``use_connect``, by :meth:`index`.
        pose: current pose channel values read so far, property -> (B, k) float64 (see :meth:`values`), by
            :meth:`pose_index`.
        curves: its live F-curves by data path (those the F-curve sampler applies).
    """

    def __init__(self, obj: Any, sampler: ChannelSampler) -> None:
        bones = obj.data.bones
        count = len(bones)
        self.bones = bones
        flat = np.empty(16 * count, dtype=np.float32)
        bones.foreach_get("matrix_local", flat)  # column-major per matrix
        self._rest_columns = flat.reshape(count, 4, 4)
        self._rests: dict[int, np.ndarray] = {}
        self.lengths = np.empty(count, dtype=np.float32)
        bones.foreach_get("length", self.lengths)
        self.connected = np.empty(count, dtype=bool)
        bones.foreach_get("use_connect", self.connected)
        self.obj = obj
        self.pose: dict[str, np.ndarray] = {}
        self.curves = sampler.live_fcurves(obj)

    def index(self, name: str) -> int:
        """The bone's position in ``lengths``, ``connected`` and :meth:`rest`."""
        return int(self.bones.find(name))

    def pose_index(self, name: str) -> int:
        """The pose bone's row in :meth:`values` (pose bones have their own order: a bone added or re-parented
        later need not keep the bones' order)."""
        return int(self.obj.pose.bones.find(name))

    def rest(self, i: int) -> np.ndarray:
        """Bone ``i``'s float64 rest matrix (``Bone.matrix_local``), 4x4, read once."""
        if i not in self._rests:
            # In the layout ``np.array(bone.matrix_local)`` gives (it picks numpy's product loops in
            # :func:`tail_math.rest_offset`, hence the last bits).
            self._rests[i] = np.array(self._rest_columns[i].T, dtype=np.float64, order=_matrix_order())
        return self._rests[i]

    def values(self, prop: str) -> np.ndarray:
        """(B, k) the bones' current values of a pose channel (``location``, a rotation property, ``scale``)."""
        if prop not in self.pose:
            count = len(self.obj.pose.bones)
            values = np.empty(_POSE_PROPS[prop] * count, dtype=np.float32)
            self.obj.pose.bones.foreach_get(prop, values)
            self.pose[prop] = values.reshape(count, -1).astype(np.float64)
        return self.pose[prop]


class Curves:
    """The :class:`Armature` data of the armatures looked up so far."""

    def __init__(self) -> None:
        self.sampler = ChannelSampler(np.empty(0))
        self.armatures: dict[int, Armature] = {}

    def armature(self, obj: Any) -> Armature:
        """``obj``'s :class:`Armature`, read on first use."""
        key = obj.as_pointer()
        if key not in self.armatures:
            self.armatures[key] = Armature(obj, self.sampler)
        return self.armatures[key]

    def sources(self, obj: Any, bones: list[str], known: dict[int, np.ndarray] | None) -> Sources | None:
        """The channels of ``bones`` of ``obj``, or None when a live curve on them is not in ``known`` (or has
        modifiers) and must be read by :func:`sampling.iter_pose_channels`.

        Args:
            known: F-curve pointer -> float32 values at the chain's frames (what the bake wrote).
        """
        if known is None:
            return None
        data = self.armature(obj)
        out: Sources = []
        for name in bones:
            pb = obj.pose.bones[name]
            mode = pb.rotation_mode
            prefix = anim_keys.pose_bone_path(name) + "."
            row = data.pose_index(name)
            channels: dict[str, Source] = {}
            for prop in ("location", rotation_property(mode)[0], "scale"):
                current = data.values(prop)[row]
                live = data.curves.get(prefix + prop, ())
                given = []
                for fc in live:
                    if fc.array_index < current.shape[0]:
                        values = None if len(fc.modifiers) else known.get(fc.as_pointer())
                        if values is None:
                            return None
                        given.append((fc.array_index, values))
                channels[prop] = (current, given if live else None)
            out.append((mode, channels))
        return out


def signature(sources: Sources) -> tuple[Any, ...]:
    """What chains composed together share: each bone's mode, which channels move, the others' values."""
    return tuple((mode, tuple((prop, None if given is not None else current.tobytes())
                              for prop, (current, given) in channels.items()))
                 for mode, channels in sources)


def columns(pieces: list[tuple[Sources, slice]], j: int, total: int, segments: list[slice]
            ) -> tuple[str, dict[str, np.ndarray]]:
    """Bone ``j``'s channels over the pieces' blocks, concatenated as :func:`sampling.iter_pose_channels` rows.

    Args:
        pieces: per chain, its sources (one :func:`signature`) and the block of its frames.
        total: the rows of all blocks; segments: each block's rows among them.

    Returns:
        ``(rotation mode, {channel: (total, k) rows, or (1, k) when it does not move})``.
    """
    mode, first = pieces[0][0][j]
    rot = rotation_property(mode)[0]
    out: dict[str, np.ndarray] = {}
    for prop, (current, given) in first.items():
        if given is None:
            out[prop] = current[None]
            continue
        cols = np.empty((current.shape[0], total))
        for (sources, block), seg in zip(pieces, segments, strict=True):
            now, curves = sources[j][1][prop]
            assert curves is not None
            indices = {index for index, _values in curves}
            for i in range(now.shape[0]):
                if i not in indices:
                    cols[i, seg] = now[i]
            for index, values in curves:
                cols[index, seg] = values[block]
        # Euler and axis-angle rotations go through the sampler's row layout (their matrices read columns of
        # rows); the rest is elementwise in any layout.
        out[prop] = np.ascontiguousarray(cols.T) if prop == rot and mode != "QUATERNION" else cols.T
    return mode, out
