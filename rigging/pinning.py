"""Pin a chain's target where it stands over a frame range (a planted foot), and unpin it exactly.

Foot sliding is a target in the wrong space: while the foot is planted it must stay put in the world, whatever
the character does, and afterwards move with its declared space again. A pin rewrites the target's own keys so
that, on frames ``start..end``, its world transform is the one it had at ``start``, then blends back to its
own motion over ``blend`` frames (:func:`solver.pinning.blend_weights`). Its parent stays as it is.

Only the keys that must change are rewritten, on every frame (linear keys: exact on every frame whatever the
parent does in between, see :mod:`target_parenting`): the pinned and blend frames, and the frames between them
and the nearest key of the channel on either side, which keep their old values (the old key's segment would
otherwise bend toward the new keys). Keys further away keep every attribute bit for bit (``anim_keys``).

Every key the pin replaces is saved on the chain's pin record (``SoftIKChain.pins``, a declared property so a
library override keeps it), so Unpin puts them back exactly.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import bpy
import numpy as np
from mathutils import Euler, Matrix, Quaternion, Vector

from ..solver import pinning
from ..solver.rotations import rotation_property
from ..solver.spaces import invert_matrices
from . import anim_keys, key_target, linked_data, sampling
from . import messages as msg
from .bake import essential_keys
from .messages import say
from .rig import ChainError, check_posed_parents
from .target_parenting import local_channel_values

GROUP = "Object Transforms"


def pin_ranges(chain: bpy.types.PropertyGroup) -> list[pinning.PinRange]:
    """``(start, end, blend frames)`` of each pin of ``chain``, in the order of ``chain.pins``."""
    return [(int(p.frame_start), int(p.frame_end), int(p.blend_frames)) for p in chain.pins]


def _channels(obj: bpy.types.Object) -> list[tuple[str, int]]:
    rot, size = rotation_property(obj.rotation_mode)
    return [("location", i) for i in range(3)] + [(rot, i) for i in range(size)] + [("scale", i) for i in range(3)]


def _static(obj: bpy.types.Object, path: str, index: int) -> float:
    return float(getattr(obj, path)[index])


def _values(obj: bpy.types.Object, path: str, index: int, frames: np.ndarray) -> np.ndarray:
    """The channel's value on each frame as Blender plays it (its F-curve, or the property when unkeyed)."""
    fc = anim_keys.find_fcurve(obj, path, index)
    if fc is None:
        return np.full(len(frames), _static(obj, path, index))
    return np.array([fc.evaluate(float(f)) for f in frames], dtype=np.float64)


