"""What Blender plays back from a baked file, independent of the add-on (run by Blender):

    blender --background --factory-startup --python tests/cli/check_shots.py -- FILE TRUTH.json OUT.json [--autoexec]

For each chain listed for FILE in TRUTH.json: on every frame of the scene range, ``scene.frame_set(f)`` (each
frame read until two reads reached from different frames agree), the lower bone's tail in world space
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
# Where each frame is reached from (offsets), the neighbours first.
JUMPS = (-1, 1, -7, 5, 13, -11, 17, -19)
bpy.ops.wm.open_mainfile(filepath=path, load_ui=False, use_scripts="--autoexec" in args)
scene = bpy.context.scene
result: dict[str, object] = {}
for item in json.load(open(truth_path))[os.path.basename(path)]:
    arm = bpy.data.objects[item["armature"]]
    target = bpy.data.objects[item["target"]]
    frames = list(range(scene.frame_start, scene.frame_end + 1))
    # Blender 4.5-5.2 now and then evaluate a frame of a target whose driver and keys set one property with a
    # channel from the frame it was reached from (a thread race, see rigging/sampling/races.py). A stale read
    # repeats that frame, so each frame is reached from its neighbours, then farther frames, until two reads
    # agree (as tests/blender/playback.py does: a vote between passes fails, or agrees on a stale value, where
    # two passes are stale).
    rows = []
    for f in frames:
        reads: list[tuple[object, ...]] = []
        for jump in JUMPS:
            scene.frame_set(f + jump)
            scene.frame_set(f)
            lower = arm.pose.bones["Lower"]
            read = (tuple(arm.matrix_world @ lower.tail), tuple(target.matrix_world.translation),
                    float(lower.get("soft_ik_error", -1.0)))
            if read in reads:
                break
            reads.append(read)
        else:
            raise AssertionError(f"frame {f}: no two plays of {path} agree")
        tail, goal, error = read
        distance = sum((t - g) ** 2 for t, g in zip(tail, goal, strict=True)) ** 0.5
        rows.append({"frame": f, "distance": distance, "keyed_error": error, "target": list(goal)})
    ad = arm.animation_data
    result[item["chain"]] = {"rows": rows, "has_action": ad is not None and ad.action is not None}
with open(out_path, "w") as f:
    json.dump(result, f)
print("CHECKED", path)
