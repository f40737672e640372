"""Sample animated transforms over a frame range, exactly, without moving the user's frame.

Public API:

- :func:`sample_world_matrices` ``(context, requests, frames, *, method="AUTO") -> (len(requests), N, 4, 4)``.
  A request is ``(obj, None)`` (the object's ``matrix_world``), ``(obj, bone_name)`` (the pose bone's world
  matrix ``obj.matrix_world @ pose_bone.matrix``) or ``(obj, bone_name, "ARMATURE")`` (the armature-space
  ``pose_bone.matrix``); ``"WORLD"`` as third item is the default. ``frames``: any sequence of frame numbers
  (subframes allowed). Values are float64 copies of Blender's float32 matrices; non-finite values come back
  as they are.
- :func:`fcurve_only_reason` ``(obj, bones=()) -> str | None``: why an object (and the listed bones) cannot take
  the F-curve path, or ``None`` when it can.
- :func:`stepped_objects` ``(context, requests) -> {name: reason}``: what ``AUTO`` would step a scene for.
- :func:`iter_world_matrices` ``(context, requests, frames, *, block)``: the same in blocks of frames, F-curves
  sampled once (a long range without holding all its matrices); :func:`iter_pose_bases` gives pose bones'
  ``matrix_basis`` from F-curves the same way.

Three strategies, chosen per request (``method="AUTO"``):

1. **F-curves** (exact, ~0.2 µs per frame and channel): world and pose matrices are composed from the
   channels the F-curves give (current values for unanimated ones) with :func:`solver.spaces.compose_matrices`
   and the rest matrices: an object is ``parent @ matrix_parent_inverse @ basis`` through object and bone
   parents (a bone parent hangs from the posed tail), a pose bone ``parent pose @ rest offset @ basis`` (a
   connected bone's location ignored), a plain Child Of (every channel, influence 1, world spaces) ``target @
   inverse_matrix @ own``. That is Blender's evaluation when: no object on the way has other acting
   constraints, rigid body, delta transforms, NLA, blended actions or drivers on its transform; the requested
   bones and their ancestors have no acting constraints, are not in another bone's IK / Spline IK chain, have
   no drivers, inherit their parent's full transform and use local location; the armature data is not
   animated and shows its pose; the scene does not remap time (see :func:`fcurve_only_reason`). Channels are
   read straight from the keys when every segment is linear or constant (no modifiers, constant
   extrapolation), else sampled from a temporary copy of the curve (of its whole action when it has modifiers)
   with ``convert_to_samples``, which includes modifiers and extrapolation; anything unanimated is one row.
2. **Temporary scene** (exact, a few µs per frame whatever else the file holds): a scene that links only the
   requested objects (their parents and constraint targets are evaluated as dependencies), stepped with
   ``frame_set`` and read through its own depsgraph.

3. **User's scene** (exact, as slow as ``frame_set``): for rigid bodies (or children of one), whose motion is a
   simulation of the user's scene; it is stepped and its frame restored.

``method="FCURVES"``, ``"SCENE"`` or ``"USER"`` forces one strategy (``FCURVES`` raises ``ValueError`` for an ineligible
request). Nothing is left behind: the temporary scene and action copies are removed (also on error). The
temporary depsgraph writes animated values back to the original objects, like any frame change, so afterwards
the user's scene is re-evaluated at its own frame (``frame_set`` to the current frame and subframe): unkeyed
edits of animated channels of the sampled objects are reset, exactly as a frame change would.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Generator, Iterable, Sequence
from typing import Any

import bpy
import numpy as np

from ..solver.rotations import rotation_property
from ..solver.spaces import compose_matrices, invert_matrices
from . import anim_keys

KINDS = ("WORLD", "ARMATURE")
# Handlers (list name, function) that must not run for the frames sampling steps: the live preview's, which
# live_preview.register() lists here. They are taken out of bpy.app.handlers while stepping, since calling them
# on every stepped frame costs about as much as Blender's own evaluation of a small scene.
quiet_handlers: list[tuple[str, Any]] = []
METHODS = ("AUTO", "FCURVES", "SCENE", "USER")
_TRANSFORM_PATHS = {
    "location": 3,
    "rotation_euler": 3,
    "rotation_quaternion": 4,
    "rotation_axis_angle": 4,
    "scale": 3,
}
_BONE_PREFIX = 'pose.bones["'


def action_fcurves(id_block: Any) -> list[Any] | None:
    """F-curves ``id_block`` plays from its action (through its slot on 4.4+), read with :mod:`anim_keys`.

    Returns ``[]`` without an action, ``None`` when the action cannot be read as one plain set of F-curves
    (several layers or strips blend).
    """
    ad = id_block.animation_data
    action = ad.action if ad is not None else None
    if action is None:
        return []
    if anim_keys.LAYERED_ACTIONS and (len(action.layers) > 1 or any(len(layer.strips) > 1 for layer in action.layers)):
        return None
    return list(anim_keys.iter_fcurves(id_block))


def _live(fcurve: Any) -> bool:
    """Whether the animation system applies this F-curve (not muted, valid path, not empty)."""
    if fcurve.mute or not fcurve.is_valid:
        return False
    if fcurve.group is not None and fcurve.group.mute:
        return False
    return len(fcurve.keyframe_points) > 0 or len(fcurve.modifiers) > 0


def _bone_of_path(path: str) -> str | None:
    if not path.startswith(_BONE_PREFIX):
        return None
    end = path.find('"]', len(_BONE_PREFIX))
    return None if end < 0 else path[len(_BONE_PREFIX) : end].replace('\\"', '"').replace("\\\\", "\\")


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


def _acting(constraints: Any) -> list[Any]:
    return [con for con in constraints if not con.mute]


def _pose_reason(obj: Any, relevant: set[str]) -> str | None:
    """Why the pose matrices of the ``relevant`` bones (requested bones and their ancestors) are not a product
    of rest matrices and F-curve channels, or ``None``."""
    if obj.data.pose_position != "POSE":
        return "shows its rest position"
    for name in sorted(relevant):
        bone = obj.data.bones[name]
        if _acting(obj.pose.bones[name].constraints):
            return f'bone "{name}" has constraints'
        if not bone.use_local_location or (bone.parent is not None and (
                not bone.use_inherit_rotation or bone.inherit_scale != "FULL")):
            return f'bone "{name}" does not inherit its parent\'s full transform'
    for pb in obj.pose.bones:
        for con in _acting(pb.constraints):
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


def _child_of_reason(con: Any, seen: frozenset[str]) -> str | None:
    """Why an object constraint is not a plain Child Of that is composed as ``target @ inverse @ own``."""
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
    reason = fcurve_only_reason(target, [con.subtarget] if con.subtarget else [], _seen=seen)
    return None if reason is None else f'its Child Of target "{target.name}" {reason}'


def fcurve_only_reason(obj: Any, bones: Sequence[str] = (), *, _seen: frozenset[str] = frozenset()) -> str | None:
    """Why ``obj`` (and pose bones ``bones`` of it) cannot be sampled from F-curves; ``None`` if they can."""
    if obj.parent is not None:
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
                                    _seen=_seen | {obj.name})
        if reason is not None:
            return f'its parent "{obj.parent.name}" {reason}'
    for con in _acting(obj.constraints):
        reason = _child_of_reason(con, _seen | {obj.name})
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
        bone = _bone_of_path(fc.data_path)
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
    for fc in fcurves:
        if not _live(fc):
            continue
        path = fc.data_path
        if path in _TRANSFORM_PATHS or path.startswith("[") or (obj.type == "ARMATURE" and _bone_of_path(path)):
            # Bone channels are composed from F-curves too; other bone properties leave pose matrices as they are.
            continue
        return f"animates {path}"
    return None


def _parse_requests(requests: Sequence[Sequence[Any]]) -> list[tuple[Any, str | None, str]]:
    parsed = []
    for req in requests:
        obj, bone = req[0], req[1]
        kind = req[2] if len(req) > 2 else "WORLD"
        if kind not in KINDS:
            raise ValueError(f"request kind must be one of {KINDS}, got {kind!r}")
        if kind == "ARMATURE" and not bone:
            raise ValueError("an ARMATURE-space request needs a bone name")
        if bone and (obj.type != "ARMATURE" or obj.pose.bones.get(bone) is None):
            raise ValueError(f'"{obj.name}" has no pose bone "{bone}"')
        parsed.append((obj, bone or None, kind))
    return parsed


def sample_world_matrices(
    context: Any, requests: Sequence[Sequence[Any]], frames: Sequence[float] | np.ndarray, *, method: str = "AUTO"
) -> np.ndarray:
    """Matrices ``(len(requests), N, 4, 4)`` of each request at each frame (see the module docstring)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    frames_arr = np.asarray(frames, dtype=np.float64).reshape(-1)
    parsed = _parse_requests(requests)
    out = np.empty((len(parsed), frames_arr.size, 4, 4))
    if not parsed or frames_arr.size == 0:
        return out

    fast, user, _reasons = _choose(context, parsed, method)
    fast_idx = [i for i, (obj, _b, _k) in enumerate(parsed) if obj in fast]
    user_idx = [i for i, (obj, _b, _k) in enumerate(parsed) if obj in user]
    slow_idx = [i for i, (obj, _b, _k) in enumerate(parsed) if obj not in fast and obj not in user]
    if fast_idx:
        _sample_fcurves([parsed[i] for i in fast_idx], frames_arr, out, fast_idx)
    if slow_idx:
        _sample_temp_scene(context, [parsed[i] for i in slow_idx], frames_arr, out, slow_idx)
    if user_idx:
        _sample_user_scene(context, [parsed[i] for i in user_idx], frames_arr, out, user_idx)
    return out


