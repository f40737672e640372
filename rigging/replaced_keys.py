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

A curve without keys (a fresh bake) costs one length check, one without keys in the baked range one read of
its key positions: nothing is saved.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import bpy
import numpy as np

from . import anim_keys, bake_records
from .sampling import keyframes
from .sampling.channels import ChannelSampler
from .sampling.fcurves import EVALUATE_FRAMES

SAVED = "user_keys"  # on a record: {key: {"tag", "bone", "prop", "index", "keys": {attribute: list}}}
Keys = dict[str, np.ndarray]
Channel = tuple[str, str, int]  # (bone, prop, index)
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


class _Index:
    """A record's channels and saved keys by the channel they animate now: (bone, prop, index), a bone found by
    its tag (renamed since), else by the name it had (a lost tag, as :mod:`bake_records` resolves them)."""

    def __init__(self, armature: bpy.types.Object, record: Any) -> None:
        by_tag: dict[str, list[str]] = {}
        for pb in armature.pose.bones:
            tag = pb.get(bake_records.BONE_TAG)
            if tag:
                by_tag.setdefault(str(tag), []).append(pb.name)
        self.armature, self.record = armature, record
        self.channels: dict[Channel, list[Any]] = {}
        self.saved: dict[Channel, list[str]] = {}
        for entry in record["channels"].values():
            self.channels.setdefault(self._channel(by_tag, entry), []).append(entry)
        saved = record.get(SAVED)
        for ckey in saved.keys() if saved is not None else ():
            self.saved.setdefault(self._channel(by_tag, saved[ckey]), []).append(str(ckey))

    @staticmethod
    def _channel(by_tag: dict[str, list[str]], entry: Any) -> Channel:
        names = by_tag.get(str(entry["tag"]), [])
        bone = names[0] if len(names) == 1 else str(entry["bone"])
        return bone, str(entry["prop"]), int(entry["index"])

    def bake_keys(self, channel: Channel, co: np.ndarray, interpolation: np.ndarray) -> np.ndarray:
        """Mask of the keys (``co``, ``interpolation``: as stored) that are recorded keys of ``channel``."""
        mine = np.zeros(len(co), dtype=bool)
        for entry in self.channels.get(channel, ()):
            recorded = np.array(entry["co"], dtype=np.float32).reshape(-1, 2)
            if len(recorded) == 0 or len(co) == 0:
                continue
            kinds = bake_records.record_kinds(entry)
            if recorded.shape == co.shape and np.array_equal(recorded, co):
                match = np.ones(len(co), dtype=bool)  # a whole-range re-bake: the curve is the record
            else:
                order = np.argsort(recorded[:, 0], kind="stable")
                wanted = recorded[order]
                pos = np.clip(np.searchsorted(wanted[:, 0], co[:, 0]), 0, len(wanted) - 1)
                match = (wanted[pos, 0] == co[:, 0]) & (wanted[pos, 1] == co[:, 1])
                kinds = kinds[order][pos]
            mine |= match & (interpolation == kinds)
        return mine

    def saved_keys(self, channel: Channel) -> Keys | None:
        """The keys saved for ``channel`` (None: none)."""
        out = None
        for ckey in self.saved.get(channel, ()):
            keys = _decode(self.record[SAVED][ckey]["keys"])
            out = keys if out is None else _merge(out, keys)[0]
        return out

    def save(self, channel: Channel, keys: Keys | None) -> None:
        """Replace what is saved for ``channel`` by ``keys`` (None or empty: nothing)."""
        if self.record.get(SAVED) is None:
            self.record[SAVED] = {}
        saved = self.record[SAVED]
        for ckey in self.saved.pop(channel, ()):
            del saved[ckey]  # replaced whole: assigning over ID-property arrays does not resize them
        bone, prop, index = channel
        if keys is None or len(keys["co"]) == 0:
            return
        pb = self.armature.pose.bones.get(bone)
        tag = str((None if pb is None else pb.get(bake_records.BONE_TAG)) or "")  # none: found by name
        ckey = f"{tag}\t{bone if not tag else ''}\t{prop}\t{index}"
        saved[ckey] = {"tag": str(tag), "bone": bone, "prop": prop, "index": index, "keys": _encode(keys)}
        self.saved[channel] = [ckey]


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
        values: np.ndarray = np.array(saved[name], dtype=np.float64).astype(dtype)
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
            channels: Sequence[Channel], fcurves: Sequence[bpy.types.FCurve], start: float,
            end: float) -> list[tuple[Channel, Keys]]:
    """The user's keys in ``[start, end]`` (action time) on the curves a bake is about to write.

    Args:
        channels: (bone, prop, index) of each curve in ``fcurves``.

    Returns:
        (channel, keys) per curve that has user keys in range; every attribute of those keys.
    """
    out: list[tuple[Channel, Keys]] = []
    index: _Index | bool | None = False  # looked up on the first curve with keys in range
    for channel, fc in zip(channels, fcurves, strict=True):
        if len(fc.keyframe_points) == 0:
            continue
        co = anim_keys.read_keys_attribute(fc, "co")
        inside = (co[:, 0] >= start) & (co[:, 0] <= end)
        if not inside.any():
            continue
        if index is False:
            record = _record(armature, chain, action, handle)
            index = None if record is None else _Index(armature, record)
        user = inside
        if isinstance(index, _Index):
            user = inside & ~index.bake_keys(channel, co, anim_keys.read_keys_attribute(fc, "interpolation"))
        if user.any():
            out.append((channel, _take(anim_keys.read_keys(fc), user)))
    return out


