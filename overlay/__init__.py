"""Viewport overlay of the active chain: reach rings, soft band, targets, error, bend side, limits.

``geometry`` is pure numpy (tested without Blender); ``draw`` hands its point lists to ``gpu``. Nothing here
imports Blender at module level, so ``overlay.geometry`` imports anywhere.
"""


def register() -> None:
    from . import draw

    draw.register()


def unregister() -> None:
    from . import draw

    draw.unregister()
