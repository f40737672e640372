"""Live preview: re-pose the chains whenever a target, the rig or a chain setting changes, without keys.

Runs synchronously from ``depsgraph_update_post`` and ``frame_change_post`` (timers never run in background
Blender). Each chain is solved for one frame with the world matrices read from the evaluated depsgraph of the
current state (no frame stepping), by :mod:`live_solve`: the bake's :func:`chain_solve.solve_chain` for one frame,
in plain floats (a drag update must cost a fraction of a millisecond per chain).

Why it cannot loop: writing the pose inside a handler re-evaluates the armature once without re-running
handlers, and a module-level guard drops re-entrant calls. The next depsgraph update that mentions the
armature finds the same inputs (the target, the shoulder's parent, the settings and the frame are fingerprinted)
and the pose it wrote still in place, so it does nothing.

"The live pose wins over keys": a frame change or a re-evaluated action writes keyed values into the pose;
the handler notices that the pose differs from what it wrote and writes it again. Turning preview off tags
the armature's animation (``refresh={'TIME'}``) so the keyed pose comes back at the next evaluation.

Chains that hang from chains (a hand chain under an arm chain; :mod:`chain_order`): the one below reads the
evaluated state from before the chain above was posed in the same update, so after the update's poses, the
chains hanging from one it posed are solved again on a re-evaluated depsgraph (a level at a time). Which chain
hangs from which is found again only when a rig is read again or dropped, not on a drag.

What a drag update reuses (issue 17): an update that did not re-evaluate the armature (a target, pole or
space object moved) takes the settings, the rest geometry, the checks, the IK influence and FK keys
(``fk_blend.preview_key``) and the pose as they were at the last update that did; anything on the armature (a
setting, a key, a bone, Edit Mode, a frame change) re-reads them, and undo or a file load clears the cache. At
influence 1 the FK blend is skipped (it would return the solve itself); an armature without animation data
reads the influence from its property, without F-curve sampling.

The same cache feeds the overlay and the panel (solution, error, flags, sensitivity of the current state):
the active chain of the active armature is solved (not posed) while its overlay is on, so drawing never
solves.
"""

from __future__ import annotations

import dataclasses
import time

import bpy
import numpy as np
from bpy.app.handlers import persistent

from . import chain_checks, chain_order, fk_blend, linked_data, live_solve, posing, reach, sampling
from .live_cache import ChainPreview, continuing, pose_snapshot, rest_fingerprint, same_pose, settings_fingerprint
from .rig import ChainError, ChainRig, check_pose_position, check_target, read_chain

# fk_blend.preview_key at influence 1 (no FK pose read): the solve is posed as it is.
_FULL_IK = np.ones(1).tobytes()


_cache: dict[tuple[str, str], ChainPreview] = {}
# Which previewed chains hang from which (_hanging), with what it was found for: (_rigs_generation, how many
# chains were previewed).
_hanging_cache: tuple[tuple[int, int], dict[tuple[str, str], list[tuple[str, str]]]] | None = None
_rigs_generation = 0  # counts the cached rigs replaced or dropped (_rigs_changed)
# Levels of chains hanging from chains solved after one update (a hand under an arm under a spine: 2).
_MAX_LEVELS = 8
_posed_armatures: set[str] = set()
_busy = False


def updating() -> bool:
    """Whether the live preview's depsgraph handler is running now (code it calls may not add data blocks)."""
    return _busy


# Solves and pose writes done by the handlers, and the time spent in them; read by tests and the benchmark.
stats: dict[str, float] = {"solves": 0, "poses": 0, "seconds": 0.0}


def preview_of(armature: bpy.types.Object, chain: bpy.types.PropertyGroup) -> ChainPreview | None:
    """The cached preview of a chain (None when neither live preview nor its overlay computed it yet)."""
    return _cache.get((armature.name, chain.name))


def clear_cache() -> None:
    """Forget every chain's preview (undo, file load, unregistering)."""
    global _hanging_cache
    _hanging_cache = None
    _cache.clear()
    _posed_armatures.clear()