def _choose(
    context: Any, parsed: list[tuple[Any, str | None, str]], method: str
) -> tuple[set[Any], set[Any], dict[Any, str]]:
    """(objects composed from F-curves, objects stepped in the user's scene, why each other one is stepped)."""
    bones_of: dict[Any, set[str]] = {}
    for obj, bone, _kind in parsed:
        bones_of.setdefault(obj, set())
        if bone:
            bones_of[obj].add(bone)
    fast: set[Any] = set()
    reasons: dict[Any, str] = {}
    remapped = context.scene.render.frame_map_old != context.scene.render.frame_map_new
    for obj, bones in bones_of.items():
        if method not in ("AUTO", "FCURVES"):
            reasons[obj] = f"method {method}"
            continue
        reason = "the scene remaps time" if remapped else fcurve_only_reason(obj, sorted(bones))
        if reason is None:
            fast.add(obj)
        elif method == "FCURVES":
            raise ValueError(f'"{obj.name}" cannot be sampled from F-curves: {reason}')
        else:
            reasons[obj] = reason
    # Simulations (rigid bodies) are evaluated by the user's scene only: step that one for them.
    user = {obj for obj in bones_of if method == "USER" or (method == "AUTO" and _simulated(obj))}
    fast -= user
    return fast, user, reasons


