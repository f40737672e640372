"""The two promises on random production-like rigs: the error you see is the error you get, nothing is lost.

Each seed draws a rig from the features a production character combines: any drawing plane, bone rolls and
rotation modes, a connected or offset lower bone, an animated parent bone, an armature object placed, rotated,
scaled or mirrored and travelling; a target in WORLD, CHARACTER (the armature or its root bone) or OBJECT space
(a moving door, sometimes swung by a driver) that may leave the reach, sometimes moved by a constraint too; a
pole; softness, joint limits under each strategy, stretch, smoothing, a partial IK influence; the user's own
keys on the chain's channels, inside and outside the range; key reduction; a bone renamed between bakes; one
bake or two over other ranges with other settings; a Solve with Insert Keys on one frame; sometimes a second
character, baked with the first in one batch (sometimes reaching for the first one's hand); sometimes a hand
chain hanging from the first character's arm chain; sometimes the first character's action in a tweaked NLA
strip (scaled); sometimes a bake into a take (a copy of the action).

Then, with the truth read from Blender's playback only (``scene.frame_set``, the evaluated pose and
``matrix_world``), never from the add-on:

- a chain bakes without a warning that playback differs from its solve, and on every baked frame the keyed
  ``soft_ik_error`` is the played-back distance from the lower bone's tail to the target (within 1e-4 of the
  chain's world length);
- or it is refused, naming the chain, and its armature is unchanged (the whole file, when no chain baked);
- Clear then gives back every F-curve as it was before the first bake (every key, every attribute) and the same
  playback of every pose bone on every frame.

``SOFT_IK_FUZZ_SEEDS=first:count`` runs other seeds (``scripts/fuzz_production.sh`` runs many on one version).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import bpy
import numpy as np
import pytest
import rigs
from test_production_truth import MISMATCH, TOLERANCE, playback
from test_promises_clear import curves

FRAMES = list(range(1, 25))
STALE = "hangs from what this bake moved"  # the warning about a chain left out of a bake it hangs from


def _seeds() -> list[int]:
    first, _, count = os.environ.get("SOFT_IK_FUZZ_SEEDS", "0:12").partition(":")
    return list(range(int(first), int(first) + int(count or 1)))


@dataclass
class Case:
    """What a seed drew, printed when a check fails (so a failure can be rebuilt by hand)."""

    seed: int
    choices: dict[str, object] = field(default_factory=dict)
    prefix: str = ""  # the character being drawn, when there are two

    def pick(self, name: str, value: object) -> object:
        self.choices[self.prefix + name] = value
        return value

    def __str__(self) -> str:
        return f"seed {self.seed}: " + ", ".join(f"{k}={v}" for k, v in self.choices.items())


def _wave(rng: np.random.Generator, low: float, high: float) -> Callable[[float], float]:
    """A smooth random function of the frame between ``low`` and ``high``."""
    period, phase = rng.uniform(3.0, 9.0), rng.uniform(0.0, 2.0 * math.pi)
    return lambda f: low + (high - low) * (0.5 + 0.5 * math.sin(f / period + phase))


@dataclass
class Character:
    """One drawn rig and the frames its chain baked."""

    rig: rigs.ArmRig
    chain: bpy.types.PropertyGroup
    target: bpy.types.Object
    baked: set[int] = field(default_factory=set)


def _build(case: Case, rng: np.random.Generator, name: str = "Rig") -> Character:
    pick = case.pick
    plane = str(pick("plane", rng.choice(list(rigs.PLANE_AXES))))
    modes = (str(pick("upper_mode", rng.choice(rigs.ROTATION_MODES))),
             str(pick("lower_mode", rng.choice(rigs.ROTATION_MODES))))
    with_parent = bool(pick("parent", rng.random() < 0.7))
    rig = rigs.build_arm(name, plane=plane, a=float(rng.uniform(0.6, 1.4)), b=float(rng.uniform(0.5, 1.2)),
                         rest_angle_deg=float(rng.uniform(-180.0, 180.0)),
                         rest_bend_deg=float(rng.uniform(-50.0, 50.0)),
                         rolls=tuple(float(r) for r in rng.uniform(-math.pi, math.pi, 3)),  # type: ignore[arg-type]
                         modes=modes, connected=bool(pick("connected", rng.random() < 0.6)),
                         with_parent=with_parent)
    if with_parent and pick("parent_moves", rng.random() < 0.6):
        turn, dx, dy = _wave(rng, -0.6, 0.6), _wave(rng, -0.2, 0.2), _wave(rng, -0.2, 0.2)
        rigs.animate_parent(rig, FRAMES, turn, lambda f: (dx(f), dy(f)))
    if with_parent and pick("parent_scales", rng.random() < 0.2):
        grow, root = _wave(rng, 0.7, 1.4), rig.armature.pose.bones["Root"]
        for f in FRAMES[::4]:
            root.scale = (grow(f),) * 3
            root.keyframe_insert("scale", frame=f)
    if with_parent and pick("shoulder_moves", rng.random() < 0.2):
        upper, dx, dy = rig.armature.pose.bones[rig.upper], _wave(rng, -0.1, 0.1), _wave(rng, -0.1, 0.1)
        rest = np.array(rig.armature.data.bones[rig.upper].matrix_local)[:3, :3]
        u, v, _n = rigs.plane_axes(rig.plane)
        for f in FRAMES[::3]:
            upper.location = rest.T @ (dx(f) * u + dy(f) * v)
            upper.keyframe_insert("location", frame=f)
    scale = float(rng.uniform(0.5, 2.0)) * (-1.0 if pick("mirrored", rng.random() < 0.3) else 1.0)
    travels = bool(pick("travels", rng.random() < 0.5))
    sx, sz = _wave(rng, -0.5, 0.5), _wave(rng, -0.5, 0.5)
    rigs.place_armature(rig, location=tuple(rng.uniform(-2.0, 2.0, 3)),
                        rotation=tuple(rng.uniform(-math.pi, math.pi, 3)), scale=(scale, scale, scale),
                        keyed_shift=(lambda f: (sx(f), 0.0, sz(f))) if travels else None,
                        frames=FRAMES)
    if pick("armature_turns", rng.random() < 0.3):
        obj, spin = rig.armature, _wave(rng, -0.4, 0.4)
        base = tuple(obj.rotation_euler)
        for f in FRAMES:
            obj.rotation_euler = (base[0], base[1] + spin(f), base[2])
            obj.keyframe_insert("rotation_euler", frame=f)

    length = rig.length
    radius = _wave(rng, length * float(rng.uniform(0.15, 0.6)), length * float(rng.uniform(0.7, 1.3)))
    speed, phase = float(rng.uniform(-0.4, 0.4)), float(rng.uniform(0.0, 2.0 * math.pi))
    points = rigs.circle_points(rig, FRAMES, radius, lambda f: phase + speed * f)
    space = str(pick("space", rng.choice(["WORLD", "CHARACTER", "OBJECT"])))
    target = rigs.new_empty("Target")
    space_object, space_bone = None, ""
    if space == "WORLD":
        rigs.key_locations(target, FRAMES, points)
    elif space == "CHARACTER":
        space_bone = "Root" if with_parent and rng.random() < 0.6 else ""
        rigs.key_in_parent_space(target, rig.armature, space_bone, FRAMES, points)
    else:
        space_object = rigs.new_empty("Door")
        space_object.location = tuple(rng.uniform(-2.0, 2.0, 3))
        slide = _wave(rng, -1.0, 1.0)
        for f in FRAMES:
            space_object.location.x = slide(f)
            space_object.rotation_euler.z = 0.05 * f
            space_object.keyframe_insert("location", frame=f)
            space_object.keyframe_insert("rotation_euler", frame=f)
        rigs.key_in_parent_space(target, space_object, "", FRAMES, points)
        if pick("door_driven", rng.random() < 0.25):  # a swing no key holds: sampled through the driver
            driver = space_object.driver_add("delta_rotation_euler", 0).driver
            driver.type, driver.expression = "SCRIPTED", f"sin(frame / {rng.uniform(2.0, 6.0):.3f}) * 0.4"
    case.pick("space_bone", space_bone)
    if pick("target_constrained", rng.random() < 0.15):  # a hold blended in by a constraint: stepped sampling
        wobble, drift = rigs.new_empty("Wobble"), _wave(rng, -0.3, 0.3)
        rigs.key_locations(wobble, FRAMES, np.array([(drift(f), 0.5 * drift(f + 3.0), 0.0) for f in FRAMES]))
        hold = target.constraints.new("COPY_LOCATION")
        hold.target, hold.use_offset, hold.influence = wobble, True, float(rng.uniform(0.2, 0.8))

    chain = rigs.add_chain(rig, target)
    chain.target_space = space
    if space_object is not None:
        chain.space_object = space_object
    chain.space_bone = space_bone
    if pick("pole", rng.random() < 0.3):
        pole = rigs.new_empty("Pole")
        rigs.key_locations(pole, FRAMES, rigs.circle_points(rig, FRAMES, lambda f: 2.0 * length,
                                                            lambda f: phase + speed * f + 1.7))
        chain.pole = pole
    else:
        chain.bend = int(pick("bend", int(rng.choice([-1, 1]))))
    _settings(case, rng, chain)
    _user_keys(case, rng, rig)
    return Character(rig, chain, target)


def _settings(case: Case, rng: np.random.Generator, chain: bpy.types.PropertyGroup) -> None:
    pick = case.pick
    chain.softness = float(pick("softness", float(rng.choice([0.0, 0.03, 0.15]))))
    if pick("elbow_limit", rng.random() < 0.35):
        chain.use_elbow_limit = True
        low = float(rng.uniform(-2.5, 0.5))
        chain.elbow_min, chain.elbow_max = low, low + float(rng.uniform(0.5, 2.5))
    if pick("shoulder_limit", rng.random() < 0.2):
        chain.use_shoulder_limit = True
        low = float(rng.uniform(-3.0, 1.0))
        chain.shoulder_min, chain.shoulder_max = low, low + float(rng.uniform(0.8, 3.0))
    chain.limit_strategy = str(pick("strategy", rng.choice(["ACCEPT", "MOVE_ROOT", "STRETCH"])))
    chain.max_root_offset = float(rng.uniform(0.05, 0.4))
    chain.stretch_min, chain.stretch_max = float(rng.uniform(0.5, 1.0)), float(rng.uniform(1.0, 1.6))
    if pick("stretch_to_reach", rng.random() < 0.2):
        chain.stretch_to_reach = True
        chain.preserve_volume = bool(pick("preserve_volume", rng.random() < 0.5))
    chain.smoothing = str(pick("smoothing", rng.choice(["NONE", "NONE", "EXPONENTIAL", "ONE_EURO"])))
    chain.ik_influence = float(pick("ik_influence", 1.0 if rng.random() < 0.8 else float(rng.uniform(0.2, 0.9))))


def _user_keys(case: Case, rng: np.random.Generator, rig: rigs.ArmRig) -> None:
    """The user's keys before any bake: on the chain's rotation channels (in and out of the range), on a custom
    property, styled (interpolation, handle types) so that Clear must give every attribute back."""
    if not case.pick("user_keys", rng.random() < 0.5):
        return
    pose = rig.armature.pose.bones
    for name in (rig.upper, rig.lower):
        pb = pose[name]
        prop, _size = rigs.rotation_prop(pb.rotation_mode)
        for f in rng.choice(np.arange(-3, 30), size=3, replace=False):
            if prop == "rotation_euler":
                pb.rotation_euler = tuple(rng.uniform(-0.3, 0.3, 3))
            elif prop == "rotation_quaternion":
                pb.rotation_quaternion = tuple(np.r_[1.0, rng.uniform(-0.2, 0.2, 3)])
            else:
                pb.rotation_axis_angle = (float(rng.uniform(-0.5, 0.5)), 0.0, 1.0, 0.0)
            pb.keyframe_insert(prop, frame=int(f))
        fc = rigs.fcurve(rig.armature, rigs.bone_path(name, prop), 0)
        fc.keyframe_points[0].interpolation = "BOUNCE"
        fc.keyframe_points[-1].handle_left_type = "VECTOR"
    pose[rig.lower]["my_prop"] = 1.0
    pose[rig.lower].keyframe_insert('["my_prop"]', frame=int(rng.integers(1, 24)))


def _add_hand_chain(case: Case, rng: np.random.Generator, arm: Character) -> Character:
    """A Hand > Finger chain under the arm chain's lower bone, reaching for a world target that circles where the
    arm's target goes (in and out of the hand's reach): it must be sampled after the arm is keyed."""
    hand = rigs.add_hand(arm.rig, a=float(rng.uniform(0.2, 0.5)), b=float(rng.uniform(0.15, 0.4)),
                         bend_deg=float(rng.uniform(-40.0, 40.0)), roll=float(rng.uniform(-math.pi, math.pi)),
                         connected=bool(case.pick("hand_connected", rng.random() < 0.5)))
    goals = rigs.world_matrices(arm.target, FRAMES)[:, :3, 3]
    world = rigs.world_matrices(arm.rig.armature, FRAMES)
    u, v, _n = rigs.plane_axes(arm.rig.plane)
    reach, turn = _wave(rng, 0.1, 1.3 * hand.length), _wave(rng, -math.pi, math.pi)
    points = [goal + world[i, :3, :3] @ (reach(f) * (math.cos(turn(f)) * u + math.sin(turn(f)) * v))
              for i, (f, goal) in enumerate(zip(FRAMES, goals, strict=True))]
    target = rigs.new_empty("HandTarget")
    rigs.key_locations(target, FRAMES, np.array(points))
    chain = rigs.add_chain(hand, target)
    _settings(case, rng, chain)
    return Character(hand, chain, target)


def _hold_hand(second: Character, first: Character) -> None:
    """The second character reaches for an Empty at the first one's forearm tail (OBJECT space)."""
    held = rigs.new_empty("Held", parent=first.rig.armature, bone=first.rig.lower)
    chain = second.chain
    chain.target, chain.target_space = held, "OBJECT"
    chain.space_object, chain.space_bone = first.rig.armature, first.rig.lower
    second.target = held


