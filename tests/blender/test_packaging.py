"""The shipped zip and the add-on life cycle: what a user installs is small, complete and free of dev files; it
validates, enables, survives a new empty file, and disabling removes everything it registered."""

from __future__ import annotations

import zipfile
from pathlib import PurePosixPath

import harness
import pytest

bpy = pytest.importorskip("bpy")

# Development material the manifest's paths_exclude_pattern must keep out of the zip.
DEV_DIRECTORIES = {"tests", "benchmarks", "scripts", "docs", "demo", "build", "dist", "__pycache__"}
DEV_FILES = {"pyproject.toml", ".gitignore", "DEVELOPERS.md"}
DEV_SUFFIXES = {".pyc", ".blend", ".blend1", ".png", ".zip"}
MAX_ZIP_BYTES = 1_000_000  # the add-on is a few hundred kB of Python; more means something leaked in


def zip_names() -> list[str]:
    with zipfile.ZipFile(harness.installation().zip_path) as archive:
        return archive.namelist()


def test_zip_has_the_package_files() -> None:
    names = set(zip_names())
    for required in ("__init__.py", "blender_manifest.toml", "rigging/__init__.py", "rigging/anim_keys/__init__.py",
                     "panels/overlay.py",
                     "solver/__init__.py"):
        assert required in names, f"{required} missing from the zip"


def test_zip_has_no_development_files() -> None:
    leaked = []
    for name in zip_names():
        path = PurePosixPath(name)
        parts = set(path.parts[:-1])
        if (parts & DEV_DIRECTORIES or any(part.startswith(".") for part in path.parts)
                or path.name in DEV_FILES or path.suffix in DEV_SUFFIXES):
            leaked.append(name)
    tops = sorted({PurePosixPath(n).parts[0] for n in leaked})
    assert not leaked, f"{len(leaked)} development files in the zip, under {tops}"


def test_zip_is_small() -> None:
    size = harness.installation().zip_path.stat().st_size
    assert size < MAX_ZIP_BYTES, f"zip is {size} bytes"


def test_built_zip_validates() -> None:
    harness.validate(harness.installation().zip_path)


def test_installed_from_the_zip_into_the_isolated_user_directory(ext) -> None:
    installed = harness.installation().user_dir / "extensions" / harness.REPOSITORY / harness.EXT_ID
    assert ext.__file__ is not None
    assert harness.Path(ext.__file__).resolve().parent == installed.resolve()
    assert harness.is_enabled()


def test_add_on_stays_enabled_in_a_new_empty_file(empty_file) -> None:
    bpy.ops.wm.read_homefile(use_empty=True)
    assert harness.is_enabled()
    assert harness.registered_type_names() > harness.installation().types_before_enable


def test_registers_something() -> None:
    inst = harness.installation()
    added_types = harness.registered_type_names() - inst.types_before_enable
    added_props = {name: props - inst.type_properties_before_enable[name]
                   for name, props in harness.type_properties().items()}
    assert added_types, "enabling registered no class"
    assert any(added_props.values()), "enabling added no property to any ID type"


def test_disable_removes_everything_and_enable_restores_it() -> None:
    inst = harness.installation()
    enabled_types = harness.registered_type_names()
    enabled_props = harness.type_properties()
    handlers_before = handler_names()
    try:
        harness.disable()
        assert not harness.is_enabled()
        left_types = harness.registered_type_names() - inst.types_before_enable
        assert not left_types, f"still registered after disable: {sorted(left_types)}"
        assert harness.type_properties() == inst.type_properties_before_enable
        assert not {h for h in handler_names() if harness.MODULE in h}, "handlers left behind"
    finally:
        harness.enable()
    assert harness.registered_type_names() == enabled_types
    assert harness.type_properties() == enabled_props
    assert handler_names() == handlers_before


def handler_names() -> set[str]:
    """Every app handler currently installed, as 'list: module.function'."""
    names = set()
    for attr in dir(bpy.app.handlers):
        handlers = getattr(bpy.app.handlers, attr)
        if isinstance(handlers, list):
            names.update(f"{attr}: {getattr(h, '__module__', '?')}.{getattr(h, '__qualname__', h)}"
                         for h in handlers)
    return names
