"""One key-writing path for Blender 4.2 (legacy actions) and 4.4+ / 5.0 (layered, "slotted" actions).

Every function takes the animated ID (an object, usually) and works on the action slot that ID actually plays,
so keys written here are the keys Blender evaluates. Keys are written in bulk (``keyframe_points.add`` +
``foreach_set``, enums through uint8 buffers, Blender's own byte layout): 100k keys take ~20-30 ms on a curve
with no keys outside the range (fresh or re-baked), ~30-70 ms when keys outside it are kept (measured on 4.2,
4.5, 5.0; 1.2-1.7x and 2.1-2.8x a bare ``add`` + ``foreach_set("co")`` + ``update()``).

The guarantee :func:`write_keys` and :func:`remove_keys` give: keys whose frame lies outside ``[start, end]``
keep every attribute bit for bit (position, both handles and their types, interpolation, easing, key type,
back/amplitude/period, selection), even automatic handles that Blender would otherwise recompute because
their neighbours changed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import bpy
import numpy as np

#: 4.4+ stores F-curves in channelbags of layered actions; ``Action.fcurves`` is gone in 5.0 and, used on a
#: fresh 4.4/4.5 action, creates an unassigned "Legacy Slot" that never plays. (``hasattr(bpy.types.Action,
#: "layers")`` is False even on 5.0, hence the RNA lookup.)
LAYERED_ACTIONS: bool = "layers" in bpy.types.Action.bl_rna.properties

# Keyframe attributes copied verbatim for preserved keys: (name, values per key, numpy dtype).
_KEY_ATTRIBUTES: tuple[tuple[str, int, type], ...] = (
    ("co", 2, np.float32),
    ("handle_left", 2, np.float32),
    ("handle_right", 2, np.float32),
    ("handle_left_type", 1, np.int32),
    ("handle_right_type", 1, np.int32),
    ("interpolation", 1, np.int32),
    ("easing", 1, np.int32),
    ("type", 1, np.int32),
    ("back", 1, np.float32),
    ("amplitude", 1, np.float32),
    ("period", 1, np.float32),
    ("select_control_point", 1, np.bool_),
    ("select_left_handle", 1, np.bool_),
    ("select_right_handle", 1, np.bool_),
)
_HANDLES = ("handle_left", "handle_right")
_POSITIONS = ("co", *_HANDLES)
# The enum attributes are one byte each in Blender's keys: foreach_get/foreach_set with a uint8 buffer copies
# them directly (~0.04 ms per 10k keys), any other integer type goes through RNA key by key (~0.5 ms).
_TRANSFER_DTYPE: dict[str, type] = {name: np.uint8 for name, _w, dtype in _KEY_ATTRIBUTES if dtype is np.int32}


def _enum_value(prop: str, identifier: str) -> int:
    items = bpy.types.Keyframe.bl_rna.properties[prop].enum_items
    if identifier not in items:
        raise ValueError(f"unknown {prop} {identifier!r}; expected one of {sorted(items.keys())}")
    return int(items[identifier].value)


# --- actions, slots, channelbags -------------------------------------------------------------------------------


def ensure_action(id_block: bpy.types.ID) -> bpy.types.Action:
    """The action ``id_block`` (an object, usually) plays, created and assigned if it has none.

    On 4.4+ this also makes sure a slot for the ID is assigned (reusing the slot it last used or one named
    after it, else a new slot) and that the action has a layer with a keyframe strip, so the F-curves created
    by :func:`ensure_fcurve` are evaluated.
    """
    anim = id_block.animation_data or id_block.animation_data_create()
    action = anim.action
    if action is None:
        action = bpy.data.actions.new(f"{id_block.name}Action")
        anim.action = action
    if LAYERED_ACTIONS:
        if anim.action_slot is None:
            anim.action_slot = _pick_slot(id_block, anim, action)
        if len(action.layers) == 0:
            action.layers.new("Layer")
        layer = action.layers[0]
        if len(layer.strips) == 0:
            layer.strips.new(type="KEYFRAME")
    return action


def _pick_slot(id_block: bpy.types.ID, anim: bpy.types.AnimData, action: bpy.types.Action) -> Any:
    wanted = (anim.last_slot_identifier, f"{id_block.id_type[:2]}{id_block.name}")
    suitable = {slot.identifier: slot for slot in anim.action_suitable_slots}
    for identifier in wanted:
        if identifier in suitable:
            return suitable[identifier]
    return action.slots.new(id_block.id_type, id_block.name)


def _channelbags(id_block: bpy.types.ID) -> Iterator[Any]:
    """The channelbags of the slot ``id_block`` plays (layered actions only), without creating any."""
    anim = id_block.animation_data
    if anim is None or anim.action is None or anim.action_slot is None:
        return
    for layer in anim.action.layers:
        for strip in layer.strips:
            if strip.type != "KEYFRAME":
                continue
            bag = strip.channelbag(anim.action_slot)
            if bag is not None:
                yield bag


def _curve_owner(id_block: bpy.types.ID) -> Any:
    """The collection owning ``id_block``'s F-curves and groups: a channelbag (4.4+) or the action (4.2)."""
    action = ensure_action(id_block)
    if not LAYERED_ACTIONS:
        return action
    anim = id_block.animation_data
    return action.layers[0].strips[0].channelbag(anim.action_slot, ensure=True)


