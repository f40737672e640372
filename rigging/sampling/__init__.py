"""Sample animated transforms over a frame range, exactly, without moving the user's frame.

Modules, one concept each: :mod:`.eligibility` (which objects and bones may be composed from F-curves, and
why not), :mod:`.fcurves` (composing them), :mod:`.channels` (one channel at the frames, whichever way),
:mod:`.keyframes` (many curves' keys evaluated at once) and :mod:`.roots` (their Bezier parameters),
:mod:`.drivers` (object transform drivers of the frame and of F-curve channels, evaluated like Blender's
simple-expression evaluator), :mod:`.stepping` (a temporary or the user's scene stepped frame by frame),
:mod:`.races` (frames read again where Blender's threads race on a property a driver and animation share),
:mod:`.dispatch` (requests and the strategy chosen for each, and which objects of a stepped request really need
stepping). Every public name is re-exported here.

Public API:

- :func:`sample_world_matrices` ``(context, requests, frames, *, method="AUTO") -> (len(requests), N, 4, 4)``.
  A request is ``(obj, None)`` (the object's ``matrix_world``), ``(obj, bone_name)`` (the pose bone's world
  matrix ``obj.matrix_world @ pose_bone.matrix``) or ``(obj, bone_name, "ARMATURE")`` (the armature-space
  ``pose_bone.matrix``); ``"WORLD"`` as third item is the default. ``frames``: any sequence of frame numbers
  (subframes allowed). Values are float64 copies of Blender's float32 matrices; non-finite values come back
  as they are.
- :func:`fcurve_only_reason` ``(obj, bones=()) -> str | None``: why an object (and the listed bones) cannot take
  the F-curve path, or ``None`` when it can.
- :func:`stepped_objects` ``(context, requests) -> {name: reason}``: what ``AUTO`` would step a scene for.
- :func:`sample_channels` ``(id_block, [(data_path, index)], frames) -> [(N,) or None]``: single F-curve channels
  (the IK influence, the FK keys of chain bones) at frames of the action's time.
- :func:`iter_world_matrices` ``(context, requests, frames, *, block)``: the same in blocks of frames, F-curves
  sampled once (a long range without holding all its matrices); :func:`iter_pose_bases` gives pose bones'
  ``matrix_basis`` from F-curves the same way.
- :func:`listen` ``() -> Heard`` (a context manager): what stepped reads inside it met (:mod:`.races`): the
  properties Blender races on and the frames never read the same twice, for the caller's report.

Three strategies, chosen per request (``method="AUTO"``):

1. **F-curves** (exact, ~0.2 µs per frame and channel): world and pose matrices are composed from the
   channels the F-curves give (current values for unanimated ones) with :func:`solver.spaces.compose_matrices`
   and the rest matrices: an object is ``parent @ matrix_parent_inverse @ basis`` through object and bone
   parents (a bone parent hangs from the posed tail), a pose bone ``parent pose @ rest offset @ basis`` (a
   connected bone's location ignored), a plain Child Of (every channel, influence 1, world spaces) ``target @
   inverse_matrix @ own``. That is Blender's evaluation when: no object on the way has other acting
   constraints, rigid body, delta transforms, NLA, blended actions or drivers on its transform (except drivers
   of the frame and of F-curve channels, :mod:`.drivers`, which override their channel's curve as in Blender);
   the requested bones and their ancestors have no acting constraints, are not in another bone's IK / Spline
   IK chain, have no drivers, inherit their parent's full transform and use local location; the armature data is not
   animated and shows its pose; the scene does not remap time (see :func:`fcurve_only_reason`). Transform
   channels whose segments are constant, linear or Bezier (no modifiers) are evaluated all at once with
   Blender's own arithmetic (:mod:`.keyframes`, :mod:`.roots`), bit for bit; other channels are read straight
   from the keys when every segment is linear or constant (no modifiers, constant extrapolation), else sampled
   from a temporary copy of the curve (of its whole action when it has modifiers) with ``convert_to_samples``,
   which includes modifiers and extrapolation; anything unanimated is one row.
2. **Temporary scene** (exact, a few µs per frame whatever else the file holds): a scene that links only the
   requested objects (their parents and constraint targets are evaluated as dependencies), stepped with
   ``frame_set`` and read through its own depsgraph. With ``AUTO`` only the objects that need it are stepped
   (:func:`.dispatch.stepping_plan`): an object whose only fault is a stepped object parent or plain Child Of
   target is composed from its own F-curves over that input's stepped world matrices.

3. **User's scene** (exact, as slow as ``frame_set``): for rigid bodies (or children of one), whose motion is a
   simulation of the user's scene; it is stepped and its frame restored.

``method="FCURVES"``, ``"SCENE"`` or ``"USER"`` forces one strategy (``FCURVES`` raises ``ValueError`` for an ineligible
request). Nothing is left behind: the temporary scene and action copies are removed (also on error). The
temporary depsgraph writes animated values back to the original objects, like any frame change, so afterwards
the user's scene is re-evaluated at its own frame (``frame_set`` to the current frame and subframe): unkeyed
edits of animated channels of the sampled objects are reset, exactly as a frame change would.
"""

from __future__ import annotations

from .dispatch import KINDS, METHODS, iter_world_matrices, sample_world_matrices, stepped_objects
from .eligibility import action_fcurves, fcurve_only_reason
from .fcurves import iter_pose_bases, iter_pose_channels, sample_channels
from .races import Heard, listen
from .stepping import quiet_handlers

__all__ = ["KINDS", "METHODS", "Heard", "action_fcurves", "fcurve_only_reason", "iter_pose_bases",
           "iter_pose_channels", "iter_world_matrices", "listen", "quiet_handlers", "sample_channels",
           "sample_world_matrices", "stepped_objects"]
