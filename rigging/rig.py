"""Reads a chain's bones from the armature into arrays, and checks everything the solve relies on.

Every check raises :class:`ChainError` with a message naming the chain and the bone, object or setting at
fault, before anything in the file is changed.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass

import bpy
import numpy as np

from ..solver.chain_description import ChainDescription, ChainSettings
from ..solver.spaces import PLANES, cross
from . import linked_data
from . import messages as msg
from .messages import say
from .rig_dependencies import at_rest, first_dependency, moved_bones

# Rest positions further than this fraction of the chain length from the plane are rejected.
PLANE_TOLERANCE = 1e-4
# Components of a bone's rotation axis below this are float32 rounding of its rest matrix, not a tilt (a tilt
# the plane check lets through is up to PLANE_TOLERANCE): they are set to 0, or each would key a channel of noise.
AXIS_ROUNDING = 1e-6
# A segment shorter than this fraction of the chain is float32 rounding of coinciding rest positions.
ZERO_ROUNDING = 1e-6


class ChainError(Exception):
    """A chain that cannot be solved; the message is meant for the user."""


@dataclass(frozen=True)
class ChainRig(ChainDescription):
    """A chain as read from the file: its plain description (:class:`solver.chain_description.ChainDescription`:
    bones, rest geometry, settings, owned channels) and the armature and chain properties it was read from,
    which only the Blender layer touches (sampling its inputs, writing its keys)."""

    armature: bpy.types.Object
    chain: bpy.types.PropertyGroup

    @property
    def label(self) -> str:
        """The chain as messages name it: its name and its armature's."""
        return say(msg.CHAIN_LABEL, chain=self.chain.name, armature=self.armature.name)


def _rest_matrices(bones: bpy.types.ArmatureBones) -> np.ndarray:
    """``matrix_local`` of every bone, ``(len(bones), 4, 4)`` float64 in ``bones``' order.

    One ``foreach_get`` (the stored float32, column-major, transposed): converting each mathutils Matrix costs
    ~25 µs on 4.2. The values are the same bit for bit.
    """
    flat = np.empty(len(bones) * 16, dtype=np.float32)
    bones.foreach_get("matrix_local", flat)
    return np.ascontiguousarray(flat.reshape(-1, 4, 4).transpose(0, 2, 1), dtype=np.float64)


def _label(armature: bpy.types.Object, chain: bpy.types.PropertyGroup) -> str:
    """The chain as messages name it; built only for a message (the checks of every bake would pay for it)."""
    return say(msg.CHAIN_LABEL, chain=chain.name, armature=armature.name)


def chain_bone_names(armature: bpy.types.Object, chain: bpy.types.PropertyGroup) -> tuple[str, ...]:
    """The chain's bones from the root down, walking up ``chain_length`` bones from the lower bone.

    Raises:
        ChainError: the upper or lower bone is not set or not in the armature; the lower bone has fewer than
            ``chain_length - 1`` ancestors; the ancestor reached is not the chain's upper bone.
    """
    bones = armature.data.bones
    for role, name in ((msg.ROLE_LOWER, chain.lower_bone), (msg.ROLE_UPPER, chain.upper_bone)):
        if not name or name not in bones:
            raise ChainError(say(msg.BONE_MISSING, label=_label(armature, chain), role=say(role), bone=name,
                                 data=armature.data.name))
    names = [chain.lower_bone]
    bone = bones[chain.lower_bone]
    for _ in range(chain.chain_length - 1):
        parent = bone.parent
        if parent is None:
            raise ChainError(say(msg.NO_PARENT, label=_label(armature, chain), bone=bone.name, count=chain.chain_length,
                                 lower=chain.lower_bone))
        names.append(parent.name)
        bone = parent
    names.reverse()
    if names[0] != chain.upper_bone:
        if chain.chain_length == 2:
            raise ChainError(say(msg.NOT_CHILD, label=_label(armature, chain), lower=chain.lower_bone,
                                 upper=chain.upper_bone, parent=names[0]))
        raise ChainError(say(msg.NOT_ANCESTOR, label=_label(armature, chain), upper=chain.upper_bone,
                             count=chain.chain_length - 1, lower=chain.lower_bone, found=names[0]))
    return tuple(names)


