"""Every message the operators report and every check's error, as templates with ``{placeholders}``.

:func:`say` translates the template first (``zh_HANS`` lives in ``translations/``) and formats it afterwards,
so names of chains, bones and objects are never translated. The translation test reads :data:`MESSAGES`.
"""

from __future__ import annotations

import bpy

# rig.py: reading and checking a chain
CHAIN_LABEL = "Chain '{chain}' of '{armature}'"
BONE_MISSING = "{label}: {role} '{bone}' is not in armature '{data}' (renamed or deleted?)"
ROLE_LOWER = "lower bone"
ROLE_UPPER = "upper bone"
NO_PARENT = "{label}: bone '{bone}' has no parent, but the chain needs {count} bones ending at '{lower}'"
NOT_CHILD = "{label}: lower bone '{lower}' is not a child of upper bone '{upper}' (its parent is '{parent}')"
NOT_ANCESTOR = "{label}: upper bone '{upper}' is not {count} parents above '{lower}' (that bone is '{found}')"
NO_INHERIT = ("{label}: bone '{bone}' does not inherit rotation and scale from its parent (Bone Properties > "
              "Relations); the chain needs the default inheritance")
UPPER_NO_INHERIT = "{label}: upper bone '{bone}' does not inherit rotation from its parent '{parent}'"
ZERO_LENGTH = "{label}: bone '{bone}' has zero length (head and tail, or head and the next bone's head, coincide)"
OFF_PLANE = ("{label}: bones are not in the {plane} plane: {where} is {offset:.6g} off the plane through the head "
             "of '{upper}' ({fraction:.2%} of the chain length)")
WHERE_TAIL = "the tail of '{bone}'"
WHERE_HEAD = "the head of '{bone}'"
# The fix comes before the path: Blender cuts long poll messages short.
LINKED = ("'{name}' is linked from a library and not overridden, so it cannot be changed: select it, Object > "
          "Library Override > Make (library '{path}')")
SYSTEM_OVERRIDE = ("'{name}' is a system library override, not editable yet: select it, Object > Library Override > "
                   "Make (library '{path}')")
REST_POSITION = ("'{armature}' shows its Rest Position, where Blender plays no pose (the chains' parents stand at "
                 "rest and keys do not act): set Pose Position first (Armature Properties > Skeleton)")
FOLLOWS_REST = ("'{name}' follows bone '{bone}' of '{armature}' ({path}), which shows its Rest Position, where "
                "Blender plays no pose: set Pose Position on '{armature}' first (Armature Properties > Skeleton)")
ACTION_MADE_LOCAL = ("The action '{action}' of '{owner}' is linked from '{path}': the keys went into its local copy "
                     "'{copy}', which '{owner}' now plays (later edits of the library's action do not reach it)")
ACTION_CREATED = "'{owner}' is a library override without an action: the keys went into its new local action '{action}'"
NO_TARGET = "{label} has no target object (it was never set or has been deleted)"
TARGET_IS_ARMATURE = "{label}: the target is the armature '{armature}' itself; pick an Empty"
TARGET_NOT_IN_SCENE = ("{label}: target '{target}' is not in scene '{scene}', where Blender never evaluates it: link "
                       "it into the scene or pick another target")
POLE_NOT_IN_SCENE = ("{label}: pole '{pole}' is not in scene '{scene}', where Blender never evaluates it: link it "
                     "into the scene or clear the chain's Pole")
NO_SPACE_OBJECT = "{label}: Target Space is OBJECT but no Space Object is set"
SPACE_BONE_MISSING = "{label}: space bone '{bone}' is not a bone of '{owner}'"
SPACE_WORLD = "not parented (world space)"
SPACE_BONE_PARENT = "parented to bone '{bone}' of '{owner}'"
SPACE_OBJECT_PARENT = "parented to '{owner}'"
SPACE_MISMATCH = "target '{target}' is {actual}, but the chain declares {space} space ({declared})"
SHARED_BONE = ("Chains '{first}' and '{second}' of '{armature}' both use bone '{bone}'; each bone may belong to one "
               "chain only")
