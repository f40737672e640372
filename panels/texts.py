"""Every text the panels show, in one place: the flag meanings, the hints and the message templates.

Templates are translated first (``pgettext_iface``) and formatted afterwards, so the ``zh_HANS`` table holds
them with their ``{placeholders}``; the translation test reads :data:`UI_TEXTS` to check that each has an entry.
"""

from __future__ import annotations

# Solver flag bits (docs/design.md) -> what the panel says about the frame.
FLAG_TEXTS: tuple[tuple[int, str, str], ...] = (
    (1, "Out of reach: clamped at full extension", "ERROR"),
    (2, "Too close: clamped at full fold", "ERROR"),
    (4, "Soft IK: the reach is softened", "INFO"),
    (8, "Upper bone limit acts", "CON_ROTLIMIT"),
    (16, "Lower bone limit acts", "CON_ROTLIMIT"),
    (32, "Move Root: the upper bone is offset", "CON_LOCLIKE"),
    (64, "Stretch: the bones are scaled", "CON_SIZELIKE"),
    (128, "Target on the shoulder: previous direction kept", "INFO"),
)

REACHABLE = "Reachable: no limit or strategy acts"
NO_CHAINS = "No chains yet: in Pose Mode, make the forearm or shin active and press +"
NO_ERROR_DATA = "No error at this frame: bake, solve, or turn on Live Preview"
SPACE_OK = "Target space matches the target's parenting"
PREVIEW_SOURCE = "Live Preview (current state)"
KEYED_SOURCE = "Baked keys at this frame"
SENSITIVE_HINT_1 = "Near full extension or full fold the solve amplifies target noise: the elbow shivers."
SENSITIVE_HINT_2 = "Raise Softness, or use Target Smoothing, to calm it."
NO_BAKE = "Not baked yet"

ERROR_AT_FRAME = "Error at frame {frame}: {error}"
SENSITIVITY = "Sensitivity: {degrees:.1f}° per 1% target jitter"
SENSITIVE = "Sensitive: {degrees:.1f}° per 1% target jitter"
BAKED_RANGE = "Baked frames {start} - {end}"
MAX_ERROR = "Max error: {error}"
MEAN_ERROR = "Mean error: {error}"
LIMITED_FRAMES = "Limited on {count} frame(s)"
WORST_FRAME = "Frame {frame}"
CHAIN_BONES = "{upper} > {lower}"
CANNOT_SOLVE = "Cannot solve: {reason}"

# The sidebar tab, short button labels and column headings.
TAB = "Soft IK"
SOLVE = "Solve"
BAKE = "Bake"
CLEAR_BAKE = "Clear Bake"
FIX_TARGET_SPACE = "Fix Target Space"
WORST_FRAMES = "Worst Frames"
BONES = "Bones"
TARGET = "Target"
REACH = "Reach"
# Shorter names for properties whose own names are cut at the default sidebar width (the tooltip keeps them).
ROOT_FILTER = "Root Filter"
FILTER = "Filter"
SPEED_GAIN = "Speed Gain"
LABELS = (TAB, SOLVE, BAKE, CLEAR_BAKE, FIX_TARGET_SPACE, WORST_FRAMES, BONES, TARGET, REACH, ROOT_FILTER, FILTER,
          SPEED_GAIN)

UI_TEXTS: tuple[str, ...] = (
    *(text for _bit, text, _icon in FLAG_TEXTS),
    REACHABLE, NO_CHAINS, NO_ERROR_DATA, SPACE_OK, PREVIEW_SOURCE, KEYED_SOURCE, SENSITIVE_HINT_1,
    SENSITIVE_HINT_2, NO_BAKE, ERROR_AT_FRAME, SENSITIVITY, SENSITIVE, BAKED_RANGE, MAX_ERROR,
    MEAN_ERROR, LIMITED_FRAMES, WORST_FRAME, CHAIN_BONES, CANNOT_SOLVE, *LABELS,
)


def decode_flags(flags: int) -> list[tuple[str, str]]:
    """(text, icon) for each set flag bit, in bit order; one 'reachable' line when none is set."""
    lines = [(text, icon) for bit, text, icon in FLAG_TEXTS if flags & bit]
    return lines or [(REACHABLE, "CHECKMARK")]
