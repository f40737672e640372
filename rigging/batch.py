"""Solve or bake many chains at once: each chain is checked on its own, so the valid ones go ahead while every
invalid one is named with its reason (all of them, in one report) and is left exactly as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import bpy
import numpy as np

from . import bake, chain_checks, chain_solve, fk_blend, live_solve
from . import messages as msg
from .chain_solve import ChainSolution
from .messages import say
from .rig import ChainError, ChainRig, scene_objects, shared_bone_conflicts


@dataclass
class Batch:
    """The chains that passed every check, and one message per problem found in the others."""

    rigs: list[ChainRig] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    total: int = 0

    def refuse(self, message: str) -> None:
        """Add a reason a chain was left out."""
        # One problem can disqualify several chains (two chains sharing a bone, a linked armature): say it once.
        if message not in self.refused:
            self.refused.append(message)

    def report(self, template: str) -> str:
        """The report of the refused chains: ``template`` with every reason.

        ``template`` is :data:`messages.BATCH_NOT_BAKED` or ``BATCH_NOT_SOLVED``; the reason alone when the
        operator acted on one chain.
        """
        if self.total == 1 and len(self.refused) == 1:
            return self.refused[0]
        return say(template, count=self.total - len(self.rigs), total=self.total, reasons="\n".join(self.refused))


def prepare_batch(selection: Sequence[tuple[bpy.types.Object, Sequence[bpy.types.PropertyGroup]]]) -> Batch:
    """Check every chain of every (armature, chains) pair separately; nothing in the file changes.

    What concerns the armature alone is checked once for all its chains (:func:`bake.prepare_armature`): its
    problem, if any, refuses each of them, as checking them one by one would.
    """
    batch = Batch()
    in_scene = scene_objects()  # every chain's target is looked for among them: read once
    for armature, chains in selection:
        try:
            bake.prepare_armature(armature)
        except ChainError as err:
            batch.total += len(chains)
            if chains:
                batch.refuse(str(err))
            continue
        # Which chains share a bone, and the IK constraints of every bone, read once for all of them (each
        # chain's check would read every chain, and every pose bone's constraints).
        conflicts = shared_bone_conflicts(armature)
        reach = chain_checks.ik_reach(armature)
        for rig in bake.prepare_each(armature, chains, conflicts, reach, in_scene):
            batch.total += 1
            if isinstance(rig, ChainError):
                batch.refuse(str(rig))
            else:
                batch.rigs.append(rig)
    return batch


def solve_batch(context: bpy.types.Context, batch: Batch, frames: np.ndarray,
                stepped: dict[str, str] | None = None) -> list[ChainSolution]:
    """Solve the batch's chains in one sampling pass.

    A chain that cannot be solved (no finite target frame) is moved to the refused ones and the others are
    solved without it. ``stepped`` receives the inputs the sampling steps a scene for (name -> why,
    :func:`sampling.stepped_objects`), of the batch's chains as given, refused ones included.
    """
    try:
        return bake.solve_chains(context, batch.rigs, frames, stepped)
    except ChainError:
        pass
    rigs, solutions = [], []
    for rig in batch.rigs:
        try:
            solutions += bake.solve_chains(context, [rig], frames, stepped)
        except ChainError as err:
            batch.refuse(str(err))
            continue
        rigs.append(rig)
    batch.rigs = rigs
    return solutions


def solve_batch_posed(context: bpy.types.Context, batch: Batch, frame: int) -> list[ChainSolution]:
    """Solve the batch's chains at ``frame`` from the pose as it stands (the evaluated depsgraph), not from keys.

    For the later levels of a Solve without keys (:mod:`chain_order`): the bones an earlier level posed have no
    keys for that pose, and sampling their curves would solve against the pose they had. A chain that cannot be
    solved is moved to the refused ones, as in :func:`solve_batch`.
    """
    depsgraph = context.evaluated_depsgraph_get()
    frames = np.array([float(frame)])
    fps = context.scene.render.fps / context.scene.render.fps_base
    rigs, solutions = [], []
    for rig in batch.rigs:
        try:
            reads = live_solve.read_inputs(rig, depsgraph, float(frame))
            chain_checks.check_parent_scale(rig, *reads.parent_samples(), frames)
            raw = chain_solve.solve_chains([rig], frames, [reads.samples()], fps=fps, sensitivity=False,
                                           solved_targets=False)[0]
        except ChainError as err:
            batch.refuse(str(err))
            continue
        rigs.append(rig)
        solutions.append(fk_blend.blend(rig, raw))
    batch.rigs = rigs
    return solutions


def selection_of(context: bpy.types.Context, armatures: Sequence[bpy.types.Object],
                 only_active: bool) -> list[tuple[bpy.types.Object, list[bpy.types.PropertyGroup]]]:
    """(armature, chains) an operator acts on.

    Every chain of ``armatures``, or with ``only_active`` the active chain of the active armature alone (the
    other selected armatures are left out).
    """
    if not only_active:
        return [(arm, list(arm.soft_ik_2d.chains)) for arm in armatures]
    arm = context.active_object
    if arm is None or arm.type != "ARMATURE":
        return []
    settings = arm.soft_ik_2d
    i = settings.active_chain_index
    return [(arm, [settings.chains[i]])] if 0 <= i < len(settings.chains) else []


def no_chain_message(context: bpy.types.Context, only_active: bool) -> str:
    """Why an operator found no chain to act on."""
    if only_active and context.active_object is not None:
        return say(msg.NO_ACTIVE_CHAIN, armature=context.active_object.name)
    return say(msg.NO_CHAINS_SELECTED)