TOO_SHORT = ("{label}: bone '{bone}' is too short for this chain: {length:.3g} against a chain length of {total:.6g} "
             "(ratio {ratio:.2g}, below the {least:.0e} a solve needs); lengthen it or move the next bone's head away")
DEPENDENCY_CYCLE = ("{label}: {role} '{name}' depends on the chain's own bone '{bone}' ({path}), a dependency cycle: "
                    "it would move with the pose solved for it. Parent or constrain '{name}' to something the chain "
                    "does not move (the bone above the chain, the armature object or the world)")
CHAIN_ORDER_LOOP = ("{label} moves with the solve of {other} ({path}), which moves with this chain's in turn, so "
                    "neither can be solved first. Give one of them a target and parents the other does not move")
STALE_DEPENDENT = ("{label} hangs from what this bake moved ({path}, solved by {other}): its keys over frames "
                   "{start}-{end} were solved against the pose before it; where that pose changed, Blender plays its "
                   "tip elsewhere and its keyed error is out of date. Bake it again")
STALE_AFTER_CLEAR = ("{label} hangs from what this Clear gave back ({path}, of {other}): its keys over frames "
                     "{start}-{end} were solved against the baked pose; where the pose changed, Blender plays its tip "
                     "elsewhere and its keyed error is out of date. Bake it again, or clear it too")
INPUT_AT_REST = ("{label}: {role} '{name}' follows bone '{bone}' of '{armature}' ({path}), which shows its Rest "
                 "Position, where Blender plays no pose: set Pose Position on '{armature}' first (Armature "
                 "Properties > Skeleton)")
ROLE_TARGET = "target"
ROLE_POLE = "pole"
ROLE_SPACE = "space"
CYCLE_NODE_BONE = "bone '{bone}' of '{owner}'"
CYCLE_VIA_PARENT = "parent"
CYCLE_VIA_CONSTRAINT = "constraint '{constraint}' targets"
CYCLE_VIA_DRIVER = "driver of {path} reads"
CYCLE_VIA_ARMATURE = "armature"
CYCLE_VIA_DEFORM = "vertices of '{owner}' deformed by"

# bake.py / chain_solve.py
FIX_SPACE_FIRST = "{label}: {problem}. Fix the parenting (Fix Target Space) or change the declared space"
END_BEFORE_START = "End frame {end} is before start frame {start}"
NEVER_FINITE = ("{label}: no frame of the range has finite positions for every input (not finite: {inputs}); "
                "check their keys, drivers and constraints")
INPUT_TARGET = "target '{name}'"
INPUT_POLE = "pole '{name}'"
INPUT_ARMATURE = "armature '{name}'"
INPUT_PARENT = "parent bone '{name}'"
BAKE_SUMMARY = "{armature}/{chain}: {frames} frames, max error {max:.6g}, mean {mean:.6g}, limited on {limited}"
# reduced_bake.py: editable bakes with fewer keys
REDUCED_KEYS = ("{label}: kept {kept} of {full} frames' keys (within {tolerance:.3g} of the full bake's tip on every "
                "frame, measured in playback: worst {worst:.3g})")
SKIPPED_FRAMES = "; skipped non-finite target frames {frames}"
MORE_FRAMES = " and {count} more"
STEPPED_INPUTS = ("{objects}: sampled frame by frame through Blender's own evaluation (constraints, drivers, NLA or "
                  "physics need it); inputs animated by keys and parenting alone are read from their F-curves, "
                  "much faster")
# sampling/races.py: a driver and keys on one array property, which Blender 4.5-5.2 evaluate on racing threads
RACING_CHANNELS = ("{channels}: a driver and keys set elements of one property, which Blender 4.5 to 5.2 now and "
                   "then evaluate with an element from the frame before (playback shows the object jump for a "
                   "frame); the bake read each frame until two evaluations agreed. To avoid it, drive another "
                   "property (e.g. the delta transform) instead")
