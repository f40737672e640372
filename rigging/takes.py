"""Takes: a bake written into a new action, so the animator's own action stays exactly as it was.

A take starts as a copy of the action the armature plays (or as an empty action when it plays none) and is
assigned to the armature before its chains are checked, so they are checked against it: an original that other
IDs play too is fine (it is never written). When none of the armature's chains can be baked the take is rolled
back and the file is as before. The bake then writes into the take like into any action.
The copy carries the bake records of its copied keys (:mod:`bake_records`), so Clear on the take removes what
the bakes wrote there and nothing in the original; Clear on the original, once assigned again, leaves the take
alone (an action the armature does not play is never cleared).

On 4.4+ the copy keeps only the slot the armature plays (and its records): the take is this armature's
animation, not another object's. The original keeps a fake user when the armature was its only user, so it is
not lost on save and can be switched back to. Optionally the finished take is pushed down to a new NLA track,
as Blender's Push Down does (the armature then plays it through the NLA and has no active action).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import bpy

from . import anim_keys, bake_records, key_target
from . import messages as msg
from .messages import say
from .rig import ChainError

DEFAULT_SUFFIX = " Take"


def check(armatures: Sequence[bpy.types.Object], name: str) -> dict[bpy.types.Object, str]:
    """Refuse, before anything changes, what a take cannot start from.

    Args:
        armatures: the armatures that would each get a take.
        name: the take's name, or "" for each armature's default (its action's name plus " Take").

    Returns:
        The armatures that cannot get a take, each with why: one in NLA tweak mode (the keys would have to go
        into the tweaked strip's action). Their chains are left out; the other armatures' bake goes ahead.

    Raises:
        ChainError: a ``name`` given for several armatures or already an action's name (the operator's setting,
            wrong for every armature).
    """
    if name and len(armatures) > 1:
        raise ChainError(say(msg.TAKE_NAME_SEVERAL, action=name, count=len(armatures)))
    if name and name in bpy.data.actions:
        raise ChainError(say(msg.TAKE_NAME_TAKEN, action=name))
    return {armature: say(msg.TAKE_IN_TWEAK_MODE, armature=armature.name) for armature in armatures
            if key_target.tweaked_strip(armature) is not None}


@dataclass
class Take:
    """A take started on an armature, and what :func:`rollback` needs to put everything back."""

    armature: bpy.types.Object
    action: bpy.types.Action
    note: str  # where the keys went, for the report
    source: bpy.types.Action | None
    source_handle: int
    source_fake_user: bool
    made_animation_data: bool


def start(armature: bpy.types.Object, name: str = "") -> Take:
    """Give ``armature`` a new action (a copy of the one it plays, or an empty one) to bake into.

    Call after :func:`check`; the chains are checked afterwards, against the take (whose only player is
    ``armature``: an original action other IDs play too is never written, so it is no reason to refuse), and
    :func:`rollback` undoes the take of an armature none of whose chains can be baked. On 4.4+ the copy keeps
    only the slot the armature plays. An original nothing else uses gets a fake user, so it survives saving.

    Args:
        name: the take's name; "" names it after the action (or, with none, the armature) plus " Take".

    Returns:
        The take, with what :func:`rollback` needs and the report's note on where the keys go.
    """
    made = armature.animation_data is None
    anim = armature.animation_data or armature.animation_data_create()
    source = anim.action
    handle = anim_keys.slot_handle(armature)
    if source is None:
        take = bpy.data.actions.new(name or armature.name + DEFAULT_SUFFIX)
        anim.action = take
        anim_keys.ensure_action(armature)  # the slot, layer and strip the bake's curves go into (4.4+)
        return Take(armature, take, say(msg.TAKE_NEW, armature=armature.name, take=take.name), None, handle,
                    False, made)
    fake_user = bool(source.use_fake_user)
    take = source.copy()  # a linked action gives a local copy: keys never go into linked data
    take.name = name or source.name + DEFAULT_SUFFIX
    take.use_fake_user = False
    anim.action = take
    if anim_keys.LAYERED_ACTIONS and anim.action_slot is None and handle >= 0:
        anim.action_slot = next((s for s in take.slots if s.handle == handle), None)
    _keep_only_played_slot(armature, take)
    if source.library is None and source.users == 0:
        source.use_fake_user = True  # the animator's action must survive saving, to be switched back to
    note = say(msg.TAKE_COPIED, armature=armature.name, take=take.name, action=source.name)
    return Take(armature, take, note, source, handle, fake_user, made)


def rollback(take: Take) -> None:
    """Undo :func:`start` before any key was written.

    The armature plays its original action (and slot) again, the take is removed, the original's fake user is
    as it was, and animation data :func:`start` created is cleared.
    """
    anim = take.armature.animation_data
    anim.action = take.source
    if take.source is not None:
        if anim_keys.LAYERED_ACTIONS and take.source_handle >= 0:
            anim.action_slot = next((s for s in take.source.slots if s.handle == take.source_handle), None)
        if take.source.library is None:
            take.source.use_fake_user = take.source_fake_user
    bpy.data.actions.remove(take.action)
    if take.made_animation_data:
        take.armature.animation_data_clear()


def _keep_only_played_slot(armature: bpy.types.Object, take: bpy.types.Action) -> None:
    """Drop the copy's slots other objects played in the original, with their records."""
    if not anim_keys.LAYERED_ACTIONS or armature.animation_data.action_slot is None:
        return
    handle = anim_keys.slot_handle(armature)
    for slot in [s for s in take.slots if s.handle != handle]:
        take.slots.remove(slot)
    records: Any = take.get(bake_records.RECORDS)
    for key in list(records.keys()) if records else ():
        if int(records[key]["slot"]) != handle:
            del records[key]


def push_down(armature: bpy.types.Object, take: bpy.types.Action) -> bpy.types.NlaTrack:
    """Move ``take`` from the active action to a strip on a new NLA track on top, played in its own time.

    The strip starts at the action's first frame and holds before and after it, as an active action does.

    Returns:
        The new track, named after the take.
    """
    anim = armature.animation_data
    track = anim.nla_tracks.new()
    track.name = take.name
    strip = track.strips.new(take.name, round(take.frame_range[0]), take)
    strip.extrapolation = "HOLD"
    anim.action = None
    return track