def iter_fcurves(id_block: bpy.types.ID) -> Iterator[bpy.types.FCurve]:
    """Every F-curve ``id_block`` plays from its action (none when it has no action or, on 4.4+, no slot)."""
    anim = id_block.animation_data
    if anim is None or anim.action is None:
        return
    if not LAYERED_ACTIONS:
        yield from anim.action.fcurves
        return
    for bag in _channelbags(id_block):
        yield from bag.fcurves


def find_fcurve(id_block: bpy.types.ID, data_path: str, index: int = 0) -> bpy.types.FCurve | None:
    """The F-curve animating ``data_path[index]`` of ``id_block`` in the action slot it plays, or None.

    ``data_path`` is relative to the ID, e.g. ``'location'`` or ``'pose.bones["Fore"]["soft_ik_error"]'``
    (custom properties use index 0). Never creates anything.
    """
    anim = id_block.animation_data
    if anim is None or anim.action is None:
        return None
    if not LAYERED_ACTIONS:
        return anim.action.fcurves.find(data_path, index=index)
    for bag in _channelbags(id_block):
        fcurve = bag.fcurves.find(data_path, index=index)
        if fcurve is not None:
            return fcurve
    return None


def ensure_fcurve(id_block: bpy.types.ID, data_path: str, index: int = 0,
                  group_name: str | None = None) -> bpy.types.FCurve:
    """The F-curve for ``data_path[index]`` of ``id_block``, created (with its action, slot, layer, strip
    and channelbag as needed) if missing.

    A new F-curve is put in the group ``group_name`` (created if needed; Blender's convention is the bone
    name for pose-bone channels and ``'Object Transforms'`` for object transforms). An existing F-curve is
    returned as it is, group included.
    """
    fcurve = find_fcurve(id_block, data_path, index)
    if fcurve is not None:
        return fcurve
    owner = _curve_owner(id_block)
    fcurve = owner.fcurves.new(data_path, index=index)
    if group_name:
        group = owner.groups.get(group_name) or owner.groups.new(group_name)
        fcurve.group = group
    return fcurve


def remove_fcurve(fcurve: bpy.types.FCurve) -> None:
    """Remove ``fcurve`` from the action (and channelbag) that owns it."""
    action = fcurve.id_data
    owners = [action] if not LAYERED_ACTIONS else [
        bag for layer in action.layers for strip in layer.strips if strip.type == "KEYFRAME"
        for bag in strip.channelbags
    ]
    for owner in owners:
        if owner.fcurves.find(fcurve.data_path, index=fcurve.array_index) == fcurve:
            owner.fcurves.remove(fcurve)
            return
    raise ValueError(f"F-curve {fcurve.data_path}[{fcurve.array_index}] not found in {action.name!r}")


def blends_layers(action: bpy.types.Action) -> bool:
    """Whether ``action`` plays several layers or strips blended together (4.4+; never for legacy actions), so
    its F-curves are not one plain set of values."""
    return LAYERED_ACTIONS and (len(action.layers) > 1 or any(len(layer.strips) > 1 for layer in action.layers))


def _unconverted(action: bpy.types.Action) -> bool:
    """A legacy action on 4.4/4.5 (F-curves of its own, no layers); 5.0 has no such actions."""
    return (getattr(action, "is_action_legacy", False) and len(action.layers) == 0
            and "fcurves" in bpy.types.Action.bl_rna.properties)


