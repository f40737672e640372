"""Setups of a chain's own bones that the solve does not model, refused by name before anything is written.

The solve places the chain's bones by rotation alone (plus the location or scale its strategy owns). Anything
else that acts on those bones when Blender plays the keys back (a constraint, a driver, a pose scale, a location
on an unconnected bone, a parent scale a bone does not inherit as a plain product) would make the played-back
tip differ from the solved one, so the bake, the Solve operator and the live preview refuse it the same way.
What these checks do not anticipate, the bake's verification pass (:mod:`verification`) measures.
"""

from __future__ import annotations

import math

import bpy
import numpy as np

from ..solver.spaces import invert_matrices
from . import anim_keys, bake_records
from . import messages as msg
from .messages import say
from .rig import ChainError, ChainRig

# A pose scale or location within this of rest is float32 rounding, not a setup the solve must model.
REST_TOLERANCE = 1e-6
# Relative spread of a parent's axis scales (or shear) above which it counts as non-uniform.
UNIFORM_TOLERANCE = 1e-5
_ROTATIONS = ("rotation_quaternion", "rotation_euler", "rotation_axis_angle")
_OWNED_PROPS = ('["soft_ik_error"]', '["soft_ik_flags"]')


def _prefix(bone: str) -> str:
    return anim_keys.pose_bone_path(bone)


def _path_animated(armature: bpy.types.Object, path: str, index: int | None = None) -> bool:
    """Whether an F-curve (with keys or modifiers, not muted) or a driver animates ``path`` (any index)."""
    ad = armature.animation_data
    if ad is None:
        return False
    indices = range(4) if index is None else (index,)
    for i in indices:
        fc = anim_keys.find_fcurve(armature, path, i)
        if fc is not None and not fc.mute and (len(fc.keyframe_points) or len(fc.modifiers)):
            return True
        drv = ad.drivers.find(path, index=i)
        if drv is not None and not drv.mute:
            return True
    return False


def _acting(armature: bpy.types.Object, bone: str, con: bpy.types.Constraint) -> bool:
    """A constraint acts unless it is muted or its influence is 0 and not animated."""
    if con.mute:
        return False
    if con.influence > 0.0:
        return True
    path = f'{_prefix(bone)}.constraints["{bpy.utils.escape_identifier(con.name)}"].influence'
    return _path_animated(armature, path, 0)


def _influence(con: bpy.types.Constraint) -> str:
    return f"{con.influence:.3g}"


def _check_constraints(rig: ChainRig, reach: IkReach | None = None) -> None:
    arm = rig.armature
    chain_bones = set(rig.bone_names)
    for name in rig.bone_names:
        for con in arm.pose.bones[name].constraints:
            if _acting(arm, name, con):
                raise ChainError(say(msg.CHAIN_CONSTRAINT, label=rig.label, bone=name, constraint=con.name,
                                     type=con.type.replace("_", " ").title(), influence=_influence(con)))
    # An IK or Spline IK of another bone moves every bone of its chain, ours included.
    for owner, con, moved in (ik_reach(arm) if reach is None else reach):
        if owner in chain_bones:
            continue
        for bone in moved:
            if bone in chain_bones:
                raise ChainError(say(msg.CHAIN_IK_CONSTRAINT, label=rig.label, bone=bone,
                                     constraint=con.name, type=con.type.replace("_", " "), owner=owner))


# (owner bone, constraint, the bones it moves from the owner up), in pose bone and constraint order.
IkReach = list[tuple[str, bpy.types.Constraint, list[str]]]


def ik_reach(armature: bpy.types.Object) -> IkReach:
    """The acting IK and Spline IK constraints of the armature and the bones each moves.

    The same for every chain of the armature: the live preview reads it once per update for all of them
    (scanning every pose bone's constraints per chain cost ~50 µs a chain).

    Returns:
        (owner bone, constraint, the bones it moves in order from the owner's end up), in pose bone order.
    """
    reach: IkReach = []
    for pb in armature.pose.bones:
        for con in pb.constraints:
            if con.type not in ("IK", "SPLINE_IK") or not _acting(armature, pb.name, con):
                continue
            bone = pb.bone if getattr(con, "use_tail", True) else pb.bone.parent
            moved, count = [], 0
            while bone is not None and (con.chain_count == 0 or count < con.chain_count):
                moved.append(bone.name)
                bone, count = bone.parent, count + 1
            reach.append((pb.name, con, moved))
    return reach


