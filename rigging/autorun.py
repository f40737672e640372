"""Chains that depend on a Python-expression driver, for bakes of untrusted files with auto-run off.

With auto-run off Blender does not run a driver's Python expression (only its "simple expressions", which it
evaluates without Python), so whatever the driver moves holds a value that has nothing to do with the frame. A
chain whose target, pole, armature or shoulder space such a driver moves would bake from it: refuse it by name.
"""

from __future__ import annotations

import bpy

from . import messages as msg
from . import rig_dependencies
from .messages import say
from .rig import ChainError, ChainRig

# Object channels that move an object or change how its constraints move it.
_OBJECT_PATHS = ("location", "rotation", "scale", "delta_", "matrix", "constraints[", "parent")


def _python_driver(fcurve: bpy.types.FCurve) -> bool:
    driver = fcurve.driver
    return not fcurve.mute and driver.type == "SCRIPTED" and not driver.is_simple_expression


def _moving_drivers(obj: bpy.types.Object, bone: str) -> list[bpy.types.FCurve]:
    """Python-expression drivers of ``obj`` that move it (or its pose bone ``bone``)."""
    anim = obj.animation_data
    if anim is None:
        return []
    if bone:
        prefix = f'pose.bones["{bpy.utils.escape_identifier(bone)}"]'
        return [fc for fc in anim.drivers if fc.data_path.startswith(prefix) and _python_driver(fc)]
    return [fc for fc in anim.drivers if fc.data_path.startswith(_OBJECT_PATHS) and _python_driver(fc)]


def _starts(rig: ChainRig) -> list[tuple[bpy.types.Object, str]]:
    """What a bake of the chain samples; everything they are computed from is reached from these."""
    out = [(rig.armature, rig.bone_names[0]), (rig.armature, "")]
    out += [(obj, "") for obj in (rig.chain.target, rig.chain.pole) if obj is not None]
    return out


def python_driver_of(rig: ChainRig) -> tuple[bpy.types.Object, bpy.types.FCurve] | None:
    """The first Python-expression driver that moves an input of the chain.

    The inputs are the upper bone, the armature object, the target and the pole, and what they are computed
    from, followed through parents, constraint targets, driver variables and deforming bones
    (:func:`rig_dependencies.transform_inputs`, the links :func:`rig_dependencies.dependency_on_chain` follows).

    Returns:
        ``(owner, driver F-curve)``, or None when no such driver moves the chain.
    """
    stack = _starts(rig)
    seen: set[tuple[int, str]] = set()
    while stack:
        obj, bone = stack.pop()
        if (obj.as_pointer(), bone) in seen:
            continue
        seen.add((obj.as_pointer(), bone))
        found = _moving_drivers(obj, bone)
        if found:
            return obj, found[0]
        # The same links the dependency-cycle check walks (one definition of "computed from").
        stack += [(source, sub) for source, sub, _how in rig_dependencies.transform_inputs(obj, bone)]
    return None


def check_autorun(rig: ChainRig) -> None:
    """Refuse a chain that a Python-expression driver moves, for a bake with auto-run off.

    Raises:
        ChainError: naming the driver's path, its owner and its expression (:func:`python_driver_of`).
    """
    found = python_driver_of(rig)
    if found is not None:
        owner, fcurve = found
        path = fcurve.data_path + (f"[{fcurve.array_index}]" if fcurve.array_index or _is_array(owner, fcurve)
                                   else "")
        raise ChainError(say(msg.DRIVER_NEEDS_AUTORUN, label=rig.label, path=path, owner=owner.name,
                             expression=fcurve.driver.expression))


def _is_array(owner: bpy.types.Object, fcurve: bpy.types.FCurve) -> bool:
    try:
        value = owner.path_resolve(fcurve.data_path)
    except ValueError:
        return False
    return hasattr(value, "__len__") and not isinstance(value, str)
