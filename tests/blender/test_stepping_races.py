"""Blender's race between a driver and animation on one array property (``rigging/sampling/races.py``).

Empties whose ``location[0]`` is driven while ``location[1]`` and ``[2]`` are keyed: Blender 4.5-5.2 now and then
evaluate a frame of one with a channel from the frame before. Truth is playback read until two reads of a frame,
reached from different frames, agree (``playback.settled_playback``: a stale read copies the frame it came
from). The stepped sampler must give exactly that on every frame, in the temporary scene and in the user's; a
one-pass sampler fails here on 4.5-5.2 (planted).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import bpy
import harness
import numpy as np
import pytest
import rigs
from playback import settled_playback

sampling = harness.package("rigging.sampling")
races = harness.package("rigging.sampling.races")

FRAMES = np.arange(1.0, 61.0)
COUNT = 64


def _racing_empties(scene: bpy.types.Scene) -> list[bpy.types.Object]:
    scene.frame_start, scene.frame_end = 1, 60
    out = []
    for k in range(COUNT):
        obj = bpy.data.objects.new(f"racer{k}", None)
        scene.collection.objects.link(obj)
        for frame in (1, 20, 41, 60):
            obj.location = (0.0, 0.1 * k + 0.03 * frame, ((frame * (k + 3)) % 7) * 0.25)
            obj.keyframe_insert("location", index=1, frame=frame)
            obj.keyframe_insert("location", index=2, frame=frame)
        driver = obj.driver_add("location", 0).driver
        driver.type = "SCRIPTED"
        driver.expression = f"0.02 * frame * frame + {k}"  # a simple expression: no auto-run needed
        out.append(obj)
    return out


def _robust_playback(scene: bpy.types.Scene, objects: list[bpy.types.Object]) -> np.ndarray:
    """(objects, frames, 4, 4): each object's world matrix as Blender plays it (playback.settled_playback)."""
    played = settled_playback(scene, FRAMES, lambda: np.array([np.array(obj.matrix_world) for obj in objects]))
    return played.transpose(1, 0, 2, 3)


def test_the_racing_channels_are_named(empty_file: bpy.types.Scene) -> None:
    objects = _racing_empties(empty_file)
    plain = bpy.data.objects.new("plain", None)
    empty_file.collection.objects.link(plain)
    plain.keyframe_insert("location", index=2, frame=1)
    plain.driver_add("rotation_euler", 0)  # another property: no race
    names = races.racing_channels(bpy.context.evaluated_depsgraph_get())
    assert sorted(names) == sorted(f"{obj.name}: location" for obj in objects)


@pytest.mark.parametrize("method", ["SCENE", "USER"])
def test_stepped_reads_are_the_frames_own_values(empty_file: bpy.types.Scene, method: str) -> None:
    objects = _racing_empties(empty_file)
    truth = _robust_playback(empty_file, objects)
    empty_file.frame_set(7)
    for _attempt in range(16):
        got = sampling.sample_world_matrices(bpy.context, [(obj, None) for obj in objects], FRAMES, method=method)
        bad = np.argwhere(~np.all(got == truth, axis=(2, 3)))
        assert bad.size == 0, [(objects[o].name, FRAMES[f]) for o, f in bad[:10]]
    assert empty_file.frame_current == 7


class _StandIn:
    """A stand-in for a stepped scene: ``frame_set`` steps, ``get`` reads the frame stepped to, or the frame stepped
    before it where ``stale(frame, before)`` says so, and ``read_pass`` reads frames in the order given."""

    def __init__(self, stale: Callable[[float, float], bool]) -> None:
        self.stale = stale
        self.now = self.before = 0.0
        self.reached_from: dict[float, list[float]] = {}  # frame -> the frames it was stepped to from

    def frame_set(self, whole: int, subframe: float = 0.0) -> None:
        self.before, self.now = self.now, whole + subframe
        self.reached_from.setdefault(self.now, []).append(self.before)

    def get(self, into: np.ndarray) -> None:
        into[:] = self.before if self.stale(self.now, self.before) else self.now

    def read_pass(self, order: np.ndarray, buffers: list[np.ndarray]) -> None:
        for f_i, frame in enumerate(order.tolist()):
            if np.isfinite(frame):
                self.frame_set(int(frame))
                self.get(buffers[0][f_i])