def _look_up_chains(characters: list[Character]) -> None:
    """Adding a chain may move the others of its armature: each character's chain is looked up again."""
    for c in characters:
        c.chain = next(ch for ch in c.rig.armature.soft_ik_2d.chains if ch.lower_bone == c.rig.lower)


def _tweak(rig: rigs.ArmRig, scale: float) -> None:
    """The armature's action pushed into an NLA strip from frame 1 (``scale``) and tweaked: keys then land in
    the strip's own time. A frame outside the strip is refused by name (a valid outcome)."""
    arm = rig.armature
    anim = arm.animation_data_create()
    if anim.action is None:  # nothing animated the armature: an action of the chain's rest pose
        arm.pose.bones[rig.upper].keyframe_insert("location", frame=1)
    action = anim.action
    track = anim.nla_tracks.new()
    strip = track.strips.new("Take", 1, action)
    strip.name = "Take"  # 4.5 names a new strip after its action
    anim.action = None
    strip.scale = scale
    rigs.tweak(anim, track, strip)


def _pose_playback(rig: rigs.ArmRig) -> np.ndarray:
    scene = bpy.context.scene
    rows = []
    for f in FRAMES:
        scene.frame_set(f)
        rows.append(np.concatenate([np.array(pb.matrix).ravel() for pb in rig.armature.pose.bones]))
    return np.array(rows)


