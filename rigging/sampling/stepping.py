"""The stepped paths: a temporary scene linking only the requested objects, or the user's own scene (for
simulations), stepped with ``frame_set`` and read through its depsgraph; the user's frame is restored."""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Iterator
from typing import Any

import bpy
import numpy as np

from . import races

# Handlers (list name, function) that must not run for the frames sampling steps: the live preview's, which
# live_preview.register() lists here. They are taken out of bpy.app.handlers while stepping, since calling them
# on every stepped frame costs about as much as Blender's own evaluation of a small scene.
quiet_handlers: list[tuple[str, Any]] = []


def _step_and_read(
    frame_set: Any,
    depsgraph: Any,
    requests: list[tuple[Any, str | None, str]],
    frames: np.ndarray,
    out: np.ndarray,
    idx: list[int],
    *,
    backward: bool,
) -> None:
    """Step with ``frame_set`` (a scene's bound ``frame_set``) to each frame and read the requests from
    ``depsgraph`` into ``out[idx]``, the quiet handlers taken out meanwhile. Where a driver and animation set
    one property, the frames are read again (:mod:`.races`; ``backward``: the second pass may run backward,
    else it reads the frames in :func:`races.second_forward_order`)."""
    objects = list(dict.fromkeys(obj for obj, _b, _k in requests))
    racing = races.racing_channels(depsgraph)
    with _quiet():
        unsettled = _step_frames(frame_set, depsgraph, requests, frames, out, idx, objects,
                                 settle_backward=backward if racing else None)
    if racing:
        races.tell(racing, unsettled)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """The :data:`quiet_handlers` taken out of ``bpy.app.handlers`` meanwhile."""
    removed = [(name, func) for name, func in quiet_handlers if func in getattr(bpy.app.handlers, name)]
    for name, func in removed:
        getattr(bpy.app.handlers, name).remove(func)
    try:
        yield
    finally:
        for name, func in removed:
            getattr(bpy.app.handlers, name).append(func)


def _read_frames(frame_set: Any, getters: list[Any], frames: np.ndarray, buffers: list[np.ndarray]) -> None:
    """Step to each finite frame and call every getter into its row: ``getters[k](buffers[k][f_i])``.

    Blender's own evaluation of a small scene costs ~10 µs a frame, so the loop does nothing else: frames,
    subframes and the row views are prepared before it, and whole frames call ``frame_set(frame)`` alone (its
    ``subframe`` defaults to 0.0: the same call).
    """
    values = frames.tolist()
    todo = [f_i for f_i, frame in enumerate(values) if math.isfinite(frame)]
    wholes = [math.floor(values[f_i]) for f_i in todo]
    subs = [values[f_i] - whole for f_i, whole in zip(todo, wholes, strict=True)]
    columns = [[rows[f_i] for f_i in todo] for rows in buffers]
    if any(subs):
        for whole, sub, *row in zip(wholes, subs, *columns, strict=True):
            frame_set(whole, subframe=sub)
            for get, into in zip(getters, row, strict=True):
                get(into)
    elif len(getters) == 1:
        get = getters[0]
        for whole, into in zip(wholes, columns[0], strict=True):
            frame_set(whole)
            get(into)
    else:
        for whole, *row in zip(wholes, *columns, strict=True):
            frame_set(whole)
            for get, into in zip(getters, row, strict=True):
                get(into)


def _read_all_bones(requested: int, bones: int) -> bool:
    """Whether to read every pose bone's matrix a frame in one call instead of one read per requested bone.

    Measured on 4.2 and 5.3 with 60 bones: ~4-5 µs for the whole collection, ~0.5-0.9 µs per single bone read,
    so the collection is faster from about one requested bone in twelve. But every bone's 16 floats are kept for
    every frame until the end (100,000 frames of a 500-bone rig would be 3.2 GB): only when at least half the
    bones are requested, so the buffer stays within twice what the single reads hold. A lone bone is read alone.
    """
    return requested >= 2 and bones <= 2 * requested


