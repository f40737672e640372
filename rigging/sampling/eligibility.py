"""Which objects and pose bones sampling may compose from their F-curves (and why not, by name).

:func:`fcurve_only_reason` lists what Blender's evaluation adds to a product of rest matrices and F-curve
channels (constraints, drivers, NLA, blended actions, delta transforms, rigid bodies, inheritance settings, IK
chains, animated armature data, a rest position); anything it lets through is composed exactly by
:mod:`.fcurves` (an object's transform drivers of the frame and of F-curve channels included, :mod:`.drivers`),
the rest is
stepped (:mod:`.stepping`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .. import anim_keys
from .drivers import frame_driver_reason, variable_channel

_TRANSFORM_PATHS = {
    "location": 3,
    "rotation_euler": 3,
    "rotation_quaternion": 4,
    "rotation_axis_angle": 4,
    "scale": 3,
}


def action_fcurves(id_block: Any) -> list[Any] | None:
    """F-curves ``id_block`` plays from its action (through its slot on 4.4+), read with :mod:`anim_keys`.

    Returns ``[]`` without an action, ``None`` when the action cannot be read as one plain set of F-curves
    (several layers or strips blend).
    """
    ad = id_block.animation_data
    action = ad.action if ad is not None else None
    if action is None:
        return []
    if anim_keys.blends_layers(action):
        return None
    return list(anim_keys.iter_fcurves(id_block))


def live(fcurve: Any) -> bool:
    """Whether the animation system applies this F-curve (not muted, valid path, not empty)."""
    if fcurve.mute or not fcurve.is_valid:
        return False
    if fcurve.group is not None and fcurve.group.mute:
        return False
    return len(fcurve.keyframe_points) > 0 or len(fcurve.modifiers) > 0


def _ancestors(obj: Any, bones: Iterable[str]) -> set[str]:
    out: set[str] = set()
    for name in bones:
        bone = obj.data.bones.get(name)
        while bone is not None:
            out.add(bone.name)
            bone = bone.parent
    return out


def _identity_deltas(obj: Any) -> bool:
    return (
        tuple(obj.delta_location) == (0.0, 0.0, 0.0)
        and tuple(obj.delta_rotation_euler) == (0.0, 0.0, 0.0)
        and tuple(obj.delta_rotation_quaternion) == (1.0, 0.0, 0.0, 0.0)
        and tuple(obj.delta_scale) == (1.0, 1.0, 1.0)
    )


def acting(constraints: Any) -> list[Any]:
    """The constraints that are not muted."""
    return [con for con in constraints if not con.mute]


def _pose_reason(obj: Any, relevant: set[str]) -> str | None:
    """Why the pose matrices of the ``relevant`` bones (requested bones and their ancestors) are not a product
    of rest matrices and F-curve channels, or ``None``."""
    if obj.data.pose_position != "POSE":
        return "shows its rest position"
    for name in sorted(relevant):
        bone = obj.data.bones[name]
        if acting(obj.pose.bones[name].constraints):
            return f'bone "{name}" has constraints'
        if not bone.use_local_location or (bone.parent is not None and (
                not bone.use_inherit_rotation or bone.inherit_scale != "FULL")):
            return f'bone "{name}" does not inherit its parent\'s full transform'
    for pb in obj.pose.bones:
        for con in acting(pb.constraints):
            if con.type not in ("IK", "SPLINE_IK"):
                continue
            # The solved chain: chain_count bones (0: all) up from the constrained bone, or from its parent
            # when the IK constraint does not use the bone's tail.
            bone = pb.bone if getattr(con, "use_tail", True) else pb.bone.parent
            count = 0
            while bone is not None and (con.chain_count == 0 or count < con.chain_count):
                if bone.name in relevant:
                    return f'bone "{bone.name}" is moved by the {con.type.replace("_", " ")} constraint of "{pb.name}"'
                bone, count = bone.parent, count + 1
    data_ad = obj.data.animation_data
    if data_ad is not None and (data_ad.action is not None or len(data_ad.drivers) or len(data_ad.nla_tracks)):
        return "its armature data is animated"
    return None


_CHILD_OF_CHANNELS = tuple(f"use_{kind}_{axis}" for kind in ("location", "rotation", "scale") for axis in "xyz")


def _child_of_reason(con: Any, seen: frozenset[str], given: frozenset[str] = frozenset()) -> str | None:
    """Why an object constraint is not a plain Child Of that is composed as ``target @ inverse @ own``
    (``given``: see :func:`fcurve_only_reason`)."""
    if con.type != "CHILD_OF":
        return "has constraints"
    if (con.influence != 1.0 or not all(getattr(con, c) for c in _CHILD_OF_CHANNELS) or con.set_inverse_pending
            or con.owner_space != "WORLD" or con.target_space != "WORLD"):
        return f'its Child Of "{con.name}" has partial channels, influence or spaces'
    target = con.target
    if target is None or not con.is_valid:
        return f'its Child Of "{con.name}" has no valid target'
    if con.subtarget and (target.type != "ARMATURE" or target.pose.bones.get(con.subtarget) is None):
        return f'its Child Of "{con.name}" follows a vertex group'
    if target.name in seen:
        return f'its Child Of "{con.name}" closes a dependency cycle'
    if target.name in given and not con.subtarget:
        return None
    reason = fcurve_only_reason(target, [con.subtarget] if con.subtarget else [], _seen=seen, given=given)
    return None if reason is None else f'its Child Of target "{target.name}" {reason}'


def _evaluable_driver(fcurve: Any, obj: Any, seen: frozenset[str]) -> bool:
    """Whether :mod:`.drivers` evaluates this transform driver of ``obj`` exactly: its expression is in the
    supported subset and every variable reads a channel that is a plain F-curve (or constant) of an object
    that is itself composable (no cycle back); a Transform Channel variable, of an object with no parent and no
    constraint."""
    if frame_driver_reason(fcurve, obj) is not None:
        return False
    for var in fcurve.driver.variables:
        channel = variable_channel(var, obj)
        if channel is None:
            return False
        target, path, _index = channel
        if target.name in seen or target.name == obj.name:
            return False
        # A Transform Channel's location is the object's own channel only without a parent or constraint.
        if var.type == "TRANSFORMS" and (target.parent is not None or acting(target.constraints)):
            return False
        if fcurve_only_reason(target, _seen=seen | {obj.name}) is not None:
            return False
        ad = target.animation_data
        # A custom property's own driver is not examined by fcurve_only_reason: refuse it here.
        if path.startswith("[") and ad is not None and any(d.data_path == path for d in ad.drivers):
            return False
    return True


def fcurve_only_reason(obj: Any, bones: Sequence[str] = (), *, _seen: frozenset[str] = frozenset(),
                       given: frozenset[str] = frozenset()) -> str | None:
    """Why ``obj`` (and pose bones ``bones`` of it) cannot be sampled from F-curves; ``None`` if they can.

    Args:
        given: names of objects whose world matrices are supplied (stepped): an object parent (parent type
            OBJECT) or a Child Of target (no subtarget) among them is taken as it is, not examined.
    """
    if obj.parent is not None and not (obj.parent_type == "OBJECT" and obj.parent.name in given):
        # Object and bone parents are composed from their own F-curves (world = parent @ parent_inverse @ basis).
        if obj.parent_type not in ("OBJECT", "BONE"):
            return f"is parented to a {obj.parent_type.lower()}"
        if obj.parent_type == "BONE":
            bone = obj.parent.data.bones.get(obj.parent_bone) if obj.parent.type == "ARMATURE" else None
            if bone is None:
                return f'its parent bone "{obj.parent_bone}" does not exist'
            if bone.use_relative_parent:
                return "uses relative bone parenting"
        reason = fcurve_only_reason(obj.parent, [obj.parent_bone] if obj.parent_type == "BONE" else [],
                                    _seen=_seen | {obj.name}, given=given)
        if reason is not None:
            return f'its parent "{obj.parent.name}" {reason}'
    for con in acting(obj.constraints):
        reason = _child_of_reason(con, _seen | {obj.name}, given)
        if reason is not None:
            return reason
    if getattr(obj, "rigid_body", None) is not None:
        return "is a rigid body"
    if not _identity_deltas(obj):
        return "has delta transforms"
    relevant = _ancestors(obj, bones) if bones else set()
    if bones:
        if obj.type != "ARMATURE":
            return "bone requested on a non-armature"
        reason = _pose_reason(obj, relevant)
        if reason is not None:
            return reason
    ad = obj.animation_data
    if ad is None:
        return None
    for fc in ad.drivers:
        bone = anim_keys.bone_of_path(fc.data_path)
        if fc.data_path in _TRANSFORM_PATHS and _evaluable_driver(fc, obj, _seen):
            continue  # a function of the frame and of F-curve channels: composed like an F-curve (see .drivers)
        # A driver elsewhere (a custom property, a bone that does not move the requested ones) changes nothing
        # sampled here.
        if fc.data_path in _TRANSFORM_PATHS or fc.data_path.startswith("delta_") or (
                bone is not None and bone in relevant):
            return f"has a driver on {fc.data_path}"
    if len(ad.nla_tracks) or ad.use_tweak_mode:
        return "uses NLA"
    if ad.action is None:
        return None
    if ad.action_influence != 1.0 or ad.action_blend_type != "REPLACE":
        return "action influence or blending"
    fcurves = action_fcurves(obj)
    if fcurves is None:
        return "layered action with several layers or strips"
    armature = obj.type == "ARMATURE"
    for fc in fcurves:
        path = fc.data_path
        # The path first: a curve of a channel that is composed anyway needs no look at whether it plays (a
        # baked crowd's hundreds of curves would cost a dozen RNA reads each).
        if path in _TRANSFORM_PATHS or path.startswith("[") or (armature and anim_keys.bone_of_path(path)):
            # Bone channels are composed from F-curves too; other bone properties leave pose matrices as they are.
            continue
        if path.startswith("soft_ik_2d."):
            continue  # the add-on's own settings (a keyed IK influence) move nothing by themselves
        if live(fc):
            return f"animates {path}"
    return None


def inputs(obj: Any) -> list[Any]:
    """The objects ``obj``'s world matrix is composed from that :func:`fcurve_only_reason` can take as given:
    its object parent (parent type OBJECT) and the targets of its acting Child Of constraints without a
    subtarget."""
    out = [obj.parent] if obj.parent is not None and obj.parent_type == "OBJECT" else []
    out += [con.target for con in acting(obj.constraints)
            if con.type == "CHILD_OF" and con.target is not None and not con.subtarget]
    return list(dict.fromkeys(out))


def simulated(obj: Any) -> bool:
    """Whether ``obj`` or an ancestor is a rigid body (its motion comes from the scene's simulation)."""
    while obj is not None:
        if getattr(obj, "rigid_body", None) is not None:
            return True
        obj = obj.parent
    return False
