"""Point lists for the viewport overlay of one chain (pure numpy, no Blender).

Everything is built in the chain's 2D shoulder space (docs/design.md) and mapped to world space by one
affine matrix, ``plane_to_world``, whose columns are the world images of the shoulder-space +x, +y and the
plane normal, and whose translation is the shoulder. With the armature's world matrix folded in, the
overlay follows the rig when it is moved, rotated, scaled (even non-uniformly or mirrored: circles become
the ellipses the rig's own bones sweep).

Output conventions, for the draw callback: *segments* are ``(2k, 3)`` arrays of point pairs (``'LINES'``),
*triangles* are ``(3k, 3)`` arrays (``'TRIS'``), both world space, float64. Empty elements are ``(0, 3)``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .spaces import invert_matrices

FloatArray = NDArray[np.float64]

# Circle resolution of the rings and bands.
RING_SEGMENTS = 96
# Marker half-size as a fraction of the chain length (shoulder-space units).
MARKER_FRACTION = 0.04
# The sensitivity figure: degrees the joint angles turn when the target moves by this fraction of the chain
# length ("a one-pixel jitter turns the elbow ten degrees", source document 七).
JITTER_FRACTION = 0.01
# Above this many degrees per 1 % of the chain length, the overlay and the panel warn. Mid-reach sits near
# 1.5 degrees; the hard-clamped boundary of a straight arm is above 10.
SENSITIVE_DEGREES = 5.0

_EMPTY = np.zeros((0, 3))


@dataclass(frozen=True)
class ChainOverlayInput:
    """What the overlay of one chain needs; lengths in shoulder-space units, points in world space.

    - ``plane_to_world``: (4, 4) affine, shoulder-space (x, y, normal, 1) -> world.
    - ``lengths``: (a, b), the two segment lengths (for longer chains: first segment, sum of the others).
    - ``softness``, ``inner_softness``: soft bands as fractions of the chain length a+b (chain settings).
    - ``target_world``: the raw target; ``solved_target_world``: where the solver aimed after clamping and
      softening; ``tip_world``: the solved tip.
    - ``bend``: +1 / -1 (the elbow lies clockwise / counter-clockwise of the shoulder->target line).
    - ``limited_joints``: the joints whose limit acts on the frame (``"shoulder"``, ``"elbow"``), as the flag
      table of the chain's solver names them (``solver.flag_table.FlagTable.limited_joints``): CCD/FABRIK flags
      name no joint, so such a chain gets no mark. ``elbow_world``: the solved elbow, or None (no elbow mark).
    - ``center_2d``: the shoulder in shoulder space (non-zero when Move Root offset it).
    - ``stretch``: bone scale applied by Stretch (the rings scale with it).
    - ``sensitivity``: the solver's |d angle / d target| in radians per world unit (0 = not reported).
    """

    plane_to_world: ArrayLike
    lengths: tuple[float, float]
    softness: float
    inner_softness: float
    target_world: ArrayLike
    solved_target_world: ArrayLike
    tip_world: ArrayLike
    bend: int = 1
    limited_joints: tuple[str, ...] = ()
    elbow_world: ArrayLike | None = None
    center_2d: tuple[float, float] = (0.0, 0.0)
    stretch: float = 1.0
    sensitivity: float = 0.0


@dataclass(frozen=True)
class ChainOverlay:
    """World-space geometry of every overlay element (see the module docstring for the array layouts)."""

    outer_ring: FloatArray  # segments, radius a+b
    inner_ring: FloatArray  # segments, radius |a-b|
    reach_band: FloatArray  # triangles between |a-b| and a+b
    soft_band: FloatArray  # triangles between L-s and L (empty when softness is 0)
    inner_soft_band: FloatArray  # triangles between |a-b| and |a-b|+s_inner (empty when 0)
    target_marker: FloatArray  # segments: a cross at the raw target
    solved_marker: FloatArray  # segments: a diamond at the solved target
    error_segment: FloatArray  # segments: tip -> raw target
    bend_arrow: FloatArray  # segments: from the middle of shoulder->solved target toward the elbow side
    limit_marks: FloatArray  # segments: an X on each joint whose limit acts
    sensitivity_degrees: float  # degrees per JITTER_FRACTION of the chain length
    sensitive: bool  # sensitivity_degrees >= SENSITIVE_DEGREES
    label_anchor: FloatArray = field(default_factory=lambda: np.zeros(3))  # world point for the text


def to_world(plane_to_world: ArrayLike, points_2d: ArrayLike) -> FloatArray:
    """Shoulder-space 2D points (N, 2) -> world (N, 3) on the plane through the shoulder."""
    m = np.asarray(plane_to_world, dtype=np.float64)
    p = np.asarray(points_2d, dtype=np.float64).reshape(-1, 2)
    out: FloatArray = p @ m[:3, :2].T + m[:3, 3]
    return out


def offsets_to_world(plane_to_world: ArrayLike, anchor_world: ArrayLike, offsets_2d: ArrayLike) -> FloatArray:
    """In-plane offsets (N, 2) around a world point (which may sit off the plane) -> world (N, 3)."""
    m = np.asarray(plane_to_world, dtype=np.float64)
    d = np.asarray(offsets_2d, dtype=np.float64).reshape(-1, 2)
    out: FloatArray = d @ m[:3, :2].T + np.asarray(anchor_world, dtype=np.float64).reshape(3)
    return out


def world_to_plane(plane_to_world: ArrayLike, points_world: ArrayLike) -> FloatArray:
    """World points (N, 3) -> shoulder-space (N, 3): (x, y, distance along the normal in plane units).

    The inverse is the closed form of :func:`spaces.invert_matrices`: ``np.linalg.inv`` of one 4x4 cost ~17 ms
    on a busy machine (LAPACK's threads), more than the rest of the overlay and the drag update together.
    """
    inv = invert_matrices(np.asarray(plane_to_world, dtype=np.float64).reshape(1, 4, 4))[0]
    p = np.asarray(points_world, dtype=np.float64).reshape(-1, 3)
    out: FloatArray = p @ inv[:3, :3].T + inv[:3, 3]
    return out


@functools.lru_cache(maxsize=8)
def _unit_circle(segments: int) -> FloatArray:
    """Read-only (segments + 1, 2) unit circle, the first point repeated at the end (shared by every ring)."""
    t = np.linspace(0.0, 2.0 * math.pi, segments + 1)
    t[-1] = 0.0
    unit = np.stack([np.cos(t), np.sin(t)], axis=1)
    unit.flags.writeable = False
    return unit


def circle_2d(radius: float, segments: int = RING_SEGMENTS, center: ArrayLike = (0.0, 0.0)) -> FloatArray:
    """Closed polyline (segments + 1, 2): the first point repeated at the end.

    The unit circle is made once per segment count: the overlay draws six rings per solution, on every drag
    update of the active chain.
    """
    c = np.asarray(center, dtype=np.float64)
    out: FloatArray = _unit_circle(segments) * radius + c
    return out


def polyline_to_segments(points: ArrayLike) -> FloatArray:
    """(N, d) polyline -> (2(N-1), d) point pairs."""
    p = np.asarray(points, dtype=np.float64)
    if len(p) < 2:
        return np.zeros((0, p.shape[-1]))
    pairs = np.stack([p[:-1], p[1:]], axis=1)
    return pairs.reshape(-1, p.shape[-1])


def annulus_triangles_2d(inner: float, outer: float, segments: int = RING_SEGMENTS,
                         center: ArrayLike = (0.0, 0.0)) -> FloatArray:
    """Triangles (6 * segments, 2) filling the ring between two radii; empty when outer <= inner."""
    if not outer > inner:
        return np.zeros((0, 2))
    ring_in = circle_2d(inner, segments, center)
    ring_out = circle_2d(outer, segments, center)
    a0, a1 = ring_in[:-1], ring_in[1:]
    b0, b1 = ring_out[:-1], ring_out[1:]
    tris = np.stack([a0, b0, b1, a0, b1, a1], axis=1)
    return tris.reshape(-1, 2)


def cross_offsets(size: float) -> FloatArray:
    """Two segments of an X of half-diagonal ``size`` (4, 2)."""
    s = size * math.sqrt(0.5)
    return np.array([[-s, -s], [s, s], [-s, s], [s, -s]])


def diamond_offsets(size: float) -> FloatArray:
    """Four segments of a diamond with half-diagonal ``size`` (8, 2)."""
    corners = np.array([[size, 0.0], [0.0, size], [-size, 0.0], [0.0, -size], [size, 0.0]])
    return polyline_to_segments(corners)


def bend_arrow_2d(center: ArrayLike, target_2d: ArrayLike, bend: int, length: float) -> FloatArray:
    """Segments (6, 2): an arrow from the middle of center->target toward the elbow's side.

    With ``bend = +1`` the elbow lies clockwise of the center->target line, so the arrow points along
    ``-bend * rot90(u)`` (``u`` the unit direction, ``rot90`` counter-clockwise). A target on the center
    gives the +x direction.
    """
    c = np.asarray(center, dtype=np.float64)
    t = np.asarray(target_2d, dtype=np.float64)
    u = t - c
    norm = float(np.hypot(u[0], u[1]))
    u = u / norm if norm > 1e-12 else np.array([1.0, 0.0])
    side = -float(np.sign(bend) or 1.0) * np.array([-u[1], u[0]])
    start = c + 0.5 * (t - c)
    end = start + side * length
    head = 0.3 * length
    back = end - side * head
    left = back + u * head * 0.6
    right = back - u * head * 0.6
    return np.array([start, end, end, left, end, right])


def sensitivity_degrees(sensitivity: float, chain_length_world: float) -> float:
    """Degrees the joint angles turn for a target move of JITTER_FRACTION of the chain length."""
    return math.degrees(float(sensitivity) * JITTER_FRACTION * float(chain_length_world))


def plane_scale(plane_to_world: ArrayLike) -> float:
    """Mean world length of one shoulder-space unit along x and y."""
    m = np.asarray(plane_to_world, dtype=np.float64)
    return float(0.5 * (np.linalg.norm(m[:3, 0]) + np.linalg.norm(m[:3, 1])))


@functools.lru_cache(maxsize=8)
def _rings(plane_to_world: bytes, a: float, b: float, cx: float, cy: float, softness: float,
           inner_softness: float, segments: int) -> tuple[FloatArray, ...]:
    """(outer ring, inner ring, reach band, soft band, inner soft band), read-only, for :func:`build_overlay`.

    Cached: dragging a target changes the markers only, not the rings (the plane, the reach, Move Root's
    center), and the rings and bands are most of an overlay's cost, rebuilt on every drag update.
    """
    w = np.frombuffer(plane_to_world, dtype=np.float64).reshape(4, 4)
    total = a + b
    inner_r = abs(a - b)
    center = np.array([cx, cy], dtype=np.float64)

    def ring(radius: float) -> FloatArray:
        return polyline_to_segments(to_world(w, circle_2d(radius, segments, center)))

    def band(r0: float, r1: float) -> FloatArray:
        tris = annulus_triangles_2d(max(r0, 0.0), r1, segments, center)
        return to_world(w, tris) if len(tris) else _EMPTY.copy()

    soft = softness * total
    inner_soft = inner_softness * total
    out = (ring(total), ring(inner_r) if inner_r > 0.0 else _EMPTY.copy(), band(inner_r, total),
           band(total - soft, total) if soft > 0.0 else _EMPTY.copy(),
           band(inner_r, inner_r + inner_soft) if inner_soft > 0.0 else _EMPTY.copy())
    for arr in out:
        arr.flags.writeable = False  # shared by every overlay of the same rings
    return out


def build_overlay(data: ChainOverlayInput, segments: int = RING_SEGMENTS) -> ChainOverlay:
    """Every overlay element of one chain, in world space."""
    w = np.asarray(data.plane_to_world, dtype=np.float64)
    a, b = (float(x) * float(data.stretch) for x in data.lengths)
    total = a + b
    center = np.asarray(data.center_2d, dtype=np.float64)
    outer_ring, inner_ring, reach_band, soft_band, inner_soft_band = _rings(
        np.ascontiguousarray(w).reshape(16).tobytes(), a, b, float(center[0]), float(center[1]),
        float(data.softness), float(data.inner_softness), segments)
    size = MARKER_FRACTION * total

    target = np.asarray(data.target_world, dtype=np.float64).reshape(3)
    solved = np.asarray(data.solved_target_world, dtype=np.float64).reshape(3)
    tip = np.asarray(data.tip_world, dtype=np.float64).reshape(3)
    solved_2d = world_to_plane(w, solved)[0, :2]

    marks: list[FloatArray] = []
    if "shoulder" in data.limited_joints:
        marks.append(offsets_to_world(w, to_world(w, center)[0], cross_offsets(1.5 * size)))
    if "elbow" in data.limited_joints and data.elbow_world is not None:
        marks.append(offsets_to_world(w, data.elbow_world, cross_offsets(1.5 * size)))

    degrees = sensitivity_degrees(data.sensitivity, total * plane_scale(w))
    return ChainOverlay(
        outer_ring=outer_ring, inner_ring=inner_ring, reach_band=reach_band, soft_band=soft_band,
        inner_soft_band=inner_soft_band,
        target_marker=offsets_to_world(w, target, cross_offsets(size)),
        solved_marker=offsets_to_world(w, solved, diamond_offsets(size)),
        error_segment=np.stack([tip, target]),
        bend_arrow=to_world(w, bend_arrow_2d(center, solved_2d, data.bend, 0.15 * total)),
        limit_marks=np.concatenate(marks) if marks else _EMPTY.copy(),
        sensitivity_degrees=degrees,
        sensitive=degrees >= SENSITIVE_DEGREES,
        label_anchor=tip.copy(),
    )
