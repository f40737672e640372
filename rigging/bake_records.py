"""Bake records: what every bake wrote, so Clear removes exactly that, from the action it was written into.

A record lives on the action the keys went into (``action["_soft_ik_2d_bakes"]``), one per chain and action
slot: for every channel the bake owns, the (frame, value) of every key it wrote, merged over all bakes (a later
bake replaces the keys of its own range, overlapping or adjacent bakes add up). Kept on the action it goes
wherever the keys go: an action the user switches away from keeps its record until it is assigned again and
cleared, a copy of the action carries the record of its copied keys, a deleted action takes both along. It adds
no user to the action.

Chains and records find their bones through a hidden tag on the pose bones (``pose.bones[...]
["_soft_ik_2d_bone"]``), so a bone renamed after the bake is followed: Blender renames the F-curve paths, the
chain's bone names are updated and Clear rebuilds the paths from the current names.

Clear removes a recorded key only while it is still the bake's: at its frame with its value and interpolation.
A key the user moved or changed since the bake is the user's and stays (see docs/design.md "Keys a bake writes").
Then the user's keys the bakes replaced, saved in the record, are written back (:mod:`replaced_keys`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import bpy
import numpy as np

from . import anim_keys
from . import messages as msg
from .messages import say

RECORDS = "_soft_ik_2d_bakes"  # on an action: {"<chain uid>:<slot handle>": record}
BONE_TAG = "_soft_ik_2d_bone"  # on a pose bone: a tag that survives renames
CHAIN_UID = "_soft_ik_2d_uid"  # on a chain
CHAIN_TAGS = "_soft_ik_2d_tags"  # on a chain: "<upper bone tag>\t<lower bone tag>"
CHAIN_NAMES = "_soft_ik_2d_names"  # on a chain: "<upper>\t<lower>", the bone names the tags were given under
# What a pose channel plays once its curve is gone.
REST_VALUES: dict[str, float | tuple[float, ...]] = {
    "location": 0.0, "scale": 1.0, "rotation_euler": 0.0,
    "rotation_axis_angle": (0.0, 0.0, 1.0, 0.0), "rotation_quaternion": (1.0, 0.0, 0.0, 0.0),
}


@dataclass
class Written:
    """The keys one bake wrote on one channel (``co``: float32 (frame, value) pairs as stored).

    ``interpolation`` is every key's, unless ``kinds`` gives one RNA interpolation value per key: a channel's
    record holds keys of several bakes, and a reduced bake's Bezier keys may lie beside another bake's linear
    ones.
    """

    bone: str
    prop: str
    index: int
    co: np.ndarray
    interpolation: str
    kinds: np.ndarray | None = None

    def key_kinds(self) -> np.ndarray:
        """One RNA interpolation value per key of ``co``."""
        if self.kinds is not None:
            return self.kinds
        return np.full(len(self.co), anim_keys.interpolation_value(self.interpolation), dtype=np.int32)


@dataclass
class ClearResult:
    """What a Clear did."""

    touched: int = 0  # curves keys were removed from
    messages: list[str] = field(default_factory=list)  # what was kept and why (reported as warnings)


def _kinds(channel: Any) -> np.ndarray | None:
    """A record channel's per-key interpolations, None when its keys all have its ``interpolation``."""
    return np.array(channel["kinds"], dtype=np.int32) if "kinds" in channel else None


_UID_POOL: list[str] = []


def _new_uid() -> str:
    """A new random 128-bit id (32 hex digits, like a uuid4's), drawn from a pool filled in one system call.

    A first bake gives every chain and bone one; a uuid4 costs a system call and an object each.
    """
    if not _UID_POOL:
        raw = os.urandom(16 * 256).hex()
        _UID_POOL.extend(raw[i:i + 32] for i in range(0, len(raw), 32))
    return _UID_POOL.pop()


def chain_uid(chain: bpy.types.PropertyGroup, create: bool = False) -> str | None:
    """The chain's hidden uid, the key of its records (created with ``create``; None when it has none)."""
    uid = chain.get(CHAIN_UID)
    if not uid and create:
        uid = chain[CHAIN_UID] = _new_uid()
    return str(uid) if uid else None


