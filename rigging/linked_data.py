"""Linked and library-overridden rigs: what the add-on may change on them, and which action takes their keys.

The studio rig is linked from a library .blend and overridden in the shot; by default Blender overrides the
armature *object* and leaves its armature *data* linked. Everything the add-on writes lives on the object: the
pose channels, the ``soft_ik_2d`` settings and reports, the error curve's properties on the pose bones and the
keys in the object's action. So an editable override works whether its armature data is linked or not, and what
cannot work is refused by name with the fix:

- a linked object that is not overridden: Blender saves no change made to it;
- a system override (made by Blender for the hierarchy, not editable in its UI): the user makes it editable.

Keys never go into linked data: an object that plays a linked action gets a local copy of it first, an override
without an action gets a new local one, and the caller reports it.

An override keeps no custom property created on its pose bones past reopen (only what the library file has), so
the error curve's ``soft_ik_error`` / ``soft_ik_flags`` would animate nothing: they are made again on load.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import bpy
from bpy.app.handlers import persistent

from . import anim_keys
from . import messages as msg
from .messages import say


def _library_path(id_block: bpy.types.ID) -> str:
    if id_block.library is not None:
        return id_block.library.filepath
    override = id_block.override_library
    reference = override.reference if override is not None else None
    return reference.library.filepath if reference is not None and reference.library is not None else ""


def editing_problem(obj: bpy.types.Object) -> str | None:
    """Why nothing on ``obj`` may be changed (a message naming it, its library and the fix), or None."""
    if obj.library is not None:
        return say(msg.LINKED, name=obj.name, path=_library_path(obj))
    override = obj.override_library
    if override is not None and override.is_system_override:
        return say(msg.SYSTEM_OVERRIDE, name=obj.name, path=_library_path(obj))
    return None


def ensure_local_action(obj: bpy.types.Object, *, create: bool = True) -> str | None:
    """Make the keys written for ``obj`` go into a local action.

    A linked action is replaced by a local copy (its keys and, on 4.4+, its slots come along, so what played
    before still plays). With ``create``, a library override without an action gets a new local one (say so:
    the user may expect the keys in the library's file). Anything else is left as it is.

    Returns:
        The message saying which action was copied or created, None when nothing changed.
    """
    anim = obj.animation_data
    action = anim.action if anim is not None else None
    if action is not None and action.library is not None:
        path = action.library.filepath
        copy = action.copy()
        anim.action = copy
        if anim_keys.LAYERED_ACTIONS and anim.action_slot is None:
            anim_keys.ensure_action(obj)  # picks the slot the object played in the linked action
        return say(msg.ACTION_MADE_LOCAL, action=action.name, owner=obj.name, path=path, copy=copy.name)
    if action is None and create and obj.override_library is not None:
        return say(msg.ACTION_CREATED, action=anim_keys.ensure_action(obj).name, owner=obj.name)
    return None


def set_items(collection: Any, rows: Sequence[Mapping[str, Any]]) -> None:
    """Make ``collection`` (a collection property) hold ``rows``, one item per mapping of property values.

    On a library override, items that come from the library cannot be removed (Blender refuses, and ``clear``
    keeps them): they are overwritten instead, and any left over beyond ``rows`` repeat its last row, so the
    list never shows values of an older report. Items are named by their index unless a row names them: an
    override stores added items relative to their neighbours' names, and unnamed ones collapse on reopen.
    """
    while len(collection) > len(rows):
        try:
            collection.remove(len(collection) - 1)
        except TypeError:  # an item of the library's (items added in the override come after them)
            break
    while len(collection) < len(rows):
        collection.add()
    for i, item in enumerate(collection):
        if not rows:
            break
        row = rows[min(i, len(rows) - 1)]
        item.name = str(row.get("name", i))
        for name, value in row.items():
            setattr(item, name, value)


@persistent
def restore_error_properties(*_args: object) -> None:
    """Recreate the error and flags properties on the baked chains of library overrides (a ``load_post`` handler).

    A reopened override has dropped the custom properties of its lower bones that the bake's error and flags
    curves animate; each missing one is added back at 0.
    """
    from .bake import ERROR_PROP, FLAGS_PROP  # bake imports this module

    for obj in bpy.data.objects:
        if obj.type != "ARMATURE" or obj.library is not None or obj.override_library is None:
            continue
        for chain in obj.soft_ik_2d.chains:
            pb = obj.pose.bones.get(chain.lower_bone)
            if pb is None or not chain.baked_channels:
                continue
            if ERROR_PROP not in pb:
                pb[ERROR_PROP] = 0.0
            if FLAGS_PROP not in pb:
                pb[FLAGS_PROP] = 0


def _remove_handler() -> None:
    # By name too: a reloaded module leaves an equal function that is not the same object.
    for h in list(bpy.app.handlers.load_post):
        if h is restore_error_properties or (getattr(h, "__name__", None) == restore_error_properties.__name__
                                             and getattr(h, "__module__", None) == __name__):
            bpy.app.handlers.load_post.remove(h)


def register() -> None:
    _remove_handler()
    bpy.app.handlers.load_post.append(restore_error_properties)


def unregister() -> None:
    _remove_handler()