def test_settle_corrects_stale_frames_and_keeps_what_never_agrees() -> None:
    """The settling logic on a stand-in for a stepped scene: reading frame f gives the values of the frame
    stepped before it on the frames listed in ``stale`` (each time for ``always``, once otherwise)."""
    frames = np.array([1.0, 2.0, np.nan, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
    stale_once = {4.0: 1, 7.0: 2}  # frame -> stale reads left
    always = {9.0}

    def stale(frame: float, _before: float) -> bool:
        if frame in always:
            return True
        if stale_once.get(frame, 0) > 0:
            stale_once[frame] -= 1
            return True
        return False

    scene = _StandIn(stale)
    buffers = [np.zeros((frames.size, 2), dtype=np.float32)]
    scene.read_pass(frames, buffers)
    kept = races.settle(scene.frame_set, scene.read_pass, [scene.get], frames, buffers, backward=True)
    finite = np.isfinite(frames)
    # 4 and 7 are their own; 9 never reads as itself: its first read (the frame before it) is kept, and said.
    expected = np.where(frames == 9.0, 8.0, frames)[finite]
    assert np.array_equal(buffers[0][finite, 0], expected.astype(np.float32))
    assert kept == [9.0]

    # One frame read alone (a Solve's): a stale first read is corrected from the frames around it.
    stale_once.update({5.0: 1})
    one = np.array([5.0])
    buffers = [np.zeros((1, 2), dtype=np.float32)]
    scene.now = 0.0
    scene.read_pass(one, buffers)
    assert buffers[0][0, 0] == 0.0  # the stand-in's stale read: the frame stepped before
    assert races.settle(scene.frame_set, scene.read_pass, [scene.get], one, buffers, backward=True) == []
    assert buffers[0][0, 0] == 5.0


def test_a_forward_second_pass_reaches_each_frame_from_another_frame() -> None:
    """The user's scene reads its frames twice in time order (its simulations need the first pass in order). On
    a stand-in where reading a frame right after the one before it gives that frame's values (frames 4 and 7,
    every time), a second pass in the same order would be as stale as the first and agree with it; reached from
    other frames, it disagrees, and settling finds the frames' own values."""
    frames = np.array([1.0, 2.0, 3.0, np.nan, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0])
    scene = _StandIn(lambda frame, before: frame in (4.0, 7.0) and before == frame - 1)
    buffers = [np.zeros((frames.size, 2), dtype=np.float32)]
    scene.read_pass(frames, buffers)
    finite = np.isfinite(frames)
    assert buffers[0][frames == 4.0, 0] == 3.0 and buffers[0][frames == 7.0, 0] == 6.0  # the first pass is stale
    scene.reached_from.clear()
    assert races.settle(scene.frame_set, scene.read_pass, [scene.get], frames, buffers, backward=False) == []
    assert np.array_equal(buffers[0][finite, 0], frames[finite].astype(np.float32))
    # Every frame was read again from a frame other than the one before it.
    assert all(any(source != frame - 1 for source in scene.reached_from[frame]) for frame in frames[finite].tolist())


def test_the_second_forward_order_reads_every_finite_frame_once() -> None:
    frames = np.array([5.0, np.nan, 6.0, 7.0, 8.0, np.nan, 9.0])
    order = races.second_forward_order(frames)
    assert sorted(order.tolist()) == list(range(frames.size))
    assert order.tolist() == [2, 4, 0, 3, 6, 1, 5]  # 6, 8, then 5, 7, 9, then the two NaN rows
    assert races.second_forward_order(np.array([3.0])).tolist() == [0]


def _raced_target(rig: rigs.ArmRig, expression: str) -> bpy.types.Object:
    """A keyed target whose ``location[1]`` a driver also sets: stepped (a transform variable only Blender
    evaluates) and racing."""
    target = rigs.circle_target(rig, list(range(1, 21)), lambda f: 1.3, lambda f: 0.1 * f)
    driver = target.driver_add("location", 1).driver
    driver.type = "SCRIPTED"
    var = driver.variables.new()
    var.type = "TRANSFORMS"
    var.targets[0].id = rig.armature
    var.targets[0].transform_type = "LOC_X"
    var.targets[0].transform_space = "LOCAL_SPACE"  # in its own axes: only Blender evaluates it
    driver.expression = expression.format(var=var.name)
    return target


def _race_lines(out: str) -> tuple[list[str], list[str]]:
    lines = out.splitlines()
    return ([ln for ln in lines if "until two evaluations agreed" in ln],
            [ln for ln in lines if "different value every time" in ln])


def test_the_bake_names_the_racing_property(empty_file: bpy.types.Scene, capfd: pytest.CaptureFixture[str]) -> None:
    rig = rigs.build_arm()
    target = _raced_target(rig, "{var} * 0.0")
    rigs.add_chain(rig, target)
    capfd.readouterr()
    assert rigs.bake(rig, 1, 20) == {"FINISHED"}
    raced, unsettled = _race_lines(capfd.readouterr().out)
    assert len(raced) == 1 and raced[0].startswith("Info:") and f"'{target.name}: location'" in raced[0], raced
    assert unsettled == []
    target.animation_data.drivers.remove(target.animation_data.drivers[0])  # no driver: no race, nothing said
    assert rigs.bake(rig, 1, 20) == {"FINISHED"}
    assert _race_lines(capfd.readouterr().out) == ([], [])


def test_the_bake_warns_of_frames_that_never_read_the_same(trusted_file: bpy.types.Scene,
                                                          capfd: pytest.CaptureFixture[str]) -> None:
    trusted_file.frame_start, trusted_file.frame_end = 1, 20
    rig = rigs.build_arm()
    target = _raced_target(rig, "noise.random() * 0.001 + {var} * 0.0")  # a new value every evaluation
    rigs.add_chain(rig, target)
    capfd.readouterr()
    assert rigs.bake(rig, 1, 20) == {"FINISHED"}
    assert not bpy.app.autoexec_fail
    raced, unsettled = _race_lines(capfd.readouterr().out)
    assert len(raced) == 1 and len(unsettled) == 1, (raced, unsettled)
    assert unsettled[0].startswith("Warning:") and f"'{target.name}: location'" in unsettled[0]
    # Which frames: those whose reads never agreed (Blender now and then reuses a driver's last value).
    assert re.search(r"frames (\d+, ){0,7}\d+( and \d+ more)? gave a different value", unsettled[0]), unsettled
