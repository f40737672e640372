"""The user's keys a bake replaced: saved with the bake's record, written back by Clear, read as the FK pose.

A bake replaces the keys of the channels it owns inside its range. Before it writes (:func:`collect`), the keys
in range that are the user's are read with every attribute (:func:`anim_keys.read_keys`) and, once the bake is
recorded, saved in the chain's record on the action (:func:`store`; ``record["user_keys"]``, one entry per
channel, keyed like the record's channels by bone tag, so takes, overrides and renamed bones keep them). A key
that is a recorded key of an earlier bake of the chain (same frame, value and interpolation, float32 exact: as
Clear matches them) is the bake's, not the user's, so overlapping and repeated bakes save only the user's keys;
keys an earlier bake saved stay saved, except on a frame the user keyed again since (the newer key is saved).

Clear removes the bake's keys and then writes the saved keys back bit for bit, handles included, where no key
sits on their frame (:func:`restore`): a key the user added or moved there since wins, and is counted. The
IK influence blend reads the same curve Clear would give (the current keys without the bake's, plus the saved
ones) as the user's FK pose (:func:`user_channels`), so a re-bake blends with the user's FK, not the last bake.

A curve with no key in the baked range (a fresh bake) costs one length check: nothing is read or saved.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import bpy
import numpy as np

from . import anim_keys, bake_records
from .sampling.fcurves import EVALUATE_FRAMES, ChannelSampler

SAVED = "user_keys"  # on a record: {channel key: {attribute: flat list}}
Keys = dict[str, np.ndarray]
_PAIRS = frozenset({"co", "handle_left", "handle_right"})
_FLOATS = _PAIRS | {"back", "amplitude", "period"}


def _record(armature: bpy.types.Object, chain: Any, action: bpy.types.Action, handle: int) -> Any:
    """The chain's record in (action, slot), by its uid, else by chain and armature name (a lost uid); or None."""
    records: Any = action.get(bake_records.RECORDS)
    if not records:
        return None
    uid = bake_records.chain_uid(chain)
    if uid is not None and f"{uid}:{handle}" in records:
        return records[f"{uid}:{handle}"]
    for key in records.keys():
        record = records[key]
        if (int(record.get("slot", -2)) == handle and str(record.get("chain")) == chain.name
                and str(record.get("armature")) == armature.name):
            return record
    return None


def _channel_key(armature: bpy.types.Object, bone: str, prop: str, index: int) -> str | None:
    pb = armature.pose.bones.get(bone)
    tag = None if pb is None else pb.get(bake_records.BONE_TAG)
    return f"{tag}\t{prop}\t{index}" if tag else None


def _bake_keys(co: np.ndarray, interpolation: np.ndarray, channel: Any) -> np.ndarray:
    """Mask of the keys (``co``, ``interpolation``: as stored) that are the recorded channel's (None: none)."""
    if channel is None or len(co) == 0:
        return np.zeros(len(co), dtype=bool)
    recorded = np.array(channel["co"], dtype=np.float32).reshape(-1, 2)
    if len(recorded) == 0:
        return np.zeros(len(co), dtype=bool)
    wanted = recorded[np.argsort(recorded[:, 0], kind="stable")]
    pos = np.clip(np.searchsorted(wanted[:, 0], co[:, 0]), 0, len(wanted) - 1)
    match = (wanted[pos, 0] == co[:, 0]) & (wanted[pos, 1] == co[:, 1])
    value = bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items[str(channel["interpolation"])].value
    return match & (interpolation == int(value))


def _take(keys: Keys, mask: np.ndarray) -> Keys:
    return {name: values[mask] for name, values in keys.items()}


def _encode(keys: Keys) -> dict[str, list[Any]]:
    # Lists: float32 values become exact doubles, enums and selection plain ints (ID properties of any version).
    return {name: (values.astype(np.float64) if name in _FLOATS else values.astype(np.int64)).ravel().tolist()
            for name, values in keys.items()}


def _decode(saved: Any) -> Keys:
    """Saved keys with the dtypes and shapes :func:`anim_keys.read_keys` gives."""
    n = len(saved["co"]) // 2
    out: Keys = {}
    for name in saved.keys():
        dtype = np.float32 if name in _FLOATS else np.bool_ if name.startswith("select") else np.int32
        values = np.array(saved[name], dtype=np.float64).astype(dtype)
        out[str(name)] = values.reshape(n, 2) if name in _PAIRS else values
    return out


