"""The checks before a bake or solve: every chain read and checked before anything in the file changes.

The armature's own checks (:func:`prepare_armature`) are apart from the chains' (:func:`prepare_chains`), so a
batch runs them once per armature (:func:`batch.prepare_batch`).
"""

from __future__ import annotations

from collections.abc import Sequence

import bpy

from . import bake_records, chain_checks, key_target, reach
from . import messages as msg
from .messages import say
from .rig import ChainError, ChainRig, check_editable, check_shared_bones, check_target, read_chain, space_mismatch


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
        ChainError: the armature cannot be edited, or its keys would not land where playback reads them.
    """
    check_editable(armature)
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
    for chain in chains:
        bake_records.follow_renames(armature, chain)
        rig = read_chain(armature, chain)
        chain_checks.check_chain_inputs(rig, ik_reach)
        reach.check(rig)
        check_target(armature, chain)
        mismatch = space_mismatch(armature, chain)
        if mismatch:
            raise ChainError(say(msg.FIX_SPACE_FIRST, label=rig.label, problem=mismatch))
        rigs.append(rig)
    return rigs