def all_fcurves(action: bpy.types.Action) -> list[bpy.types.FCurve]:
    """Every F-curve of ``action``, of every slot (4.4+) or the legacy list."""
    if not LAYERED_ACTIONS or _unconverted(action):
        return list(action.fcurves)
    return [fc for layer in action.layers for strip in layer.strips if strip.type == "KEYFRAME"
            for bag in strip.channelbags for fc in bag.fcurves]


def scratch_action(name: str) -> tuple[bpy.types.Action, Any]:
    """A new action played by nothing, and the collection to create its F-curves in (its channelbag for an
    object slot on 4.4+, the action itself on 4.2): room for temporary curve copies."""
    action = bpy.data.actions.new(name)
    if not LAYERED_ACTIONS:
        return action, action
    slot = action.slots.new(id_type="OBJECT", name=name)
    return action, action.layers.new(name).strips.new(type="KEYFRAME").channelbag(slot, ensure=True)


# --- data paths ------------------------------------------------------------------------------------------------

_BONE_PREFIX = 'pose.bones["'


def pose_bone_path(bone: str, prop: str = "") -> str:
    """The data path of pose bone ``bone`` (``prop`` empty), of its property ``prop``, or of its custom property
    ``prop`` when given as ``'["name"]'``."""
    path = f'{_BONE_PREFIX}{bpy.utils.escape_identifier(bone)}"]'
    return path + prop if not prop or prop.startswith("[") else f"{path}.{prop}"


def bone_of_path(path: str) -> str | None:
    """The pose bone a data path like ``'pose.bones["Fore"].location'`` belongs to (unescaped), or None."""
    if not path.startswith(_BONE_PREFIX):
        return None
    end = path.find('"]', len(_BONE_PREFIX))
    return None if end < 0 else path[len(_BONE_PREFIX) : end].replace('\\"', '"').replace("\\\\", "\\")


def split_pose_bone_path(path: str) -> tuple[str, str] | None:
    """(bone, property) of a pose-bone channel path from :func:`pose_bone_path` (a custom property by its bare
    name), or None for any other path."""
    bone = bone_of_path(path)
    if bone is None:
        return None
    tail = path[len(pose_bone_path(bone)):]
    return bone, (tail[2:-2] if tail.startswith('["') else tail[1:])


# --- keys ------------------------------------------------------------------------------------------------------


def read_keys(fcurve: bpy.types.FCurve) -> dict[str, np.ndarray]:
    """Every stored attribute of every key of ``fcurve``, as arrays of shape (n,) or (n, 2): ``co``,
    ``handle_left``, ``handle_right`` (float32 frame/value pairs), the enums ``handle_left_type``,
    ``handle_right_type``, ``interpolation``, ``easing``, ``type`` (int32 RNA enum values), ``back``,
    ``amplitude``, ``period`` (float32) and the ``select_*`` flags (bool)."""
    return {name: read_keys_attribute(fcurve, name) for name, _width, _dtype in _KEY_ATTRIBUTES}


def read_keys_attribute(fcurve: bpy.types.FCurve, name: str) -> np.ndarray:
    """One attribute of every key of ``fcurve`` (see :func:`read_keys`)."""
    for attr, width, dtype in _KEY_ATTRIBUTES:
        if attr == name:
            n = len(fcurve.keyframe_points)
            buffer: np.ndarray = np.empty(n * width, dtype=_TRANSFER_DTYPE.get(name, dtype))
            fcurve.keyframe_points.foreach_get(name, buffer)
            buffer = buffer.astype(dtype, copy=False)
            return buffer.reshape(n, width) if width > 1 else buffer
    raise KeyError(name)


