"""Building and parsing pose-bone data paths (``pose.bones["name"].prop``)."""

from __future__ import annotations

import bpy

# --- data paths ------------------------------------------------------------------------------------------------

_BONE_PREFIX = 'pose.bones["'


def pose_bone_path(bone: str, prop: str = "") -> str:
    """The data path of pose bone ``bone``, of its property ``prop``, or of a custom property.

    ``prop`` empty: the bone itself; given as ``'["name"]'``: its custom property ``name``.
    """
    path = f'{_BONE_PREFIX}{bpy.utils.escape_identifier(bone)}"]'
    return path + prop if not prop or prop.startswith("[") else f"{path}.{prop}"


def bone_of_path(path: str) -> str | None:
    """The pose bone a data path like ``'pose.bones["Fore"].location'`` belongs to (unescaped), or None."""
    if not path.startswith(_BONE_PREFIX):
        return None
    end = path.find('"]', len(_BONE_PREFIX))
    return None if end < 0 else path[len(_BONE_PREFIX) : end].replace('\\"', '"').replace("\\\\", "\\")


def split_pose_bone_path(path: str) -> tuple[str, str] | None:
    """(bone, property) of a pose-bone channel path from :func:`pose_bone_path`, or None for any other path.

    A custom property is given by its bare name.
    """
    bone = bone_of_path(path)
    if bone is None:
        return None
    tail = path[len(pose_bone_path(bone)):]
    return bone, (tail[2:-2] if tail.startswith('["') else tail[1:])
