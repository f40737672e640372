"""The order in which the chains of one Solve or Bake are solved: a chain whose inputs move with another chain's
solve comes after it.

A hand chain under a forearm an arm chain solves, arms under a spine chain's chest, a target held in another
character's solved hand: sampled before the other chain's keys are written, such a chain would be solved against
a pose Blender no longer plays, and its keyed error would not be the distance Blender shows. So the chains are
grouped in levels: each level is sampled after the levels before it are written, and only depends on them.

A chain depends on another when anything its samples are computed from (its armature object, the parent of its
upper bone, the upper bone itself, its target and its pole, through parents, constraints and drivers: the links
of :func:`rig_dependencies.transform_inputs`) is a bone the other chain's solve moves (its bones and every bone
below them). Chains that depend on each other, directly or around a loop, have no order: they are refused by
name.
"""

from __future__ import annotations

from collections.abc import Sequence

import bpy
import numpy as np

from ..solver.chain_description import ERROR_PROP
from . import anim_keys, key_target
from . import messages as msg
from .messages import say
from .rig import ChainError, ChainRig, chain_bone_names, scene_objects
from .rig_dependencies import moved_bones, transform_inputs

Node = tuple[int, str]  # (object pointer, bone name or "")


def _starts(armature: bpy.types.Object, chain: bpy.types.PropertyGroup, upper: str
            ) -> list[tuple[bpy.types.Object, str]]:
    """Where the walk of what the chain's samples are computed from begins."""
    starts = [(armature, ""), (armature, upper), (chain.target, "")]
    if chain.pole is not None:
        starts.append((chain.pole, ""))
    return [(obj, bone) for obj, bone in starts if obj is not None]


Inputs = dict[Node, list[tuple[bpy.types.Object, str, str]]]


def _dependencies(starts: list[tuple[bpy.types.Object, str]], movers: dict[Node, list[int]], own: int,
                  inputs: Inputs, *, describe: bool = False) -> dict[int, str]:
    """The chains (indices into ``movers``' lists) whose solve moves something the walk from ``starts`` reaches;
    ``own`` (the chain itself) is left out.

    With ``describe``, each with the first path found to it (for a message), else with "": the order needs no
    words, and the links' phrases are translated on every step (a message's walk is made again, described).
    ``inputs`` keeps each node's :func:`transform_inputs` (of the same ``describe``) for the walks of the other
    chains: the chains of one armature share its object and bones above them.
    """
    found: dict[int, str] = {}
    stack: list[tuple[bpy.types.Object, str, str | None]] = [(obj, bone, None) for obj, bone in starts]
    seen: set[Node] = set()
    while stack:
        obj, bone, path = stack.pop()
        node = (obj.as_pointer(), bone)
        if node in seen:
            continue
        seen.add(node)
        here = path if path is not None else _node(obj, bone) if describe else ""
        for other in movers.get(node, ()):
            if other != own:
                found.setdefault(other, here)
        links = inputs.get(node)
        if links is None:
            links = inputs[node] = transform_inputs(obj, bone, describe=describe)
        if describe:  # the path is written out only where a link is followed: most walks end at their start
            stack += [(source, sub, f"{here} → {how} {_node(source, sub)}") for source, sub, how in links]
        else:
            stack += [(source, sub, "") for source, sub, _how in links]
    return found


def _path(starts: list[tuple[bpy.types.Object, str]], movers: dict[Node, list[int]], own: int, other: int) -> str:
    """The links from ``starts`` to what chain ``other`` moves, written out for a message."""
    return _dependencies(starts, movers, own, {}, describe=True).get(other, "")


def _node(obj: bpy.types.Object, bone: str) -> str:
    return say(msg.CYCLE_NODE_BONE, bone=bone, owner=obj.name) if bone else f"'{obj.name}'"


def _movers(rigs: Sequence[ChainRig]) -> dict[Node, list[int]]:
    """Every bone the chains' solves move, with the chains (indices) that move it."""
    movers: dict[Node, list[int]] = {}
    for i, rig in enumerate(rigs):
        arm = rig.armature.as_pointer()
        for bone in moved_bones(rig.armature, rig.bone_names):
            movers.setdefault((arm, bone), []).append(i)
    return movers


def waits_for(rigs: Sequence[ChainRig]) -> list[tuple[int, int]]:
    """Every ``(later, earlier)`` pair of indices into ``rigs`` where chain ``later`` hangs from ``earlier``'s
    solve, leaving out the chains on a loop (for the live preview, which solves the chains as they are and
    follows the hanging ones up: following a loop would solve its chains in turn, as Bake refuses them)."""
    movers = _movers(rigs)
    inputs: Inputs = {}
    waits = [_dependencies(_starts(rig.armature, rig.chain, rig.bone_names[0]), movers, i, inputs)
             for i, rig in enumerate(rigs)]
    looped = {i for i in range(len(rigs)) if _on_loop(i, waits, set())}
    return [(i, j) for i in range(len(rigs)) if i not in looped for j in waits[i] if j not in looped]


