"""Labels that wrap at the sidebar's width: Blender cuts a long label in the middle ("Target space mat...target's
parenting"), which hides exactly the words a message needs. Measured with ``blf`` in the UI font, so it holds in
every language (Chinese breaks between any two characters, other scripts between words).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import blf
import bpy
from bpy.app.translations import pgettext_iface as iface_

# Pixels at UI scale 1 that are not text (a little more than Blender uses, so a line never touches the edge):
# the tab strip and the panel's margins, a box's padding, an icon.
REGION_OVERHEAD = 56
BOX_PADDING = 14
ICON = 22

_CJK = "\u2e80-\u9fff\u3000-\u303f\uff00-\uffef"
_TOKENS = re.compile(rf"[{_CJK}]|[^\s{_CJK}]+|\s+")


def text_width(text: str) -> float:
    """Width of ``text`` in pixels in the interface font at the current UI scale."""
    prefs = bpy.context.preferences
    style = next(iter(prefs.ui_styles), None)
    font = getattr(style, "widget", None) or getattr(style, "widget_label", None)
    blf.size(0, (font.points if font is not None else 11.0) * prefs.view.ui_scale)
    return float(blf.dimensions(0, text)[0])  # type: ignore[index]  # the 4.2 stub says it returns None


def wrap(text: str, width: float, measure: Callable[[str], float] = text_width) -> list[str]:
    """Greedy line breaking of ``text`` into lines no wider than ``width``.

    Breaks between words and between any two CJK characters; a word wider than a line is split between
    characters.

    Args:
        width: the room, in the units of ``measure`` (pixels for :func:`text_width`).
        measure: the width of a piece of text.

    Returns:
        The lines, trailing spaces stripped; one empty line for an empty ``text``.
    """
    lines: list[str] = []
    line = ""
    for token in _TOKENS.findall(text):
        if token.isspace():
            line += token
            continue
        pieces = [token] if measure(token) <= width else list(token)
        for piece in pieces:
            if line.strip() and measure((line + piece).rstrip()) > width:
                lines.append(line.rstrip())
                line = piece
            else:
                line += piece
    if line.strip():
        lines.append(line.rstrip())
    return lines or [""]


def room(context: bpy.types.Context, icon: bool = False, boxed: bool = False) -> float:
    """Pixels a label's text has in the current region (at least 40 at scale 1).

    Args:
        icon: the label has an icon before its text.
        boxed: the label sits in a box (its padding is taken off).
    """
    scale = context.preferences.view.ui_scale
    width = context.region.width - (REGION_OVERHEAD + (BOX_PADDING if boxed else 0) + (ICON if icon else 0)) * scale
    return max(width, 40.0 * scale)


def label(layout: bpy.types.UILayout, context: bpy.types.Context, text: str, icon: str = "NONE",
          boxed: bool = False, translate: bool = True) -> None:
    """``layout.label`` that wraps instead of cutting; continuation lines are indented past the icon.

    Args:
        translate: translate ``text`` (interface context) before wrapping; False for text already translated
            or formatted with names.
    """
    shown = iface_(text) if translate else text
    lines = wrap(shown, room(context, icon != "NONE", boxed))
    col = layout.column(align=True)
    for i, line in enumerate(lines):
        col.label(text=line, icon=icon if i == 0 else ("BLANK1" if icon != "NONE" else "NONE"), translate=False)