def _bones_by_tag(armature: bpy.types.Object) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for pb in armature.pose.bones:
        tag = pb.get(BONE_TAG)
        if tag:
            out.setdefault(str(tag), []).append(pb.name)
    return out


def _bone_tag(armature: bpy.types.Object, name: str, by_tag: dict[str, list[str]],
              owned: set[tuple[str, str]]) -> str:
    """The bone's tag, created if missing.

    Duplicating a bone copies its tag; a tag must name one bone, so a shared tag stays with the bone the chain
    recorded under it (``owned``: (tag, name) pairs) and the copies get new ones.
    """
    pb = armature.pose.bones[name]
    tag = str(pb.get(BONE_TAG) or "")
    sharing = by_tag.get(tag, [])
    if tag and len(sharing) > 1:
        if (tag, name) in owned:
            for other in sharing:
                if other != name:
                    new = armature.pose.bones[other][BONE_TAG] = _new_uid()
                    by_tag[new] = [other]
            by_tag[tag] = [name]
        else:
            tag = ""
    if not tag:
        tag = pb[BONE_TAG] = _new_uid()
        by_tag[tag] = [name]
    return tag


def _resolve(by_tag: dict[str, list[str]], tag: str, name: str) -> str:
    """The bone carrying ``tag`` now, else the name it had."""
    names = by_tag.get(tag, [])
    return names[0] if len(names) == 1 else name


def follow_renames(armature: bpy.types.Object, chain: bpy.types.PropertyGroup) -> None:
    """Point the chain at its bones again after they were renamed (found by their tags).

    A bone name the user set on the chain since the bake is the user's choice and stays.
    """
    tags, names = str(chain.get(CHAIN_TAGS, "")).split("\t"), str(chain.get(CHAIN_NAMES, "")).split("\t")
    if len(tags) != 2 or len(names) != 2:
        return
    by_tag = _bones_by_tag(armature)
    for i, attr in enumerate(("upper_bone", "lower_bone")):
        found = by_tag.get(tags[i], [])
        if getattr(chain, attr) == names[i] and len(found) == 1 and found[0] != names[i]:
            setattr(chain, attr, found[0])
            names[i] = found[0]
    chain[CHAIN_NAMES] = "\t".join(names)


def _key(uid: str, handle: int) -> str:
    return f"{uid}:{handle}"


def _channel_key(tag: str, prop: str, index: int) -> str:
    return f"{tag}\t{prop}\t{index}"


def _co(channel: Any) -> np.ndarray:
    return np.array(channel["co"], dtype=np.float32).reshape(-1, 2)


def _set_co(channel: Any, co: np.ndarray) -> None:
    # Assigning over an existing ID-property array writes into it without resizing: replace it.
    if "co" in channel:
        del channel["co"]
    channel["co"] = np.ascontiguousarray(co, dtype=np.float32).ravel()


def _outside_mask(co: np.ndarray, start: float, end: float) -> np.ndarray:
    frames = co[:, 0]
    return (frames < np.float32(start)) | (frames > np.float32(end))


