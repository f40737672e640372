"""One key-writing path for Blender 4.2 (legacy actions) and 4.4+ / 5.0 (layered, "slotted" actions).

Every function takes the animated ID (an object, usually) and works on the action slot that ID actually plays,
so keys written here are the keys Blender evaluates. Keys are written in bulk (``keyframe_points.add`` +
``foreach_set``, enums through uint8 buffers, Blender's own byte layout): 100k keys take ~20-30 ms on a curve
with no keys outside the range (fresh or re-baked), ~30-70 ms when keys outside it are kept (measured on 4.2,
4.5, 5.0; 1.2-1.7x and 2.1-2.8x a bare ``add`` + ``foreach_set("co")`` + ``update()``).

The guarantee :func:`write_keys` and :func:`remove_keys` give: keys whose frame lies outside ``[start, end]``
keep every attribute bit for bit (position, both handles and their types, interpolation, easing, key type,
back/amplitude/period, selection), even automatic handles that Blender would otherwise recompute because
their neighbours changed.

Modules: :mod:`.actions` (actions, slots, channelbags, who plays an action), :mod:`.paths` (pose-bone data
paths), :mod:`.keys` (bulk key reading and writing). The only place that knows legacy from layered actions.

A bake writes a chain with :func:`ensure_fcurves` (every curve found or created in one pass) and
:func:`write_columns` (several curves on the same frames, the input checked once), so each curve adds only a
few numpy calls to Blender's own bulk write.
"""

from .actions import (
    LAYERED_ACTIONS,
    all_fcurves,
    blends_layers,
    ensure_action,
    ensure_fcurve,
    ensure_fcurves,
    find_fcurve,
    find_fcurve_in,
    find_fcurves,
    iter_fcurves,
    other_players,
    played_slots,
    remove_fcurve,
    scratch_action,
    slot_handle,
)
from .keys import (
    copy_keys,
    edge_keys,
    interpolation_value,
    read_keys,
    read_keys_attribute,
    remove_keys,
    remove_keys_at,
    restore_keys,
    write_columns,
    write_keys,
)
from .paths import (
    bone_of_path,
    pose_bone_path,
    split_pose_bone_path,
)

__all__ = [
    "LAYERED_ACTIONS",
    "all_fcurves",
    "blends_layers",
    "bone_of_path",
    "copy_keys",
    "edge_keys",
    "ensure_action",
    "ensure_fcurve",
    "ensure_fcurves",
    "find_fcurve",
    "find_fcurve_in",
    "find_fcurves",
    "interpolation_value",
    "iter_fcurves",
    "other_players",
    "played_slots",
    "pose_bone_path",
    "read_keys",
    "read_keys_attribute",
    "remove_fcurve",
    "remove_keys",
    "remove_keys_at",
    "restore_keys",
    "scratch_action",
    "slot_handle",
    "split_pose_bone_path",
    "write_columns",
    "write_keys",
]
