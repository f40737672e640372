"""The checks before a bake or solve: every chain read and checked before anything in the file changes.

The armature's own checks (:func:`prepare_armature`) are apart from the chains', so a batch runs them once per
armature (:func:`batch.prepare_batch`), then :func:`prepare_each`: the armature's chains read together, each
checked apart. :func:`prepare` (and :func:`prepare_chains`) stops at the first problem instead.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

import bpy

from . import bake_records, chain_checks, key_target, reach
from . import messages as msg
from .messages import say
from .rig import (
    ChainError,
    ChainRig,
    check_editable,
    check_pose_position,
    check_posed_parents,
    check_shared_bones,
    check_target,
    read_chain,
    read_chains,
    scene_objects,
    space_mismatch,
)


def prepare(armature: bpy.types.Object, chains: Sequence[bpy.types.PropertyGroup]) -> list[ChainRig]:
    """Read and check every chain before anything is changed.

    Chains of the armature that are not in ``chains`` matter only when they share a bone with one that is.

    Raises:
        ChainError: the first problem found, naming the chain and what to do.
    """
    prepare_armature(armature)
    return prepare_chains(armature, chains)


def prepare_armature(armature: bpy.types.Object) -> None:
    """The checks of :func:`prepare` that concern the armature alone, not any chain of it.

    A batch runs them once per armature (:func:`batch.prepare_batch`).

    Raises:
        ChainError: the armature cannot be edited, shows its Rest Position or hangs from a bone of one that
            does, or its keys would not land where playback reads them.
    """
    check_editable(armature)
    check_pose_position(armature)
    check_posed_parents(armature)
    key_target.check_armature(armature)


def prepare_chains(armature: bpy.types.Object, chains: Sequence[bpy.types.PropertyGroup],
                   conflicts: dict[int, str] | None = None,
                   ik_reach: chain_checks.IkReach | None = None) -> list[ChainRig]:
    """The per-chain checks of :func:`prepare`, after :func:`prepare_armature` passed.

    Args:
        conflicts: :func:`rig.shared_bone_conflicts` of the armature when the caller read it for all its chains
            (None: read here).
        ik_reach: :func:`chain_checks.ik_reach` of the armature, likewise (None: read once for ``chains``).

    Raises:
        ChainError: the first problem found, naming the chain and what to do.
    """
    check_shared_bones(armature, chains, conflicts)
    # Every pose bone's constraints scanned once for all the chains: a character's rig has hundreds of bones.
    if ik_reach is None:
        ik_reach = chain_checks.ik_reach(armature)
    rigs = []
    in_scene = scene_objects()
    for chain in chains:
        bake_records.follow_renames(armature, chain)
        rigs.append(_checked(armature, chain, read_chain(armature, chain), ik_reach, in_scene))
    return rigs


def prepare_each(armature: bpy.types.Object, chains: Sequence[bpy.types.PropertyGroup],
                 conflicts: dict[int, str], ik_reach: chain_checks.IkReach,
                 in_scene: Container[bpy.types.Object] | None = None) -> list[ChainRig | ChainError]:
    """:func:`prepare_chains` of each chain apart (a batch bakes every valid chain): per chain its rig or its
    first problem. The chains' rest geometry is read together (:func:`rig.read_chains`).

    Args:
        conflicts, ik_reach: as for :func:`prepare_chains`, read by the caller for all the armature's chains.
        in_scene: :func:`rig.scene_objects`, read by the caller for every armature of a batch (None: read here).
    """
    out: list[ChainRig | ChainError | None] = [None] * len(chains)
    in_scene = scene_objects() if in_scene is None else in_scene
    readable = []
    for c, chain in enumerate(chains):
        try:
            check_shared_bones(armature, [chain], conflicts)
        except ChainError as err:
            out[c] = err
            continue
        bake_records.follow_renames(armature, chain)
        readable.append(c)
    for c, rig in zip(readable, read_chains(armature, [chains[c] for c in readable]), strict=True):
        try:
            if isinstance(rig, ChainError):
                raise rig
            out[c] = _checked(armature, chains[c], rig, ik_reach, in_scene)
        except ChainError as err:
            out[c] = err
    return [r for r in out if r is not None]


def _checked(armature: bpy.types.Object, chain: bpy.types.PropertyGroup, rig: ChainRig,
             ik_reach: chain_checks.IkReach, in_scene: Container[bpy.types.Object]) -> ChainRig:
    """``rig`` once the checks after reading it pass (inputs the solve does not model, reach, target, space)."""
    chain_checks.check_chain_inputs(rig, ik_reach)
    reach.check(rig)
    check_target(armature, chain, in_scene)
    mismatch = space_mismatch(armature, chain)
    if mismatch:
        raise ChainError(say(msg.FIX_SPACE_FIRST, label=rig.label, problem=mismatch))
    return rig
