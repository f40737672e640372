"""Chains of one armature read together (``rig.read_chains``, as a bake reads a batch) against each read alone.

A batch computes the rest geometry of chains with as many bones in one pass: each chain must get exactly the
rig ``read_chain`` gives it alone (the same bits, rolled bones included), and a chain that cannot be read must
get the message it gets alone, whatever the chains around it.
"""

from __future__ import annotations

import dataclasses

import bpy
import harness
import numpy as np
import rigs


def rig_module():  # type: ignore[no-untyped-def]
    return harness.package("rigging.rig")


def _add_bones(rig: rigs.ArmRig, bones: list[tuple[str, str | None, tuple[float, float], tuple[float, float], float,
                                                   float]]) -> None:
    """(name, parent, head, tail (screen), roll, offset off the plane of the tail) per new bone."""
    rigs.enter_pose_mode(rig)
    bpy.ops.object.mode_set(mode="EDIT")
    eb = rig.armature.data.edit_bones
    for name, parent, head, tail, roll, off in bones:
        bone = eb.new(name)
        bone.head, bone.tail, bone.roll = rig.point(*head), rig.point(*tail) + off * rig.normal, roll
        if parent is not None:
            bone.parent, bone.use_connect = eb[parent], True
    bpy.ops.object.mode_set(mode="POSE")


def _chain(rig: rigs.ArmRig, name: str, upper: str, lower: str, length: int, **settings: object
           ) -> bpy.types.PropertyGroup:
    chain = rig.armature.soft_ik_2d.chains.add()
    chain.name, chain.upper_bone, chain.lower_bone, chain.chain_length = name, upper, lower, length
    for key, value in settings.items():
        setattr(chain, key, value)
    return chain


def _fields(rig: object) -> dict[str, object]:
    out: dict[str, object] = {}
    for f in dataclasses.fields(rig):  # type: ignore[arg-type]
        value = getattr(rig, f.name)
        if f.name in ("armature", "chain"):
            out[f.name] = value.as_pointer()
        elif isinstance(value, np.ndarray):
            out[f.name] = (value.dtype.str, value.shape, value.tobytes())
        else:
            out[f.name] = value
    return out


def test_chains_read_together_get_each_the_rig_or_the_message_it_gets_alone(empty_file: bpy.types.Scene) -> None:
    rig = rigs.build_arm(rolls=(0.0, 0.3, -0.7))
    _add_bones(rig, [
        ("A", "Root", (0.4, 1.5), (1.1, 0.9), 0.45, 0.0), ("B", "A", (1.1, 0.9), (1.6, 1.4), -1.2, 0.0),
        ("C", "B", (1.6, 1.4), (2.3, 1.2), 2.0, 0.0),  # a three-bone chain, rolled bones
        ("P", None, (-1.0, 0.0), (-1.5, 0.8), 0.1, 0.0), ("Q", "P", (-1.5, 0.8), (-2.0, 0.2), 0.0, 0.4),  # tip off
        ("S", None, (3.0, 0.0), (3.4, 0.5), -0.3, 0.0), ("T", "S", (3.4, 0.5), (3.9, 0.1), 0.8, 0.0),
    ])
    arm = rig.armature
    chains = [
        _chain(rig, "arm", "Upper", "Lower", 2, softness=0.1, limit_strategy="STRETCH"),
        _chain(rig, "three", "A", "C", 3, solver="FABRIK"),
        _chain(rig, "off", "P", "Q", 2),
        _chain(rig, "missing", "S", "Nope", 2),
        _chain(rig, "other", "S", "T", 2, use_elbow_limit=True),
    ]
    module = rig_module()
    together = module.read_chains(arm, chains)
    assert len(together) == len(chains)
    for chain, got in zip(chains, together, strict=True):
        try:
            alone = module.read_chain(arm, chain)
        except module.ChainError as err:
            assert isinstance(got, module.ChainError), chain.name
            assert str(got) == str(err)
            continue
        assert not isinstance(got, module.ChainError), (chain.name, str(got))
        assert _fields(got) == _fields(alone), chain.name
    kinds = [isinstance(r, module.ChainError) for r in together]
    assert kinds == [False, False, True, True, False]
    assert "off the plane" in str(together[2]) and "'Q'" in str(together[2])
    assert "Nope" in str(together[3])
    # The rolled bones give each chain its own rest axes: the pass did not hand one chain's to another.
    axes = [tuple(np.round(together[k].local_axes[0], 6)) for k in (0, 1, 4)]  # type: ignore[union-attr]
    assert len(set(axes)) == 3
    assert len(together[1].bone_names) == 3  # type: ignore[union-attr]
