"""Actions, slots and channelbags: which F-curves an ID plays (4.2 legacy and 4.4+ layered actions), and who
else plays an action."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import bpy

#: 4.4+ stores F-curves in channelbags of layered actions; ``Action.fcurves`` is gone in 5.0 and, used on a
#: fresh 4.4/4.5 action, creates an unassigned "Legacy Slot" that never plays. (``hasattr(bpy.types.Action,
#: "layers")`` is False even on 5.0, hence the RNA lookup.)
LAYERED_ACTIONS: bool = "layers" in bpy.types.Action.bl_rna.properties


def _group_keyword() -> str | None:
    """The keyword by which ``fcurves.new`` puts a new F-curve in a group it creates if missing.

    ``action_group`` for 4.2's legacy actions, ``group_name`` for channelbags from 5.0 on; None on 4.4/4.5, whose
    channelbags take no group there (the group is then found or created and assigned afterwards).
    """
    owner = bpy.types.ActionChannelbagFCurves if LAYERED_ACTIONS else bpy.types.ActionFCurves
    parameters = owner.bl_rna.functions["new"].parameters
    return next((name for name in ("action_group", "group_name") if name in parameters), None)


_GROUP_KEYWORD = _group_keyword()


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


def find_fcurves(id_block: bpy.types.ID, channels: Sequence[tuple[str, int]]) -> list[bpy.types.FCurve | None]:
    """:func:`find_fcurve` for several (data path, array index) channels, the channelbags looked up once.

    None where no curve animates the channel. Never creates anything.
    """
    anim = id_block.animation_data
    if anim is None or anim.action is None:
        return [None] * len(channels)
    owners = list(_channelbags(id_block)) if LAYERED_ACTIONS else [anim.action]
    return [next((fc for owner in owners if (fc := owner.fcurves.find(path, index=index)) is not None), None)
            for path, index in channels]


def ensure_fcurve(id_block: bpy.types.ID, data_path: str, index: int = 0,
                  group_name: str | None = None) -> bpy.types.FCurve:
    """The F-curve for ``data_path[index]`` of ``id_block``, created if missing.

    Its action, slot, layer, strip and channelbag are created as needed. A new F-curve is put in the group
    ``group_name`` (created if needed; Blender's convention is the bone name for pose-bone channels and
    ``'Object Transforms'`` for object transforms). An existing F-curve is returned as it is, group included.
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


def ensure_fcurves(id_block: bpy.types.ID, channels: Sequence[tuple[str, int, str | None]],
                   smoothing: Sequence[str | None] | None = None) -> list[bpy.types.FCurve]:
    """:func:`ensure_fcurve` for several channels, the action, slot and channelbags looked up once.

    Args:
        id_block: the animated ID.
        channels: (data path, array index, group name or None) per curve.
        smoothing: per channel, the ``auto_smoothing`` of a curve created here (None: Blender's default for new
            curves, the preference). An existing curve keeps its own.

    Returns:
        The F-curves, ``channels`` order; existing ones as they are, missing ones created as
        :func:`ensure_fcurve` creates them.
    """
    anim = id_block.animation_data
    owners: list[Any] = []
    if anim is not None and anim.action is not None:
        owners = list(_channelbags(id_block)) if LAYERED_ACTIONS else [anim.action]
    created: Any = None
    out = []
    for c, (path, index, group_name) in enumerate(channels):
        fcurve = next((fc for owner in owners if (fc := owner.fcurves.find(path, index=index)) is not None), None)
        if fcurve is None:
            if created is None:
                created = _curve_owner(id_block)
                if all(owner != created for owner in owners):
                    owners.append(created)
            if group_name and _GROUP_KEYWORD is not None:  # one call instead of a group lookup and assignment
                fcurve = created.fcurves.new(path, index=index, **{_GROUP_KEYWORD: group_name})
            else:
                fcurve = created.fcurves.new(path, index=index)
                if group_name:
                    fcurve.group = created.groups.get(group_name) or created.groups.new(group_name)
            if smoothing is not None and smoothing[c] is not None:
                fcurve.auto_smoothing = smoothing[c]
        out.append(fcurve)
    return out


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
    """Whether ``action`` plays several layers or strips blended together (4.4+; never for legacy actions).

    Its F-curves are then not one plain set of values.
    """
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
    """A new action played by nothing, and the collection to create its F-curves in: room for temporary copies.

    The collection is its channelbag for an object slot on 4.4+, the action itself on 4.2.
    """
    action = bpy.data.actions.new(name)
    if not LAYERED_ACTIONS:
        return action, action
    slot = action.slots.new(id_type="OBJECT", name=name)
    return action, action.layers.new(name).strips.new(type="KEYFRAME").channelbag(slot, ensure=True)


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
    """Every (action, slot handle) ``id_block`` plays.

    Its active action (in NLA tweak mode the tweaked strip's, and the active action kept aside meanwhile) and
    the actions of its NLA strips.
    """
    anim = id_block.animation_data
    if anim is None:
        return []
    out: list[tuple[bpy.types.Action, int]] = []

    def add(action: bpy.types.Action | None, handle: int) -> None:
        """Add (action, handle) once."""
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
    """The IDs other than ``id_block`` that play slot ``handle`` of ``action`` (active action or NLA strip).

    Keys changed there change their animation too. A fake user or an add-on's reference to the action is not
    playing it; on 4.4+ another slot of the same action is another animation.
    """
    users = bpy.data.user_map(subset=[action]).get(action, set())
    return sorted((user for user in users if user != id_block and getattr(user, "animation_data", None) is not None
                   and (action, handle) in played_slots(user)), key=lambda user: user.name)


def find_fcurve_in(action: bpy.types.Action, handle: int, data_path: str, index: int = 0) -> bpy.types.FCurve | None:
    """The F-curve for ``data_path[index]`` in slot ``handle`` of ``action`` (whoever plays it), or None.

    A legacy action (4.2, or one not yet converted on 4.4/4.5) has one list of F-curves whatever the handle.
    """
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
