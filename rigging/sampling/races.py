"""A race in Blender's threaded evaluation, and the stepped reads that do not trust one evaluation of it.

When a datablock's driver sets one element of an array property (``location[0]``) and its own animation sets
other elements of the same property (``location[2]`` keyed), Blender 4.5 to 5.2 evaluate the two on separate
threads: one of them now and then writes the whole array back with the other's element from the frame before.
Measured with ``frame_set`` and a read per frame, 24 frames a pass: 0.2-0.6 % of frames on 5.2, about 1 in 5,000
on 4.5 and 5.0; never on 4.2 or 5.3 in 2,000 passes, nor on one CPU (``taskset -c 0``). Playback shows such a
frame as a one-frame jump of the target; a bake that keyed it would put the hand there and report an error of 0.

So where the stepping depsgraph evaluates such a datablock (:func:`racing_channels`), every frame is read
twice, the second time reached from another frame: from the other side, or, in the user's scene, whose
simulations need the first pass in order, by a second pass over the frames the first one left cached, the odd
positions first, then the even ones (:func:`second_forward_order`). A frame whose two reads differ is read
again after jumping from other frames until two reads from different frames before agree (:func:`settle`). A
stale read repeats the frame it came from, so two agreeing reads reached from different frames are the frame's
own values. (Two forward passes in the same order reach each frame from the same one: a frame stale in both
would agree with itself, ~p^2 per frame.) Left, ~p^2 per bake:
a frame both passes reach from the same frame, the one the first pass ended on where the second starts there
(backward; forward over two frames), and forward, the first frame when the frame before the first pass is
the one the second reaches it from.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# Jumps tried for a frame whose reads disagree before the first read is kept (a driver that never gives the
# same value twice, e.g. one calling random(), has no value of its own).
ATTEMPTS = 6


@dataclass
class Heard:
    """What the stepped reads met while :func:`listen` was open (in the order met, each once)."""

    channels: dict[str, None] = field(default_factory=dict)  # 'name: data_path' of each racing property
    unsettled: dict[float, None] = field(default_factory=dict)  # frames whose reads never agreed

    def unsettled_frames(self) -> list[float | int]:
        """The unsettled frames in order, whole ones as ints (as reports print them)."""
        return [int(f) if f.is_integer() else f for f in sorted(self.unsettled)]


_listener: contextvars.ContextVar[Heard | None] = contextvars.ContextVar("soft_ik_2d_races", default=None)


@contextlib.contextmanager
def listen() -> Iterator[Heard]:
    """Collect what stepped reads inside the ``with`` block meet (nested blocks each hear their own)."""
    heard = Heard()
    token = _listener.set(heard)
    try:
        yield heard
    finally:
        _listener.reset(token)


def tell(channels: list[str], unsettled: list[float]) -> None:
    """Add racing properties and unsettled frames to what the current :func:`listen` block heard (none open:
    nobody asked)."""
    heard = _listener.get()
    if heard is not None:
        heard.channels.update(dict.fromkeys(channels))
        heard.unsettled.update(dict.fromkeys(unsettled))


def _action_paths(action: Any) -> set[str]:
    """The data paths an action animates, in every slot (more than the one played: only costs a second read)."""
    if action is None:
        return set()
    if hasattr(action, "layers"):
        return {fc.data_path for layer in action.layers for strip in layer.strips
                for bag in strip.channelbags for fc in bag.fcurves}
    return {fc.data_path for fc in action.fcurves}


def racing_channels(depsgraph: Any) -> list[str]:
    """``'name: data_path'`` for each datablock the depsgraph evaluates whose drivers and animation (action or
    NLA strips) set elements of one property, so their threads may race."""
    out = []
    for id_eval in depsgraph.ids:
        original = id_eval.original
        anim = getattr(original, "animation_data", None)
        if anim is None or not len(anim.drivers):
            continue
        driven = {fc.data_path for fc in anim.drivers if not fc.mute}
        animated = _action_paths(anim.action)
        for track in anim.nla_tracks:
            for strip in track.strips:
                animated |= _action_paths(strip.action)
        out += [f"{original.name}: {path}" for path in sorted(driven & animated)]
    return out


def _bits_differ(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Per row, whether two float32 buffers differ in any bit (NaNs compare by their bits)."""
    return np.any(first.view(np.uint32) != second.view(np.uint32), axis=1)


