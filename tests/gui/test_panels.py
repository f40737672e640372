"""Every Soft IK panel and sub-panel draws in the real sidebar, in English and in Simplified Chinese, without a
Python error, with no text cut off at the default sidebar width, and the Chinese UI shows the add-on's own
translations (not Blender's for the same English words)."""

from __future__ import annotations

import re

import bpy
import harness
import layout_probe as lp
import rigs

PANELS = ("VIEW3D_PT_soft_ik", "VIEW3D_PT_soft_ik_chain", "VIEW3D_PT_soft_ik_limits",
          "VIEW3D_PT_soft_ik_smoothing", "VIEW3D_PT_soft_ik_status", "VIEW3D_PT_soft_ik_bake_report")
HAN = re.compile(r"[\u4e00-\u9fff]")
NAMES = {"Upper", "Lower", "Rig", "Target", "Door", "Root", "Pole"}  # data names the test gives objects/bones


def squeeze(text: str) -> str:
    """Without whitespace: wrapped lines are joined with spaces, and Chinese has none of its own."""
    return re.sub(r"\s+", "", text)


def _open_all_panels() -> None:
    """Sub-panels registered DEFAULT_CLOSED never draw until opened: register them open for the test."""
    panels = harness.package("panels")
    for cls in panels.classes:
        if issubclass(cls, bpy.types.Panel):
            lp.wrap_panel(cls)
    for cls in panels.classes:
        if issubclass(cls, bpy.types.Panel) and "DEFAULT_CLOSED" in getattr(cls, "bl_options", set()):
            bpy.utils.unregister_class(cls)
            cls.bl_options = set(cls.bl_options) - {"DEFAULT_CLOSED"}
            bpy.utils.register_class(cls)


def _states(g):  # type: ignore[no-untyped-def]
    """Scene states that together reach every branch of the panels' draw code; yields (name, chain getter)."""
    g.reset_scene()
    with g.override():
        rig = rigs.build_arm()
        rigs.enter_pose_mode(rig, rig.lower)
    yield "no chains"

    with g.override():
        target = rigs.new_empty("Target")
        target.location = rig.armature.matrix_world @ rigs.Vector(rig.point(1.6, 0.6))
        chain = rigs.add_chain(rig, target, target_space="WORLD")
    yield "world target, nothing solved"

    door = rigs.new_empty("Door")
    target.parent = door
    yield "space mismatch"

    target.parent = None
    chain.target_space = "OBJECT"
    chain.space_object = None
    yield "object space without a space object"

    chain.space_object = door
    target.parent = door
    yield "object space"

    target.parent = None
    chain.target_space = "WORLD"
    rig.armature.soft_ik_2d.live_preview = True
    yield "live preview, reachable"

    chain.softness = 0.0  # nothing softens the reach: nearly straight, the elbow amplifies target jitter
    target.location = rig.armature.matrix_world @ rigs.Vector(rig.point(0.4 + 1.799, 1.5))
    yield "live preview, nearly straight (sensitive)"
    chain.softness = 0.04

    target.location = rig.armature.matrix_world @ rigs.Vector(rig.point(4.0, 1.5))
    chain.use_shoulder_limit = chain.use_elbow_limit = True
    chain.limit_strategy = "MOVE_ROOT"
    chain.smoothing = "ONE_EURO"
    yield "out of reach, limits, move root, one euro"

    chain.limit_strategy = "STRETCH"
    chain.target_space = "CHARACTER"
    yield "stretch, character space"

    chain.target_space = "WORLD"
    chain.limit_strategy = "ACCEPT"
    rig.armature.soft_ik_2d.live_preview = False
    with g.override():
        rigs.key_locations(target, [1, 10, 20], [rig.armature.matrix_world @ rigs.Vector(rig.point(x, 0.8))
                                                  for x in (1.0, 2.6, 1.4)])
        assert rigs.bake(rig, 1, 20) == {"FINISHED"}
    bpy.context.scene.frame_set(10)
    yield "baked, out of reach at the current frame"


def _check_language(g, language: str):  # type: ignore[no-untyped-def]
    g.set_language(language)
    zh = harness.package("rigging.translations").ZH
    texts = harness.package("panels.texts")
    problems: list[str] = []
    drew: set[str] = set()
    for state in _states(g):
        yield from g.open_tab()  # the tab exists once an armature is active
        lp.RECORD.items.clear()
        lp.RECORD.rows.clear()
        lp.RECORD.draws.clear()
        yield from g.wait(4)
        drew |= set(lp.RECORD.draws)
        width = g.sidebar.width
        problems += [f"[{state}] {line}" for line in lp.cut_off(width)]
        items = lp.RECORD.items
        if language == "zh_HANS":
            for item in items:
                if item.translated and item.source in zh and item.text != zh[item.source]:
                    problems.append(f"[{state}] {item.panel}: {item.source!r} shows {item.text!r}, "
                                    f"the add-on's translation is {zh[item.source]!r}")
                elif not HAN.search(item.text) and re.search(r"[A-Za-z]{3,}", item.text) \
                        and not set(re.findall(r"[A-Za-z]+", item.text)) <= NAMES | {"CCD", "FABRIK", "m"}:
                    problems.append(f"[{state}] {item.panel}: {item.text!r} is not translated")
        status = " ".join(i.text for i in items if i.panel == "VIEW3D_PT_soft_ik_status")
        if state == "object space without a space object":
            chain_text = " ".join(i.text for i in items if i.panel == "VIEW3D_PT_soft_ik_chain")
            assert squeeze(bpy.app.translations.pgettext_iface(texts.SPACE_OK)) not in squeeze(chain_text), \
                "the Chain panel says the target space matches while Status says it cannot solve"
            reason = harness.package("rigging.messages").NO_SPACE_OBJECT
            reason = bpy.app.translations.pgettext_iface(reason).split("{label}")[-1].strip(": ：")
            assert squeeze(reason) in squeeze(chain_text), (reason, chain_text)
            assert squeeze(reason) in squeeze(status), (reason, status)
        if state.startswith("live preview, nearly straight"):
            for hint in (texts.SENSITIVE_HINT_1, texts.SENSITIVE_HINT_2):
                assert squeeze(bpy.app.translations.pgettext_iface(hint)) in squeeze(status), \
                    f"the sensitive state did not show {hint!r}: {status!r}"
    missing = sorted(set(PANELS) - drew)
    assert not missing, f"panels that never drew: {missing}"
    if language == "zh_HANS":
        g.grab(g.out / "panels_zh.png")
    else:
        g.grab(g.out / "panels_en.png")
    assert not problems, "\n".join(dict.fromkeys(problems))  # each redraw records the same texts again


def test_panels_draw_in_english(g):  # type: ignore[no-untyped-def]
    _open_all_panels()
    yield from _check_language(g, "en_US")


def test_panels_draw_in_chinese(g):  # type: ignore[no-untyped-def]
    _open_all_panels()
    yield from _check_language(g, "zh_HANS")


def test_sidebar_tab_is_translated(g):  # type: ignore[no-untyped-def]
    g.set_language("zh_HANS")
    yield from g.wait(2)
    category = harness.package("panels").CATEGORY
    zh = harness.package("rigging.translations").ZH
    assert category in zh, f"no Chinese entry for the tab {category!r}"
    assert bpy.app.translations.pgettext_iface(category) == zh[category]