def _merge(current: Keys, saved: Keys) -> tuple[Keys, int]:
    """``current`` plus the ``saved`` keys on frames no current key holds, in frame order; and how many saved
    keys were left out."""
    free = ~np.isin(saved["co"][:, 0], current["co"][:, 0])
    order = np.argsort(np.concatenate([current["co"][:, 0], saved["co"][free, 0]]), kind="stable")
    merged = {name: np.concatenate([current[name], saved[name][free]])[order] for name in current}
    return merged, int(np.count_nonzero(~free))


def collect(armature: bpy.types.Object, chain: Any, action: bpy.types.Action, handle: int,
            channels: Sequence[tuple[str, str, int]], fcurves: Sequence[bpy.types.FCurve], start: float,
            end: float) -> list[tuple[str, str, int, Keys]]:
    """The user's keys in ``[start, end]`` (action time) on the curves a bake is about to write.

    Args:
        channels: (bone, prop, index) of each curve in ``fcurves``.

    Returns:
        (bone, prop, index, keys) per curve that has user keys in range; every attribute of those keys.
    """
    out: list[tuple[str, str, int, Keys]] = []
    record: Any = False  # looked up on the first curve with keys in range
    for (bone, prop, index), fc in zip(channels, fcurves, strict=True):
        if len(fc.keyframe_points) == 0:
            continue
        co = anim_keys.read_keys_attribute(fc, "co")
        inside = (co[:, 0] >= start) & (co[:, 0] <= end)
        if not inside.any():
            continue
        if record is False:
            record = _record(armature, chain, action, handle)
        ckey = _channel_key(armature, bone, prop, index)
        recorded = None if record is None or ckey is None else record["channels"].get(ckey)
        user = inside & ~_bake_keys(co, anim_keys.read_keys_attribute(fc, "interpolation"), recorded)
        if user.any():
            out.append((bone, prop, index, _take(anim_keys.read_keys(fc), user)))
    return out


def store(armature: bpy.types.Object, chain: Any, action: bpy.types.Action, handle: int,
          collected: Sequence[tuple[str, str, int, Keys]]) -> None:
    """Save what :func:`collect` found in the chain's record (after :func:`bake_records.record_bake` made it).

    Keys saved by earlier bakes stay, except where a collected key sits on their frame (the user's newer key).
    """
    if not collected:
        return
    record = _record(armature, chain, action, handle)
    if record is None:
        return
    if record.get(SAVED) is None:
        record[SAVED] = {}
    saved = record[SAVED]
    for bone, prop, index, keys in collected:
        ckey = _channel_key(armature, bone, prop, index)
        if ckey is None:
            continue
        if ckey in saved:
            keys, _left = _merge(keys, _decode(saved[ckey]))
            del saved[ckey]  # replaced whole: assigning over ID-property arrays does not resize them
        saved[ckey] = _encode(keys)


def _saved_for(record: Any, channel: Any) -> Any:
    saved = record.get(SAVED)
    ckey = f"{channel['tag']}\t{channel['prop']}\t{int(channel['index'])}"
    return None if saved is None else saved.get(ckey)


def saved_count(record: Any, channel: Any) -> int:
    """How many keys are saved for the record's ``channel`` (an entry of ``record["channels"]``)."""
    entry = _saved_for(record, channel)
    return 0 if entry is None else len(entry["co"]) // 2


def restore(fcurve: bpy.types.FCurve, record: Any, channel: Any) -> int:
    """Write the keys saved for ``channel`` back into ``fcurve`` (after Clear removed the bake's keys).

    Every key keeps every attribute bit for bit (:func:`anim_keys.restore_keys`); a saved key whose frame holds
    a key now (the user's, made since) is not restored.

    Returns:
        How many saved keys were not restored.
    """
    entry = _saved_for(record, channel)
    if entry is None:
        return 0
    current = anim_keys.read_keys(fcurve)
    merged, left = _merge(current, _decode(entry))
    if len(merged["co"]) > len(current["co"]):
        anim_keys.restore_keys(fcurve, merged, start=-np.inf, end=np.inf)
    return left