def read_chain(armature: bpy.types.Object, chain: bpy.types.PropertyGroup) -> ChainRig:
    """Read and check the chain's rest geometry and copy its settings.

    Returns:
        The chain's plain description (bone names, rest lengths and angles in the upper bone's rest-local
        plane, plane normal, rest matrices, settings) with the armature and chain it was read from.

    Raises:
        ChainError: the bones do not form the chain (:func:`chain_bone_names`); a chain bone below the upper
            one does not inherit rotation or inherits no scale (None, None (Legacy)), or the upper bone does not
            inherit its parent's rotation; a bone has zero length or is too short for the plane check; a head
            or the tip lies off the armature's plane.
    """
    rig = read_chains(armature, [chain])[0]
    if isinstance(rig, ChainError):
        raise rig
    return rig


def read_chains(armature: bpy.types.Object,
                chains: Sequence[bpy.types.PropertyGroup]) -> list[ChainRig | ChainError]:
    """:func:`read_chain` of several chains of one armature: per chain, its rig or the error it raises.

    The rest matrices are read once, and the geometry of chains with as many bones is computed together: each
    chain gets the same operations on the same values as alone (so the same bits); a product whose order of
    additions could differ stays one per chain. A bake reads a crowd's chains this way: alone, a chain cost
    ~0.2 ms, most of it the Python around numpy calls on arrays of a few numbers.
    """
    bones = armature.data.bones
    normal = np.array(PLANES[armature.soft_ik_2d.plane][2], dtype=np.float64)
    out: list[ChainRig | ChainError | None] = [None] * len(chains)
    groups: dict[int, list[tuple[int, tuple[str, ...]]]] = {}
    for c, chain in enumerate(chains):
        try:
            names = _inheriting_bones(armature, chain)
        except ChainError as err:
            out[c] = err
            continue
        groups.setdefault(len(names), []).append((c, names))
    rest_of = _rest_matrices(bones) if groups else np.empty((0, 4, 4))
    for group in groups.values():
        for c, rig in _read_group(armature, chains, rest_of, normal, group):
            out[c] = rig
    assert all(r is not None for r in out)
    return [r for r in out if r is not None]


def _inheriting_bones(armature: bpy.types.Object, chain: bpy.types.PropertyGroup) -> tuple[str, ...]:
    """:func:`chain_bone_names`, each bone checked to inherit as the solve needs (see :func:`read_chain`)."""
    names = chain_bone_names(armature, chain)
    bones = armature.data.bones
    for name in names[1:]:
        bone = bones[name]
        if not bone.use_inherit_rotation or bone.inherit_scale not in {"FULL", "ALIGNED", "AVERAGE",
                                                                         "FIX_SHEAR"}:
            raise ChainError(say(msg.NO_INHERIT, label=_label(armature, chain), bone=name))
    upper = bones[names[0]]
    if upper.parent is not None and not upper.use_inherit_rotation:
        raise ChainError(say(msg.UPPER_NO_INHERIT, label=_label(armature, chain), bone=upper.name,
                             parent=upper.parent.name))
    return names


