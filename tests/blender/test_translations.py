"""Every user-facing string of the add-on has a zh_HANS entry, registered and unregistered cleanly.

The strings are collected from Blender itself (the registered RNA of the add-on's property groups, operators,
panels and lists, enum items included) plus the panel texts and the report/check message templates
(``messages.py``), so a new property or message without a translation fails here.
"""

from __future__ import annotations

import inspect
import re

import bpy
import harness
import pytest


def _declared(cls: type) -> set[str]:
    """The property names the add-on itself declares (annotations along the class's bases)."""
    return {name for klass in cls.__mro__ for name in inspect.get_annotations(klass)}


def _rna_strings(rna: bpy.types.Struct, base: bpy.types.Struct, declared: set[str]) -> list[str]:
    out: list[str] = []
    for prop in rna.properties:
        # Blender's own base properties are Blender's strings. Told apart by what the add-on declares, not by
        # comparing texts: 5.3 gives every Python PropertyGroup subclass its own `name` property, with a
        # description other than the base one's.
        if (prop.identifier in base.properties and prop.identifier not in declared) or prop.name == prop.identifier:
            continue  # Blender's own base properties, and unnamed ones that no UI shows
        out += [prop.name, prop.description]
        if prop.type == "ENUM":
            for item in prop.enum_items:
                out += [item.name, item.description]
    return out


def user_facing_strings() -> set[str]:
    strings: list[str] = []
    for cls in harness.package("rigging.properties").classes:
        strings += _rna_strings(cls.bl_rna, bpy.types.PropertyGroup.bl_rna, _declared(cls))
    operator_base = bpy.types.Operator.bl_rna
    for cls in harness.package("operators").classes:
        category, name = cls.bl_idname.split(".")
        rna = getattr(getattr(bpy.ops, category), name).get_rna_type()
        strings += [rna.name, rna.description, *_rna_strings(rna, operator_base, _declared(cls))]
    for cls in harness.package("panels").classes:
        strings += [getattr(cls, "bl_label", ""), cls.bl_rna.description]
    strings += harness.package("panels.texts").UI_TEXTS
    strings += harness.package("rigging.messages").MESSAGES
    return {s for s in strings if s and s.strip()}


def test_the_collection_reaches_every_kind_of_string() -> None:
    strings = user_facing_strings()
    # One sample of each source, so an empty collection cannot pass the coverage test below.
    for sample in ("Softness", "Accept Error", "Bake Soft IK", "Only Active Chain", "Soft IK 2D",
                   "Upper bone limit acts", "Error at frame {frame}: {error}",
                   "End frame {end} is before start frame {start}"):
        assert sample in strings


def test_every_user_facing_string_has_a_chinese_entry() -> None:
    table = harness.package("rigging.translations").ZH
    missing = sorted(s for s in user_facing_strings() if s not in table)
    assert missing == []


def test_entries_are_chinese_and_keep_their_placeholders() -> None:
    table = harness.package("rigging.translations").ZH
    placeholder = re.compile(r"\{[^}]*\}")
    han = re.compile(r"[\u4e00-\u9fff]")
    for msgid, msgstr in table.items():
        assert msgstr.strip(), msgid
        assert sorted(placeholder.findall(msgid)) == sorted(placeholder.findall(msgstr)), msgid
        # Everything with words is translated; names (CCD, FABRIK, One Euro) and pure templates may stay.
        if msgid not in {"CCD", "FABRIK", "One Euro", "{upper} > {lower}"}:
            assert han.search(msgstr), msgid


def test_table_registers_in_default_and_operator_contexts() -> None:
    translations = harness.package("rigging.translations")
    table = translations.translation_table()["zh_HANS"]
    assert table[("*", "Softness")] == translations.ZH["Softness"]
    assert table[("Operator", "Bake Soft IK")] == translations.ZH["Bake Soft IK"]


def test_no_entry_is_translated_in_two_parts() -> None:
    # The table is merged from several modules: a string in two of them would silently keep only one reading.
    translations = harness.package("rigging.translations")
    parts = translations._PARTS
    assert sum(len(part) for part in parts) == len(translations.ZH)


def test_register_unregister_is_clean_across_enable_disable() -> None:
    # bpy.app.translations offers no way to list registered tables, so this checks what can be observed:
    # disabling and enabling (which unregister and register the table) raise nothing, repeatedly, and the
    # table stays complete afterwards.
    for _ in range(3):
        harness.disable()
        harness.enable()
    translations = harness.package("rigging.translations")
    assert len(translations.translation_table()["zh_HANS"]) == len(translations.CONTEXTS) * len(translations.ZH)


@pytest.mark.skipif(not bpy.app.build_options.international, reason="this Blender build has no translation support")
def test_interface_translates_when_the_language_is_chinese() -> None:
    view = bpy.context.preferences.view
    old = (view.language, view.use_translate_interface)
    try:
        view.language = "zh_HANS"
        view.use_translate_interface = True
        zh = harness.package("rigging.translations").ZH
        assert bpy.app.translations.pgettext_iface("Soft IK 2D") == zh["Soft IK 2D"]
    finally:
        view.language, view.use_translate_interface = old


def test_no_stale_entries() -> None:
    # An entry nothing shows any more is a renamed or removed string whose new text is probably missing.
    stale = sorted(set(harness.package("rigging.translations").ZH) - user_facing_strings())
    assert stale == [], stale