def levels(rigs: Sequence[ChainRig]) -> tuple[list[list[ChainRig]], list[tuple[ChainRig, str]]]:
    """The chains in the order they can be solved, and those that cannot be, with why.

    Returns:
        ``(levels, refused)``: every chain of a level depends only on chains of earlier levels (one level when no
        chain depends on another: the usual case, solved in one pass as before); per chain that depends on
        itself through other chains, the chain and a message naming the chain it waits for and the link.
    """
    if len(rigs) < 2:
        return [list(rigs)], []
    movers = _movers(rigs)
    inputs: Inputs = {}
    waits = [_dependencies(_starts(rig.armature, rig.chain, rig.bone_names[0]), movers, i, inputs)
             for i, rig in enumerate(rigs)]
    out: list[list[ChainRig]] = []
    refused: list[tuple[ChainRig, str]] = []
    done: set[int] = set()  # solved in an earlier level, or refused (its keys stay as they are)
    left = list(range(len(rigs)))
    while left:
        ready = [i for i in left if done.issuperset(waits[i])]
        if ready:
            out.append([rigs[i] for i in ready])
        else:  # every chain left waits for another left: refuse those on a loop, the others can follow them
            for i in (i for i in left if _on_loop(i, waits, done)):
                other = next(j for j in waits[i] if j not in done and _on_loop(j, waits, done))
                path = _path(_starts(rigs[i].armature, rigs[i].chain, rigs[i].bone_names[0]), movers, i, other)
                refused.append((rigs[i], say(msg.CHAIN_ORDER_LOOP, label=rigs[i].label, other=rigs[other].label,
                                             path=path)))
                ready.append(i)
        done.update(ready)
        left = [i for i in left if i not in done]
    return out, refused


def _on_loop(start: int, waits: list[dict[int, str]], done: set[int]) -> bool:
    """Whether chain ``start`` waits, through chains not ``done``, for itself."""
    stack, seen = [j for j in waits[start] if j not in done], set()
    while stack:
        j = stack.pop()
        if j == start:
            return True
        if j not in seen:
            seen.add(j)
            stack += [k for k in waits[j] if k not in done]
    return False


def stale_dependents(baked: Sequence[ChainRig], start: int, end: int, template: str = msg.STALE_DEPENDENT
                     ) -> list[str]:
    """Warnings for the chains left out of a bake (or a Clear) whose earlier bakes hang from bones it moved.

    Such a chain (a hand chain when only the arm chain is baked again, or cleared) keeps keys solved against the
    old pose: Blender now plays its tip elsewhere, and its keyed error no longer says where. It is not baked
    again behind the user's back (it was left out on purpose, perhaps); each one with keys of its error curve in
    the range is named with the chain it hangs from, so it can be baked again.

    Args:
        baked: the chains the operator moved.
        start, end: the scene frames it moved them on.
        template: :data:`messages.STALE_DEPENDENT` (a bake) or :data:`messages.STALE_AFTER_CLEAR`.
    """
    armatures = [obj for obj in scene_objects() if obj.type == "ARMATURE" and len(obj.soft_ik_2d.chains)]
    if not baked or sum(len(arm.soft_ik_2d.chains) for arm in armatures) <= len(baked):
        return []  # every chain of the scene was baked (a crowd): none was left out
    movers = _movers(baked)
    inputs: Inputs = {}
    ours = {rig.chain.as_pointer() for rig in baked}
    out = []
    for armature in armatures:
        for chain in armature.soft_ik_2d.chains:
            if chain.as_pointer() in ours or not _keyed_within(armature, chain, start, end):
                continue
            try:
                upper = chain_bone_names(armature, chain)[0]
            except ChainError:
                continue
            starts = _starts(armature, chain, upper)
            found = _dependencies(starts, movers, -1, inputs)
            if found:
                other = next(iter(found))
                path = _path(starts, movers, -1, other)
                label = say(msg.CHAIN_LABEL, chain=chain.name, armature=armature.name)
                out.append(say(template, label=label, other=baked[other].label, path=path, start=start, end=end))
    return out


def error_key_times(armature: bpy.types.Object, chain: bpy.types.PropertyGroup) -> np.ndarray:
    """The action times of the keys of the chain's error curve (empty without one)."""
    curve = anim_keys.find_fcurve(armature, anim_keys.pose_bone_path(chain.lower_bone, f'["{ERROR_PROP}"]'))
    if curve is None or not len(curve.keyframe_points):
        return np.empty(0)
    co = np.empty(2 * len(curve.keyframe_points))
    curve.keyframe_points.foreach_get("co", co)
    return co[0::2]


def baked_span(armature: bpy.types.Object, chain: bpy.types.PropertyGroup) -> tuple[float, float] | None:
    """The scene frames from the first to the last key of the chain's error curve (None without keys)."""
    times = error_key_times(armature, chain)
    if not times.size:
        return None
    anim = armature.animation_data
    if anim is not None and anim.use_tweak_mode:
        times = np.array([anim.nla_tweak_strip_time_to_scene(float(t)) for t in (times.min(), times.max())])
    return float(times.min()), float(times.max())


def _keyed_within(armature: bpy.types.Object, chain: bpy.types.PropertyGroup, start: int, end: int) -> bool:
    """Whether the chain's error curve has a key in [start, end] (scene frames; action time in NLA tweak mode)."""
    times = error_key_times(armature, chain)
    if not times.size:
        return False
    try:
        low, high = (float(t) for t in key_target.key_times(armature, np.array([start, end], dtype=np.float64)))
    except ChainError:  # its strip does not play the range one to one: its keys there are not the range's
        return False
    low, high = min(low, high), max(low, high)
    return bool(np.any((times >= low - 1e-4) & (times <= high + 1e-4)))