def _update_chain(armature: bpy.types.Object, chain: bpy.types.PropertyGroup, depsgraph: bpy.types.Depsgraph,
                  scene: bpy.types.Scene, *, pose: bool, armature_touched: bool,
                  shared: live_solve.ArmatureReads | None = None) -> tuple[str, str] | None:
    """Solve the chain if anything it reads changed, and (``pose``) keep its bones at the solution; returns
    the chain's key (armature and chain name) when it wrote the pose, else None.

    Args:
        armature, chain, depsgraph, scene: the chain and the state to read.
        pose: write the solution to the bones (live preview on), else only solve (the overlay).
        armature_touched: the armature (settings, rest, pose or keys) may have changed; when False, the
            settings, the rest geometry, the influence and FK keys and the pose are taken as they were at the
            last call.
        shared: the armature's reads of this update (:class:`live_solve.ArmatureReads`), for all its chains.
    """
    key = (armature.name, chain.name)
    entry = _cache.get(key)
    if entry is None:  # not setdefault: it would build (and drop) a ChainPreview on every call
        entry = _cache[key] = ChainPreview()
    try:
        rig = entry.rig
        if rig is not None and entry.inputs is not None and not armature_touched:
            settings, rest = entry.inputs[:2]
            if rig.armature != armature or rig.chain != chain:  # other wrappers of the same data (cheap check)
                rig = dataclasses.replace(rig, armature=armature, chain=chain)
        else:
            _give_back(entry, chain)
            settings = (armature.soft_ik_2d.plane, settings_fingerprint(chain))
            if rig is not None:
                if rig.armature != armature or rig.chain != chain:
                    rig = dataclasses.replace(rig, armature=armature, chain=chain)
                try:
                    rest = rest_fingerprint(armature, rig)
                except KeyError:  # a bone renamed or removed: read_chain names it in its message
                    rest = ()
            if rig is None or entry.inputs is None or entry.inputs[:2] != (settings, rest):
                rig = read_chain(armature, chain)
                rest = rest_fingerprint(armature, rig)
                check_target(armature, chain, rest=False)  # a target at rest is posed to as shown: no key
            # The same refusals as the bake: a rest position; constraints, drivers and scales the solve does not
            # model.
            check_pose_position(armature)
            chain_checks.check_chain_inputs(rig, None if shared is None else shared.ik_reach)
            reach.check(rig)
        frame = float(scene.frame_current)
        reads = live_solve.read_inputs(rig, depsgraph, frame, shared)
        # The verdict depends on the armature's state (unchanged unless touched) and these two matrices only.
        if reads.parent is not None and (armature_touched or entry.checked != (reads.armature, reads.parent)):
            entry.checked = None
            arm_samples, parent_samples = reads.parent_samples()
            chain_checks.check_parent_scale(rig, arm_samples, parent_samples, np.array([frame]))
            entry.checked = (reads.armature, reads.parent)
        # Influence and FK keys live on the armature: unless it was touched, they read as they did.
        if armature_touched or entry.blend_at is None or entry.blend_at[0] != frame:
            entry.blend_at = None
            entry.blend_at = (frame, _blend_key(rig, frame))
        blend_key = entry.blend_at[1]
    except (ChainError, KeyError, ReferenceError, AttributeError) as err:
        # AttributeError: the target was deleted since the last check (the pointer reads None).
        if entry.rig is not None:
            _rigs_changed()
        entry.inputs, entry.rig, entry.solution, entry.message = None, None, None, str(err)
        return None
    inputs = (settings, rest, reads, blend_key)
    if inputs != entry.inputs or entry.solution is None:
        # read_chain makes new arrays and dataclasses.replace keeps them: a new rig is a new FrameSolver.
        if entry.solver is None or not entry.solver.made_for(rig):
            entry.solver = live_solve.FrameSolver(rig)
        try:
            fps = scene.render.fps / scene.render.fps_base
            raw = entry.solver.solve(rig, reads, fps=fps, previous=continuing(entry.state, rig))
            # fk_blend.blend returns the solution itself at influence 1 (its key says so): skip its reads.
            sol = raw if blend_key == _FULL_IK else fk_blend.blend(rig, raw)
        except ChainError as err:
            entry.inputs, entry.solution, entry.message = None, None, str(err)
            return None
        stats["solves"] += 1
        if rig is not entry.rig:
            _rigs_changed()
        entry.inputs, entry.rig, entry.solution, entry.message = inputs, rig, sol, None
        entry.state = getattr(sol, "state", None)
        assert sol.armature_world is not None
        entry.arm_world, entry._frame = sol.armature_world[0], None
        entry.written = None
    posed = None
    if pose and entry.solution is not None:
        # Keys (a frame change, an edited action) may have overwritten the pose: only then is it re-read.
        if entry.written is None or (armature_touched and not same_pose(entry.written, pose_snapshot(rig))):
            entry.written = posing.apply_frame(rig, entry.solution, 0)
            entry.posed_with = chain.limit_strategy
            stats["poses"] += 1
            posed = key
        _posed_armatures.add(key[0])
    return posed