UNSETTLED_FRAMES = ("{channels}: frames {frames} gave a different value every time Blender evaluated them (a "
                    "driver such as random()?); the keys there follow one evaluation, which playback will not "
                    "repeat")

# chain_checks.py / verification.py: what acts on the chain's bones besides the solve
CHAIN_CONSTRAINT = ("{label}: bone '{bone}' has the {type} constraint '{constraint}' acting on it (influence "
                    "{influence}), which the solve cannot follow; mute it, set its influence to 0 or remove it")
CHAIN_IK_CONSTRAINT = ("{label}: bone '{bone}' is moved by the {type} constraint '{constraint}' of bone '{owner}'; "
                       "mute it, set its influence to 0 or shorten its chain so it stops above '{bone}'")
CHAIN_DRIVER = ("{label}: the driver on {path} moves bone '{bone}' of the chain; remove the driver or mute it "
                "(Drivers editor)")
CHAIN_POSE_SCALE = ("{label}: bone '{bone}' has a pose scale ({value}, {where}); the chain's bones must stay "
                    "unscaled: set its scale to 1 and delete its scale keys (the Stretch strategy scales the arm "
                    "for you)")
CHAIN_BONE_LOCATION = ("{label}: bone '{bone}' is not connected to its parent and has a pose location ({value}, "
                       "{where}), which would move the joint the solve places; set it to 0 and delete its "
                       "location keys, or connect the bone")
MOVE_ROOT_CONNECTED = ("{label}: the Move Root strategy keys the location of upper bone '{bone}', but it is connected "
                       "to its parent '{parent}' and Blender ignores its location; disconnect it (Bone Properties > "
                       "Relations) or pick another strategy")
AT_KEY = "key at frame {frame}"
AT_REST_VALUE = "current value"
PARENT_SCALE_NOT_INHERITED = ("{label}: upper bone '{bone}' does not inherit scale (Inherit Scale {mode}) but its "
                              "parent '{parent}' is scaled {scale} at frame {frame}; set Inherit Scale to Full or "
                              "remove the scale of '{parent}'")
PARENT_SCALE_NON_UNIFORM = ("{label}: parent bone '{parent}' is scaled unevenly {scale} at frame {frame} and bone "
                            "'{bone}' inherits it as {mode}; set Inherit Scale of '{bone}' to Full, or scale "
                            "'{parent}' evenly")
PLAYBACK_MISMATCH = ("{label}: Blender plays the tip back up to {size:.6g} ({fraction:.3%} of the chain length) away "
                     "from the solved pose on {count} frame(s): {frames}; the error curve shows the measured "
                     "distance. Something the add-on does not model moves the chain (a constraint, driver, NLA "
                     "strip or curve modifier on the armature or its parents)")

# operators
POLL_NOT_ARMATURE = "The active object must be an armature"
POLL_POSE_MODE = "Switch to Pose Mode"
POLL_WRONG_MODE = "Switch to Pose or Object Mode (the armature is in {mode} Mode)"
POLL_NO_CHAIN = "Armature '{armature}' has no active Soft IK chain (add one, or pick one in the list)"
POLL_NO_ACTIVE_BONE = "Make the lower bone of the chain (forearm, shin) the active bone"
POLL_NO_PARENT = "The active bone '{bone}' has no parent: make the lower bone (forearm, shin) active"
POLL_NO_TARGET = "Chain '{chain}' has no target: set one in its settings"
CHAIN_TOO_LONG = "Bone '{bone}' has only {count} bones above it and including it; lower the chain length"
BONE_HAS_CHAIN = ("Bone '{bone}' already belongs to chain '{chain}' of '{armature}' ({bones}); select that chain in "
                  "the list to edit it, or remove it before adding a new one")