def _step_frames(
    frame_set: Any,
    depsgraph: Any,
    requests: list[tuple[Any, str | None, str]],
    frames: np.ndarray,
    out: np.ndarray,
    idx: list[int],
    objects: list[Any],
    settle_backward: bool | None,
) -> list[float]:
    """Step and read (see :func:`_step_and_read`); returns the frames :func:`races.settle` could not settle."""
    # Evaluated copies are updated in place by each frame change: look them up once, and keep their matrices as
    # RNA float arrays. foreach_get copies the stored float32 values (column-major, as Blender keeps them) in one
    # call: ~0.5 µs per matrix where converting a mathutils Matrix costs ~25 µs on Blender 4.2 (no buffer
    # protocol).
    evaluated = {obj: obj.evaluated_get(depsgraph) for obj in objects}
    worlds = list(dict.fromkeys(obj for obj, bone, kind in requests if bone is None or kind != "ARMATURE"))
    bones_of: dict[Any, list[str]] = {}
    for obj, bone, _kind in requests:
        if bone is not None and bone not in bones_of.setdefault(obj, []):
            bones_of[obj].append(bone)
    getters = [evaluated[obj].path_resolve("matrix_world", False).foreach_get for obj in worlds]
    buffers = [np.empty((len(frames), 16), dtype=np.float32) for _obj in worlds]
    # (object, None or bone) -> (buffer, offset of its 16 floats in a row), each matrix read once a frame.
    where: dict[tuple[Any, str | None], tuple[int, int]] = {(obj, None): (k, 0) for k, obj in enumerate(worlds)}
    for obj, bones in bones_of.items():
        pose_bones = evaluated[obj].pose.bones
        if _read_all_bones(len(bones), len(pose_bones)):
            # One foreach_get of every bone's matrix (~0.07 µs a bone) instead of ~0.5-0.9 µs per requested bone.
            getters.append(functools.partial(pose_bones.foreach_get, "matrix"))
            buffers.append(np.empty((len(frames), 16 * len(pose_bones)), dtype=np.float32))
            where.update({(obj, bone): (len(buffers) - 1, 16 * pose_bones.find(bone)) for bone in bones})
        else:
            for bone in bones:
                getters.append(pose_bones[bone].path_resolve("matrix", False).foreach_get)
                buffers.append(np.empty((len(frames), 16), dtype=np.float32))
                where[(obj, bone)] = (len(buffers) - 1, 0)
    _read_frames(frame_set, getters, frames, buffers)
    unsettled = [] if settle_backward is None else races.settle(
        frame_set, functools.partial(_read_frames, frame_set, getters), getters, frames, buffers,
        backward=settle_backward)
    finite = np.isfinite(frames)
    # Column-major float32 as stored, to row-major float64 (exact).
    matrices = {key: buffers[k][:, at:at + 16].reshape(-1, 4, 4).transpose(0, 2, 1).astype(np.float64)
                for key, (k, at) in where.items()}
    for (obj, bone, kind), i in zip(requests, idx, strict=True):
        if bone is None or kind == "ARMATURE":
            out[i] = matrices[(obj, bone)]
        else:
            # Multiply in float64 (mathutils would round the product to float32). A stacked matmul runs numpy's
            # 2D kernel once per frame: the same bits as a product per frame (checked on 4.2 to 5.3), without a
            # Python call per frame.
            np.matmul(matrices[(obj, None)], matrices[(obj, bone)], out=out[i])
        out[i, ~finite] = np.nan
    return unsettled


def _python_drivers(depsgraph: Any) -> bool:
    """Whether any datablock the depsgraph evaluates has a driver whose expression needs Python."""
    for id_eval in depsgraph.ids:
        anim = getattr(id_eval.original, "animation_data", None)
        if anim is not None and any(fc.driver.type == "SCRIPTED" and not fc.driver.is_simple_expression
                                    for fc in anim.drivers):
            return True
    return False


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
        # frame_set builds the scene's depsgraph without making it the active one: its frames are not written
        # back into the original data, ~3-5 µs less a frame. A Python driver may read original data
        # (bpy.data...), which playback's active depsgraph keeps current: then it is made active as before.
        with _quiet():
            tmp.frame_set(user_frame)
        depsgraph = tmp.view_layers[0].depsgraph
        if _python_drivers(depsgraph):
            with context.temp_override(scene=tmp, view_layer=tmp.view_layers[0]):
                depsgraph = context.evaluated_depsgraph_get()
        _step_and_read(tmp.frame_set, depsgraph, requests, frames, out, idx, backward=True)
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
        # Simulations need the first pass in order: the second reads the frames it cached (races.settle).
        _step_and_read(scene.frame_set, depsgraph, requests, frames, out, idx, backward=False)
    finally:
        scene.frame_set(user_frame, subframe=user_subframe)
