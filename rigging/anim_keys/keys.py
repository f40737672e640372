"""Reading, writing and removing keys in bulk, keeping every key outside the written range bit for bit."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Sequence
from typing import Any

import bpy
import numpy as np

from .actions import remove_fcurve

# Keyframe attributes copied verbatim for preserved keys: (name, values per key, numpy dtype).
_KEY_ATTRIBUTES: tuple[tuple[str, int, type], ...] = (
    ("co", 2, np.float32),
    ("handle_left", 2, np.float32),
    ("handle_right", 2, np.float32),
    ("handle_left_type", 1, np.int32),
    ("handle_right_type", 1, np.int32),
    ("interpolation", 1, np.int32),
    ("easing", 1, np.int32),
    ("type", 1, np.int32),
    ("back", 1, np.float32),
    ("amplitude", 1, np.float32),
    ("period", 1, np.float32),
    ("select_control_point", 1, np.bool_),
    ("select_left_handle", 1, np.bool_),
    ("select_right_handle", 1, np.bool_),
)
_HANDLES = ("handle_left", "handle_right")
_POSITIONS = ("co", *_HANDLES)
# The enum attributes are one byte each in Blender's keys: foreach_get/foreach_set with a uint8 buffer copies
# them directly (~0.04 ms per 10k keys), any other integer type goes through RNA key by key (~0.5 ms).
_TRANSFER_DTYPE: dict[str, type] = {name: np.uint8 for name, _w, dtype in _KEY_ATTRIBUTES if dtype is np.int32}


@functools.cache
def _enum_value(prop: str, identifier: str) -> int:
    """The RNA value of a ``Keyframe`` enum identifier (fixed for the session: looked up once, cached; an RNA
    enum walk on every write of a bake cost more than the checks of its values).

    Raises:
        ValueError: ``identifier`` is not one of the enum's items.
    """
    items = bpy.types.Keyframe.bl_rna.properties[prop].enum_items
    if identifier not in items:
        raise ValueError(f"unknown {prop} {identifier!r}; expected one of {sorted(items.keys())}")
    return int(items[identifier].value)


def interpolation_value(identifier: str) -> int:
    """The RNA value of a ``Keyframe.interpolation`` identifier, as :func:`read_keys_attribute` gives them."""
    return _enum_value("interpolation", identifier)


# --- keys ------------------------------------------------------------------------------------------------------


def read_keys(fcurve: bpy.types.FCurve) -> dict[str, np.ndarray]:
    """Every stored attribute of every key of ``fcurve``, as arrays of shape (n,) or (n, 2).

    ``co``, ``handle_left``, ``handle_right`` (float32 frame/value pairs), the enums ``handle_left_type``,
    ``handle_right_type``, ``interpolation``, ``easing``, ``type`` (int32 RNA enum values), ``back``,
    ``amplitude``, ``period`` (float32) and the ``select_*`` flags (bool).
    """
    return {name: read_keys_attribute(fcurve, name) for name, _width, _dtype in _KEY_ATTRIBUTES}


def read_keys_attribute(fcurve: bpy.types.FCurve, name: str) -> np.ndarray:
    """One attribute of every key of ``fcurve`` (see :func:`read_keys`)."""
    for attr, width, dtype in _KEY_ATTRIBUTES:
        if attr == name:
            n = len(fcurve.keyframe_points)
            buffer: np.ndarray = np.empty(n * width, dtype=_TRANSFER_DTYPE.get(name, dtype))
            fcurve.keyframe_points.foreach_get(name, buffer)
            buffer = buffer.astype(dtype, copy=False)
            return buffer.reshape(n, width) if width > 1 else buffer
    raise KeyError(name)


def _rebuild(fcurve: bpy.types.FCurve, before: dict[str, np.ndarray], new_co: np.ndarray,
             new_interpolation: int, after: dict[str, np.ndarray]) -> None:
    """Replace all keys of ``fcurve`` by ``before`` + new keys at ``new_co`` + ``after`` (already sorted).

    ``before``/``after`` hold every attribute (:func:`read_keys`); the new keys get their position and
    interpolation, everything else keeps the defaults ``keyframe_points.add`` gave them.
    """
    n_before, n_new, n_after = len(before["co"]), len(new_co), len(after["co"])
    total = n_before + n_new + n_after
    points = fcurve.keyframe_points
    points.clear()
    points.add(total)
    new = slice(n_before, n_before + n_new)
    if n_before or n_after:
        # Every key is fresh now: a column whose preserved keys already hold the fresh default (and, for the
        # interpolation, whose new keys want it too) needs no writing; most columns of most curves.
        defaults = _fresh_key_defaults(points[0])
        for name, width, dtype in _KEY_ATTRIBUTES:
            default = defaults.get(name)
            new_keys_default = n_new == 0 or name != "interpolation" or new_interpolation == default
            if (default is not None and new_keys_default and np.all(before[name] == default)
                    and np.all(after[name] == default)):
                continue
            column: np.ndarray = np.empty((total, width) if width > 1 else total, dtype=dtype)
            column[:n_before] = before[name]
            column[n_before + n_new:] = after[name]
            if name == "interpolation":
                column[new] = new_interpolation
            elif name in _POSITIONS:
                # Placeholder handles on the key itself; fcurve.update() computes the real ones.
                column[new] = new_co
            else:
                column[new] = default
            points.foreach_set(name, column.astype(_TRANSFER_DTYPE.get(name, dtype), copy=False).ravel())
    elif n_new:
        points.foreach_set("co", np.ascontiguousarray(new_co, dtype=np.float32).ravel())
        points.foreach_set("interpolation", np.full(n_new, new_interpolation, dtype=_TRANSFER_DTYPE["interpolation"]))
    # Sorts (a no-op: the keys are already in order) and computes the new keys' handles. It also recomputes
    # the automatic handles of the preserved neighbours, which would change the curve outside the range, so
    # those are restored afterwards.
    fcurve.update()
    if n_before or n_after:
        for name in _HANDLES:
            handles = read_keys_attribute(fcurve, name)
            handles[:n_before] = before[name]
            handles[n_before + n_new:] = after[name]
            points.foreach_set(name, handles.ravel())


def _fresh_key_defaults(point: bpy.types.Keyframe) -> dict[str, Any]:
    """The attribute values ``keyframe_points.add`` gave ``point`` (handle types follow the user preferences)."""
    defaults: dict[str, Any] = {}
    for name, width, _dtype in _KEY_ATTRIBUTES:
        if width > 1:
            continue
        value = getattr(point, name)
        defaults[name] = _enum_value(name, value) if isinstance(value, str) else value
    return defaults


def _split(keys: dict[str, np.ndarray], start: float, end: float) -> tuple[dict[str, np.ndarray], ...]:
    """``keys`` (as :func:`read_keys`) split into the keys before, inside and after ``[start, end]``."""
    frames = keys["co"][:, 0]
    before, inside, after = frames < start, (frames >= start) & (frames <= end), frames > end
    return tuple({name: values[mask] for name, values in keys.items()} for mask in (before, inside, after))


def write_keys(fcurve: bpy.types.FCurve, frames: Any, values: Any, *, start: float, end: float,
               interpolation: str = "LINEAR") -> np.ndarray:
    """Replace the keys of ``fcurve`` whose frame lies in ``[start, end]`` by keys at ``frames``/``values``.

    Args:
        fcurve: from :func:`ensure_fcurve`.
        frames: frame numbers (float; subframes allowed), each inside ``[start, end]``, no duplicates, any order.
        values: the channel's value at each frame, in the property's own unit (radians for rotations, Blender
            units for locations...). Must be finite.
        start, end: the replaced range (inclusive, frames). Keys outside it keep every attribute bit for bit;
            keys inside it that ``frames`` does not hit are removed.
        interpolation: the new keys' interpolation, a ``Keyframe.interpolation`` identifier ('LINEAR',
            'CONSTANT' for step channels such as flags, 'BEZIER' with auto-clamped handles...).

    Writing the same keys twice leaves the same keys (no duplicates). Values are stored as float32, like
    every Blender key. Returns the new keys' (frame, value) pairs as stored ((n, 2) float32, frame order).
    """
    frames = np.asarray(frames, dtype=np.float64).ravel()
    values = np.asarray(values, dtype=np.float64).ravel()
    if frames.shape != values.shape:
        raise ValueError(f"{len(frames)} frames but {len(values)} values")
    if not (frames[1:] > frames[:-1]).all():  # a bake's frames come in order: no sort to pay for
        order = np.argsort(frames, kind="stable")
        frames, values = frames[order], values[order]
    if np.any(np.diff(frames.astype(np.float32)) == 0):  # distinct frames may round to one float32 frame
        raise ValueError("duplicate frames")
    return write_columns([fcurve], frames, values[:, None], start=start, end=end, interpolation=interpolation)[0]


def write_columns(fcurves: Sequence[bpy.types.FCurve], frames: Any, values: Any, needed: np.ndarray | None = None,
                  *, start: float, end: float, interpolation: str | Sequence[str] = "LINEAR") -> list[np.ndarray]:
    """:func:`write_keys` for several curves keyed on the same frames, the input checked once for all of them.

    A bake writes all the curves of a chain this way, in one call.

    Args:
        fcurves: one curve per column of ``values``.
        frames: (n,) frame numbers inside ``[start, end]``, strictly increasing (as float32, as stored).
        values: (n, len(fcurves)) finite values, column ``i`` for ``fcurves[i]``.
        needed: (n, len(fcurves)) bool, the keys to write per curve (see ``bake.essential_keys``); None: all.
        start, end: the replaced range, as in :func:`write_keys`; keys outside it keep every attribute.
        interpolation: the new keys' interpolation identifier, as in :func:`write_keys`, or one per curve.

    Returns:
        Per curve, the new keys' (frame, value) pairs as stored ((m, 2) float32, frame order).

    Raises:
        ValueError: bad input, before any curve is touched.
    """
    frames = np.asarray(frames, dtype=np.float64).ravel()
    values = np.asarray(values)
    if values.dtype != np.float32:  # float32 (a bake's values, as stored) is kept: no round trip through float64
        values = values.astype(np.float64, copy=False)
    values = values.reshape(len(frames), -1)
    if values.shape[1] != len(fcurves) or (needed is not None and needed.shape != values.shape):
        raise ValueError(f"{len(fcurves)} curves but values of shape {values.shape}")
    if end < start:
        raise ValueError(f"end frame {end} is before start frame {start}")
    if not (np.isfinite(frames).all() and np.isfinite(values).all()):
        paths = ", ".join(f"{fc.data_path}[{fc.array_index}]" for fc in fcurves)
        raise ValueError(f"non-finite frame or value for {paths}")
    if len(frames) and (frames[0] < start or frames[-1] > end):
        raise ValueError(f"frames must lie inside [{start}, {end}]")
    frames32 = frames.astype(np.float32)
    if not (frames32[1:] > frames32[:-1]).all():
        raise ValueError("frames must increase (no duplicates)")
    shapes = [interpolation] * len(fcurves) if isinstance(interpolation, str) else list(interpolation)
    if len(shapes) != len(fcurves):
        raise ValueError(f"{len(fcurves)} curves but {len(shapes)} interpolations")
    enums = [_enum_value("interpolation", shape) for shape in shapes]
    values32 = values.astype(np.float32, copy=False)
    # One transfer buffer per interpolation, sliced per curve: a curve then costs Blender's writes and a mask.
    fills: dict[int, np.ndarray] = {value: np.full(len(frames), value, dtype=_TRANSFER_DTYPE["interpolation"])
                                    for value in set(enums)}
    counts = [len(frames)] * len(fcurves) if needed is None else np.count_nonzero(needed, axis=0).tolist()
    # Every curve's (frame, value) pairs in one block, two copies for all of them instead of two per curve: a
    # curve that needs every key (one that moves on every frame) is written from its slice as it is.
    block = np.empty((len(fcurves), len(frames), 2), dtype=np.float32)
    block[:, :, 0] = frames32
    block[:, :, 1] = values32.T
    out = []
    for i, fcurve in enumerate(fcurves):
        co = block[i] if needed is None or counts[i] == len(frames) else block[i][needed[:, i]]
        _replace_range(fcurve, co, start, end, enums[i], fills[enums[i]])
        out.append(co)
    return out


def _replace_range(fcurve: bpy.types.FCurve, co: np.ndarray, start: float, end: float, interpolation: int,
                   fill: np.ndarray | None = None) -> None:
    """Replace the keys of ``fcurve`` in ``[start, end]`` by new keys at ``co``.

    ``co``: (n, 2) float32, sorted, inside the range; ``interpolation``: the new keys' RNA value (``fill``: at
    least n of it in the transfer dtype, or None). A curve with no key outside the range (a fresh one, or a
    whole-range re-bake) is written as Blender's own bulk writes are, without reading any key attribute;
    otherwise the keys outside are rebuilt bit for bit (:func:`_rebuild`).
    """
    points = fcurve.keyframe_points
    if len(points):
        frames = read_keys_attribute(fcurve, "co")[:, 0]
        if not ((frames >= start) & (frames <= end)).all():
            before, _inside, after = _split(read_keys(fcurve), start, end)
            _rebuild(fcurve, before, co, interpolation, after)
            return
        points.clear()
    if len(co):
        points.add(len(co))
        points.foreach_set("co", co.ravel())
        if fill is None:
            fill = np.full(len(co), interpolation, dtype=_TRANSFER_DTYPE["interpolation"])
        points.foreach_set("interpolation", fill[:len(co)])
    # The keys are in order without duplicates (write_columns checks), so of fcurve.update() (sort, remove
    # duplicates, handles) only the handles are left to do: its duplicate pass copies the whole key array.
    points.handles_recalc()


def edge_keys(fcurve: bpy.types.FCurve, start: float, end: float, sides: Sequence[Iterable[float]],
              static: float = 0.0) -> list[tuple[float, float, str]]:
    """Keys that keep frames outside ``[start, end]`` playing as now once keys in range are written.

    New keys in range change the segments that reach into it from outside: the segment from the last key
    before the range now ends at the new first key, a curve extrapolated its first or last key, and a bake keeps
    one key of a run of equal values (:func:`bake.essential_keys`), so a frame just outside the range is often
    not keyed even where an earlier bake keyed it. Each side (``sides``: the frames before the range, going
    back, and after it, going on) is walked from the range outwards until a key is reached; each frame passed
    gets a key holding what it plays now, the value as Blender evaluates the curve there (``static``, the
    property's value, on a curve without keys). One key is enough where what follows it is a line or a hold
    (a linear or constant segment, constant extrapolation); a Bezier segment or linear extrapolation gets one
    per frame, so every frame keeps its value (between frames the curve is then linear).

    Returns:
        (frame, value, interpolation) per key: "CONSTANT" where a constant key held the value, else "ANY"
        (the writer's own). A curve with modifiers gives none (a key under a modifier plays something else).
    """
    if len(fcurve.modifiers):
        return []
    n = len(fcurve.keyframe_points)
    if n == 0:
        return [(float(t), float(static), "ANY") for side in sides for t in itertools.islice(side, 1)]
    co = read_keys_attribute(fcurve, "co")
    kinds = read_keys_attribute(fcurve, "interpolation")
    frames = co[:, 0]
    constant, linear = _enum_value("interpolation", "CONSTANT"), _enum_value("interpolation", "LINEAR")
    holds_outside = fcurve.extrapolation == "CONSTANT"
    out = []
    for side in sides:
        for t in side:
            i = int(np.searchsorted(frames, np.float32(t)))  # the first key at or after the frame
            if (i < n and frames[i] == np.float32(t)) or (t < start and i < n and frames[i] < np.float32(start)) or (
                    t > end and i > 0 and frames[i - 1] > np.float32(end)):
                break  # keyed, or a key between the frame and the range: the rest of this side stays
            if 0 < i < n and kinds[i - 1] == constant:
                out.append((float(t), float(co[i - 1, 1]), "CONSTANT"))
                break
            out.append((float(t), float(fcurve.evaluate(t)), "ANY"))
            if (0 < i < n and kinds[i - 1] == linear) or ((i == 0 or i == n) and holds_outside):
                break
    return out


def remove_keys(fcurve: bpy.types.FCurve, start: float, end: float, *, remove_empty: bool = False) -> int:
    """Remove the keys of ``fcurve`` whose frame lies in ``[start, end]`` (inclusive); returns how many.

    Keys outside the range keep every attribute bit for bit. With ``remove_empty`` an F-curve left without
    keys is removed from its action (``fcurve`` must not be used afterwards).
    """
    frames = read_keys_attribute(fcurve, "co")[:, 0]
    removed = int(np.count_nonzero((frames >= start) & (frames <= end)))
    if removed:
        before, _inside, after = _split(read_keys(fcurve), start, end)
        _rebuild(fcurve, before, np.empty((0, 2), dtype=np.float32), 0, after)
    if remove_empty and len(fcurve.keyframe_points) == 0:
        remove_fcurve(fcurve)
    return removed


def remove_keys_at(fcurve: bpy.types.FCurve, co: Any, interpolation: str | None = None,
                   kinds: np.ndarray | None = None) -> int:
    """Remove the keys of ``fcurve`` that are exactly the given ones; returns how many.

    A key is removed when it sits at one of the (frame, value) pairs ``co`` (float32, as stored) and, when
    given, has that interpolation (``kinds``: one RNA interpolation value per row of ``co`` instead). Every
    other key keeps every attribute bit for bit, so a key moved or edited since it was written stays.
    """
    co = np.asarray(co, dtype=np.float32).reshape(-1, 2)
    if len(co) == 0 or len(fcurve.keyframe_points) == 0:
        return 0
    have = read_keys_attribute(fcurve, "co")
    # Exact float32 matches: every key is compared with the wanted key at its own frame.
    order = np.argsort(co[:, 0], kind="stable")
    wanted = co[order]
    pos = np.clip(np.searchsorted(wanted[:, 0], have[:, 0]), 0, len(wanted) - 1)
    match = (wanted[pos, 0] == have[:, 0]) & (wanted[pos, 1] == have[:, 1])
    if kinds is not None:
        match &= read_keys_attribute(fcurve, "interpolation") == np.asarray(kinds)[order][pos]
    elif interpolation is not None:
        match &= read_keys_attribute(fcurve, "interpolation") == _enum_value("interpolation", interpolation)
    removed = int(np.count_nonzero(match))
    if removed == len(have):
        fcurve.keyframe_points.clear()  # the common case: nothing else to keep, no attribute to read
    elif removed:
        keys = read_keys(fcurve)
        kept = {name: values[~match] for name, values in keys.items()}
        empty = {name: values[:0] for name, values in keys.items()}
        _rebuild(fcurve, kept, np.empty((0, 2), dtype=np.float32), 0, empty)
    return removed


# What evaluating a key needs (its selection and type do not change the curve).
_EVALUATED = ("co", "handle_left", "handle_right", "handle_left_type", "handle_right_type", "interpolation",
              "easing", "back", "amplitude", "period")


def copy_keys(source: bpy.types.FCurve, target: bpy.types.FCurve) -> None:
    """Give ``target`` (an F-curve without keys) the keys of ``source`` as they evaluate.

    Position, handles as they are (not recomputed), interpolation, easing and its parameters, and the curve's
    extrapolation; modifiers are not copied.
    """
    points = target.keyframe_points
    points.add(len(source.keyframe_points))
    for name, _width, dtype in _KEY_ATTRIBUTES:
        if name in _EVALUATED:
            values = read_keys_attribute(source, name)
            points.foreach_set(name, values.astype(_TRANSFER_DTYPE.get(name, dtype), copy=False).ravel())
    target.extrapolation = source.extrapolation


def restore_keys(fcurve: bpy.types.FCurve, keys: dict[str, np.ndarray], *, start: float, end: float) -> None:
    """Put a saved stretch of curve back bit for bit, handles included.

    The keys of ``fcurve`` in ``[start, end]`` are replaced by ``keys`` (every attribute, as :func:`read_keys`
    gave them, frames inside the range). Keys outside the range keep every attribute too.
    """
    before, _inside, after = _split(read_keys(fcurve), start, end)
    saved: dict[str, np.ndarray] = {name: np.asarray(keys[name], dtype=dtype).reshape((-1, width) if width > 1 else -1)
                                    for name, width, dtype in _KEY_ATTRIBUTES}
    parts = (before, saved, after)
    total = sum(len(p["co"]) for p in parts)
    points = fcurve.keyframe_points
    points.clear()
    points.add(total)
    columns: dict[str, np.ndarray] = {name: np.concatenate([p[name] for p in parts]).astype(dtype)
                                      for name, _w, dtype in _KEY_ATTRIBUTES}
    for name, _width, dtype in _KEY_ATTRIBUTES:
        points.foreach_set(name, columns[name].astype(_TRANSFER_DTYPE.get(name, dtype), copy=False).ravel())
    # update() recomputes automatic handles from the (unchanged) neighbours; the saved ones are put back after.
    fcurve.update()
    for name in _HANDLES:
        points.foreach_set(name, columns[name].ravel())