def store(armature: bpy.types.Object, chain: Any, action: bpy.types.Action, handle: int,
          collected: Sequence[tuple[Channel, Keys]]) -> None:
    """Save what :func:`collect` found in the chain's record (after :func:`bake_records.record_bake` made it).

    Keys saved by earlier bakes stay, except where a collected key sits on their frame (the user's newer key).
    """
    if not collected:
        return
    record = _record(armature, chain, action, handle)
    if record is None:
        return
    index = _Index(armature, record)
    for channel, keys in collected:
        earlier = index.saved_keys(channel)
        index.save(channel, keys if earlier is None else _merge(keys, earlier)[0])


def drop_saved(armature: bpy.types.Object, record: Any, bone: str, prop: str, index: int) -> int:
    """Forget the keys the record saved for the channel (its curve is gone: the user deleted it); how many."""
    found = _Index(armature, record)
    keys = found.saved_keys((bone, prop, index))
    found.save((bone, prop, index), None)
    return 0 if keys is None else len(keys["co"])


def restore(armature: bpy.types.Object, record: Any, fcurve: bpy.types.FCurve, bone: str, prop: str,
            index: int) -> int:
    """Write the keys the record saved for the channel back into ``fcurve`` (Clear removed the bake's keys).

    Every key keeps every attribute bit for bit (:func:`anim_keys.restore_keys`); a saved key whose frame holds
    a key now (the user's, made since) is not restored. The saved keys leave the record.

    Returns:
        How many saved keys were not restored.
    """
    found = _Index(armature, record)
    channel = (bone, prop, index)
    saved = found.saved_keys(channel)
    if saved is None:
        return 0
    current = anim_keys.read_keys(fcurve)
    # A chain that lost its bone tags has two record entries for one curve: a saved key under the other entry's
    # bake key waits for that entry's turn.
    baked = current["co"][found.bake_keys(channel, current["co"], current["interpolation"]), 0]
    frames = saved["co"][:, 0]
    waiting = np.isin(frames, baked)
    merged, left = _merge(current, _take(saved, ~waiting))
    if len(merged["co"]) > len(current["co"]):
        anim_keys.restore_keys(fcurve, merged, start=-np.inf, end=np.inf)
    found.save(channel, _take(saved, waiting))
    return left