def stepped_objects(context: Any, requests: Sequence[Sequence[Any]]) -> dict[str, str]:
    """Objects :func:`sample_world_matrices` (``AUTO``) would step a scene for, by name, with the reason they are
    not composed from F-curves; empty when everything is read from F-curves."""
    _fast, _user, reasons = _choose(context, _parse_requests(requests), "AUTO")
    return {obj.name: reason for obj, reason in reasons.items()}


def _simulated(obj: Any) -> bool:
    """Whether ``obj`` or an ancestor is a rigid body (its motion comes from the scene's simulation)."""
    while obj is not None:
        if getattr(obj, "rigid_body", None) is not None:
            return True
        obj = obj.parent
    return False


# --- F-curve path ------------------------------------------------------------------------------------------


# Keys in an action above which its curves are copied one at a time for sampling rather than all at once.
LARGE_ACTION_KEYS = 200_000


class _ChannelSampler:
    """Samples F-curves at the requested frames; integer frames through temporary action copies."""

    def __init__(self, frames: np.ndarray) -> None:
        self.frames = frames
        self.integral = bool(np.all(np.isfinite(frames)) and np.all(frames == np.round(frames)))
        self.copies: dict[Any, Any] = {}
        self.scratch: tuple[Any, Any] | None = None  # (action, F-curve owner) holding one curve copy at a time
        self.large: dict[Any, bool] = {}
        self.cache: dict[int, np.ndarray] = {}
        self.fcurves: dict[Any, dict[str, list[Any]]] = {}

    def live_fcurves(self, obj: Any) -> dict[str, list[Any]]:
        """The F-curves the animation system applies to ``obj``, by data path."""
        if obj not in self.fcurves:
            by_path: dict[str, list[Any]] = {}
            for fc in action_fcurves(obj) or []:
                if _live(fc):
                    by_path.setdefault(fc.data_path, []).append(fc)
            self.fcurves[obj] = by_path
        return self.fcurves[obj]

    def values(self, anim_data: Any, fcurve: Any) -> np.ndarray:
        """:meth:`sample`, once per F-curve."""
        key = fcurve.as_pointer()
        if key not in self.cache:
            # Kept as float32, what keys and Blender's evaluation hold anyway: half the memory of a long range.
            self.cache[key] = self.sample(anim_data, fcurve).astype(np.float32)
        return self.cache[key]

    def _copy_fcurve(self, anim_data: Any, fcurve: Any) -> Any:
        action = anim_data.action
        copy = self.copies.get(action)
        if copy is None:
            copy = action.copy()
            self.copies[action] = copy
        if anim_keys.LAYERED_ACTIONS and not getattr(copy, "is_action_legacy", False):
            for layer in copy.layers:
                for strip in layer.strips:
                    for bag in strip.channelbags:
                        if bag.slot_handle == anim_data.action_slot.handle:
                            found = bag.fcurves.find(fcurve.data_path, index=fcurve.array_index)
                            if found is not None:
                                return found
            raise RuntimeError(f"F-curve {fcurve.data_path}[{fcurve.array_index}] missing in the action copy")
        return copy.fcurves.find(fcurve.data_path, index=fcurve.array_index)

    def sample(self, anim_data: Any, fcurve: Any) -> np.ndarray:
        if not self.integral:
            return np.array(
                [fcurve.evaluate(f) if math.isfinite(f) else math.nan for f in self.frames.tolist()],
                dtype=np.float64,
            )
        piecewise = _piecewise_linear(fcurve, self.frames)
        if piecewise is not None:
            return piecewise
        start = int(self.frames.min())
        end = int(self.frames.max())
        # In a large action a curve without modifiers is copied alone: a copy of the whole action would hold a
        # second copy of every curve in it at once (a long bake's dense curves, tens of MB). A small action is
        # copied whole, once: that is faster than copying its curves key by key.
        single = len(fcurve.modifiers) == 0 and self._large(anim_data.action)
        fc = self._scratch_fcurve(fcurve) if single else self._copy_fcurve(anim_data, fcurve)
        try:
            fc.convert_to_samples(start, end + 1)  # end is exclusive
            co = np.empty(2 * len(fc.sampled_points), dtype=np.float32)
            fc.sampled_points.foreach_get("co", co)
        finally:
            if single and self.scratch is not None:
                self.scratch[1].fcurves.remove(fc)
        values = co[1::2].astype(np.float64)
        return values[(self.frames - start).astype(np.int64)]

    def _large(self, action: Any) -> bool:
        if action not in self.large:
            if anim_keys.LAYERED_ACTIONS and not getattr(action, "is_action_legacy", False):
                curves = [fc for layer in action.layers for strip in layer.strips for bag in strip.channelbags
                          for fc in bag.fcurves]
            else:
                curves = list(action.fcurves)
            self.large[action] = sum(len(fc.keyframe_points) for fc in curves) > LARGE_ACTION_KEYS
        return self.large[action]

    def _scratch_fcurve(self, fcurve: Any) -> Any:
        if self.scratch is None:
            action = bpy.data.actions.new(".soft_ik_sampling")
            owner: Any = action
            if anim_keys.LAYERED_ACTIONS:
                slot = action.slots.new(id_type="OBJECT", name="sampling")
                owner = action.layers.new("sampling").strips.new(type="KEYFRAME").channelbag(slot, ensure=True)
            self.scratch = (action, owner)
        copy = self.scratch[1].fcurves.new(fcurve.data_path, index=fcurve.array_index)
        anim_keys.copy_keys(fcurve, copy)
        return copy

    def close(self) -> None:
        for copy in self.copies.values():
            bpy.data.actions.remove(copy)
        self.copies.clear()
        if self.scratch is not None:
            bpy.data.actions.remove(self.scratch[0])
            self.scratch = None


