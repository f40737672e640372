"""Records what a panel's ``draw`` puts in its layout, with the width each text gets, to find cut-off labels.

A panel class's ``draw`` is wrapped so it draws into a :class:`Probe` around the real ``UILayout``: everything
is forwarded to Blender unchanged (the panel draws as usual), and each label, button and property label is
recorded with the text Blender shows (translated as Blender translates it) and the room it has. The width
model is this test's own, taken from Blender's layout rules (a row shares its width between its items, a
split property gives its label 40 %, a box and an icon take room) and measured with ``blf`` in the UI font.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import blf
import bpy

T = bpy.app.translations

# Pixels at UI scale 1. The sidebar region includes the tab strip; a panel has margins on both sides.
TAB_STRIP = 26
PANEL_MARGINS = 2 * 12
BOX_PADDING = 2 * 6
ICON = 20
BUTTON_PADDING = 2 * 5
SPLIT_FACTOR = 0.4  # UI_ITEM_PROP_SEP_DIVIDE


@dataclass
class Item:
    panel: str
    kind: str  # label, operator, prop, prop_label
    text: str  # as Blender shows it (translated)
    source: str  # the English text or template
    icon: bool
    boxed: int
    row: int  # items with the same row id share its width
    translated: bool  # whether Blender translated it (False for translate=False texts)


@dataclass
class Record:
    items: list[Item] = field(default_factory=list)
    rows: dict[int, int] = field(default_factory=dict)  # row id -> number of items
    next_row: int = 0
    draws: dict[str, int] = field(default_factory=dict)

    def new_row(self) -> int:
        self.next_row += 1
        return self.next_row


RECORD = Record()


def _iface(text: str, ctxt: str | None = None) -> str:
    return T.pgettext_iface(text, ctxt) if ctxt else T.pgettext_iface(text)


class Probe:
    def __init__(self, layout: Any, panel: str, boxed: int = 0, row: int | None = None, split: bool = False):
        object.__setattr__(self, "_layout", layout)
        object.__setattr__(self, "_panel", panel)
        object.__setattr__(self, "_boxed", boxed)
        object.__setattr__(self, "_row", row)
        object.__setattr__(self, "_split", split)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._layout, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "use_property_split":
            object.__setattr__(self, "_split", bool(value))
        setattr(self._layout, name, value)

    def _child(self, layout: Any, boxed: int = 0, row: bool = False) -> Probe:
        return Probe(layout, self._panel, self._boxed + boxed, RECORD.new_row() if row else None, self._split)

    def _add(self, kind: str, text: str, source: str, icon: bool, translated: bool) -> None:
        row = self._row if self._row is not None else RECORD.new_row()
        RECORD.rows[row] = RECORD.rows.get(row, 0) + 1
        RECORD.items.append(Item(self._panel, kind, text, source, icon, self._boxed, row, translated))

    def row(self, *args: Any, **kwargs: Any) -> Probe:
        return self._child(self._layout.row(*args, **kwargs), row=True)

    def column(self, *args: Any, **kwargs: Any) -> Probe:
        heading = kwargs.get("heading", "")
        child = self._child(self._layout.column(*args, **kwargs))
        if heading:
            ctxt = kwargs.get("heading_ctxt") or None
            child._add("prop_label" if self._split else "label", _iface(heading, ctxt), heading, False, True)
        return child

    def box(self, *args: Any, **kwargs: Any) -> Probe:
        return self._child(self._layout.box(*args, **kwargs), boxed=1)

    def label(self, *args: Any, **kwargs: Any) -> Any:
        text = kwargs.get("text", args[0] if args else "")
        translate = kwargs.get("translate", True)
        if text:
            shown = _iface(text, kwargs.get("text_ctxt") or None) if translate else text
            self._add("label", shown, text, kwargs.get("icon", "NONE") != "NONE", translate)
        return self._layout.label(*args, **kwargs)

    def operator(self, idname: str, *args: Any, **kwargs: Any) -> Any:
        text = kwargs.get("text")
        if text is None:
            category, name = idname.split(".")
            rna = getattr(getattr(bpy.ops, category), name).get_rna_type()
            text, ctxt = rna.name, rna.translation_context
        else:
            ctxt = kwargs.get("text_ctxt") or "Operator"
        translate = kwargs.get("translate", True)
        if text:
            shown = _iface(text, ctxt) if translate else text
            self._add("operator", shown, text, kwargs.get("icon", "NONE") != "NONE", translate)
        return self._layout.operator(idname, *args, **kwargs)

    def _prop_label(self, data: Any, prop: str, kwargs: dict[str, Any]) -> None:
        rna = data.bl_rna.properties[prop]
        text = kwargs.get("text")
        if text is None:
            text, ctxt = rna.name, rna.translation_context
        else:
            ctxt = kwargs.get("text_ctxt") or None
        if not text:
            return
        shown = _iface(text, ctxt) if kwargs.get("translate", True) else text
        icon = kwargs.get("icon", "NONE") != "NONE"
        toggle = kwargs.get("toggle", False) or rna.type == "BOOLEAN"
        if self._split and not toggle:
            self._add("prop_label", shown, text, False, True)
        elif rna.type == "BOOLEAN" and not kwargs.get("toggle", False):
            self._add("label", shown, text, True, True)  # checkbox + text
        elif toggle:
            self._add("operator", shown, text, icon, True)
        else:
            self._add("prop_label", shown, text, False, True)

    def prop(self, data: Any, prop: str, *args: Any, **kwargs: Any) -> Any:
        self._prop_label(data, prop, kwargs)
        return self._layout.prop(data, prop, *args, **kwargs)

    def prop_search(self, data: Any, prop: str, *args: Any, **kwargs: Any) -> Any:
        self._prop_label(data, prop, kwargs)
        return self._layout.prop_search(data, prop, *args, **kwargs)


class _PanelSelf:
    def __init__(self, panel: Any, probe: Probe) -> None:
        object.__setattr__(self, "_panel", panel)
        object.__setattr__(self, "layout", probe)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._panel, name)


def wrap_panel(cls: type) -> None:
    """Make ``cls.draw`` draw through a probe and count its calls (idempotent)."""
    if getattr(cls, "_probe_wrapped", False):
        return
    original = cls.draw

    def draw(self: Any, context: bpy.types.Context) -> None:
        RECORD.draws[cls.__name__] = RECORD.draws.get(cls.__name__, 0) + 1
        RECORD.width = context.region.width  # type: ignore[attr-defined]
        original(_PanelSelf(self, Probe(self.layout, cls.__name__)), context)

    cls.draw = draw
    cls._probe_wrapped = True


def font_points() -> float:
    style = bpy.context.preferences.ui_styles[0]
    return float(getattr(style, "widget", getattr(style, "widget_label", None)).points)


def text_width(text: str) -> float:
    scale = bpy.context.preferences.view.ui_scale
    blf.size(0, font_points() * scale)
    return float(blf.dimensions(0, text)[0])


def room(item: Item, region_width: float) -> float:
    """The pixels ``item``'s text has at this sidebar width, by this module's width model."""
    scale = bpy.context.preferences.view.ui_scale
    width = region_width - (TAB_STRIP + PANEL_MARGINS + BOX_PADDING * item.boxed) * scale
    width /= RECORD.rows.get(item.row, 1)
    if item.kind == "prop_label":
        width = width * SPLIT_FACTOR - BUTTON_PADDING * scale
    elif item.kind == "operator":
        width -= BUTTON_PADDING * scale
    if item.icon:
        width -= ICON * scale
    return width


def cut_off(region_width: float) -> list[str]:
    """Every recorded text wider than its room, as readable lines."""
    out = []
    seen = set()
    for item in RECORD.items:
        need, have = text_width(item.text), room(item, region_width)
        key = (item.panel, item.text)
        if need > have and key not in seen:
            seen.add(key)
            out.append(f"{item.panel}: {item.kind} {item.text!r} needs {need:.0f} px, has {have:.0f}")
    return out
