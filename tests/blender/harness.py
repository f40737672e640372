"""Build, install and enable the extension the way a user gets it, inside the ``bpy`` module.

The repository is validated and built into a zip with Blender's own extension tooling (``bl_pkg``), the zip is
installed into an isolated user directory, and the installed copy is enabled. Tests then exercise
``bl_ext.user_default.<id>``, never the working tree.

Order matters: :func:`isolate_user_resources` must run before the first ``import bpy`` (Blender reads
``BLENDER_USER_RESOURCES`` once, at import).
"""

from __future__ import annotations

import importlib
import os
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = tomllib.loads((ROOT / "blender_manifest.toml").read_text(encoding="utf-8"))
EXT_ID: str = MANIFEST["id"]
REPOSITORY = "user_default"
MODULE = f"bl_ext.{REPOSITORY}.{EXT_ID}"


class HarnessError(RuntimeError):
    """Building, installing or enabling the extension failed (the message says which step)."""


@dataclass
class Installation:
    """What :func:`install_extension` did, for the packaging tests."""

    user_dir: Path
    zip_path: Path
    types_before_enable: frozenset[str]
    type_properties_before_enable: dict[str, frozenset[str]] = field(default_factory=dict)


_installation: Installation | None = None


def isolate_user_resources() -> Path:
    """Point Blender's user directory (config, extensions) at a fresh temporary directory.

    Raises if ``bpy`` is already imported: the variable would be ignored and the user's real Blender
    configuration used.
    """
    if "bpy" in sys.modules:
        raise HarnessError("bpy was imported before the user directory was isolated")
    user_dir = Path(tempfile.mkdtemp(prefix="soft_ik_2d_user_"))
    os.environ["BLENDER_USER_RESOURCES"] = str(user_dir)
    return user_dir


def _cli(*args: str) -> None:
    import bl_pkg.bl_extension_cli as cli  # available once bpy is imported (Blender's bundled add-on)

    rc = cli.cli_extension_handler(list(args))
    if rc != 0:
        raise HarnessError(f"'extension {' '.join(args)}' failed with exit code {rc}")


def build_zip(out_dir: Path, source: Path = ROOT) -> Path:
    """Validate ``source`` and build its extension zip into ``out_dir`` (created); returns the zip's path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    _cli("validate", str(source))
    _cli("build", "--source-dir", str(source), "--output-dir", str(out_dir))
    zips = sorted(out_dir.glob(f"{EXT_ID}-*.zip"))
    if len(zips) != 1:
        raise HarnessError(f"expected one {EXT_ID}-*.zip in {out_dir}, found {[z.name for z in zips]}")
    return zips[0]


def validate(path: Path) -> None:
    """Run Blender's manifest/archive validation on a source directory or a built zip."""
    _cli("validate", str(path))


def registered_type_names() -> frozenset[str]:
    """Every class name registered in ``bpy.types`` (operators, panels, property groups...)."""
    import bpy

    return frozenset(dir(bpy.types))


# Types whose RNA properties an add-on typically extends (PointerProperty / CollectionProperty on IDs).
EXTENDED_TYPES = ("Object", "Scene", "Armature", "PoseBone", "Bone", "WindowManager", "Action")


def type_properties() -> dict[str, frozenset[str]]:
    """The RNA property names of :data:`EXTENDED_TYPES`."""
    import bpy

    return {name: frozenset(getattr(bpy.types, name).bl_rna.properties.keys()) for name in EXTENDED_TYPES}


def install_extension() -> Installation:
    """Isolate the user directory, import bpy, build the zip, install it and enable the installed module.

    Idempotent within a process. Raises :class:`HarnessError` naming the failed step.
    """
    global _installation
    if _installation is not None:
        return _installation
    user_dir = isolate_user_resources()
    import bpy  # noqa: F401  (after isolation; also makes bl_pkg importable)

    types_before = registered_type_names()
    props_before = type_properties()
    zip_path = build_zip(Path(tempfile.mkdtemp(prefix="soft_ik_2d_build_")))
    # -e enables right away; --no-prefs keeps the isolated preferences untouched on disk.
    _cli("install-file", "-r", REPOSITORY, "-e", "--no-prefs", str(zip_path))
    enable()
    _installation = Installation(user_dir, zip_path, types_before, props_before)
    return _installation


def enable() -> ModuleType:
    """Enable the installed module (as the Preferences checkbox does) and return it; raises if it failed."""
    import addon_utils

    errors: list[BaseException] = []
    # Errors are collected rather than raised from the callback so addon_utils can clean up first.
    module = addon_utils.enable(MODULE, default_set=True, handle_error=errors.append)
    if errors or module is None or not is_enabled():
        raise HarnessError(f"{MODULE} did not enable: {errors!r}") from (errors[0] if errors else None)
    return package()


def disable() -> None:
    """Disable the installed module (as unticking it in the Preferences does)."""
    import addon_utils

    errors: list[BaseException] = []
    addon_utils.disable(MODULE, default_set=True, handle_error=errors.append)
    if errors:
        raise HarnessError(f"{MODULE} did not disable cleanly: {errors!r}") from errors[0]


def is_enabled() -> bool:
    import addon_utils
    import bpy

    _loaded_default, loaded_state = addon_utils.check(MODULE)
    return bool(loaded_state) and MODULE in bpy.context.preferences.addons


def installation() -> Installation:
    """The installation made by the test session (see ``conftest.py``)."""
    if _installation is None:
        raise HarnessError("the extension is not installed: run the tests through tests/blender/run.py")
    return _installation


def package(submodule: str = "") -> ModuleType:
    """The installed package, or one of its submodules (``package("solver")``, ``package("rigging.anim_keys")``)."""
    return importlib.import_module(f"{MODULE}.{submodule}" if submodule else MODULE)