def _blend_key(rig: ChainRig, frame: float) -> bytes:
    """:func:`fk_blend.preview_key`, without its F-curve reads when the armature has no animation at all.

    With no keys and no drivers the influence is the property; at 1 the key is :data:`_FULL_IK` and the blend
    is skipped. Anything else (a curve or a driver on the influence, an influence below 1) takes
    ``preview_key``, which also refuses a driven influence.
    """
    if rig.armature.animation_data is None and rig.chain.ik_influence == 1.0:
        return _FULL_IK
    return fk_blend.preview_key(rig, frame)


def _give_back(entry: ChainPreview, chain: bpy.types.PropertyGroup) -> None:
    """Set the scale or location the preview wrote back to rest when the strategy changed away from them.

    When the strategy leaves Stretch or Move Root, the value the preview wrote goes back to rest (as a re-bake
    removes those keys), or the chain would refuse its own scale or read its own offset as the user's. A value
    changed since by someone else is left alone.
    """
    rig, written, was = entry.rig, entry.written, entry.posed_with
    if rig is None or written is None or was == chain.limit_strategy or was not in ("STRETCH", "MOVE_ROOT"):
        return
    entry.posed_with = None
    upper = rig.armature.pose.bones.get(rig.bone_names[0])
    if upper is None:
        return
    if was == "STRETCH" and same_pose(written[-3:], tuple(upper.scale)):
        upper.scale = (1.0, 1.0, 1.0)
    if was == "MOVE_ROOT" and same_pose(written[-6:-3], tuple(upper.location)):
        upper.location = (0.0, 0.0, 0.0)


def _release(armature: bpy.types.Object) -> None:
    """Preview turned off: let the animation write the keyed pose back at the next evaluation."""
    _posed_armatures.discard(armature.name)
    for key in [k for k in _cache if k[0] == armature.name]:
        _cache[key].written = None
    if armature.animation_data is not None:
        armature.update_tag(refresh={"TIME"})


def _is_user_scene(scene: bpy.types.Scene) -> bool:
    """Ignore the temporary scenes the bake samples through (they step frames and fire frame handlers)."""
    if scene == bpy.context.scene:
        return True
    wm = bpy.context.window_manager
    return wm is not None and any(win.scene == scene for win in wm.windows)


def _concerns(chain: bpy.types.PropertyGroup, updated: set[str]) -> bool:
    """Whether an update of the datablocks named ``updated`` can change the chain's solve or pose.

    Asked only when the armature (object and data) is not among them (``refresh`` knows that already).
    """
    # The target first: in a drag it is the one that moved, and the other pointers need not be read.
    return (_moved(chain.target, updated) or _moved(chain.pole, updated)
            or _moved(chain.space_object, updated))


def _moved(obj: bpy.types.Object | None, updated: set[str]) -> bool:
    """Whether ``obj`` or one of its parents is among the ``updated`` names."""
    while obj is not None:
        if obj.name in updated:
            return True
        obj = obj.parent
    return False


