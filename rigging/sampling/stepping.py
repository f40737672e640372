"""The stepped paths: a temporary scene linking only the requested objects, or the user's own scene (for
simulations), stepped with ``frame_set`` and read through its depsgraph; the user's frame is restored."""

from __future__ import annotations

import math
from typing import Any

import bpy
import numpy as np

# Handlers (list name, function) that must not run for the frames sampling steps: the live preview's, which
# live_preview.register() lists here. They are taken out of bpy.app.handlers while stepping, since calling them
# on every stepped frame costs about as much as Blender's own evaluation of a small scene.
quiet_handlers: list[tuple[str, Any]] = []


def _step_and_read(
    step: Any,
    depsgraph: Any,
    requests: list[tuple[Any, str | None, str]],
    frames: np.ndarray,
    out: np.ndarray,
    idx: list[int],
) -> None:
    """Call ``step(frame, subframe)`` for each frame and read the requests from ``depsgraph``."""
    objects = list(dict.fromkeys(obj for obj, _b, _k in requests))
    removed = [(name, func) for name, func in quiet_handlers if func in getattr(bpy.app.handlers, name)]
    for name, func in removed:
        getattr(bpy.app.handlers, name).remove(func)
    try:
        _step_frames(step, depsgraph, requests, frames, out, idx, objects)
    finally:
        for name, func in removed:
            getattr(bpy.app.handlers, name).append(func)


def _step_frames(
    step: Any,
    depsgraph: Any,
    requests: list[tuple[Any, str | None, str]],
    frames: np.ndarray,
    out: np.ndarray,
    idx: list[int],
    objects: list[Any],
) -> None:
    # Evaluated copies are updated in place by each frame change: look them up once, and keep their matrices as
    # RNA float arrays. foreach_get copies the stored float32 values (column-major, as Blender keeps them) in one
    # call: ~1 µs per matrix where converting a mathutils Matrix costs ~25 µs on Blender 4.2 (no buffer protocol).
    evaluated = {obj: obj.evaluated_get(depsgraph) for obj in objects}
    arrays: dict[tuple[Any, str | None], Any] = {}  # (object, None or bone) -> its matrix, each read once a frame
    for obj, bone, kind in requests:
        if bone is None or kind != "ARMATURE":
            arrays.setdefault((obj, None), evaluated[obj].path_resolve("matrix_world", False))
        if bone is not None:
            arrays.setdefault((obj, bone), evaluated[obj].pose.bones[bone].path_resolve("matrix", False))
    raw = {key: np.empty((len(frames), 16), dtype=np.float32) for key in arrays}
    values = frames.tolist()
    finite = np.array([math.isfinite(f) for f in values], dtype=bool)
    for f_i, frame in enumerate(values):
        if finite[f_i]:
            whole = math.floor(frame)
            step(whole, frame - whole)
            for key, array in arrays.items():
                array.foreach_get(raw[key][f_i])
    # Column-major float32 as stored, to row-major float64 (exact).
    matrices = {key: buffer.reshape(-1, 4, 4).transpose(0, 2, 1).astype(np.float64) for key, buffer in raw.items()}
    for (obj, bone, kind), i in zip(requests, idx, strict=True):
        if bone is None or kind == "ARMATURE":
            out[i] = matrices[(obj, bone)]
        else:
            # Multiply in float64 (mathutils would round the product to float32), one 2D product per frame: a
            # stacked matmul may sum in another order.
            world, pose = matrices[(obj, None)], matrices[(obj, bone)]
            for f_i in range(len(values)):
                out[i, f_i] = world[f_i] @ pose[f_i]
        out[i, ~finite] = np.nan


def sample_temp_scene(
    context: Any, requests: list[tuple[Any, str | None, str]], frames: np.ndarray, out: np.ndarray, idx: list[int]
) -> None:
    """Step a temporary scene linking only the requested objects and write the requests into ``out[idx]``.

    Their dependencies are evaluated with them; the scene is removed and the user's frame re-evaluated after.
    """
    scene = context.scene
    user_frame, user_subframe = scene.frame_current, scene.frame_subframe
    tmp = bpy.data.scenes.new(".soft_ik_sampling")
    try:
        tmp.render.fps = scene.render.fps
        tmp.render.fps_base = scene.render.fps_base
        tmp.render.frame_map_old = scene.render.frame_map_old
        tmp.render.frame_map_new = scene.render.frame_map_new
        for obj in dict.fromkeys(obj for obj, _b, _k in requests):
            tmp.collection.objects.link(obj)
        with context.temp_override(scene=tmp, view_layer=tmp.view_layers[0]):
            depsgraph = context.evaluated_depsgraph_get()
        _step_and_read(lambda f, sub: tmp.frame_set(f, subframe=sub), depsgraph, requests, frames, out, idx)
    finally:
        bpy.data.scenes.remove(tmp)
        # The temporary depsgraph flushed its last frame into the original objects: re-evaluate the user's.
        scene.frame_set(user_frame, subframe=user_subframe)


def sample_user_scene(
    context: Any, requests: list[tuple[Any, str | None, str]], frames: np.ndarray, out: np.ndarray, idx: list[int]
) -> None:
    """Step the user's own scene (simulations such as rigid bodies live there), then restore its frame."""
    scene = context.scene
    user_frame, user_subframe = scene.frame_current, scene.frame_subframe
    try:
        depsgraph = context.evaluated_depsgraph_get()
        _step_and_read(lambda f, sub: scene.frame_set(f, subframe=sub), depsgraph, requests, frames, out, idx)
    finally:
        scene.frame_set(user_frame, subframe=user_subframe)
