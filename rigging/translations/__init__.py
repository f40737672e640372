"""Simplified Chinese (zh_HANS) for every label, tooltip and message of the add-on (the source is Chinese).

Each entry is registered in the default context ``"*"``, in ``"Operator"`` (operator buttons, including
their ``text=`` overrides in the panels, look their label up in the operator context) and in the add-on's own
:data:`CONTEXT`: Blender's own translations win over an add-on's for the same English word in the default
context ("Error" showed as 错误, "Softness" as 柔和), so the properties whose names Blender also translates
declare ``translation_context=CONTEXT``. Message templates keep
their ``{placeholders}``; callers translate first and format afterwards.
"""

from __future__ import annotations

import bpy

from . import zh_features, zh_labels, zh_reports

CONTEXT = "soft_ik_2d"
CONTEXTS = ("*", "Operator", CONTEXT)

_PARTS = (zh_reports.ZH, zh_labels.ZH, zh_features.ZH)
ZH: dict[str, str] = {k: v for part in _PARTS for k, v in part.items()}


def translation_table() -> dict[str, dict[tuple[str, str], str]]:
    """The dictionary handed to ``bpy.app.translations.register``."""
    return {"zh_HANS": {(ctxt, msgid): msgstr for ctxt in CONTEXTS for msgid, msgstr in ZH.items()}}


def register() -> None:
    bpy.app.translations.register(__name__, translation_table())


def unregister() -> None:
    bpy.app.translations.unregister(__name__)