TOO_MANY_TARGETS = "Select at most one target object besides the armature (selected: {names})"
ADDED_CHAIN = "Added chain '{chain}' ({bones}) reaching for '{target}'"
REMOVED_CHAIN = "Removed chain '{chain}'"
CHAIN_FROM_LIBRARY = ("Chain '{chain}' of '{armature}' comes from the rig's library file and cannot be removed in "
                      "a library override; remove it in the library file")
NO_CHAINS_SELECTED = "No selected armature has Soft IK chains (add one with Add Soft IK Chain)"
NO_ACTIVE_CHAIN = ("Armature '{armature}' has no active Soft IK chain: pick one in the list, or turn off Only "
                   "Active Chain")
BATCH_NOT_BAKED = "{count} of {total} chain(s) not baked (their keys are unchanged):\n{reasons}"
BATCH_NOT_SOLVED = "{count} of {total} chain(s) not solved (their pose is unchanged):\n{reasons}"
SOLVED = "Solved {count} chain(s) at frame {frame}; largest error {error:.6g}"
BAKING = "Soft IK: baking frames {start}-{end}"
NOTHING_TO_CLEAR = "Nothing to clear: no chain of the selected armatures has a bake"
CLEARED = "Removed baked keys from {count} curve(s)"
SPACE_ALREADY_OK = "Target '{target}' already matches {space} space"
SPACE_NO_OBJECT = "Chain '{chain}': Target Space is OBJECT but no Space Object is set"
SPACE_IN_CHAIN = ("Chain '{chain}': the declared {space} space ({path}) moves with the chain's own bone '{bone}'; "
                  "declare a space the chain does not move (a bone above the chain, the armature or the world)")
SPACE_SELF_PARENT = "Chain '{chain}': the target cannot be parented to itself"
REPARENTED = "Re-parented '{target}' to {space} space, keeping its world motion on {count} frame(s)"

# pinning.py: a target pinned where it stands (a planted foot)
PIN_NO_TARGET = "Chain '{chain}' has no target to pin; set its Target first"
PIN_CONSTRAINED = ("Target '{target}' has the acting constraint '{constraint}', so its keys alone do not say where it "
                   "is; mute or remove the constraint before pinning")
PIN_DELTAS = ("Target '{target}' has delta transforms, which the pin does not convert; set them back to zero (Object "
              "Properties > Transform > Delta Transform) first")
PIN_DRIVEN = "Target '{target}': {path} is driven, so keys cannot hold it; remove or mute the driver before pinning"
PIN_NLA = "Target '{target}' plays NLA strips; pin it in its action alone (leave tweak mode, mute the NLA tracks)"
PIN_CURVE_SHAPE = ("Target '{target}': the F-curve {path} has modifiers or extrapolates beyond its keys, which the pin "
                   "cannot keep exact; remove the modifiers and set Extrapolation to Constant first")
PIN_OVERLAP = "Chain '{chain}' is already pinned on frames {start}-{end} (with its blend frames); unpin that first"
PINNED = ("Pinned '{target}' in world space on frames {start}-{end}, blending back over {blend} frame(s); "
          "its keys changed on frames {first}-{last} only")
UNPINNED = "Unpinned '{target}' on frames {start}-{end}: its keys are as they were before the pin"
UNPIN_NONE = "Chain '{chain}' has no pinned range"
UNPIN_ORDER = ("Chain '{chain}': the pin on frames {later_start}-{later_end} rewrote keys the pin on frames "
               "{start}-{end} saved; unpin it first")
POLL_NO_PIN = "Chain '{chain}' has no pinned range"
UNPIN_REPARENTED = ("'{target}' was re-parented since it was pinned on frames {start}-{end}, so the keys the pin "
                    "saved would move it elsewhere; parent it back as it was to unpin, or keep the pin")

# key_target.py / bake_records.py: where a bake's keys go, and what Clear removes
TIME_REMAPPED = ("Scene '{scene}' remaps time (Output Properties > Frame Range > Time Stretching: Old {old}, New "
                 "{new}), so keys would not play on the frames they were solved for; set Old and New to the same "
                 "value first (stretch time afterwards)")