def give_back(armature: bpy.types.Object, chain: Any, action: bpy.types.Action, handle: int, bone: str, prop: str,
              index: int, fcurve: bpy.types.FCurve, start: float, end: float) -> None:
    """Put back the saved keys in ``[start, end]`` of a channel a re-bake no longer owns there (a strategy change
    dropped it), right after its bake keys there were removed: nothing of the bake's acts there any more.

    They leave the saved keys (Clear has nothing more to do for them); one on a frame that holds a key now stays
    saved, for Clear to count.
    """
    record = _record(armature, chain, action, handle)
    found = None if record is None else _Index(armature, record)
    keys = None if found is None else found.saved_keys((bone, prop, index))
    if found is None or keys is None:
        return
    frames = keys["co"][:, 0]
    current = anim_keys.read_keys(fcurve)
    free = (frames >= start) & (frames <= end) & ~np.isin(frames, current["co"][:, 0])
    if not free.any():
        return
    anim_keys.restore_keys(fcurve, _merge(current, _take(keys, free))[0], start=-np.inf, end=np.inf)
    found.save((bone, prop, index), _take(keys, ~free))


def _user_keys(found: _Index, fcurve: bpy.types.FCurve | None, channel: Channel) -> Keys | None:
    """The keys Clear would leave on the channel (None: it changes nothing there; empty: no key left)."""
    if fcurve is None:
        return None  # the user deleted the curve: Clear gives nothing back there either
    saved = found.saved_keys(channel)
    co = anim_keys.read_keys_attribute(fcurve, "co")
    mine = found.bake_keys(channel, co, anim_keys.read_keys_attribute(fcurve, "interpolation"))
    if saved is None and not mine.any():
        return None
    if saved is None and mine.all():
        return {"co": co[:0]}  # only the bake's keys: no attribute to read
    keys = _take(anim_keys.read_keys(fcurve), ~mine)
    return keys if saved is None else _merge(keys, saved)[0]


def _window(keys: Keys, times: np.ndarray) -> Keys:
    """The keys that decide the curve at a few ``times``: the segments holding them and two keys either side
    (the stored handles are put back as they are, and extrapolation reads at most the two end keys)."""
    frames = keys["co"][:, 0]
    first = max(int(np.searchsorted(frames, times.min(), side="right")) - 3, 0)
    last = int(np.searchsorted(frames, times.max(), side="left")) + 3
    return {name: values[first:last] for name, values in keys.items()}


def user_channels(armature: bpy.types.Object, chain: Any, bone: str, prop: str, times: np.ndarray,
                  sampled: list[np.ndarray | None]) -> list[np.ndarray | None]:
    """The user's FK values of ``bone``'s ``prop`` components at ``times`` (action time).

    ``sampled``: per component what the curves give now (:func:`sampling.sample_channels`). Where the chain's
    bakes keyed the channel, the values of the user's curve instead: without the bake's keys, with the keys they
    replaced; None (rest) when no key is left. Sampled the way :func:`sampling.sample_channels` samples, so a
    curve gives the same values as before the bake (inside the Live Preview's handler evaluated by
    :func:`_evaluate`, which covers constant, linear and Bezier segments; other shapes keep ``sampled`` there).
    """
    from . import live_preview  # it imports this module (through fk_blend)

    # Inside the live preview's depsgraph handler no scratch action may be made (it would trigger another
    # update): the user's keys are evaluated in numpy there, with Blender's arithmetic (:mod:`sampling.keyframes`).
    in_handler = live_preview.updating()
    anim = armature.animation_data
    action = None if anim is None else anim.action
    record = None if action is None else _record(armature, chain, action, anim_keys.slot_handle(armature))
    if record is None:
        return sampled
    found = _Index(armature, record)
    out = list(sampled)
    path = anim_keys.pose_bone_path(bone, f'["{prop}"]' if prop.startswith("soft_ik") else prop)
    scratch: tuple[bpy.types.Action, Any] | None = None  # one for all components, made when one needs it
    try:
        for i in range(len(sampled)):
            if sampled[i] is None:
                continue  # no curve plays (none, or muted): rest, as before any bake
            fc = anim_keys.find_fcurve(armature, path, i)
            keys = _user_keys(found, fc, (bone, prop, i))
            if keys is None:
                continue
            if len(keys["co"]) == 0:
                out[i] = None
                continue
            if len(times) <= EVALUATE_FRAMES:
                keys = _window(keys, np.asarray(times, dtype=np.float64))  # Solve, Live Preview: one frame
            if in_handler:
                values = _evaluate(keys, fc, times)
                if values is not None:  # else (a shape only Blender evaluates) the curve as it is
                    out[i] = values
                continue
            scratch = scratch or anim_keys.scratch_action(".soft_ik_user_keys")
            out[i] = _sample(scratch, i, keys, fc, times)
    finally:
        if scratch is not None:
            bpy.data.actions.remove(scratch[0])
    return out