def record_kinds(channel: Any) -> np.ndarray:
    """One RNA interpolation value per recorded key of a record channel."""
    kinds = _kinds(channel)
    if kinds is not None:
        return kinds
    value = anim_keys.interpolation_value(str(channel["interpolation"]))
    return np.full(len(channel["co"]) // 2, value, dtype=np.int32)


def _set_keys(channel: Any, co: np.ndarray, kinds: np.ndarray) -> None:
    """A record channel's keys, and their interpolations where they are not all the channel's own."""
    _set_co(channel, co)
    if "kinds" in channel:
        del channel["kinds"]  # replaced whole, as ``co``
    if len(kinds) and not (kinds == anim_keys.interpolation_value(str(channel["interpolation"]))).all():
        channel["kinds"] = np.ascontiguousarray(kinds, dtype=np.int32)


def recorded_channels(armature: bpy.types.Object, chain: bpy.types.PropertyGroup, action: bpy.types.Action,
                      handle: int) -> list[Written]:
    """The channels the chain's record in (action, slot) holds keys for, with their current bone names."""
    uid = chain_uid(chain)
    records = action.get(RECORDS)
    if uid is None or records is None or _key(uid, handle) not in records:
        return []
    by_tag = _bones_by_tag(armature)
    out = []
    for channel in records[_key(uid, handle)]["channels"].values():
        out.append(Written(_resolve(by_tag, str(channel["tag"]), str(channel["bone"])), str(channel["prop"]),
                           int(channel["index"]), _co(channel), str(channel["interpolation"]), _kinds(channel)))
    return out


def record_bake(armature: bpy.types.Object, chain: bpy.types.PropertyGroup, action: bpy.types.Action, handle: int,
                written: Iterable[Written], start: float, end: float, replaced: Iterable[tuple[str, str, int]] = (),
                shared: RecordsPass | None = None) -> None:
    """Merge a bake into the chain's record in (action, slot).

    On every channel written, and every channel in ``replaced`` whose keys the bake removed, the recorded keys
    inside [start, end] are replaced by ``written``; elsewhere the record keeps what earlier bakes wrote.

    Args:
        armature: the chain's armature.
        chain: the chain baked.
        action, handle: the action and slot the keys went into (:func:`anim_keys.slot_handle`).
        written: the keys written per channel.
        start, end: the baked range, action time (frames).
        replaced: (bone, prop, index) of the channels whose keys in range the bake removed.
        shared: one per bake, shared by its chains, so a chain without a uid looks for its records by name in
            one pass over the actions for all of them, and an armature's bone tags are read once (None: a pass of
            its own).
    """
    shared = shared or RecordsPass()
    uid = chain_uid(chain) or shared.adopt(armature, chain) or chain_uid(chain, create=True)
    assert uid is not None
    by_tag = shared.bones_by_tag(armature)
    if action.get(RECORDS) is None:
        action[RECORDS] = {}
    records = action[RECORDS]
    key = _key(uid, handle)
    record = records.get(key)
    if record is not None:
        record["armature"], record["chain"] = armature.name, chain.name
        channels: Any = record["channels"]
    else:
        # A first bake into this action (slot): the record is built here and stored whole at the end, one
        # conversion to ID properties instead of one per channel.
        channels = {}
    owned = {(str(c["tag"]), str(c["bone"])) for c in channels.values()}
    owned |= set(zip(str(chain.get(CHAIN_TAGS, "")).split("\t"), str(chain.get(CHAIN_NAMES, "")).split("\t"),
                     strict=False))
    bones = [chain.upper_bone, chain.lower_bone]
    if all(name in armature.pose.bones for name in bones):
        chain[CHAIN_TAGS] = "\t".join(_bone_tag(armature, name, by_tag, owned) for name in bones)
        chain[CHAIN_NAMES] = "\t".join(bones)
    for bone, prop, index in replaced:
        if bone not in armature.pose.bones:
            continue
        ckey = _channel_key(_bone_tag(armature, bone, by_tag, owned), prop, index)
        if ckey in channels:
            channel = channels[ckey]
            kept = _outside_mask(_co(channel), start, end)
            _set_keys(channel, _co(channel)[kept], record_kinds(channel)[kept])
    tags: dict[str, str] = {}  # a bone's tag is settled by its first _bone_tag call
    for w in written:
        tag = tags.get(w.bone) or tags.setdefault(w.bone, _bone_tag(armature, w.bone, by_tag, owned))
        ckey = _channel_key(tag, w.prop, w.index)
        new = np.asarray(w.co, dtype=np.float32).reshape(-1, 2)  # sorted, inside [start, end] but for edge pins
        if ckey not in channels:
            # A first bake of the channel (every channel of a fresh chain): the record is created whole.
            channels[ckey] = {"tag": tag, "bone": w.bone, "prop": w.prop, "index": w.index,
                              "interpolation": w.interpolation, "co": np.ascontiguousarray(new).ravel()}
            if w.kinds is not None:
                _set_keys(channels[ckey], new, w.kinds)
            continue
        channel = channels[ckey]
        old, old_kinds = _co(channel), record_kinds(channel)
        channel["bone"], channel["interpolation"] = w.bone, w.interpolation
        new_kinds = w.key_kinds()
        if len(old):
            # ``new`` may reach past the range by the keys pinning its edges (bake.write_solution).
            frames = old[:, 0]
            low, high = np.float32(start), np.float32(end)
            if len(new):
                low, high = min(low, new[0, 0]), max(high, new[-1, 0])
            before, after = frames < low, frames > high
            new = np.concatenate([old[before], new, old[after]])
            new_kinds = np.concatenate([old_kinds[before], new_kinds, old_kinds[after]])
        _set_keys(channel, new, new_kinds)
    if record is None:
        records[key] = {"armature": armature.name, "chain": chain.name, "slot": handle,
                        "channels": {k: c for k, c in channels.items() if len(c["co"])}}
        record = records[key]
        channels = record["channels"]  # from here on, the stored record as for a later bake
    else:
        for ckey in [k for k, channel in channels.items() if len(channel["co"]) == 0]:
            del channels[ckey]


class RecordsPass:
    """What the chains of one bake share while their keys are recorded, each read once for all of them.

    The uid of a chain's records when the chain lost it (:meth:`adopt`): Blender drops add-on ID properties on a
    library override when the file is reopened; the records on the shot's local action stay. The actions'
    records are read once, on the first chain that needs them: a fresh crowd bake has every chain without a
    uid, and a pass per chain over every action's records grew with the square of the chains. The records a bake
    writes for its own chains carry their new uids and names, which no other chain of an armature has (chain
    names are unique per armature), so they need not be looked at.

    An armature's bones by tag (:meth:`bones_by_tag`): reading every pose bone's tag costs ~0.1 ms a chain on a
    rig of 150 bones. :func:`record_bake` keeps the map current as it tags bones, and nothing else in a bake
    changes a tag.
    """

    def __init__(self) -> None:
        self.by_name: dict[tuple[str, str], str] | None = None
        self.tags: dict[int, dict[str, list[str]]] = {}

    def bones_by_tag(self, armature: bpy.types.Object) -> dict[str, list[str]]:
        """The armature's pose bones by tag (``{tag: [bone names]}``), read on its first chain."""
        key = armature.as_pointer()
        if key not in self.tags:
            self.tags[key] = _bones_by_tag(armature)
        return self.tags[key]

    def adopt(self, armature: bpy.types.Object, chain: bpy.types.PropertyGroup) -> str | None:
        """The uid the chain's records were written under (the first found), set on the chain; None if none."""
        if self.by_name is None:
            self.by_name = {}
            for action in bpy.data.actions:
                records: Any = action.get(RECORDS)
                for key in (records or {}).keys():
                    record = records[key]
                    self.by_name.setdefault((str(record.get("armature")), str(record.get("chain"))),
                                            key.rpartition(":")[0])
        uid = self.by_name.get((armature.name, chain.name))
        if uid is None:
            return None
        chain[CHAIN_UID] = uid
        return str(uid)


def _belongs(record: Any, key: str, uid: str | None, chain: bpy.types.PropertyGroup,
             armature: bpy.types.Object) -> bool:
    if uid is not None and key.startswith(uid + ":"):
        return True
    # A chain whose hidden uid was lost (an override reopened) still finds its records by name.
    return str(record.get("chain")) == chain.name and str(record.get("armature")) == armature.name


def _clear_record(armature: bpy.types.Object, action: bpy.types.Action, handle: int,
                  record: Any) -> tuple[int, int, int]:
    """Remove the record's keys still as the bake wrote them and put back the user's keys they replaced.

    Returns:
        (curves touched, keys kept as edited, saved keys not restored: keyed over or their curve deleted since).
    """
    from . import replaced_keys  # it imports this module
    from .bake import bone_path  # bake imports this module

    by_tag = _bones_by_tag(armature)
    touched = edited = unrestored = 0
    playing_here = (action, handle) == (armature.animation_data.action, anim_keys.slot_handle(armature))
    for channel in record["channels"].values():
        co = _co(channel)
        bone = _resolve(by_tag, str(channel["tag"]), str(channel["bone"]))
        prop, index = str(channel["prop"]), int(channel["index"])
        fc = anim_keys.find_fcurve_in(action, handle, bone_path(bone, prop), index)
        if fc is None and bone != str(channel["bone"]):
            fc = anim_keys.find_fcurve_in(action, handle, bone_path(str(channel["bone"]), prop), index)
        if fc is None:
            unrestored += replaced_keys.drop_saved(armature, record, bone, prop, index)
            continue
        removed = anim_keys.remove_keys_at(fc, co, str(channel["interpolation"]), _kinds(channel))
        frames = anim_keys.read_keys_attribute(fc, "co")[:, 0]
        edited += int(np.count_nonzero(np.isin(frames, co[:, 0])))
        touched += removed > 0
        unrestored += replaced_keys.restore(armature, record, fc, bone, prop, index)  # the user's replaced keys
        if len(fc.keyframe_points) == 0:
            drop_empty_curve(armature, fc, bone, prop, index, playing=playing_here)
    return touched, edited, unrestored


def drop_empty_curve(armature: bpy.types.Object, fcurve: bpy.types.FCurve, bone: str, prop: str, index: int, *,
                     playing: bool = True) -> None:
    """Remove a curve the bake's keys were all removed from.

    When the armature plays it (``playing``), its pose channel goes back to rest, or the last baked value (say
    a stretch) would stay in the pose and be saved.
    """
    anim_keys.remove_fcurve(fcurve)
    rest = REST_VALUES.get(prop)
    if rest is not None and playing and bone in armature.pose.bones:
        getattr(armature.pose.bones[bone], prop)[index] = rest if isinstance(rest, float) else rest[index]


def clear(armature: bpy.types.Object, chains: Sequence[bpy.types.PropertyGroup]) -> ClearResult:
    """Remove what the recorded bakes of ``chains`` wrote, from every action (slot) only the armature plays.

    Records in actions it does not play, or shares with another ID, are kept and said.
    """
    result = ClearResult()
    played = anim_keys.played_slots(armature)
    for chain in chains:
        follow_renames(armature, chain)
        uid = chain_uid(chain)
        label = say(msg.CHAIN_LABEL, chain=chain.name, armature=armature.name)
        kept = edited = unrestored = 0
        for action in list(bpy.data.actions):
            records = action.get(RECORDS)
            if not records:
                continue
            for key in list(records.keys()):
                record = records[key]
                if not _belongs(record, key, uid, chain, armature):
                    continue
                handle = int(record["slot"])
                if (action, handle) not in played:
                    # A copy of the action on a duplicated rig carries the same record: not this armature's.
                    if str(record.get("armature")) == armature.name:
                        result.messages.append(say(msg.CLEAR_NOT_PLAYED, label=label, action=action.name,
                                                   armature=armature.name))
                        kept += 1
                    continue
                others = anim_keys.other_players(action, handle, armature)
                if others:
                    result.messages.append(say(msg.CLEAR_SHARED, label=label, action=action.name,
                                               armature=armature.name,
                                               users=", ".join(f"'{user.name}'" for user in others)))
                    kept += 1
                    continue
                touched, record_edited, record_unrestored = _clear_record(armature, action, handle, record)
                result.touched += touched
                edited += record_edited
                unrestored += record_unrestored
                del records[key]
            if len(records) == 0:
                del action[RECORDS]
        if edited:
            result.messages.append(say(msg.CLEAR_EDITED, label=label, count=edited))
        if unrestored:
            result.messages.append(say(msg.CLEAR_NOT_RESTORED, label=label, count=unrestored))
        if kept == 0:
            chain.bake_end = chain.bake_start - 1
            chain.worst_frames.clear()
            chain["baked_channels"] = ""
    return result