SHARED_ACTION = ("Action '{action}' of '{armature}' is also played by {users}: keys written into it would change their "
                 "animation too. Give '{armature}' its own copy (click the user count next to the action's name in "
                 "the Action Editor) first")
ACTION_BLENDS = ("The action '{action}' of '{armature}' is blended (Blending {blend}, Influence {influence:.3g}), so "
                 "keys would not play as written; set Blending to Replace and Influence to 1 (NLA editor) first")
NLA_STRIP_TIME = ("'{armature}' is tweaking NLA strip '{strip}', which is played reversed or with animated strip "
                  "time; turn off Reversed and Animated Strip Time, or leave tweak mode, first")
NLA_STRIP_BLENDS = ("'{armature}' is tweaking NLA strip '{strip}', which blends (Blending not Replace, blend in/out "
                    "or animated influence), so keys would not play as written; set Blending to Replace, Blend In and "
                    "Out to 0 and turn off Animated Influence first")
NLA_OUTSIDE_STRIP = ("Frames {start}-{end} go beyond NLA strip '{strip}' of '{armature}' (frames {strip_start}-"
                     "{strip_end}), where the tweaked action does not play; use frames within the strip")
NLA_REPEATS = ("Frames {start}-{end} span more than one repeat of NLA strip '{strip}' of '{armature}' (one repeat is "
               "{period} frames, e.g. {repeat_start}-{repeat_end}); use the frames of a single repeat: its keys play "
               "in every repeat")
CLEAR_NOT_PLAYED = ("{label}: keys baked into action '{action}' were kept: '{armature}' does not play that action now; "
                    "assign it again (or its NLA strip) and Clear")
CLEAR_SHARED = ("{label}: keys baked into action '{action}' were kept: it is also played by {users}, whose animation "
                "would change; give '{armature}' its own copy of the action and Clear")
CLEAR_EDITED = "{label}: kept {count} baked key(s) edited since the bake (they are yours now)"
CLEAR_NOT_RESTORED = ("{label}: {count} of your key(s) the bake had replaced were not put back: you keyed their "
                      "frames or deleted their curve since, and what you did stays (Undo brings the bake back)")

# fk_blend.py / reach.py / operators/snap.py: IK influence, stretch to reach, snapping the target to FK (issue 14)
INFLUENCE_DRIVEN = ("{label}: IK Influence is driven; the bake reads it per frame from keys only. Key it instead "
                    "of driving it (or mute the driver)")
VOLUME_NEEDS_ALIGNED = ("{label}: Preserve Volume thins the stretched bones, which bone '{bone}' would shear "
                        "(Inherit Scale: {mode}); set its Inherit Scale to Aligned (Bone Properties > Relations), "
                        "or turn off Preserve Volume")
SNAPPED = "Snapped the target{pole} of {count} chain(s) to the FK pose on {frames} frame(s)"
SNAPPED_POLE = " and pole"
SNAP_SET_BEND = "{label}: Bend set to {bend:+d}, the side the FK elbow bends to"
SNAP_BEND_MIXED = ("{label}: the FK elbow bends to both sides over these frames; without a pole IK keeps one "
                   "side (Bend): give the chain a pole to follow FK's side")
# takes.py: a bake into a new action
TAKE_NAME_SEVERAL = ("Action Name '{action}' names one action, but {count} armatures are baked; leave it empty (each "
                     "armature gets its own take) or bake one armature at a time")
TAKE_NAME_TAKEN = ("An action named '{action}' already exists; choose another Action Name (or assign that action "
                   "and bake without To New Action)")
TAKE_IN_TWEAK_MODE = ("'{armature}' is tweaking an NLA strip, whose action the keys would have to go into; leave "
                      "tweak mode (NLA editor) or bake without To New Action")
TAKE_COPIED = ("'{armature}' was baked into the new action '{take}', a copy of '{action}', which is unchanged: "
               "switch back to it in the Action Editor")