def give_back(armature: bpy.types.Object, chain: Any, action: bpy.types.Action, handle: int, bone: str, prop: str,
              index: int, fcurve: bpy.types.FCurve, start: float, end: float) -> None:
    """Put back the saved keys in ``[start, end]`` of a channel a re-bake no longer owns there (a strategy change
    dropped it), right after its bake keys there were removed: nothing of the bake's acts there any more.

    They leave the saved keys (Clear has nothing more to do for them); one on a frame that holds a key now stays
    saved, for Clear to count.
    """
    record = _record(armature, chain, action, handle)
    ckey = _channel_key(armature, bone, prop, index)
    saved = None if record is None or ckey is None else record.get(SAVED)
    if saved is None or ckey not in saved:
        return
    keys = _decode(saved[ckey])
    frames = keys["co"][:, 0]
    inside = (frames >= start) & (frames <= end)
    if not inside.any():
        return
    current = anim_keys.read_keys(fcurve)
    free = inside & ~np.isin(frames, current["co"][:, 0])
    merged, _left = _merge(current, _take(keys, free))
    anim_keys.restore_keys(fcurve, merged, start=-np.inf, end=np.inf)
    del saved[ckey]
    if not free.all():
        saved[ckey] = _encode(_take(keys, ~free))


def _user_keys(armature: bpy.types.Object, record: Any, fcurve: bpy.types.FCurve | None, bone: str, prop: str,
               index: int) -> Keys | None:
    """The keys Clear would leave on the channel (None: it changes nothing there; empty: no key left)."""
    ckey = _channel_key(armature, bone, prop, index)
    if ckey is None:
        return None
    channel = record["channels"].get(ckey)
    entry = record[SAVED].get(ckey) if record.get(SAVED) is not None else None
    if fcurve is None:
        return None if entry is None else _decode(entry)
    keys = anim_keys.read_keys(fcurve)
    mine = _bake_keys(keys["co"], keys["interpolation"], channel)
    if entry is None and not mine.any():
        return None
    keys = _take(keys, ~mine)
    return keys if entry is None else _merge(keys, _decode(entry))[0]


def user_channels(armature: bpy.types.Object, chain: Any, bone: str, prop: str, times: np.ndarray,
                  sampled: list[np.ndarray | None]) -> list[np.ndarray | None]:
    """The user's FK values of ``bone``'s ``prop`` components at ``times`` (action time).

    ``sampled``: per component what the curves give now (:func:`sampling.sample_channels`). Where the chain's
    bakes keyed the channel, the values of the user's curve instead: without the bake's keys, with the keys they
    replaced; None (rest) when no key is left. Sampled the way :func:`sampling.sample_channels` samples, so a
    curve gives the same values as before the bake.
    """
    anim = armature.animation_data
    action = None if anim is None else anim.action
    record = None if action is None else _record(armature, chain, action, anim_keys.slot_handle(armature))
    if record is None:
        return sampled
    out = list(sampled)
    for i in range(len(sampled)):
        path = anim_keys.pose_bone_path(bone, f'["{prop}"]' if prop.startswith("soft_ik") else prop)
        fc = anim_keys.find_fcurve(armature, path, i)
        keys = _user_keys(armature, record, fc, bone, prop, i)
        if keys is not None:
            out[i] = None if len(keys["co"]) == 0 else _sample(keys, fc, times)
    return out


def _sample(keys: Keys, like: bpy.types.FCurve | None, times: np.ndarray) -> np.ndarray:
    """``keys`` as a curve (``like``'s extrapolation) sampled at ``times`` as :func:`sampling.sample_channels` does."""
    scratch, owner = anim_keys.scratch_action(".soft_ik_user_keys")
    sampler = ChannelSampler(np.asarray(times, dtype=np.float64).reshape(-1))
    try:
        fc = owner.fcurves.new("location", index=0)
        anim_keys.restore_keys(fc, keys, start=-np.inf, end=np.inf)
        if like is not None:
            fc.extrapolation = like.extrapolation
        if sampler.frames.size <= EVALUATE_FRAMES:
            return np.array([fc.evaluate(f) for f in sampler.frames.tolist()], dtype=np.float64)
        slot = SimpleNamespace(handle=scratch.slots[0].handle) if anim_keys.LAYERED_ACTIONS else None
        return np.asarray(sampler.values(SimpleNamespace(action=scratch, action_slot=slot), fc), dtype=np.float64)
    finally:
        sampler.close()
        bpy.data.actions.remove(scratch)
