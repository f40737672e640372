"""Blender's own playback as the tests' truth where Blender 4.5-5.2 race (``rigging/sampling/races.py``).

When a datablock's driver and its keys set elements of one array property, a frame now and then comes out with
an element of the frame it was reached from. Voting between a few passes fails when two passes are stale at
one frame (CI on 4.5 once met a frame where only 2 of 5 identical passes agreed; two forward passes reach a
frame from the same neighbour and can agree on a stale value). A stale read repeats the frame it came from, so
two reads of a frame reached from different frames that agree bit for bit are the frame's own values: each
frame is reached from its neighbours, then from farther frames, until two reads agree, item by item.

Written for the tests, apart from ``races.settle``: the truth must not come from the code under test.
"""

from __future__ import annotations

from collections.abc import Callable

import bpy
import numpy as np
import pytest

# Where each frame is reached from (offsets from the frame, whole frames): the neighbours first, then farther.
JUMPS = (-1, 1, -7, 5, 13, -11, 17, -19)


def settled_playback(scene: bpy.types.Scene, frames: np.ndarray, read: Callable[[], np.ndarray]) -> np.ndarray:
    """``read()`` at each of ``frames`` (subframes allowed) as Blender plays it.

    ``read()`` returns an array whose first axis holds independent items (objects, channels): each item is
    settled on its own, as soon as two of its reads, reached from different frames, agree bit for bit.

    Returns:
        (len(frames), *read().shape).
    """
    out = []
    for frame in frames.tolist():
        whole = int(np.floor(frame))
        reads: list[np.ndarray] = []
        value: np.ndarray | None = None
        settled: np.ndarray | None = None
        for jump in JUMPS:
            scene.frame_set(whole + jump)
            scene.frame_set(whole, subframe=frame - whole)
            now = np.array(read())
            if value is None:
                value = now.copy()
                settled = np.zeros(len(now), dtype=bool)
            assert settled is not None
            for before in reads:
                agree = np.all((now == before).reshape(len(now), -1), axis=1) & ~settled
                value[agree] = now[agree]
                settled |= agree
            if settled.all():
                break
            reads.append(now)
        else:
            pytest.fail(f"frame {frame}: {len(JUMPS)} reads of Blender's playback from different frames never "
                        f"agreed on items {np.flatnonzero(~settled).tolist()}")
        out.append(value)
    return np.stack(out)
