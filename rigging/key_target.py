"""Where a bake's keys go and in which time: the action (and slot) the armature plays, mapped through NLA tweak
mode, never one another ID plays too.

Keys must land where playback reads them. A scene frame ``f`` plays the armature's action at ``f``, except in
NLA tweak mode, where it plays the tweaked strip's action at the strip's own time (offset, scale, repeat). What
cannot be mapped one to one is refused by name before anything is written: scene time remapping (Time
Stretching), a strip played reversed or with animated time, a blended strip or action, frames outside the strip
or spanning more than one of its repeats, and an action (slot) another ID plays too.
"""

from __future__ import annotations

import math

import bpy
import numpy as np

from . import anim_keys
from . import messages as msg
from .messages import say
from .rig import ChainError


def check_scene_time(scene: bpy.types.Scene) -> None:
    """Refuse Time Stretching (Frame Map Old/New), under which frame ``f`` plays the animation at ``f * old / new``.

    The bake samples and keys in scene frames, so it is refused rather than keyed where nothing reads it.

    Raises:
        ChainError: Frame Map Old differs from New, naming the scene and both values.
    """
    render = scene.render
    if render.frame_map_old != render.frame_map_new:
        raise ChainError(say(msg.TIME_REMAPPED, scene=scene.name, old=render.frame_map_old, new=render.frame_map_new))


def check_not_shared(armature: bpy.types.Object) -> None:
    """Refuse an action (on 4.4+: an action slot) that another ID plays too: its animation would change.

    A linked action passes: the keys go into a local copy.

    Raises:
        ChainError: naming the armature, the action and the other IDs that play it.
    """
    anim = armature.animation_data
    if anim is None or anim.action is None:
        return
    if anim.action.library is not None:
        return  # keys go into a local copy (linked_data.ensure_local_action), never into the linked action
    others = anim_keys.other_players(anim.action, anim_keys.slot_handle(armature), armature)
    if others:
        raise ChainError(say(msg.SHARED_ACTION, armature=armature.name, action=anim.action.name,
                             users=", ".join(f"'{user.name}'" for user in others)))


def tweaked_strip(armature: bpy.types.Object) -> bpy.types.NlaStrip | None:
    """The NLA strip being tweaked, or None outside tweak mode.

    The active strip playing the tweaked action, else the first strip that plays it.
    """
    anim = armature.animation_data
    if anim is None or not anim.use_tweak_mode or anim.action is None:
        return None
    for track in anim.nla_tracks:
        for strip in track.strips:
            if strip.active and strip.action == anim.action:
                return strip
    for track in anim.nla_tracks:
        for strip in track.strips:
            if strip.action == anim.action:
                return strip
    return None


def _check_blending(armature: bpy.types.Object) -> None:
    anim = armature.animation_data
    if anim is None or anim.action is None:
        return
    strip = tweaked_strip(armature)
    if strip is not None:
        if strip.use_reverse or strip.use_animated_time:
            raise ChainError(say(msg.NLA_STRIP_TIME, armature=armature.name, strip=strip.name))
        if (strip.blend_type != "REPLACE" or strip.use_animated_influence or strip.blend_in > 0
                or strip.blend_out > 0):
            raise ChainError(say(msg.NLA_STRIP_BLENDS, armature=armature.name, strip=strip.name))
    elif anim.action_blend_type != "REPLACE" or anim.action_influence < 1.0:
        raise ChainError(say(msg.ACTION_BLENDS, armature=armature.name, action=anim.action.name,
                             blend=anim.action_blend_type, influence=anim.action_influence))


def check_armature(armature: bpy.types.Object) -> None:
    """Refuse what makes the armature's keys land where playback does not read them, whatever the frames.

    Raises:
        ChainError: Time Stretching on the scene (:func:`check_scene_time`); an action or slot another ID
            plays (:func:`check_not_shared`); a tweaked strip played reversed or with animated time, or
            blending (not Replace, animated influence, blend in/out); outside tweak mode, an action that
            blends (not Replace, or influence below 1).
    """
    check_scene_time(bpy.context.scene)
    check_not_shared(armature)
    _check_blending(armature)


def key_times(armature: bpy.types.Object, frames: np.ndarray) -> np.ndarray:
    """The action times at which the scene ``frames`` play the armature's action.

    Outside NLA tweak mode this is ``frames`` itself. In tweak mode it is Blender's strip mapping
    (``action_frame_start + ((f - frame_start) mod (length * scale)) / scale``, the strip's last frame playing
    ``action_frame_end`` when it repeats a whole number of times), the same as
    ``AnimData.nla_tweak_strip_time_to_scene(f, invert=True)`` within a repeat.

    Args:
        frames: scene frames, in any order.

    Returns:
        (N,) float64 action times, in the order of ``frames``.

    Raises:
        ChainError: some frame is not played one to one: it lies outside the tweaked strip, or the range
            spans more than one repeat (two frames would play the same action time).
    """
    frames = np.asarray(frames, dtype=np.float64)
    strip = tweaked_strip(armature)
    if strip is None:
        return frames
    start, end = float(strip.frame_start), float(strip.frame_end)
    first, last = int(frames.min()), int(frames.max())
    if first < start or last > end:
        raise ChainError(say(msg.NLA_OUTSIDE_STRIP, armature=armature.name, strip=strip.name, start=first,
                             end=last, strip_start=_frame(start), strip_end=_frame(end)))
    length = max(float(strip.action_frame_end - strip.action_frame_start), 1.0)
    period = length * float(strip.scale)
    times = strip.action_frame_start + np.mod(frames - start, period) / strip.scale
    at_end = np.isclose(frames, end) & math.isclose(strip.repeat, round(strip.repeat))
    times = np.where(at_end, float(strip.action_frame_end), times)
    order = np.argsort(frames, kind="stable")
    # Two distinct frames on one action time (a second repeat) cannot both be keyed; a frame given twice (a
    # one-frame range, Solve's [frame, frame]) is one frame.
    if np.any((np.diff(times[order]) <= 0) & (np.diff(frames[order]) > 0)):
        raise ChainError(say(msg.NLA_REPEATS, armature=armature.name, strip=strip.name, start=first, end=last,
                             period=_frame(period), repeat_start=_frame(start),
                             repeat_end=_frame(start + period - (1 if strip.repeat > 1 else 0))))
    return times


def _frame(value: float) -> str:
    return f"{value:g}"