def refresh(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph, updated: set[str] | None = None) -> None:
    """Bring every previewed chain (and the active chain's overlay data) up to date with the current state.

    What all chains of an armature read alike (its evaluated copy, world and parent matrices) is read once per
    armature (:class:`live_solve.ArmatureReads`), and only when one of its chains needs a solve.

    Args:
        scene: the user's scene.
        depsgraph: its evaluated state.
        updated: names of the datablocks this depsgraph update re-evaluated; chains none of whose inputs is
            among them are skipped (None, as after a frame change: check every chain).
    """
    posed: list[tuple[str, str]] = []  # chains this update wrote the pose of
    previewed: list[tuple[bpy.types.Object, list[bpy.types.PropertyGroup]]] = []  # per armature, its chains
    for armature in scene.objects:
        if armature.type != "ARMATURE":
            continue
        settings = armature.soft_ik_2d
        # A linked rig or a system override would keep no pose written to it (see linked_data).
        live = settings.live_preview and armature.mode != "EDIT" and linked_data.editing_problem(armature) is None
        if not live and armature.name in _posed_armatures:
            _release(armature)
        if live:
            chains = list(settings.chains)
        elif settings.show_overlay and armature == _active_object() and \
                0 <= settings.active_chain_index < len(settings.chains):
            chains = [settings.chains[settings.active_chain_index]]
        else:
            continue
        touched = updated is None or armature.name in updated or armature.data.name in updated
        shared = None  # read when a chain needs it, once for all the armature's chains
        for chain in chains:
            if not touched and (armature.name, chain.name) in _cache and not _concerns(chain, updated):
                continue
            if shared is None:
                shared = live_solve.ArmatureReads(armature, depsgraph)
            key = _update_chain(armature, chain, depsgraph, scene, pose=live, armature_touched=touched,
                                shared=shared)
            if key is not None:
                posed.append(key)
        if live:
            previewed.append((armature, chains))
    if posed:
        _follow_hanging(scene, depsgraph, posed, previewed)


def _follow_hanging(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph, posed: list[tuple[str, str]],
                    previewed: list[tuple[bpy.types.Object, list[bpy.types.PropertyGroup]]]) -> None:
    """Solve again the previewed chains that hang from a chain this update posed (:mod:`chain_order`).

    They read the evaluated state from before that pose was written (Blender evaluates a pose written in a
    handler after it, without handlers): so the pose is evaluated here, and each level after it is solved on
    it, as Solve does. Nothing is done on a rig where no chain hangs from another (the usual one).
    """
    hanging = _hanging(previewed)
    for _level in range(_MAX_LEVELS if hanging else 0):
        waiting = {chain for key in posed for chain in hanging.get(key, ())}
        if not waiting:
            return
        depsgraph.update()  # re-entrant handler calls are dropped by the _busy guard
        posed = []
        for armature, chains in previewed:
            for chain in chains:
                if (armature.name, chain.name) in waiting:
                    shared = live_solve.ArmatureReads(armature, depsgraph)
                    key = _update_chain(armature, chain, depsgraph, scene, pose=True, armature_touched=False,
                                        shared=shared)
                    if key is not None:
                        posed.append(key)


def _hanging(previewed: list[tuple[bpy.types.Object, list[bpy.types.PropertyGroup]]]
             ) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """Per previewed chain, the previewed chains that hang from it, from the rigs the cache holds.

    Kept until a rig is read again (its armature's bones or settings changed) or the previewed chains change in
    number, so a drag neither walks the dependencies nor reads a name.
    """
    global _hanging_cache
    made_from = (_rigs_generation, sum(len(chains) for _arm, chains in previewed))
    if _hanging_cache is not None and _hanging_cache[0] == made_from:
        return _hanging_cache[1]
    keyed = [((arm.name, chain.name), _cache.get((arm.name, chain.name))) for arm, chains in previewed
             for chain in chains]
    rigs = [(key, entry.rig) for key, entry in keyed if entry is not None and entry.rig is not None]
    out: dict[tuple[str, str], list[tuple[str, str]]] = {}
    if len(rigs) > 1:
        # Chains on a loop are left out (waits_for): each is solved once an update, as it is.
        for later, earlier in chain_order.waits_for([rig for _key, rig in rigs]):
            out.setdefault(rigs[earlier][0], []).append(rigs[later][0])
    _hanging_cache = (made_from, out)
    return out