def _read_group(armature: bpy.types.Object, chains: Sequence[bpy.types.PropertyGroup], rest_of: np.ndarray,
                normal: np.ndarray, group: list[tuple[int, tuple[str, ...]]]
                ) -> list[tuple[int, ChainRig | ChainError]]:
    """The rigs of chains with as many bones (``group``: their positions in ``chains`` and bone names)."""
    bones = armature.data.bones
    count = len(group[0][1])
    at = [bones.find(n) for _c, names in group for n in names]
    rests = rest_of[at].reshape(len(group), count, 4, 4)
    # Slices and ufuncs, not np.vstack / np.diff / np.linalg.norm / np.stack: the same operations on the same
    # values (so the same bits), without their Python wrappers.
    points = np.empty((len(group), count + 1, 3))
    points[:, :-1] = rests[:, :, :3, 3]
    points[:, -1] = [tuple(bones[names[-1]].tail_local) for _c, names in group]  # armature space, rest
    seg = points[:, 1:] - points[:, :-1]
    seg_len = np.sqrt(np.add.reduce(seg * seg, axis=2))
    scales = seg_len.sum(axis=1).tolist()
    seg_lengths = seg_len.tolist()
    # The plane normal is an axis (PLANES): these products select a coordinate, exact in any order of additions
    # (up to the sign of a zero, which abs() and the rounding of the axes below remove).
    offsets = np.abs((points - points[:, :1]) @ normal)
    worst_at = offsets.argmax(axis=1).tolist()
    local_axes = rests[:, :, :3, :3].swapaxes(-1, -2) @ normal
    local_axes[np.abs(local_axes) < AXIS_ROUNDING] = 0.0
    local_axes /= np.sqrt(np.add.reduce(local_axes * local_axes, axis=2, keepdims=True))
    x_local = np.array([0.0, 1.0, 0.0])

    out: list[tuple[int, ChainRig | ChainError]] = []
    read: list[tuple[int, int, tuple[str, ...]]] = []
    p2 = np.zeros((len(group), count + 1, 2))  # a refused chain's rows stay zeros: no warning from their angles
    for k, (c, names) in enumerate(group):
        chain = chains[c]
        try:
            _check_lengths(armature, chain, names, seg_lengths[k], scales[k])
            worst = worst_at[k]
            offset = float(offsets[k, worst])
            if offset > PLANE_TOLERANCE * scales[k]:
                where = (say(msg.WHERE_TAIL, bone=names[-1]) if worst == len(names)
                         else say(msg.WHERE_HEAD, bone=names[worst]))
                raise ChainError(say(msg.OFF_PLANE, label=_label(armature, chain), plane=armature.soft_ik_2d.plane,
                                     where=where, offset=offset, upper=names[0], fraction=offset / scales[k]))
        except ChainError as err:
            out.append((c, err))
            continue
        # A product of the upper bone's rest rotation and one by a rolled bone's axis: one per chain, as alone.
        local_points = (points[k] - points[k, 0]) @ rests[k, 0, :3, :3]  # rest-local coordinates of the upper bone
        p2[k, :, 0] = local_points @ x_local
        # The plane normal in the upper bone's axes is the axis its pose rotation turns about, so rest angles
        # and poses agree.
        p2[k, :, 1] = local_points @ cross(local_axes[k, 0], x_local)
        read.append((k, c, names))
    d2 = p2[:, 1:] - p2[:, :-1]
    lengths = np.hypot(d2[:, :, 0], d2[:, :, 1])
    absolute = np.arctan2(d2[:, :, 1], d2[:, :, 0])
    rest_angles = absolute.copy()
    rest_angles[:, 1:] -= absolute[:, :-1]
    rest_angles = (rest_angles + np.pi) % (2 * np.pi) - np.pi
    for k, c, names in read:
        chain = chains[c]
        upper_rest = rests[k, 0].copy()
        parent = bones[names[0]].parent
        parent_to_upper = np.linalg.inv(rest_of[bones.find(parent.name)]) @ upper_rest if parent else upper_rest
        out.append((c, ChainRig(armature=armature, chain=chain, bone_names=names,
                                parent_name=parent.name if parent else None, lengths=lengths[k].copy(),
                                rest_angles=rest_angles[k].copy(), normal=normal.copy(),
                                local_axes=local_axes[k].copy(), upper_rest=upper_rest, parent_to_upper=parent_to_upper,
                                settings=ChainSettings.copied_from(chain))))
    return out


def _check_lengths(armature: bpy.types.Object, chain: bpy.types.PropertyGroup, names: tuple[str, ...],
                   lengths: list[float], scale: float) -> None:
    """Refuse a bone of zero length, or too short for the plane check (``lengths``: head to next head)."""
    for name, length in zip(names, lengths, strict=True):
        # Rest positions are float32: below ZERO_ROUNDING of the chain the ends coincide up to rounding; below
        # the plane tolerance the segment exists but is too short for the plane check and the solve to hold.
        if length <= ZERO_ROUNDING * max(scale, 1e-9):
            raise ChainError(say(msg.ZERO_LENGTH, label=_label(armature, chain), bone=name))
        if length <= PLANE_TOLERANCE * scale:
            raise ChainError(say(msg.TOO_SHORT, label=_label(armature, chain), bone=name, length=length, total=scale,
                                 ratio=length / scale, least=PLANE_TOLERANCE))


def check_editable(armature: bpy.types.Object) -> None:
    """Refuse an armature object that is neither local nor an editable library override.

    Its armature data may stay linked: nothing is written there. A linked action is fine: the keys go into a
    local copy (:func:`linked_data.ensure_local_action`).

    Raises:
        ChainError: the message of :func:`linked_data.editing_problem`.
    """
    problem = linked_data.editing_problem(armature)
    if problem is not None:
        raise ChainError(problem)


