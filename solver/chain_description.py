"""The plain description of one chain: its bones, rest geometry, settings and the channels a solve of it owns.

The Blender layer reads it once (``rigging.rig.read_chain``) and everything downstream (the solve step, the
bake, the Solve operator, the live preview, Clear's bookkeeping, the setup checks) asks it what the chain owns
instead of restating the strategy rules: every bone's rotation, the upper bone's location under Move Root, its
scale under Stretch, and the error and flags curves on the lower bone.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .flag_names import is_two_bone
from .rotations import rotation_property
from .spaces import cross, shoulder_local_basis

FloatArray = NDArray[np.float64]

ERROR_PROP = "soft_ik_error"  # custom property on the lower bone: world distance from the tip to the target
FLAGS_PROP = "soft_ik_flags"  # custom property on the lower bone: the solver's flag bits
CURVE_PROPS = (ERROR_PROP, FLAGS_PROP)


@dataclass(frozen=True)
class ChainSettings:
    """A chain's solve settings, copied out of its properties (``rigging.properties.SoftIKChain``).

    Names and units are the properties': angles in radians, ``max_root_offset`` in world units,
    ``smoothing_cutoff`` in Hz, enum values as their identifiers.
    """

    solver: str = "ANALYTIC"
    bend: int = 1
    softness: float = 0.0
    inner_softness: float = 0.0
    use_shoulder_limit: bool = False
    shoulder_min: float = 0.0
    shoulder_max: float = 0.0
    use_elbow_limit: bool = False
    elbow_min: float = 0.0
    elbow_max: float = 0.0
    limit_strategy: str = "ACCEPT"
    max_root_offset: float = 0.1
    root_smoothing: int = 3
    stretch_min: float = 0.9
    stretch_max: float = 1.1
    smoothing: str = "NONE"
    smoothing_cutoff: float = 2.0
    smoothing_beta: float = 0.05
    stretch_to_reach: bool = False
    max_stretch: float = 1.25
    preserve_volume: bool = False

    @classmethod
    def copied_from(cls, properties: Any) -> ChainSettings:
        """The settings of ``properties`` (any object with the same attribute names), as plain values."""
        read, kinds = _setting_reader()
        # One attrgetter reads every setting in C (a Blender property group answers each getattr through RNA).
        return cls(*[kind(value) for kind, value in zip(kinds, read(properties), strict=True)])

    @property
    def moves_root(self) -> bool:
        """Move Root: the solve keys the upper bone's location."""
        return self.limit_strategy == "MOVE_ROOT"

    @property
    def stretches(self) -> bool:
        """Stretch (the limit strategy) or stretch to reach: the solve keys the upper bone's scale."""
        return self.limit_strategy == "STRETCH" or self.stretch_to_reach


@functools.cache
def _setting_reader() -> tuple[operator.attrgetter[tuple[Any, ...]], tuple[type, ...]]:
    """A getter of every setting (field order) and the type of each default (what a copied value is made into)."""
    names = [f.name for f in fields(ChainSettings)]
    return operator.attrgetter(*names), tuple(type(getattr(ChainSettings, name)) for name in names)


@dataclass(frozen=True)
class ChainDescription:
    """The static (rest) description of one chain, in the upper bone's rest-local units, and its settings."""

    bone_names: tuple[str, ...]  # root (upper) first, tip (lower) last
    parent_name: str | None  # the upper bone's parent: its pose animates the shoulder space
    lengths: FloatArray  # (n,) segment lengths: head to next head, last one head to tail
    rest_angles: FloatArray  # (n,) first from the shoulder-space +x, the others relative to their parent
    normal: FloatArray  # (3,) plane normal in armature space
    local_axes: FloatArray  # (n, 3) the plane normal in each bone's rest-local axes (the pose rotation axis)
    upper_rest: FloatArray  # (4, 4) armature-space rest matrix of the upper bone
    parent_to_upper: FloatArray  # (4, 4) parent_rest^-1 @ upper_rest (upper_rest for a root bone)
    settings: ChainSettings

    @property
    def total_length(self) -> float:
        """The sum of the bone lengths (armature units): the chain's full reach."""
        return float(self.lengths.sum())

    @functools.cached_property
    def axes_2d(self) -> FloatArray:
        """(2, 3): the shoulder space's +x (the bone's +Y) and +y in the upper bone's rest-local axes (pose
        locations are in those axes: Move Root's 2D offset becomes a location through them)."""
        n_local = self.local_axes[0]
        x_local = np.array([0.0, 1.0, 0.0])
        return np.stack([x_local, cross(n_local, x_local)])

    @functools.cached_property
    def shoulder_basis(self) -> tuple[FloatArray, FloatArray]:
        """The shoulder space's (x, y) in the upper bone's rest-local axes, as the solve maps points
        (:func:`solver.spaces.shoulder_local_basis`; the same as :attr:`axes_2d` for a bone in the plane)."""
        return shoulder_local_basis(self.local_axes[0])

    @property
    def two_bone(self) -> bool:
        """Whether the chain is solved analytically (else by CCD or FABRIK)."""
        return is_two_bone(self.settings.solver, len(self.bone_names))

    @property
    def location_bone(self) -> str | None:
        """The bone whose pose location the solve owns (the upper one under Move Root), else None."""
        return self.bone_names[0] if self.settings.moves_root else None

    @property
    def scale_bone(self) -> str | None:
        """The bone whose pose scale the solve owns (the upper one under Stretch or stretch to reach), else
        None."""
        return self.bone_names[0] if self.settings.stretches else None

    def owns(self, bone: str, prop: str) -> bool:
        """Whether a solve of the chain writes ``prop`` (``"location"``, ``"scale"``, a rotation property or
        one of :data:`CURVE_PROPS`) of pose bone ``bone``."""
        if prop == "location":
            return bone == self.location_bone
        if prop == "scale":
            return bone == self.scale_bone
        if prop in CURVE_PROPS:
            return bone == self.bone_names[-1]
        return prop.startswith("rotation_") and bone in self.bone_names

    def owned_channels(self, rotation_modes: Sequence[str]) -> list[tuple[str, str, int]]:
        """(bone, property, array size) of every channel a solve writes, in writing order, given each bone's
        rotation mode (``rotation_modes[j]`` for ``bone_names[j]``)."""
        out = [(name, *rotation_property(mode)) for name, mode in zip(self.bone_names, rotation_modes, strict=True)]
        if self.location_bone is not None:
            out.append((self.location_bone, "location", 3))
        if self.scale_bone is not None:
            out.append((self.scale_bone, "scale", 3))
        lower = self.bone_names[-1]
        out += [(lower, ERROR_PROP, 1), (lower, FLAGS_PROP, 1)]
        return out