def _moves_chain(rig: ChainRig, bone: str, prop: str) -> bool:
    """Whether animating ``prop`` of chain bone ``bone`` changes where Blender puts the chain (or writes a
    channel the bake owns)."""
    upper = bone == rig.bone_names[0]
    if prop.startswith(_ROTATIONS) or prop.startswith(_OWNED_PROPS) or prop.startswith("scale"):
        return True
    if prop.startswith("location"):
        if upper:
            # The upper bone's location is an input (read as evaluated), unless the chain owns (writes) it.
            return rig.owns(bone, "location")
        return not rig.armature.data.bones[bone].use_connect
    return False


def _check_drivers(rig: ChainRig) -> None:
    ad = rig.armature.animation_data
    if ad is None:
        return
    prefixes = {_prefix(name) + sep: name for name in rig.bone_names for sep in (".", "[")}
    for fc in ad.drivers:
        if fc.mute:
            continue
        path = fc.data_path
        for prefix, bone in prefixes.items():
            if path.startswith(prefix):
                prop = path[len(prefix) - 1:].lstrip(".")
                if _moves_chain(rig, bone, prop):
                    raise ChainError(say(msg.CHAIN_DRIVER, label=rig.label, bone=bone,
                                         path=f"{path}[{fc.array_index}]"))


def _previously_baked(chain: bpy.types.PropertyGroup) -> set[str]:
    """Data paths the chain's last bake wrote (``bake.recorded_channels``): a re-bake replaces its keys (say the
    scale keys of an earlier Stretch), so they are not the user's setup."""
    return {line.split("\t")[0] for line in chain.get("baked_channels", "").splitlines() if line}


def _first_off_rest(rig: ChainRig, bone: str, prop: str, rest: float,
                    size: int = 3) -> tuple[str, str] | None:
    """(value, where) of the first place ``prop`` of pose bone ``bone`` is off rest: its first key that is (keys
    an earlier bake of this chain wrote excepted), else its current value; None when it is at rest."""
    armature = rig.armature
    pb = armature.pose.bones[bone]
    current = [float(v) for v in getattr(pb, prop)]  # floats: numpy's call overhead is most of this check
    path = f"{_prefix(bone)}.{prop}"
    if path in _previously_baked(rig.chain):
        return None
    curves = anim_keys.find_fcurves(armature, [(path, i) for i in range(size)])
    baked = None  # read at the first keyed curve: reading the records costs more than the rest of the check
    animated = False
    for i, fc in enumerate(curves):
        if fc is None or fc.mute or len(fc.keyframe_points) == 0:
            continue
        animated = True
        if baked is None:
            baked = _baked_keys(rig, bone, prop)
        co = anim_keys.read_keys_attribute(fc, "co")
        if len(fc.modifiers):  # a modifier changes what plays whoever wrote the keys
            off = np.zeros(1, dtype=np.intp)
        else:
            if i in baked:  # keys a bake of this chain wrote (an earlier Stretch, say) are not the user's setup
                co = co[~_rows_in(co, baked[i])]
            off = np.flatnonzero(np.abs(co[:, 1] - rest) > REST_TOLERANCE)
        if len(off):
            frame = float(co[off[0], 0]) if len(off) else float(co[0, 0])
            value = float(co[off[0], 1]) if len(off) else float(co[0, 1])
            return f"{prop}[{i}] = {value:.4g}", say(msg.AT_KEY, frame=f"{frame:g}")
    # An animated channel plays its keys: its current value is one of them, not a setting of its own.
    if not animated and _max_off(current, rest) > REST_TOLERANCE:
        return "(" + ", ".join(f"{v:.4g}" for v in current) + ")", say(msg.AT_REST_VALUE)
    return None


def _max_off(values: list[float], rest: float) -> float:
    """``np.abs(values - rest).max()`` in floats (NaN when a value is NaN, as numpy's max gives it)."""
    diffs = [abs(v - rest) for v in values]
    return math.nan if any(d != d for d in diffs) else max(diffs)


def _baked_keys(rig: ChainRig, bone: str, prop: str) -> dict[int, np.ndarray]:
    """Per array index, the (frame, value) keys (float32, as stored) the chain's bakes wrote into ``prop`` of
    ``bone`` in the action the armature plays (:mod:`bake_records`)."""
    anim = rig.armature.animation_data
    if anim is None or anim.action is None:
        return {}
    written = bake_records.recorded_channels(rig.armature, rig.chain, anim.action,
                                             anim_keys.slot_handle(rig.armature))
    return {w.index: np.asarray(w.co, dtype=np.float32).reshape(-1, 2) for w in written
            if w.bone == bone and w.prop == prop}