def check_pose_position(armature: bpy.types.Object) -> None:
    """Refuse an armature that shows its Rest Position.

    Blender then plays no pose at all: a solve would place the chains against parents standing at rest, and
    keys written there would be measured on a rest pose they do not move, so neither the pose nor the error
    would be the ones played once Pose Position is back.

    Raises:
        ChainError: naming the armature and the setting.
    """
    if armature.data.pose_position != "POSE":
        raise ChainError(say(msg.REST_POSITION, armature=armature.name))


def check_posed_parents(obj: bpy.types.Object) -> None:
    """Refuse an object that hangs (through parents, constraints or drivers) from a bone of an armature shown in
    its Rest Position: a chain's armature on a vehicle rig, a pinned target. Its world place is the bone's rest,
    not where the bone plays.

    Raises:
        ChainError: naming the object, the bone, the links between them and the setting.
    """
    found = first_dependency(obj, "", at_rest)
    if found is not None:
        owner, bone, path = found
        raise ChainError(say(msg.FOLLOWS_REST, name=obj.name, bone=bone, armature=owner.name, path=path))


def scene_objects(scene: bpy.types.Scene | None = None) -> frozenset[bpy.types.Object]:
    """The objects of ``scene`` (None: the context's), for :func:`check_target`'s test of many chains.

    A set of the objects themselves (Blender's objects hash and compare by the data they wrap): a name can stand
    for two objects, a linked one and a local one, and looking one name up walks the scene's objects.
    """
    return frozenset((scene or bpy.context.scene).objects.values())


def check_target(armature: bpy.types.Object, chain: bpy.types.PropertyGroup,
                 in_scene: Container[bpy.types.Object] | None = None, *, rest: bool = True) -> None:
    """Refuse a chain whose target cannot drive it.

    ``in_scene``: :func:`scene_objects` of the context's scene, when the caller checks many chains (None: read
    here). ``rest``: False lets a target or pole hang from a bone at rest (the Live Preview poses to it as shown
    and writes no key; it would not see that armature posed or put at rest again before the chain changes).

    Raises:
        ChainError: no target; the target is the armature itself or not in the scene, or the pole is not;
            Target Space = Object without a Space Object, or a space bone that is not a bone of the space
            armature (Object) or of the armature (Character); the target or pole depends on the chain's own
            bones (:func:`check_no_cycle`) or on a bone of an armature shown in its Rest Position.
    """
    target = chain.target
    if target is None:
        raise ChainError(say(msg.NO_TARGET, label=_label(armature, chain)))
    if target == armature:
        raise ChainError(say(msg.TARGET_IS_ARMATURE, label=_label(armature, chain), armature=armature.name))
    in_scene = scene_objects() if in_scene is None else in_scene
    if target not in in_scene:
        raise ChainError(say(msg.TARGET_NOT_IN_SCENE, label=_label(armature, chain), target=target.name_full,
                             scene=bpy.context.scene.name))
    if chain.pole is not None and chain.pole not in in_scene:
        raise ChainError(say(msg.POLE_NOT_IN_SCENE, label=_label(armature, chain), pole=chain.pole.name_full,
                             scene=bpy.context.scene.name))
    if chain.target_space == "OBJECT":
        if chain.space_object is None:
            raise ChainError(say(msg.NO_SPACE_OBJECT, label=_label(armature, chain)))
        if chain.space_bone and (chain.space_object.type != "ARMATURE"
                                 or chain.space_bone not in chain.space_object.data.bones):
            raise ChainError(say(msg.SPACE_BONE_MISSING, label=_label(armature, chain), bone=chain.space_bone,
                                 owner=chain.space_object.name))
    if chain.target_space == "CHARACTER" and chain.space_bone and chain.space_bone not in armature.data.bones:
        raise ChainError(say(msg.SPACE_BONE_MISSING, label=_label(armature, chain), bone=chain.space_bone,
                             owner=armature.name))
    _check_inputs(armature, chain, rest=rest)


def declared_parent(armature: bpy.types.Object,
                    chain: bpy.types.PropertyGroup) -> tuple[bpy.types.Object | None, str]:
    """The (object, bone) the target must be parented to for its declared space."""
    if chain.target_space == "WORLD":
        return None, ""
    if chain.target_space == "CHARACTER":
        return armature, chain.space_bone
    return chain.space_object, chain.space_bone


