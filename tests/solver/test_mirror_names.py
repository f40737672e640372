"""The opposite side's names and angles (solver.mirror), by Blender's symmetric-bone naming convention."""

from __future__ import annotations

import math

import pytest

from solver.mirror import flip_name, mirror_bend, mirror_range, plane_reverses_angles


@pytest.mark.parametrize(("name", "flipped"), [
    ("Hand.L", "Hand.R"), ("Hand.R", "Hand.L"), ("hand.l", "hand.r"), ("hand.r", "hand.l"),
    ("upper_arm_L", "upper_arm_R"), ("upper_arm_r", "upper_arm_l"),
    ("Shin-L", "Shin-R"), ("shin-r", "shin-l"), ("Foot L", "Foot R"),
    ("L.Hand", "R.Hand"), ("r_hand", "l_hand"),
    ("LeftArm", "RightArm"), ("RightArm", "LeftArm"), ("ArmLeft", "ArmRight"), ("arm_right", "arm_left"),
    ("left_leg", "right_leg"), ("LEFT_LEG", "RIGHT_LEG"), ("Forearm_RIGHT", "Forearm_LEFT"),
    ("Hand.L.001", "Hand.R.001"), ("Forearm.R.012", "Forearm.L.012"),
])
def test_flip_name_swaps_the_side(name: str, flipped: str) -> None:
    assert flip_name(name) == flipped
    assert flip_name(flipped) == name


@pytest.mark.parametrize("name", ["Spine", "Head", "Hand.001", "HandL", "Lower", "L", "Pelvis.C", "Tail_2"])
def test_names_without_a_side_have_no_opposite(name: str) -> None:
    assert flip_name(name) is None


def test_mirroring_reverses_angles_only_in_planes_that_contain_the_mirror_axis() -> None:
    assert plane_reverses_angles("XZ") and plane_reverses_angles("XY") and not plane_reverses_angles("YZ")
    assert mirror_bend(1, "XZ") == -1 and mirror_bend(-1, "XY") == 1 and mirror_bend(-1, "YZ") == -1
    assert mirror_range(0.0, math.radians(150), "XZ") == (-math.radians(150), -0.0)
    assert mirror_range(-0.2, 0.5, "YZ") == (-0.2, 0.5)
    with pytest.raises(ValueError):
        plane_reverses_angles("ZX")


def test_mirrored_bend_is_where_the_reflected_elbow_lies() -> None:
    """Reflect an elbow bent with +1 (counter-clockwise elbow angle) through x -> -x in each plane and read
    the reflected elbow's turn about the plane's normal: its sign is mirror_bend's."""
    normals = {"XZ": (0.0, -1.0, 0.0), "XY": (0.0, 0.0, 1.0), "YZ": (1.0, 0.0, 0.0)}
    axes = {"XZ": ((1, 0, 0), (0, 0, 1)), "XY": ((1, 0, 0), (0, 1, 0)), "YZ": ((0, 1, 0), (0, 0, 1))}

    def cross(a: tuple[float, ...], b: tuple[float, ...]) -> tuple[float, ...]:
        return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])

    for plane, n in normals.items():
        u, v = axes[plane]
        # Upper segment along 30 degrees, lower turned +40 degrees (counter-clockwise about n = u x v).
        up = tuple(math.cos(0.5) * ui + math.sin(0.5) * vi for ui, vi in zip(u, v, strict=True))
        low = tuple(math.cos(1.2) * ui + math.sin(1.2) * vi for ui, vi in zip(u, v, strict=True))
        assert sum(c * ni for c, ni in zip(cross(up, low), n, strict=True)) > 0
        reflect = lambda p: (-p[0], p[1], p[2])  # noqa: E731
        turn = sum(c * ni for c, ni in zip(cross(reflect(up), reflect(low)), n, strict=True))
        assert (1 if turn > 0 else -1) == mirror_bend(1, plane), plane