def _rebuild(fcurve: bpy.types.FCurve, before: dict[str, np.ndarray], new_co: np.ndarray,
             new_interpolation: int, after: dict[str, np.ndarray]) -> None:
    """Replace all keys of ``fcurve`` by ``before`` + new keys at ``new_co`` + ``after`` (already sorted).

    ``before``/``after`` hold every attribute (:func:`read_keys`); the new keys get their position and
    interpolation, everything else keeps the defaults ``keyframe_points.add`` gave them.
    """
    n_before, n_new, n_after = len(before["co"]), len(new_co), len(after["co"])
    total = n_before + n_new + n_after
    points = fcurve.keyframe_points
    points.clear()
    points.add(total)
    new = slice(n_before, n_before + n_new)
    if n_before or n_after:
        # Every key is fresh now: a column whose preserved keys already hold the fresh default (and, for the
        # interpolation, whose new keys want it too) needs no writing; most columns of most curves.
        defaults = _fresh_key_defaults(points[0])
        for name, width, dtype in _KEY_ATTRIBUTES:
            default = defaults.get(name)
            new_keys_default = n_new == 0 or name != "interpolation" or new_interpolation == default
            if (default is not None and new_keys_default and np.all(before[name] == default)
                    and np.all(after[name] == default)):
                continue
            column: np.ndarray = np.empty((total, width) if width > 1 else total, dtype=dtype)
            column[:n_before] = before[name]
            column[n_before + n_new:] = after[name]
            if name == "interpolation":
                column[new] = new_interpolation
            elif name in _POSITIONS:
                # Placeholder handles on the key itself; fcurve.update() computes the real ones.
                column[new] = new_co
            else:
                column[new] = default
            points.foreach_set(name, column.astype(_TRANSFER_DTYPE.get(name, dtype), copy=False).ravel())
    elif n_new:
        points.foreach_set("co", np.ascontiguousarray(new_co, dtype=np.float32).ravel())
        points.foreach_set("interpolation", np.full(n_new, new_interpolation, dtype=_TRANSFER_DTYPE["interpolation"]))
    # Sorts (a no-op: the keys are already in order) and computes the new keys' handles. It also recomputes
    # the automatic handles of the preserved neighbours, which would change the curve outside the range, so
    # those are restored afterwards.
    fcurve.update()
    if n_before or n_after:
        for name in _HANDLES:
            handles = read_keys_attribute(fcurve, name)
            handles[:n_before] = before[name]
            handles[n_before + n_new:] = after[name]
            points.foreach_set(name, handles.ravel())


def _fresh_key_defaults(point: bpy.types.Keyframe) -> dict[str, Any]:
    """The attribute values ``keyframe_points.add`` gave ``point`` (handle types follow the user preferences)."""
    defaults: dict[str, Any] = {}
    for name, width, _dtype in _KEY_ATTRIBUTES:
        if width > 1:
            continue
        value = getattr(point, name)
        defaults[name] = _enum_value(name, value) if isinstance(value, str) else value
    return defaults


def _read_outside(fcurve: bpy.types.FCurve, start: float, end: float) -> dict[str, np.ndarray]:
    """Every attribute of ``fcurve``'s keys when some lie outside ``[start, end]``, else just their positions
    (the common case of re-baking a whole curve skips reading what is about to be replaced)."""
    co = read_keys_attribute(fcurve, "co")
    if np.all((co[:, 0] >= start) & (co[:, 0] <= end)):
        return {name: np.empty((0, width) if width > 1 else 0, dtype=dtype) for name, width, dtype in _KEY_ATTRIBUTES}
    return read_keys(fcurve)


def _split(keys: dict[str, np.ndarray], start: float, end: float) -> tuple[dict[str, np.ndarray], ...]:
    frames = keys["co"][:, 0]
    before, inside, after = frames < start, (frames >= start) & (frames <= end), frames > end
    return tuple({name: values[mask] for name, values in keys.items()} for mask in (before, inside, after))


def write_keys(fcurve: bpy.types.FCurve, frames: Any, values: Any, *, start: float, end: float,
               interpolation: str = "LINEAR") -> np.ndarray:
    """Replace the keys of ``fcurve`` whose frame lies in ``[start, end]`` by keys at ``frames``/``values``.

    Args:
        fcurve: from :func:`ensure_fcurve`.
        frames: frame numbers (float; subframes allowed), each inside ``[start, end]``, no duplicates, any order.
        values: the channel's value at each frame, in the property's own unit (radians for rotations, Blender
            units for locations...). Must be finite.
        start, end: the replaced range (inclusive, frames). Keys outside it keep every attribute bit for bit;
            keys inside it that ``frames`` does not hit are removed.
        interpolation: the new keys' interpolation, a ``Keyframe.interpolation`` identifier ('LINEAR',
            'CONSTANT' for step channels such as flags, 'BEZIER' with auto-clamped handles...).

    Writing the same keys twice leaves the same keys (no duplicates). Values are stored as float32, like
    every Blender key. Returns the new keys' (frame, value) pairs as stored ((n, 2) float32, frame order).
    """
    frames = np.asarray(frames, dtype=np.float64).ravel()
    values = np.asarray(values, dtype=np.float64).ravel()
    if frames.shape != values.shape:
        raise ValueError(f"{len(frames)} frames but {len(values)} values")
    if end < start:
        raise ValueError(f"end frame {end} is before start frame {start}")
    if not (np.all(np.isfinite(frames)) and np.all(np.isfinite(values))):
        raise ValueError(f"non-finite frame or value for {fcurve.data_path}[{fcurve.array_index}]")
    if np.any((frames < start) | (frames > end)):
        raise ValueError(f"frames must lie inside [{start}, {end}]")
    if not (frames[1:] > frames[:-1]).all():  # a bake's frames come in order: no sort to pay for
        order = np.argsort(frames, kind="stable")
        frames, values = frames[order], values[order]
    co = np.empty((len(frames), 2), dtype=np.float32)
    co[:, 0], co[:, 1] = frames, values
    if np.any(np.diff(co[:, 0]) <= 0):
        raise ValueError("duplicate frames")
    before, _inside, after = _split(_read_outside(fcurve, start, end), start, end)
    _rebuild(fcurve, before, co, _enum_value("interpolation", interpolation), after)
    return co