def _rigs_changed() -> None:
    """A cached rig was replaced or dropped: which chain hangs from which is found again when next asked."""
    global _rigs_generation
    _rigs_generation += 1


def _active_object() -> bpy.types.Object | None:
    """The active object (asked only for an armature that shows its overlay without live preview)."""
    view_layer = bpy.context.view_layer
    return view_layer.objects.active if view_layer is not None else None


def _run(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph | None, *, frame_changed: bool) -> None:
    global _busy
    if _busy or depsgraph is None or not _is_user_scene(scene):
        return
    _busy = True
    # No thread_time() here: on virtual machines it is a system call of ~40 µs, a fifth of a chain's budget.
    start = time.perf_counter()
    try:
        updated = None if frame_changed else {u.id.name for u in depsgraph.updates}
        refresh(scene, depsgraph, updated)
    finally:
        _busy = False
        stats["seconds"] += time.perf_counter() - start


@persistent
def on_depsgraph_update(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph | None = None) -> None:
    """``depsgraph_update_post``: re-pose the chains whose inputs this update re-evaluated."""
    _run(scene, depsgraph if depsgraph is not None else bpy.context.evaluated_depsgraph_get(), frame_changed=False)


@persistent
def on_frame_change(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph | None = None) -> None:
    """``frame_change_post``: re-pose every chain (keys may have moved anything)."""
    _run(scene, depsgraph if depsgraph is not None else bpy.context.evaluated_depsgraph_get(), frame_changed=True)


@persistent
def on_data_reload(*_args: object) -> None:
    """Undo and file load replace every datablock: cached rigs would point at freed data."""
    clear_cache()


_HANDLERS = (
    ("depsgraph_update_post", on_depsgraph_update),
    ("frame_change_post", on_frame_change),
    ("undo_post", on_data_reload),
    ("redo_post", on_data_reload),
    ("load_pre", on_data_reload),
    ("load_post", on_data_reload),
)


def _remove_ours() -> None:
    # Match by name too: a reloaded module leaves functions that are equal in name but not identity.
    for list_name, func in _HANDLERS:
        handlers = getattr(bpy.app.handlers, list_name)
        for h in list(handlers):
            if h is func or (getattr(h, "__name__", None) == func.__name__
                             and getattr(h, "__module__", None) == func.__module__):
                handlers.remove(h)


def _refresh_once() -> None:
    """Solve the current state once and redraw the viewports, just after the add-on is enabled.

    Enabled in a running Blender, nothing re-evaluates by itself: without this the overlay and the preview
    stayed away until the next edit (seen in the GUI).
    """
    context = bpy.context
    if context.scene is None or context.window_manager is None:
        return None
    _run(context.scene, context.evaluated_depsgraph_get(), frame_changed=True)
    for window in context.window_manager.windows:
        for area in window.screen.areas:
            if area.type == "VIEW_3D":
                area.tag_redraw()
    return None


def register() -> None:
    """Add the handlers (once, whatever a reload left behind) and the first solve's timer."""
    _remove_ours()
    for list_name, func in _HANDLERS:
        getattr(bpy.app.handlers, list_name).append(func)
    # Frames a bake steps for sampling are not the user's: the preview stays out of them.
    sampling.quiet_handlers[:] = [(n, f) for n, f in _HANDLERS if n in ("depsgraph_update_post", "frame_change_post")]
    if not bpy.app.background:  # timers never run in background mode
        bpy.app.timers.register(_refresh_once, first_interval=0.0)


def unregister() -> None:
    """Remove the handlers and the timer, and forget the cache."""
    if bpy.app.timers.is_registered(_refresh_once):
        bpy.app.timers.unregister(_refresh_once)
    _remove_ours()
    sampling.quiet_handlers.clear()
    clear_cache()