def _piecewise_linear(fcurve: Any, frames: np.ndarray) -> np.ndarray | None:
    """``fcurve`` at integer ``frames`` straight from its keys when every segment is linear or constant, it has
    no modifiers and constant extrapolation (a bake's own curves): no copy, no Blender call per frame. None when
    the curve is anything else."""
    if len(fcurve.modifiers) or fcurve.extrapolation != "CONSTANT" or len(fcurve.keyframe_points) == 0:
        return None
    co = anim_keys.read_keys_attribute(fcurve, "co").astype(np.float64)
    x, y = co[:, 0], co[:, 1]
    if len(x) == 1:
        return np.full(frames.shape, y[0])
    interpolation = anim_keys.read_keys_attribute(fcurve, "interpolation")[:-1]  # the last key's is unused
    linear, constant = _interpolation_ids()
    held = interpolation == constant
    if not (held | (interpolation == linear)).all() or not (np.diff(x) > 0).all():
        return None
    values = np.interp(frames, x, y)
    if held.any():
        # A constant segment holds its first key's value up to (not including) the next key.
        segment = np.searchsorted(x, frames, side="right") - 1
        inside = (segment >= 0) & (segment < len(held))
        step = np.zeros(frames.shape, dtype=bool)
        step[inside] = held[segment[inside]]
        values = np.where(step, y[np.clip(segment, 0, len(x) - 1)], values)
    # Blender interpolates in float32: so does this, within its rounding.
    return values.astype(np.float32).astype(np.float64)