def _rows_in(co: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Mask of the rows of ``co`` equal (float32) to some row of ``keys``."""
    have = np.asarray(co, dtype=np.float32)
    if len(keys) == 0 or len(have) == 0:
        return np.zeros(len(have), dtype=bool)
    order = np.argsort(keys[:, 0], kind="stable")
    wanted = keys[order]
    pos = np.clip(np.searchsorted(wanted[:, 0], have[:, 0]), 0, len(wanted) - 1)
    return (wanted[pos, 0] == have[:, 0]) & (wanted[pos, 1] == have[:, 1])


def _check_pose_channels(rig: ChainRig) -> None:
    arm = rig.armature
    upper = arm.data.bones[rig.bone_names[0]]
    if rig.location_bone == upper.name and upper.use_connect:
        raise ChainError(say(msg.MOVE_ROOT_CONNECTED, label=rig.label, bone=upper.name, parent=upper.parent.name))
    for j, name in enumerate(rig.bone_names):
        if not rig.owns(name, "scale"):  # a scale the chain writes (Stretch) is not the user's setup
            found = _first_off_rest(rig, name, "scale", 1.0)
            if found is not None:
                raise ChainError(say(msg.CHAIN_POSE_SCALE, label=rig.label, bone=name, value=found[0],
                                     where=found[1]))
        if j > 0 and not arm.data.bones[name].use_connect:
            found = _first_off_rest(rig, name, "location", 0.0)
            if found is not None:
                raise ChainError(say(msg.CHAIN_BONE_LOCATION, label=rig.label, bone=name, value=found[0],
                                     where=found[1]))


def check_chain_inputs(rig: ChainRig, reach: IkReach | None = None) -> None:
    """Refuse constraints, drivers, pose scales and locations that act on the chain's bones unmodelled.

    Muted constraints, and those at influence 0 that is not animated, do not count; neither do muted drivers
    or a connected bone's location (Blender ignores it).

    Args:
        rig: the chain.
        reach: :func:`ik_reach` of the armature as it is now, when the caller shares it between chains (None:
            read here).

    Raises:
        ChainError: naming the bone and the constraint, driver path or channel (and its value) at fault.
    """
    _check_constraints(rig, reach)
    _check_drivers(rig)
    _check_pose_channels(rig)


def upper_location_moves(rig: ChainRig) -> bool:
    """Whether the upper bone's own location may move its head: then the bake samples it as Blender evaluates it.

    False when the chain owns it (Move Root writes it), for a connected bone (Blender ignores it) and when the
    chain's last bake keyed it (an earlier Move Root: this bake replaces those keys); otherwise True for a
    location off zero, NLA tracks or tweak mode on the armature, or an F-curve or driver on it.
    """
    if rig.location_bone is not None:
        return False
    arm = rig.armature
    name = rig.bone_names[0]
    if arm.data.bones[name].use_connect or f"{_prefix(name)}.location" in _previously_baked(rig.chain):
        # Blender ignores a connected bone's location; an earlier Move Root's keys are removed by this bake.
        return False
    if np.abs(np.array(arm.pose.bones[name].location)).max() > 0.0:
        return True
    ad = arm.animation_data
    if ad is None:
        return False
    if len(ad.nla_tracks) or ad.use_tweak_mode:
        return True
    return _path_animated(arm, f"{_prefix(name)}.location")


def upper_location_of(rig: ChainRig, armature: np.ndarray, parent: np.ndarray | None,
                      upper_pose: np.ndarray) -> np.ndarray:
    """The upper bone's pose location in its rest-local axes: its head's offset from where its parent puts it.

    Args:
        armature: (N, 4, 4) world matrices of the armature object, per frame.
        parent: (N, 4, 4) world matrices of the upper bone's parent, or None for a root bone.
        upper_pose: (N, 4, 4) the upper bone's sampled armature-space pose matrices.

    Returns:
        (N, 3) locations, 0 where an input is not finite (the solve skips those frames).
    """
    base = rig.upper_rest[None] if parent is None else _to_armature(armature, parent) @ rig.parent_to_upper
    offset = upper_pose[:, :3, 3] - base[:, :3, 3]
    local = (invert_matrices(base)[:, :3, :3] @ offset[..., None])[..., 0]
    # A frame whose inputs are not finite is skipped by the solve: any finite value does.
    return np.where(np.isfinite(local), local, 0.0)


def _to_armature(armature: np.ndarray, world: np.ndarray) -> np.ndarray:
    """``armature^-1 @ world`` per frame; one inverse when the armature does not move (closed form: LAPACK's
    batched inverse costs ~100x more on a busy machine)."""
    still = len(armature) > 1 and bool((armature == armature[0]).all())
    return invert_matrices(armature[:1] if still else armature) @ world


def _parent_may_scale(rig: ChainRig) -> bool:
    """Whether a pose scale may reach the upper bone from its parents: a parent with a scale off 1, animated or
    driven, or with constraints, or NLA on the armature. False spares the per-frame check (the usual rig)."""
    arm = rig.armature
    ad = arm.animation_data
    if ad is not None and (len(ad.nla_tracks) or ad.use_tweak_mode):
        return True
    bone = arm.data.bones[rig.bone_names[0]].parent
    while bone is not None:
        pb = arm.pose.bones[bone.name]
        scaled = _max_off([float(v) for v in pb.scale], 1.0) > REST_TOLERANCE
        if scaled or _path_animated(arm, f"{_prefix(bone.name)}.scale") or any(not c.mute for c in pb.constraints):
            return True
        bone = bone.parent
    return False


def check_parent_scale(rig: ChainRig, armature: np.ndarray, parent: np.ndarray | None,
                       frames: np.ndarray) -> None:
    """Refuse a parent scale the chain does not inherit as the plain matrix product the solve assumes.

    A uniformly scaled parent scales the whole shoulder space, which the solve models. Frames whose matrices
    are not finite are not looked at; a parent that cannot scale (no scale, animation, constraint or NLA) is
    not sampled at all.

    Args:
        armature: (N, 4, 4) world matrices of the armature object, per frame.
        parent: (N, 4, 4) world matrices of the upper bone's parent, or None (nothing to check).
        frames: the N frames, for the message.

    Raises:
        ChainError: any scale off 1 when the upper bone does not inherit scale (None, None (Legacy)); a
            non-uniform or sheared scale when a chain bone inherits scale other than Full. The message names
            the first such frame and its scale.
    """
    if parent is None or not _parent_may_scale(rig):
        return
    m = _to_armature(armature, parent)[:, :3, :3]
    gram = np.einsum("nki,nkj->nij", m, m)
    finite = np.isfinite(gram.reshape(len(gram), -1)).all(axis=1)
    if not finite.any():
        return
    gram = gram[finite]
    scale = np.sqrt(np.einsum("nii->ni", gram))
    frame_of = np.asarray(frames)[finite]
    bones = rig.armature.data.bones
    upper = bones[rig.bone_names[0]]

    def described(i: int) -> tuple[str, str]:
        return "(" + ", ".join(f"{v:.4g}" for v in scale[i]) + ")", f"{float(frame_of[i]):g}"

    if upper.inherit_scale in ("NONE", "NONE_LEGACY"):
        off = np.flatnonzero(np.abs(scale - 1.0).max(axis=1) > UNIFORM_TOLERANCE)
        if len(off):
            value, frame = described(int(off[0]))
            raise ChainError(say(msg.PARENT_SCALE_NOT_INHERITED, label=rig.label, bone=upper.name,
                                 mode=upper.inherit_scale, parent=rig.parent_name, scale=value, frame=frame))
        return
    mean = scale.mean(axis=1, keepdims=True)
    shear = np.abs(gram - np.einsum("ni,ij->nij", scale ** 2, np.eye(3))).max(axis=(1, 2))
    uneven = (np.abs(scale - mean).max(axis=1) > UNIFORM_TOLERANCE * mean[:, 0]) | (
        shear > UNIFORM_TOLERANCE * mean[:, 0] ** 2)
    if not uneven.any():
        return
    for name in rig.bone_names:
        mode = bones[name].inherit_scale
        if mode != "FULL":
            value, frame = described(int(np.argmax(uneven)))
            raise ChainError(say(msg.PARENT_SCALE_NON_UNIFORM, label=rig.label, parent=rig.parent_name,
                                 scale=value, frame=frame, bone=name, mode=mode))