def remove_keys(fcurve: bpy.types.FCurve, start: float, end: float, *, remove_empty: bool = False) -> int:
    """Remove the keys of ``fcurve`` whose frame lies in ``[start, end]`` (inclusive); returns how many.

    Keys outside the range keep every attribute bit for bit. With ``remove_empty`` an F-curve left without
    keys is removed from its action (``fcurve`` must not be used afterwards).
    """
    frames = read_keys_attribute(fcurve, "co")[:, 0]
    removed = int(np.count_nonzero((frames >= start) & (frames <= end)))
    if removed:
        before, _inside, after = _split(read_keys(fcurve), start, end)
        _rebuild(fcurve, before, np.empty((0, 2), dtype=np.float32), 0, after)
    if remove_empty and len(fcurve.keyframe_points) == 0:
        remove_fcurve(fcurve)
    return removed


# --- which action and slot an ID plays, and who else plays it ---------------------------------------------------


def slot_handle(id_block: bpy.types.ID) -> int:
    """The handle of the slot ``id_block`` plays in its action (4.4+); 0 for legacy actions, -1 without a slot.

    Handles, unlike slot names, stay the same when a slot is renamed; (action, handle) names what a key
    written through :func:`ensure_fcurve` animates.
    """
    if not LAYERED_ACTIONS:
        return 0
    anim = id_block.animation_data
    slot = None if anim is None else anim.action_slot
    return -1 if slot is None else int(slot.handle)


def played_slots(id_block: bpy.types.ID) -> list[tuple[bpy.types.Action, int]]:
    """Every (action, slot handle) ``id_block`` plays: its active action (in NLA tweak mode the tweaked
    strip's, and the active action kept aside meanwhile) and the actions of its NLA strips."""
    anim = id_block.animation_data
    if anim is None:
        return []
    out: list[tuple[bpy.types.Action, int]] = []

    def add(action: bpy.types.Action | None, handle: int) -> None:
        if action is not None and (action, handle) not in out:
            out.append((action, handle))

    add(anim.action, slot_handle(id_block))
    if anim.use_tweak_mode:
        add(anim.action_tweak_storage, int(anim.action_slot_handle_tweak_storage) if LAYERED_ACTIONS else 0)
    for track in anim.nla_tracks:
        for strip in _all_strips(track.strips):
            if strip.action is not None:
                add(strip.action, int(strip.action_slot_handle) if LAYERED_ACTIONS else 0)
    return out


def _all_strips(strips: Any) -> Iterator[Any]:
    for strip in strips:
        yield strip
        yield from _all_strips(strip.strips)  # meta strips hold strips of their own


def other_players(action: bpy.types.Action, handle: int, id_block: bpy.types.ID) -> list[bpy.types.ID]:
    """The IDs other than ``id_block`` that play slot ``handle`` of ``action`` (as active action or in an
    NLA strip): keys changed there change their animation too. A fake user or an add-on's reference to the
    action is not playing it; on 4.4+ another slot of the same action is another animation."""
    users = bpy.data.user_map(subset=[action]).get(action, set())
    return sorted((user for user in users if user != id_block and getattr(user, "animation_data", None) is not None
                   and (action, handle) in played_slots(user)), key=lambda user: user.name)