def _assert_true(rig: rigs.ArmRig, target: bpy.types.Object, frames: list[int], case: Case) -> None:
    """On every frame, the keyed error is the distance Blender plays back (within TOLERANCE of the chain)."""
    miss, keyed, length = playback(rig, target, frames)
    gap = np.abs(miss - keyed) / length
    worst = int(np.argmax(gap))
    assert gap[worst] <= TOLERANCE, (f"{case}: {rig.armature.name}: keyed error {keyed[worst]:.6g} but Blender "
                                     f"plays back {miss[worst]:.6g} at frame {frames[worst]} ({gap[worst]:.3g} L)")


def _own(snapshot: dict[str, object], rig: rigs.ArmRig) -> dict[str, object]:
    """The entries of :func:`rigs.snapshot` about the rig's armature (its curves, pose and chains)."""
    name = rig.armature.name
    return {k: v for k, v in snapshot.items() if k.startswith((f"{name}:", f"{name}."))}


def _own_bones(snapshot: dict[str, object], rig: rigs.ArmRig) -> dict[str, object]:
    """The entries of :func:`rigs.snapshot` about the curves of the rig's two bones."""
    name = rig.armature.name
    return {k: v for k, v in snapshot.items()
            if k.startswith((f'{name}:pose.bones["{rig.upper}"]', f'{name}:pose.bones["{rig.lower}"]'))}