def space_mismatch(armature: bpy.types.Object, chain: bpy.types.PropertyGroup) -> str | None:
    """Plain-words description of how the target's real parenting differs from its declared space.

    Returns:
        None when the target is parented as its Target Space declares (or the chain has no target).
    """
    target = chain.target
    if target is None:
        return None
    want_obj, want_bone = declared_parent(armature, chain)
    have_obj = target.parent
    have_bone = target.parent_bone if have_obj is not None and target.parent_type == "BONE" else ""
    if have_obj == want_obj and have_bone == want_bone:
        return None

    def describe(obj: bpy.types.Object | None, bone: str) -> str:
        if obj is None:
            return say(msg.SPACE_WORLD)
        return say(msg.SPACE_BONE_PARENT, bone=bone, owner=obj.name) if bone else say(msg.SPACE_OBJECT_PARENT,
                                                                                       owner=obj.name)

    return say(msg.SPACE_MISMATCH, target=target.name, actual=describe(have_obj, have_bone),
               space=chain.target_space, declared=describe(want_obj, want_bone))


def shared_bone_conflicts(armature: bpy.types.Object) -> dict[int, str]:
    """Every chain of ``armature`` that shares a bone with another, by ``as_pointer()``, with the message of
    the first such conflict it is in (chains in order, bones root first; the chain that holds a bone first is
    named first).

    A chain whose bones cannot be read is left out (reading it reports that).
    """
    owner: dict[str, bpy.types.PropertyGroup] = {}
    out: dict[int, str] = {}
    for chain in armature.soft_ik_2d.chains:
        try:
            names = chain_bone_names(armature, chain)
        except ChainError:
            continue
        for name in names:
            first = owner.setdefault(name, chain)
            # Compared as chains, not names: two chains may carry the same name.
            if first.as_pointer() != chain.as_pointer():
                message = say(msg.SHARED_BONE, first=first.name, second=chain.name, armature=armature.name, bone=name)
                out.setdefault(first.as_pointer(), message)
                out.setdefault(chain.as_pointer(), message)
    return out


def check_shared_bones(armature: bpy.types.Object,
                       chains: Sequence[bpy.types.PropertyGroup] | None = None,
                       conflicts: dict[int, str] | None = None) -> None:
    """Refuse two chains of ``armature`` that share a bone: they would overwrite each other's keys.

    Args:
        chains: some of the armature's chains: only a conflict involving one of them raises, so the other
            chains can still be used. None checks every chain.
        conflicts: :func:`shared_bone_conflicts` of the armature, when the caller has it (a batch reads it once
            for all the armature's chains); None: read here.

    Raises:
        ChainError: naming both chains and the bone: the first conflict found that involves one of ``chains``.
    """
    wanted = None if chains is None else {c.as_pointer() for c in chains}
    # In the order the conflicts were found: the first one that involves a wanted chain, as a walk would meet it.
    for chain, message in (shared_bone_conflicts(armature) if conflicts is None else conflicts).items():
        if wanted is None or chain in wanted:
            raise ChainError(message)


def check_no_cycle(armature: bpy.types.Object, chain: bpy.types.PropertyGroup) -> None:
    """Refuse a target or pole that hangs from the chain's own bones or bones below them.

    Through parents, constraints or drivers it would move with the pose solved for it.

    Raises:
        ChainError: naming the target or pole, the bone and the links between them.
    """
    _check_inputs(armature, chain, rest=False)


def _check_inputs(armature: bpy.types.Object, chain: bpy.types.PropertyGroup, *, rest: bool) -> None:
    """:func:`check_no_cycle`, and with ``rest`` also refuse a target or pole that hangs from a bone of an
    armature shown in its Rest Position (it stands where the bone rests, not where it plays), in one walk of
    each one's dependencies."""
    moved = moved_bones(armature, chain_bone_names(armature, chain))

    def wanted(obj: bpy.types.Object, bone: str) -> bool:
        return (obj == armature and bone in moved) or (rest and at_rest(obj, bone))

    for role, obj in ((msg.ROLE_TARGET, chain.target), (msg.ROLE_POLE, chain.pole)):
        if obj is None:
            continue
        found = first_dependency(obj, "", wanted, armature)
        if found is None:
            continue
        owner, bone, path = found
        if owner == armature and bone in moved:
            raise ChainError(say(msg.DEPENDENCY_CYCLE, label=_label(armature, chain), role=say(role), name=obj.name,
                                 bone=bone, path=path))
        raise ChainError(say(msg.INPUT_AT_REST, label=_label(armature, chain), role=say(role), name=obj.name,
                             bone=bone, armature=owner.name, path=path))