def _same(first: list[np.ndarray], second: list[np.ndarray]) -> bool:
    """Whether two reads of one frame (a row per buffer) are the same bits."""
    return all(np.array_equal(a.view(np.uint32), b.view(np.uint32)) for a, b in zip(first, second, strict=True))


def settle(
    frame_set: Callable[..., Any],
    read_pass: Callable[[np.ndarray, list[np.ndarray]], None],
    getters: list[Any],
    frames: np.ndarray,
    buffers: list[np.ndarray],
    *,
    backward: bool,
) -> list[float]:
    """Read the frames again and correct the rows of ``buffers`` (the first pass, one row per frame) that a
    race made stale; returns the frames that kept their first read for want of two agreeing reads.

    Args:
        frame_set: the stepped scene's bound ``frame_set``.
        read_pass: ``read_pass(frames, buffers)`` steps through ``frames`` in order, reading each row.
        getters: the read functions, ``getters[k](row)`` fills a row of ``buffers[k]``.
        frames: the frames of the first pass (NaN rows are not read).
        backward: the second pass runs last frame first; otherwise (a scene with simulations) in
            :func:`second_forward_order`.
    """
    again = [np.empty_like(b) for b in buffers]
    if backward:
        read_pass(frames[::-1], [b[::-1] for b in again])
    else:
        order = second_forward_order(frames)
        rows = [np.empty_like(b) for b in buffers]
        read_pass(frames[order], rows)
        for into, got in zip(again, rows, strict=True):
            into[order] = got
    finite = np.isfinite(frames)
    differ = np.zeros(frames.size, dtype=bool)
    for first, second in zip(buffers, again, strict=True):
        differ |= _bits_differ(first, second)
    differ &= finite
    todo = np.flatnonzero(differ).tolist()
    kept: list[float] = []
    values = frames.tolist()
    sources = [k for k in range(frames.size) if finite[k]]
    position = {k: at for at, k in enumerate(sources)}
    n = len(sources)
    far = (sources[0], sources[-1], sources[n // 2], sources[n // 4], sources[3 * n // 4], sources[n // 8]) if n else ()
    for f_i in todo:
        reads = [[b[f_i].copy() for b in buffers], [b[f_i].copy() for b in again]]
        # Jumps from frames other than the neighbours the two passes came from, each once: two reads agreeing
        # after different frames cannot both be stale copies of one of them.
        at = position[f_i]
        neighbours = sources[max(at - 1, 0):at + 2]
        jumps = [values[k] for k in dict.fromkeys(far) if k not in neighbours]
        if not jumps:
            # Too few frames read to jump from (a Solve's one frame): the frames around it will do.
            jumps = [values[f_i] + step for step in (-1.0, 1.0, -2.0, 2.0, -3.0, 3.0)]
        agreed = None
        for jump in jumps[:ATTEMPTS]:
            _step(frame_set, jump)
            _step(frame_set, values[f_i])
            row = [np.empty_like(b[f_i]) for b in buffers]
            for get, into in zip(getters, row, strict=True):
                get(into)
            agreed = next((r for r in reads if _same(r, row)), None)
            if agreed is not None:
                break
            reads.append(row)
        if agreed is None:
            kept.append(values[f_i])
            continue
        for b, value in zip(buffers, agreed, strict=True):
            b[f_i] = value
    return kept


def second_forward_order(frames: np.ndarray) -> np.ndarray:
    """Positions of ``frames`` in the order a second pass reads them when it may not run backward: the finite
    frames at odd positions (among the finite ones), then those at even positions, each in time order, then the
    non-finite ones (not read).

    The first pass reached each frame from the one before it; here each frame is reached from two before it, or
    (the first of each half) from the last frame read: a stale read, which repeats the frame it came from, gives
    another value than in the first pass. Out of order only over frames the first pass evaluated, in order: a
    simulation reads them from its cache.
    """
    finite = np.isfinite(frames)
    at = np.flatnonzero(finite)
    return np.concatenate([at[1::2], at[0::2], np.flatnonzero(~finite)])


def _step(frame_set: Callable[..., Any], frame: float) -> None:
    whole = math.floor(frame)
    frame_set(whole, subframe=frame - whole)