def _drop_stale(c: Character, out: str, frames: Iterable[int], case: Case) -> None:
    """A chain left out of a bake that moved what it hangs from is named as out of date there (its keyed error
    no longer what plays back): those frames are no longer promised."""
    if f"Chain '{c.chain.name}' of '{c.rig.armature.name}' {STALE}" in out:
        c.baked -= set(frames)
        case.pick(f"stale:{c.rig.armature.name}.{c.rig.lower}", True)


def _bake(characters: list[Character], start: int, end: int, capfd: pytest.CaptureFixture[str], case: Case,
          rng: np.random.Generator) -> None:
    """Bake [start, end] over every character at once (one batch): each chain either bakes, without a warning
    that playback differs from its solve (its frames join ``baked``), or is refused by name with its armature
    unchanged (the whole batch: the file unchanged)."""
    rigs.pose_mode_together([c.rig.armature for c in characters])
    before = rigs.snapshot()
    ranges = [(c.chain.bake_start, c.chain.bake_end) for c in characters]
    capfd.readouterr()
    reduction = str(case.pick(f"reduction{start}-{end}", rng.choice(["NONE", "NONE", "TARGET_KEYS", "FIT"])))
    # A take: the bake goes into a copy of each armature's action (made for an armature without one), which
    # the armature then plays; the original is left as it was.
    take = bool(case.pick(f"take{start}-{end}", rng.random() < 0.15))
    try:
        result = bpy.ops.pose.soft_ik_bake(frame_start=start, frame_end=end, key_reduction=reduction,
                                           reduction_shape=str(rng.choice(["LINEAR", "BEZIER"])),
                                           to_new_action=take)
    except RuntimeError as err:
        message = str(err)
        assert "Traceback" not in message, f"{case}: {message}"  # refused by name, not crashed
        for c in characters:
            assert f"'{c.rig.armature.name}'" in message, f"{case}: {message}"
        rigs.assert_same_snapshot(before, rigs.snapshot())
        case.pick(f"refused{start}-{end}", message.splitlines()[0][:120])
        return
    out = capfd.readouterr().out
    assert result == {"FINISHED"}, f"{case}: {result}"
    assert MISMATCH not in out, f"{case}: {out}"
    after = rigs.snapshot()
    done = [(c.chain.bake_start, c.chain.bake_end) == (start, end) and (start, end) != old
            for c, old in zip(characters, ranges, strict=True)]
    for c, old, baked in zip(characters, ranges, done, strict=True):
        if baked:
            c.baked |= set(range(start, end + 1))
        elif (start, end) != old:  # refused in a batch that baked others: named, its keys unchanged
            assert f"'{c.rig.armature.name}'" in out, f"{case}: {out}"
            shares = any(d and o is not c and o.rig.armature == c.rig.armature
                         for o, d in zip(characters, done, strict=True))
            # Its armature unchanged, or with another chain of it baked, the curves of its own bones.
            entries = _own_bones if shares else _own
            assert entries(before, c.rig) == entries(after, c.rig), str(case)
            label = f"Chain '{c.chain.name}' of '{c.rig.armature.name}'"
            case.pick(f"refused{start}-{end}:{c.rig.armature.name}.{c.rig.lower}",
                      next((line[:160] for line in out.splitlines() if label in line), True))
            _drop_stale(c, out, range(start, end + 1), case)
        # else: the range of the chain's last bake again: its frames are counted already (or it never baked)