def find_fcurve_in(action: bpy.types.Action, handle: int, data_path: str, index: int = 0) -> bpy.types.FCurve | None:
    """The F-curve for ``data_path[index]`` in slot ``handle`` of ``action`` (whoever plays it), or None. A
    legacy action (4.2, or one not yet converted on 4.4/4.5) has one list of F-curves whatever the handle."""
    if not LAYERED_ACTIONS or _unconverted(action):
        return action.fcurves.find(data_path, index=index)
    slot = next((s for s in action.slots if s.handle == handle), None)
    if slot is None:
        return None
    for layer in action.layers:
        for strip in layer.strips:
            if strip.type != "KEYFRAME":
                continue
            bag = strip.channelbag(slot)
            fcurve = None if bag is None else bag.fcurves.find(data_path, index=index)
            if fcurve is not None:
                return fcurve
    return None


def remove_keys_at(fcurve: bpy.types.FCurve, co: Any, interpolation: str | None = None) -> int:
    """Remove the keys of ``fcurve`` that sit exactly at one of the (frame, value) pairs ``co`` (float32, as
    stored) and, when given, have that interpolation; returns how many. Every other key keeps every attribute
    bit for bit, so a key moved or edited since it was written stays."""
    co = np.asarray(co, dtype=np.float32).reshape(-1, 2)
    if len(co) == 0 or len(fcurve.keyframe_points) == 0:
        return 0
    have = read_keys_attribute(fcurve, "co")
    # Exact float32 matches: every key is compared with the wanted key at its own frame.
    order = np.argsort(co[:, 0], kind="stable")
    wanted = co[order]
    pos = np.clip(np.searchsorted(wanted[:, 0], have[:, 0]), 0, len(wanted) - 1)
    match = (wanted[pos, 0] == have[:, 0]) & (wanted[pos, 1] == have[:, 1])
    if interpolation is not None:
        match &= read_keys_attribute(fcurve, "interpolation") == _enum_value("interpolation", interpolation)
    removed = int(np.count_nonzero(match))
    if removed == len(have):
        fcurve.keyframe_points.clear()  # the common case: nothing else to keep, no attribute to read
    elif removed:
        keys = read_keys(fcurve)
        kept = {name: values[~match] for name, values in keys.items()}
        empty = {name: values[:0] for name, values in keys.items()}
        _rebuild(fcurve, kept, np.empty((0, 2), dtype=np.float32), 0, empty)
    return removed


# What evaluating a key needs (its selection and type do not change the curve).
_EVALUATED = ("co", "handle_left", "handle_right", "handle_left_type", "handle_right_type", "interpolation",
              "easing", "back", "amplitude", "period")


def copy_keys(source: bpy.types.FCurve, target: bpy.types.FCurve) -> None:
    """Give ``target`` (an F-curve without keys) the keys of ``source`` as they evaluate (position, handles as
    they are, not recomputed, interpolation, easing and its parameters) and its extrapolation; modifiers are
    not copied."""
    points = target.keyframe_points
    points.add(len(source.keyframe_points))
    for name, _width, dtype in _KEY_ATTRIBUTES:
        if name in _EVALUATED:
            values = read_keys_attribute(source, name)
            points.foreach_set(name, values.astype(_TRANSFER_DTYPE.get(name, dtype), copy=False).ravel())
    target.extrapolation = source.extrapolation


def restore_keys(fcurve: bpy.types.FCurve, keys: dict[str, np.ndarray], *, start: float, end: float) -> None:
    """Replace the keys of ``fcurve`` in ``[start, end]`` by ``keys`` (every attribute, as :func:`read_keys`
    gave them, frames inside the range): a saved stretch of curve put back bit for bit, handles included.
    Keys outside the range keep every attribute too."""
    before, _inside, after = _split(read_keys(fcurve), start, end)
    saved: dict[str, np.ndarray] = {name: np.asarray(keys[name], dtype=dtype).reshape((-1, width) if width > 1 else -1)
                                    for name, width, dtype in _KEY_ATTRIBUTES}
    parts = (before, saved, after)
    total = sum(len(p["co"]) for p in parts)
    points = fcurve.keyframe_points
    points.clear()
    points.add(total)
    columns: dict[str, np.ndarray] = {name: np.concatenate([p[name] for p in parts]).astype(dtype)
                                      for name, _w, dtype in _KEY_ATTRIBUTES}
    for name, _width, dtype in _KEY_ATTRIBUTES:
        points.foreach_set(name, columns[name].astype(_TRANSFER_DTYPE.get(name, dtype), copy=False).ravel())
    # update() recomputes automatic handles from the (unchanged) neighbours; the saved ones are put back after.
    fcurve.update()
    for name in _HANDLES:
        points.foreach_set(name, columns[name].ravel())