TAKE_NEW = "'{armature}' was baked into the new action '{take}'"
TAKE_PUSHED = "Take '{take}' of '{armature}' was pushed down to the NLA track '{track}'"

# operators/mirror.py: mirror a chain to the other side
MIRROR_NO_SIDE = ("{label}: bone(s) {bones} name no side (.L/.R, _L/_R, -L/-R, Left/Right), so there is no opposite "
                  "bone to mirror to; name the bones by Blender's left/right convention")
MIRROR_BONES_MISSING = ("{label}: the opposite bone(s) {bones} are not in armature '{armature}'; add them (Edit Mode: "
                        "Armature > Symmetrize) first")
MIRROR_EXISTS = "{label}: the opposite chain already exists: {reason}"
MIRRORED_CHAIN = "Mirrored chain '{chain}' to '{mirror}' ({bones}) reaching for '{target}'"
# pipeline*.py / cli.py: baking files from the command line (``blender --command soft_ik_2d bake``)
DRIVER_NEEDS_AUTORUN = ("{label}: driver {path} of '{owner}' needs auto-run: its Python expression '{expression}' "
                        "does not run while auto-run of the file's scripts is off (the default for files baked "
                        "from the command line), so the chain would bake from a stale value; pass "
                        "--enable-autoexec if you trust the file, or make it a simple expression")
FILE_MISSING = "'{file}' does not exist or is not a file"
FILE_UNREADABLE = "'{file}' could not be opened as a .blend file (corrupt or truncated?): {reason}"
FILE_CRASHED = ("Blender ended without a report while baking '{file}' (exit status {status}; it crashed or was "
                "killed); the other files were baked on their own")
FILE_TIMED_OUT = "Baking '{file}' took longer than {seconds} s and was stopped; raise --timeout or bake it alone"
FILE_INTERNAL_ERROR = ("Baking '{file}' stopped on an unexpected error ({reason}); the file was not saved. Please "
                       "report it with the 'log' of this file's report entry")
FILE_NOT_SAVED = "'{file}' was baked but could not be saved to '{path}': {reason}"
NO_CHAINS_IN_FILE = "'{file}': no armature in scene '{scene}' has Soft IK chains; nothing baked"
ARMATURE_NOT_FOUND = ("'{file}': no armature named '{name}' with Soft IK chains in scene '{scene}' (found: {found}); "
                      "check --armature")
CHAIN_NOT_FOUND = "'{file}': no Soft IK chain named '{name}' on the selected armatures (found: {found}); check --chain"
NONE_FOUND = "none"
PROGRESS_BAKED = ("[{index}/{count}] {file}: {baked} chain(s) baked, {refused} refused{names}, largest error "
                  "{error:.6g}{saved} ({seconds:.1f} s)")
PROGRESS_NONE_BAKED = "[{index}/{count}] {file}: no chain baked, {refused} refused{names}; not saved ({seconds:.1f} s)"
PROGRESS_SAVED = ", saved to {path}"
PROGRESS_NOT_SAVED = ", not saved (no --save or --output-dir)"
PROGRESS_FAILED = "[{index}/{count}] {file}: FAILED: {reason} ({seconds:.1f} s)"
PIPELINE_DONE = "{files} file(s): {baked} chain(s) baked, {refused} refused, {failed} file(s) failed; report: {report}"
BAD_FRAMES = "--frames must be START-END with whole numbers, END not before START (got '{value}')"

MESSAGES: tuple[str, ...] = tuple(value for name, value in dict(globals()).items()
                                  if name.isupper() and isinstance(value, str))


def say(template: str, **fields: object) -> str:
    """``template`` in the interface language, with ``fields`` filled in.

    Args:
        template: one of the templates of this module (the translation table is keyed by them).
        **fields: the values of its placeholders, inserted untranslated (names of chains, bones, objects).
    """
    return bpy.app.translations.pgettext_rpt(template).format(**fields)