@pytest.mark.parametrize("seed", _seeds())
def test_random_production_rig_keeps_both_promises(empty_file: bpy.types.Scene, capfd: pytest.CaptureFixture[str],
                                                   seed: int) -> None:
    rng = np.random.default_rng(seed)
    case = Case(seed)
    characters = [_build(case, rng)]
    if case.pick("second_character", rng.random() < 0.25):  # baked in one batch with the first
        case.prefix = "rig2."
        characters.append(_build(case, rng, "Rig2"))
        case.prefix = ""
        if case.pick("holds_hand", rng.random() < 0.3):
            _hold_hand(characters[1], characters[0])
    if case.pick("hand_chain", rng.random() < 0.25):  # a chain under the first character's arm chain
        case.prefix = "hand."
        characters.append(_add_hand_chain(case, rng, characters[0]))
        case.prefix = ""
        _look_up_chains(characters)
    if case.pick("nla_tweak", rng.random() < 0.15):
        _tweak(characters[0].rig, float(case.pick("strip_scale", float(rng.choice([1.0, 1.5, 0.8])))))
    before = curves(rigs.snapshot())
    playback = [_pose_playback(c.rig) for c in characters]

    start = int(case.pick("start", int(rng.integers(1, 8))))
    end = int(case.pick("end", int(rng.integers(start + 4, FRAMES[-1] + 1))))
    _bake(characters, start, end, capfd, case, rng)
    if os.environ.get("SOFT_IK_FUZZ_EACH"):  # debugging: the truth after the first bake too
        for c in characters:
            if c.baked:
                _assert_true(c.rig, c.target, sorted(c.baked), case)
    first = characters[0]
    if case.pick("renamed", rng.random() < 0.2):  # renamed between bakes: the records follow the bones
        rigs.enter_pose_mode(first.rig)
        first.rig.armature.data.bones[first.rig.lower].name = "Forearm"
        first.rig = dataclasses.replace(first.rig, lower="Forearm")
    if case.pick("second_bake", rng.random() < 0.4):
        for n, c in enumerate(characters):
            case.prefix = "rig2." if n else ""
            c.chain.softness = float(case.pick("softness2", float(rng.choice([0.0, 0.1]))))
            c.chain.limit_strategy = str(case.pick("strategy2", rng.choice(["ACCEPT", "MOVE_ROOT", "STRETCH"])))
        case.prefix = ""
        start2 = int(case.pick("start2", int(rng.integers(1, min(end, FRAMES[-1] - 2)))))
        end2 = int(case.pick("end2", int(rng.integers(start2 + 2, FRAMES[-1] + 1))))
        _bake(characters, start2, end2, capfd, case, rng)

    if case.pick("solve_keys", rng.random() < 0.25):  # Solve with Insert Keys on one frame, other settings
        frame = int(case.pick("solve_frame", int(rng.integers(FRAMES[0], FRAMES[-1] + 1))))
        for c in characters:
            c.chain.softness = float(rng.choice([0.0, 0.08]))
        rigs.pose_mode_together([c.rig.armature for c in characters])
        bpy.context.scene.frame_set(frame)
        before_solve = rigs.snapshot()
        try:
            assert bpy.ops.pose.soft_ik_solve(insert_keys=True) == {"FINISHED"}, str(case)
        except RuntimeError as err:
            assert "Traceback" not in str(err), f"{case}: {err}"  # refused by name, not crashed
            rigs.assert_same_snapshot(before_solve, rigs.snapshot())
            case.pick("solve_refused", str(err).splitlines()[0][:120])
        else:
            out = capfd.readouterr().out
            assert MISMATCH not in out, f"{case}: {out}"
            for c in characters:
                label = f"Chain '{c.chain.name}' of '{c.rig.armature.name}'"
                if not any(label in line and STALE not in line for line in out.splitlines()):
                    c.baked.add(frame)  # not refused (a refused chain is named, its keys kept)
                _drop_stale(c, out, [frame], case)

    for c in characters:
        if c.baked:
            _assert_true(c.rig, c.target, sorted(c.baked), case)
    if any(c.baked for c in characters):  # refused bakes left the file as it was (checked by _bake)
        rigs.pose_mode_together([c.rig.armature for c in characters])
        assert bpy.ops.pose.soft_ik_clear_bake() == {"FINISHED"}, str(case)
    # A renamed bone's curves follow it (Blender renames their paths): compare them under the old name.
    name = first.rig.armature.name
    after = {k.replace(f'{name}:pose.bones["{first.rig.lower}"]', f'{name}:pose.bones["Lower"]'): v
             for k, v in curves(rigs.snapshot()).items()}
    left = sorted(after.keys() - before.keys())
    assert left == [], f"{case}: curves the bakes created are left: {left}"
    assert sorted(before.keys() - after.keys()) == [], f"{case}: curves that existed are gone"
    changed = sorted(k for k in before if before[k] != after[k])
    assert not changed, f"{case}: curves whose keys changed: {changed}"
    for c, shown in zip(characters, playback, strict=True):
        np.testing.assert_allclose(_pose_playback(c.rig), shown, atol=1e-6, err_msg=str(case))
