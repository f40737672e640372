"""Blender test session: the extension is built, installed from its zip and enabled before any test module is
imported, so tests reach the installed copy (``harness.package("solver")``) exactly as users get it.

The user directory is isolated first (before ``import bpy``). Any failure stops the session loudly.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import harness
import pytest

INSTALLATION = harness.install_extension()

import bpy  # noqa: E402  (must follow the isolation done by install_extension)

# What a user sees once the add-on is on: the settings on every object and the main operators.
EXPECTED_OPERATORS = ("soft_ik_add_chain", "soft_ik_solve", "soft_ik_bake", "soft_ik_clear_bake")
_missing = [f"pose.{op}" for op in EXPECTED_OPERATORS if f"POSE_OT_{op}" not in dir(bpy.types)]
if "soft_ik_2d" not in bpy.types.Object.bl_rna.properties:
    _missing.append("Object.soft_ik_2d")
if _missing:
    raise harness.HarnessError(f"{harness.MODULE} enabled but did not register {_missing}")


def pytest_report_header() -> list[str]:
    return [
        f"blender: {bpy.app.version_string}; extension {harness.MODULE} from {INSTALLATION.zip_path.name} "
        f"({INSTALLATION.zip_path.stat().st_size} bytes), user dir {INSTALLATION.user_dir}"
    ]


@pytest.fixture(scope="session")
def ext() -> ModuleType:
    """The installed extension package (``bl_ext.user_default.soft_ik_2d``)."""
    return harness.package()


@pytest.fixture
def empty_file() -> Iterator[bpy.types.Scene]:
    """A clean, empty file for the test; the add-on stays enabled (unlike ``read_factory_settings``)."""
    bpy.ops.wm.read_homefile(use_empty=True)
    if not harness.is_enabled():
        raise harness.HarnessError("the add-on was disabled by loading the empty file")
    yield bpy.context.scene


@pytest.fixture
def trusted_file() -> Iterator[bpy.types.Scene]:
    """An empty file read with auto-run on (its Python drivers run), the preference and an empty file restored
    after."""
    paths = bpy.context.preferences.filepaths
    before = paths.use_scripts_auto_execute
    paths.use_scripts_auto_execute = True
    try:
        bpy.ops.wm.read_homefile(use_empty=True)  # the file's trust follows the preference when it is read
        yield bpy.context.scene
    finally:
        paths.use_scripts_auto_execute = before
        bpy.ops.wm.read_homefile(use_empty=True)