def _interpolation_ids() -> tuple[int, int]:
    """RNA values of the LINEAR and CONSTANT key interpolations."""
    items = bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items
    return int(items["LINEAR"].value), int(items["CONSTANT"].value)


def _channel_values(sampler: _ChannelSampler, block: slice, id_block: Any, owner: Any, prefix: str,
                    known: dict[int, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """``location``, the rotation property of its mode and ``scale`` of an object or pose bone ``owner`` of
    ``id_block`` (each (N, k), or (1, k) when nothing of it is animated) from the object's F-curves, current
    values elsewhere; ``prefix`` is the owner's data path prefix (``""`` or ``'pose.bones["name"].'``);
    ``block``: the frames wanted. ``known`` (F-curve pointer -> values at every frame of the sampler's) stands
    in for reading a curve whose values at those frames are known exactly (a bake's own, just written)."""
    fcurves = sampler.live_fcurves(id_block)
    rot_path, _size = rotation_property(owner.rotation_mode)
    n = len(range(*block.indices(sampler.frames.size)))
    channels = {}
    for prop in ("location", rot_path, "scale"):
        # A channel without F-curves stays one row: compose_matrices broadcasts it (no per-frame rotation math
        # for a constant rotation).
        live = fcurves.get(prefix + prop, ())
        values = np.tile(np.array(getattr(owner, prop), dtype=np.float64), (n if live else 1, 1))
        for fc in live:
            if fc.array_index < values.shape[1]:
                given = None if known is None or len(fc.modifiers) else known.get(fc.as_pointer())
                values[:, fc.array_index] = (sampler.values(id_block.animation_data, fc) if given is None
                                             else given)[block]
        channels[prop] = values
    return channels


def _channels(sampler: _ChannelSampler, block: slice, id_block: Any, owner: Any, prefix: str) -> np.ndarray:
    """``matrix_basis`` of an object or pose bone ``owner`` ((N, 4, 4), or (1, 4, 4) when nothing of it is
    animated), see :func:`_channel_values`."""
    mode = owner.rotation_mode
    channels = _channel_values(sampler, block, id_block, owner, prefix)
    return compose_matrices(channels["location"], channels[rotation_property(mode)[0]], channels["scale"], mode)


class _Composer:
    """World matrices of objects and pose bones composed from F-curves (see :func:`fcurve_only_reason` for
    when that is exact), over the frames ``block`` of the sampler's. Each object's and bone's matrices are
    computed once; unanimated ones are one row."""

    def __init__(self, sampler: _ChannelSampler, block: slice) -> None:
        self.sampler = sampler
        self.block = block
        self.world: dict[Any, np.ndarray] = {}
        self.pose: dict[tuple[Any, str], np.ndarray] = {}

    def object_world(self, obj: Any) -> np.ndarray:
        """(N or 1, 4, 4) ``matrix_world``."""
        if obj not in self.world:
            local = _channels(self.sampler, self.block, obj, obj, "")
            if obj.parent is not None:
                parent = self.object_world(obj.parent)
                if obj.parent_type == "BONE":
                    # Blender parents to the bone's tail: its pose matrix moved to the posed tail.
                    tail = np.array(self.bone_pose(obj.parent, obj.parent_bone))
                    length = obj.parent.data.bones[obj.parent_bone].length
                    tail[:, :3, 3] += length * tail[:, :3, 1]
                    parent = parent @ tail
                local = parent @ (np.array(obj.matrix_parent_inverse, dtype=np.float64) @ local)
            for con in _acting(obj.constraints):  # plain Child Of only (fcurve_only_reason)
                target = self.object_world(con.target)
                if con.subtarget:
                    target = target @ self.bone_pose(con.target, con.subtarget)
                local = target @ (np.array(con.inverse_matrix, dtype=np.float64) @ local)
            self.world[obj] = local
        return self.world[obj]

    def bone_pose(self, obj: Any, name: str) -> np.ndarray:
        """(N or 1, 4, 4) armature-space ``pose_bone.matrix``: parent pose @ rest offset @ basis."""
        key = (obj, name)
        if key not in self.pose:
            bone = obj.data.bones[name]
            pb = obj.pose.bones[name]
            prefix = f'pose.bones["{bpy.utils.escape_identifier(name)}"].'
            basis = _channels(self.sampler, self.block, obj, pb, prefix)
            if bone.use_connect:
                basis[:, :3, 3] = 0.0  # a connected bone's location channel is ignored
            rest = np.array(bone.matrix_local, dtype=np.float64)
            if bone.parent is None:
                pose = rest @ basis
            else:
                # Closed-form inverse: LAPACK's costs milliseconds per call on a busy machine (thread start-up).
                offset = invert_matrices(np.array(bone.parent.matrix_local, dtype=np.float64)[None])[0] @ rest
                # Parent first: an unanimated parent is one row, so only one product per frame remains.
                pose = (self.bone_pose(obj, bone.parent.name) @ offset) @ basis
            self.pose[key] = pose
        return self.pose[key]


# Frames composed at a time: the matrix products' temporaries stay a few MB however long the range is.
COMPOSE_BLOCK = 8192


def _sample_fcurves(
    requests: list[tuple[Any, str | None, str]], frames: np.ndarray, out: np.ndarray, idx: list[int]
) -> None:
    sampler = _ChannelSampler(frames)
    try:
        for first in range(0, frames.size, COMPOSE_BLOCK):
            block = slice(first, first + COMPOSE_BLOCK)
            composer = _Composer(sampler, block)
            for (obj, bone, kind), i in zip(requests, idx, strict=True):
                _compose_request(composer, obj, bone, kind, out[i, block])
    finally:
        sampler.close()


def _compose_request(composer: Any, obj: Any, bone: str | None, kind: str, out: np.ndarray) -> None:
    """Write one request's matrices for the composer's block into ``out``: the object's world matrix, a pose
    bone's armature-space matrix (``ARMATURE``) or its world matrix."""
    if bone is None:
        out[...] = composer.object_world(obj)
    elif kind == "ARMATURE":
        out[...] = composer.bone_pose(obj, bone)
    else:
        np.matmul(composer.object_world(obj), composer.bone_pose(obj, bone), out=out)


def iter_world_matrices(
    context: Any, requests: Sequence[Sequence[Any]], frames: Sequence[float] | np.ndarray, *,
    block: int = COMPOSE_BLOCK,
) -> Generator[tuple[slice, np.ndarray], None, None]:
    """:func:`sample_world_matrices` (``AUTO``) in blocks of ``block`` frames: yields ``(rows, matrices)``,
    ``matrices`` of shape ``(len(requests), len(frames[rows]), 4, 4)``. F-curves are sampled once for all the
    blocks, so a long range costs what one call costs while only one block of matrices is held at a time;
    stepped requests are stepped block by block. Consume it to the end (or close it) so copies are removed."""
    frames_arr = np.asarray(frames, dtype=np.float64).reshape(-1)
    parsed = _parse_requests(requests)
    fast, _user, _reasons = _choose(context, parsed, "AUTO")
    fast_idx = [i for i, (obj, _b, _k) in enumerate(parsed) if obj in fast]
    other_idx = [i for i in range(len(parsed)) if i not in fast_idx]
    sampler = _ChannelSampler(frames_arr) if fast_idx else None
    try:
        for first in range(0, frames_arr.size, block):
            rows = slice(first, min(first + block, frames_arr.size))
            out = np.empty((len(parsed), rows.stop - rows.start, 4, 4))
            if sampler is not None:
                for sub in range(rows.start, rows.stop, COMPOSE_BLOCK):
                    part = slice(sub, min(sub + COMPOSE_BLOCK, rows.stop))
                    local = slice(part.start - rows.start, part.stop - rows.start)
                    composer = _Composer(sampler, part)
                    for i in fast_idx:
                        _compose_request(composer, *parsed[i], out[i, local])
            if other_idx:
                out[other_idx] = sample_world_matrices(context, [requests[i] for i in other_idx], frames_arr[rows])
            yield rows, out
    finally:
        if sampler is not None:
            sampler.close()


def iter_pose_bases(
    obj: Any, bones: Sequence[str], frames: Sequence[float] | np.ndarray, *, block: int = COMPOSE_BLOCK,
) -> Generator[tuple[slice, dict[str, np.ndarray]], None, None]:
    """``matrix_basis`` of pose bones ``bones`` of ``obj`` from its F-curves (current values where unanimated),
    in blocks of frames: yields ``(rows, {bone: (len(frames[rows]) or 1, 4, 4)})``. Exact for what
    :func:`fcurve_only_reason` lets through. Consume it to the end (or close it) so copies are removed."""
    with contextlib.closing(iter_pose_channels(obj, bones, frames, block=block)) as blocks:
        for rows, channels in blocks:
            yield rows, {name: compose_matrices(ch["location"], ch[rotation_property(mode)[0]], ch["scale"], mode)
                         for name, (mode, ch) in channels.items()}


def iter_pose_channels(
    obj: Any, bones: Sequence[str], frames: Sequence[float] | np.ndarray, *, block: int = COMPOSE_BLOCK,
    known: dict[int, np.ndarray] | None = None,
) -> Generator[tuple[slice, dict[str, tuple[str, dict[str, np.ndarray]]]], None, None]:
    """The channels behind :func:`iter_pose_bases`: yields ``(rows, {bone: (rotation_mode, {"location",
    rotation property, "scale": (len(frames[rows]) or 1, k)})})``. ``known``: F-curve pointer -> float32
    values at every one of ``frames``, used instead of reading that curve (when it has no modifiers)."""
    frames_arr = np.asarray(frames, dtype=np.float64).reshape(-1)
    sampler = _ChannelSampler(frames_arr)
    prefixes = {name: f'pose.bones["{bpy.utils.escape_identifier(name)}"].' for name in bones}
    try:
        for first in range(0, frames_arr.size, block):
            rows = slice(first, min(first + block, frames_arr.size))
            out = {}
            for name in bones:
                pb = obj.pose.bones[name]
                out[name] = (pb.rotation_mode, _channel_values(sampler, rows, obj, pb, prefixes[name], known))
            yield rows, out
    finally:
        sampler.close()


# --- temporary scene path ----------------------------------------------------------------------------------


def _step_and_read(
    step: Any,
    depsgraph: Any,
    requests: list[tuple[Any, str | None, str]],
    frames: np.ndarray,
    out: np.ndarray,
    idx: list[int],
) -> None:
    """Call ``step(frame, subframe)`` for each frame and read the requests from ``depsgraph``."""
    objects = list(dict.fromkeys(obj for obj, _b, _k in requests))
    removed = [(name, func) for name, func in quiet_handlers if func in getattr(bpy.app.handlers, name)]
    for name, func in removed:
        getattr(bpy.app.handlers, name).remove(func)
    try:
        _step_frames(step, depsgraph, requests, frames, out, idx, objects)
    finally:
        for name, func in removed:
            getattr(bpy.app.handlers, name).append(func)


def _step_frames(
    step: Any,
    depsgraph: Any,
    requests: list[tuple[Any, str | None, str]],
    frames: np.ndarray,
    out: np.ndarray,
    idx: list[int],
    objects: list[Any],
) -> None:
    # Evaluated copies are updated in place by each frame change: look them up once.
    evaluated = {obj: obj.evaluated_get(depsgraph) for obj in objects}
    for f_i, frame in enumerate(frames.tolist()):
        if not math.isfinite(frame):
            out[idx, f_i] = np.nan
            continue
        whole = math.floor(frame)
        step(whole, frame - whole)
        for (obj, bone, kind), i in zip(requests, idx, strict=True):
            ev = evaluated[obj]
            if bone is None:
                out[i, f_i] = ev.matrix_world
            elif kind == "ARMATURE":
                out[i, f_i] = ev.pose.bones[bone].matrix
            else:
                # Multiply in float64: mathutils would round the product to float32.
                out[i, f_i] = np.array(ev.matrix_world) @ np.array(ev.pose.bones[bone].matrix)


def _sample_temp_scene(
    context: Any, requests: list[tuple[Any, str | None, str]], frames: np.ndarray, out: np.ndarray, idx: list[int]
) -> None:
    scene = context.scene
    user_frame, user_subframe = scene.frame_current, scene.frame_subframe
    tmp = bpy.data.scenes.new(".soft_ik_sampling")
    try:
        tmp.render.fps = scene.render.fps
        tmp.render.fps_base = scene.render.fps_base
        tmp.render.frame_map_old = scene.render.frame_map_old
        tmp.render.frame_map_new = scene.render.frame_map_new
        for obj in dict.fromkeys(obj for obj, _b, _k in requests):
            tmp.collection.objects.link(obj)
        with context.temp_override(scene=tmp, view_layer=tmp.view_layers[0]):
            depsgraph = context.evaluated_depsgraph_get()
        _step_and_read(lambda f, sub: tmp.frame_set(f, subframe=sub), depsgraph, requests, frames, out, idx)
    finally:
        bpy.data.scenes.remove(tmp)
        # The temporary depsgraph flushed its last frame into the original objects: re-evaluate the user's.
        scene.frame_set(user_frame, subframe=user_subframe)


def _sample_user_scene(
    context: Any, requests: list[tuple[Any, str | None, str]], frames: np.ndarray, out: np.ndarray, idx: list[int]
) -> None:
    """Step the user's own scene (simulations such as rigid bodies live there), then restore its frame."""
    scene = context.scene
    user_frame, user_subframe = scene.frame_current, scene.frame_subframe
    try:
        depsgraph = context.evaluated_depsgraph_get()
        _step_and_read(lambda f, sub: scene.frame_set(f, subframe=sub), depsgraph, requests, frames, out, idx)
    finally:
        scene.frame_set(user_frame, subframe=user_subframe)