def _basis(mode: str, loc: np.ndarray, rot: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``matrix_basis`` of the channel values (no deltas: they are refused)."""
    out = np.empty((len(loc), 4, 4))
    for k in range(len(loc)):
        if mode == "QUATERNION":
            r = Quaternion(rot[k].tolist()).normalized().to_matrix()
        elif mode == "AXIS_ANGLE":
            r = Matrix.Rotation(float(rot[k, 0]), 3, Vector(rot[k, 1:].tolist()).normalized())
        else:
            r = Euler(rot[k].tolist(), mode).to_matrix()
        out[k] = np.array(Matrix.LocRotScale(Vector(loc[k].tolist()), r, Vector(scale[k].tolist())))
    return out


def _has_deltas(obj: bpy.types.Object) -> bool:
    return (tuple(obj.delta_location) != (0.0, 0.0, 0.0) or tuple(obj.delta_rotation_euler) != (0.0, 0.0, 0.0)
            or tuple(obj.delta_rotation_quaternion) != (1.0, 0.0, 0.0, 0.0)
            or tuple(obj.delta_scale) != (1.0, 1.0, 1.0))


def _check_target(chain: bpy.types.PropertyGroup, target: bpy.types.Object | None) -> bpy.types.Object:
    if target is None:
        raise ChainError(say(msg.PIN_NO_TARGET, chain=chain.name))
    problem = linked_data.editing_problem(target)
    if problem is not None:
        raise ChainError(problem)
    acting = [con for con in target.constraints if not con.mute and con.influence > 0]
    if acting:
        raise ChainError(say(msg.PIN_CONSTRAINED, target=target.name, constraint=acting[0].name))
    if _has_deltas(target):
        raise ChainError(say(msg.PIN_DELTAS, target=target.name))
    key_target.check_not_shared(target)  # another object playing the same keys would be pinned too
    check_posed_parents(target)  # held still as played now: from a bone at rest, not as played in Pose Position
    anim = target.animation_data
    paths = {path for path, _i in _channels(target)}
    if anim is not None:
        for drv in anim.drivers:
            if drv.data_path in paths and not drv.mute:
                raise ChainError(say(msg.PIN_DRIVEN, target=target.name, path=f"{drv.data_path}[{drv.array_index}]"))
        if (anim.use_nla and len(anim.nla_tracks)) or anim.use_tweak_mode:
            raise ChainError(say(msg.PIN_NLA, target=target.name))
    for path, index in _channels(target):
        fc = anim_keys.find_fcurve(target, path, index)
        if fc is not None and (len(fc.modifiers) or fc.extrapolation != "CONSTANT"):
            raise ChainError(say(msg.PIN_CURVE_SHAPE, target=target.name, path=f"{path}[{index}]"))
    return target


def _held_world(world: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """World matrices held at ``world[0]``, blended toward ``world`` by ``weights`` (location and scale
    linearly, rotation by slerp)."""
    t0, q0, s0 = Matrix(world[0].tolist()).decompose()
    out = np.empty_like(world)
    for k, w in enumerate(weights):
        if w <= 0.0:
            out[k] = world[0]
            continue
        t, q, s = Matrix(world[k].tolist()).decompose()
        out[k] = np.array(Matrix.LocRotScale(t0.lerp(t, w), q0.slerp(q, w), s0.lerp(s, w)))
    return out


def _side_frames(fc: bpy.types.FCurve | None, first: int, last: int) -> tuple[np.ndarray, np.ndarray]:
    """Frames before ``first`` and after ``last`` that must be keyed with their old values: up to the nearest
    key on each side (or one frame, where the curve holds its end value beyond its keys)."""
    keys = np.empty(0) if fc is None else anim_keys.read_keys_attribute(fc, "co")[:, 0].astype(np.float64)
    before, after = keys[keys < first], keys[keys > last]
    pre = np.arange(math.floor(before.max()) + 1, first) if len(before) else np.array([first - 1])
    post = np.arange(last + 1, math.ceil(after.min())) if len(after) else np.array([last + 1])
    return pre.astype(np.float64), post.astype(np.float64)


def _encode(keys: dict[str, np.ndarray]) -> dict[str, list[Any]]:
    return {name: values.tolist() for name, values in keys.items()}


def pin_target(context: bpy.types.Context, armature: bpy.types.Object, chain: bpy.types.PropertyGroup,
               start: int, end: int, blend: int) -> tuple[int, str | None]:
    """Pin ``chain``'s target where it stands over ``start..end``, blending back to its own motion after.

    The target's transform keys over the range (and the blend) are replaced by linear keys that hold its world
    transform; the keys replaced are saved on the new pin, so :func:`unpin_target` puts them back exactly.

    Args:
        start, end: the held frames (inclusive).
        blend: frames after ``end`` over which the target returns to its own motion.

    Returns:
        ``(frames, note)``: how many frames' world transform was rewritten (the held and blend frames), and
        the message when the target's linked action was made local (else None).

    Raises:
        ChainError: before any change: ``end`` before ``start``; no target, or a target that is linked, has an
            acting constraint, delta transforms, a driver on its transform or an action another ID plays; a
            range overlapping another pin of the same target.
    """
    if end < start:
        raise ChainError(say(msg.END_BEFORE_START, end=end, start=start))
    target = _check_target(chain, chain.target)
    # Chains sharing the target share its keys: their pins may not overlap either.
    pins = [(c, p) for c in armature.soft_ik_2d.chains for p in c.pins if p.target == target]
    clash = pinning.overlapping([(p.frame_start, p.frame_end, p.blend_frames) for _c, p in pins], (start, end, blend))
    if clash is not None:
        owner, other = pins[clash]
        raise ChainError(say(msg.PIN_OVERLAP, chain=owner.name, start=other.frame_start, end=other.frame_end))
    frames, weights = pinning.held_weights(start, end, blend)
    world = sampling.sample_world_matrices(context, [(target, None)], frames)[0]
    mode = target.rotation_mode
    channels = _channels(target)
    rot_path = channels[3][0]
    old = {ch: _values(target, *ch, frames) for ch in channels}
    loc = np.stack([old[("location", i)] for i in range(3)], axis=1)
    rot = np.stack([old[(p, i)] for p, i in channels if p == rot_path], axis=1)
    scale = np.stack([old[("scale", i)] for i in range(3)], axis=1)
    # What the target's own channels are multiplied by to give its world matrix (parent, parent inverse).
    frame_of = world @ invert_matrices(_basis(mode, loc, rot, scale))
    local = invert_matrices(frame_of) @ _held_world(world, weights)
    # Continue from the frame before the pin: Euler angles near it (no 2 pi jump), the same quaternion sign.
    previous = [(p, i) for p, i in channels if p == rot_path]
    before = np.array([_values(target, p, i, np.array([start - 1.0]))[0] for p, i in previous])
    saved_euler = target.rotation_euler.copy()
    if mode not in {"QUATERNION", "AXIS_ANGLE"}:
        target.rotation_euler = before.tolist()
    try:
        new = local_channel_values(target, local)
    finally:
        target.rotation_euler = saved_euler
    if mode == "QUATERNION" and float(np.dot(new[rot_path][0], before)) < 0:
        new[rot_path] = -new[rot_path]

    note = linked_data.ensure_local_action(target, create=False)
    had_action = target.animation_data is not None and target.animation_data.action is not None
    saved = []
    span = [math.inf, -math.inf]
    for path, index in channels:
        fc = anim_keys.find_fcurve(target, path, index)
        pre, post = _side_frames(fc, start, end + blend)
        all_frames = np.concatenate([pre, frames, post])
        all_values = np.concatenate([_values(target, path, index, pre), new[path][:, index],
                                     _values(target, path, index, post)])
        a, b = float(all_frames[0]), float(all_frames[-1])
        span = [min(span[0], a), max(span[1], b)]
        record: dict[str, Any] = {"path": path, "index": index, "start": a, "end": b, "existed": fc is not None}
        if fc is not None:
            keys = anim_keys.read_keys(fc)
            inside = (keys["co"][:, 0] >= a) & (keys["co"][:, 0] <= b)
            record["keys"] = _encode({name: values[inside] for name, values in keys.items()})
        saved.append(record)
        fc = anim_keys.ensure_fcurve(target, path, index, GROUP)
        needed = essential_keys(all_values)
        anim_keys.write_keys(fc, all_frames[needed], all_values[needed], start=a, end=b, interpolation="LINEAR")
    pin = chain.pins.add()
    pin.name = f"{start}-{end}"
    pin.frame_start, pin.frame_end, pin.blend_frames = start, end, blend
    pin.target = target
    pin.span_start, pin.span_end = math.floor(span[0]), math.ceil(span[1])
    # Order among every pin of this target (chains sharing it too), so Unpin can tell which came later.
    order = 1 + max((_order(p) for _c, p in pins), default=0)
    pin.saved_keys = json.dumps({"action_created": not had_action, "parent": _parenting(target), "order": order,
                                 "channels": saved})
    return len(frames), note


def _parenting(obj: bpy.types.Object) -> list[Any]:
    """What the saved keys are relative to: keys restored under another parent would move the target elsewhere."""
    return [obj.parent.name if obj.parent else "", obj.parent_type, obj.parent_bone,
            [round(x, 6) for row in obj.matrix_parent_inverse for x in row]]


def _order(pin: bpy.types.PropertyGroup) -> int:
    try:
        return int(json.loads(pin.saved_keys).get("order", 0))
    except (ValueError, AttributeError):
        return 0


def pin_index_at(chain: bpy.types.PropertyGroup, frame: int) -> int | None:
    """The pin of ``chain`` holding or blending ``frame``, else the last pin made, else None."""
    found = pinning.pin_at(pin_ranges(chain), frame)
    if found is not None:
        return found
    return len(chain.pins) - 1 if len(chain.pins) else None


def unpin_target(chain: bpy.types.PropertyGroup, index: int) -> bpy.types.Object:
    """Put back the keys pin ``index`` of ``chain`` replaced, exactly, and remove the pin.

    Returns:
        The target the pin held.

    Raises:
        ChainError: nothing changed: a later pin of the same target rewrote some of the same keys (unpin that
            first); the pin has no target or it is linked; the target's parenting changed since the pin.
    """
    pin = chain.pins[index]
    others = [(c, p) for c in chain.id_data.soft_ik_2d.chains for p in c.pins if p != pin and p.target == pin.target]
    for owner, later in others:
        if (_order(later) > _order(pin) and later.span_start <= pin.span_end
                and pin.span_start <= later.span_end):
            raise ChainError(say(msg.UNPIN_ORDER, chain=owner.name, start=pin.frame_start, end=pin.frame_end,
                                 later_start=later.frame_start, later_end=later.frame_end))
    target = pin.target
    if target is None:
        raise ChainError(say(msg.PIN_NO_TARGET, chain=chain.name))
    problem = linked_data.editing_problem(target)
    if problem is not None:
        raise ChainError(problem)
    data = json.loads(pin.saved_keys)
    if data.get("parent", _parenting(target)) != _parenting(target):
        raise ChainError(say(msg.UNPIN_REPARENTED, target=target.name, start=pin.frame_start, end=pin.frame_end))
    for record in data["channels"]:
        fc = anim_keys.find_fcurve(target, record["path"], record["index"])
        if fc is None:
            continue
        if not record["existed"]:
            anim_keys.remove_fcurve(fc)
            continue
        keys = {name: np.array(values) for name, values in record["keys"].items()}
        anim_keys.restore_keys(fc, keys, start=record["start"], end=record["end"])
    anim = target.animation_data
    if data.get("action_created") and anim is not None and anim.action is not None:
        if not any(True for _fc in anim_keys.iter_fcurves(target)):
            action = anim.action
            anim.action = None
            if action.users == 0:
                bpy.data.actions.remove(action)
    chain.pins.remove(index)
    target.update_tag()
    return target


def pinned_frames(chains: Sequence[bpy.types.PropertyGroup]) -> list[pinning.PinRange]:
    """Every pin of ``chains`` (for the timeline)."""
    return [r for chain in chains for r in pin_ranges(chain)]
