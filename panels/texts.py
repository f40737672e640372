"""Every text the panels show, in one place: the flag meanings, the hints and the message templates.

Templates are translated first (``pgettext_iface``) and formatted afterwards, so the ``zh_HANS`` table holds
them with their ``{placeholders}``; the translation test reads :data:`UI_TEXTS` to check that each has an entry.
"""

from __future__ import annotations

from ..solver.flag_names import TWO_BONE_FLAGS, FlagTable

# What the panel says about each flag, by the key the solver's flag table gives the bit (solver.flag_table): bits
# 8 and 16 mean a shoulder / elbow limit to the two-bone solver but "a joint on a limit" / "a limit blocks the
# reach" to CCD and FABRIK, so a line is chosen by key, never by bit value.
FLAG_KEY_TEXTS: dict[str, tuple[str, str]] = {
    "clamped_outer": ("Out of reach: clamped at full extension", "ERROR"),
    "clamped_inner": ("Too close: clamped at full fold", "ERROR"),
    "softened": ("Soft IK: the reach is softened", "INFO"),
    "limited_shoulder": ("Upper bone limit acts", "CON_ROTLIMIT"),
    "limited_elbow": ("Lower bone limit acts", "CON_ROTLIMIT"),
    "limited": ("A joint of the chain sits on its limit", "CON_ROTLIMIT"),
    "limit_blocked": ("Joint limits stop the chain short of the target", "CON_ROTLIMIT"),
    "root_moved": ("Move Root: the upper bone is offset", "CON_LOCLIKE"),
    "stretched": ("Stretch: the bones are scaled", "CON_SIZELIKE"),
    "direction_held": ("Target on the shoulder: previous direction kept", "INFO"),
}


def flag_rows(table: FlagTable) -> tuple[tuple[int, str, str], ...]:
    """(bit, text, icon) for every bit of one solver's flag table, in bit order."""
    return tuple((f.bit, *FLAG_KEY_TEXTS[f.key]) for f in table)


# The two-bone solver's rows (bit, text, icon), as before the chain solvers named their own bits.
FLAG_TEXTS: tuple[tuple[int, str, str], ...] = flag_rows(TWO_BONE_FLAGS)

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
PINNED_RANGE = "Pinned {start}-{end} (+{blend} blend)"
PIN_TARGET = "Pin Target"
UNPIN_TARGET = "Unpin"
KEPT_KEYS = "Kept keys: {kept} of {frames} frames"

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
    *(text for text, _icon in FLAG_KEY_TEXTS.values()),
    REACHABLE, NO_CHAINS, NO_ERROR_DATA, SPACE_OK, PREVIEW_SOURCE, KEYED_SOURCE, SENSITIVE_HINT_1,
    SENSITIVE_HINT_2, NO_BAKE, ERROR_AT_FRAME, SENSITIVITY, SENSITIVE, BAKED_RANGE, MAX_ERROR,
    MEAN_ERROR, LIMITED_FRAMES, WORST_FRAME, CHAIN_BONES, CANNOT_SOLVE, *LABELS,
    PINNED_RANGE, PIN_TARGET, UNPIN_TARGET, KEPT_KEYS,
)


def decode_flags(flags: int, table: FlagTable = TWO_BONE_FLAGS) -> list[tuple[str, str]]:
    """(text, icon) for each set flag bit, in bit order, named by ``table`` (the table of the solver that wrote
    the flags, ``solver.flag_names.for_solver``); one 'reachable' line when none is set."""
    lines = [FLAG_KEY_TEXTS[f.key] for f in table.decode(flags)]
    return lines or [(REACHABLE, "CHECKMARK")]
