"""Operators: thin wrappers that read the rig, call the solver through bake/posing, and report."""

import bpy

from . import chain_setup, mirror, pinning, snap, solve_bake, target_space

classes = (*chain_setup.classes, *mirror.classes, *solve_bake.classes, *target_space.classes, *pinning.classes,
           *snap.classes)
register, unregister = bpy.utils.register_classes_factory(classes)
