"""What Blender plays back from a baked file, independent of the add-on (run by Blender):

    blender --background --factory-startup --python tests/cli/check_shots.py -- FILE TRUTH.json OUT.json [--autoexec]

For each chain listed for FILE in TRUTH.json: on every frame of the scene range, ``scene.frame_set(f)`` (the
range played three times, each frame what two plays agree on), the lower bone's tail in world space
(``matrix_world @ pose.bones["Lower"].tail``), the target's world position, their distance and the keyed
``soft_ik_error``. The add-on is not enabled: the file must play on its own.
"""

from __future__ import annotations

import json
import os
import sys

import bpy

args = sys.argv[sys.argv.index("--") + 1:]
path, truth_path, out_path = args[:3]
bpy.ops.wm.open_mainfile(filepath=path, load_ui=False, use_scripts="--autoexec" in args)
scene = bpy.context.scene
result: dict[str, object] = {}
for item in json.load(open(truth_path))[os.path.basename(path)]:
    arm = bpy.data.objects[item["armature"]]
    target = bpy.data.objects[item["target"]]
    frames = list(range(scene.frame_start, scene.frame_end + 1))
    # Played three times (forward, backward, forward): Blender 4.5-5.2 now and then evaluate a frame of a target
    # whose driver and keys set one property with a channel from the frame before (a thread race, see
    # rigging/sampling/races.py). Each frame is the reading at least two plays agree on.
    plays = []
    for order in (frames, frames[::-1], frames):
        reads = {}
        for f in order:
            scene.frame_set(f)
            lower = arm.pose.bones["Lower"]
            tail = arm.matrix_world @ lower.tail
            goal = target.matrix_world.translation
            reads[f] = (tuple(tail), tuple(goal), float(lower.get("soft_ik_error", -1.0)))
        plays.append(reads)
    rows = []
    for f in frames:
        a, b, c = (play[f] for play in plays)
        assert a in (b, c) or b == c, f"frame {f}: no two plays of {path} agree"
        tail, goal, error = a if a in (b, c) else b
        distance = sum((t - g) ** 2 for t, g in zip(tail, goal, strict=True)) ** 0.5
        rows.append({"frame": f, "distance": distance, "keyed_error": error, "target": list(goal)})
    ad = arm.animation_data
    result[item["chain"]] = {"rows": rows, "has_action": ad is not None and ad.action is not None}
with open(out_path, "w") as f:
    json.dump(result, f)
print("CHECKED", path)