def _evaluate(keys: Keys, like: bpy.types.FCurve, times: np.ndarray) -> np.ndarray | None:
    """``keys`` as a curve with ``like``'s extrapolation at ``times``, evaluated by :mod:`sampling.keyframes`
    (no Blender data made), or None when that module does not cover the keys (another interpolation, keys
    closer than its spacing) or no longer trusts its arithmetic this session."""
    constant, linear, bezier = keyframes.interpolation_ids()
    co = np.asarray(keys["co"], dtype=np.float32).reshape(-1, 2)
    ipo = np.asarray(keys["interpolation"], dtype=np.int64).reshape(-1)
    x = co[:, 0]
    if (not keyframes.trusted() or not np.isin(ipo[:-1], (constant, linear, bezier)).all()
            or not np.isfinite(x).all() or not (np.diff(x.astype(np.float64)) >= keyframes.MIN_SPACING).all()):
        return None
    left = np.asarray(keys["handle_left"], dtype=np.float32).reshape(-1, 2)
    right = np.asarray(keys["handle_right"], dtype=np.float32).reshape(-1, 2)
    curve = keyframes.Keys(start=np.zeros(1, dtype=np.int64), count=np.array([len(co)], dtype=np.int64),
                           x=x, y=co[:, 1], left_x=left[:, 0], left_y=left[:, 1], right_x=right[:, 0],
                           right_y=right[:, 1], interpolation=ipo,
                           linear=np.array([like.extrapolation == "LINEAR"], dtype=bool))
    # Blender evaluates at float32 times (FCurve.evaluate's frame is a float).
    frames = np.asarray(times, dtype=np.float64).reshape(-1).astype(np.float32)
    return keyframes.evaluate(curve, frames)[0].astype(np.float64)


def _sample(scratch: tuple[bpy.types.Action, Any], index: int, keys: Keys, like: bpy.types.FCurve,
            times: np.ndarray) -> np.ndarray:
    """``keys`` as a curve in ``scratch`` (with ``like``'s extrapolation) sampled at ``times`` as
    :func:`sampling.sample_channels` samples a curve, so the user's curve gives the values it gave before the
    bake."""
    action, owner = scratch
    fc = owner.fcurves.new("location", index=index)
    anim_keys.restore_keys(fc, keys, start=-np.inf, end=np.inf)
    fc.extrapolation = like.extrapolation
    sampler = ChannelSampler(np.asarray(times, dtype=np.float64).reshape(-1))
    try:
        if sampler.frames.size <= EVALUATE_FRAMES:
            return np.array([fc.evaluate(f) for f in sampler.frames.tolist()], dtype=np.float64)
        slot = SimpleNamespace(handle=action.slots[0].handle) if anim_keys.LAYERED_ACTIONS else None
        return np.asarray(sampler.values(SimpleNamespace(action=action, action_slot=slot), fc), dtype=np.float64)
    finally:
        sampler.close()
