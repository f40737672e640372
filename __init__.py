"""Soft IK 2D: analytic two-bone soft IK for 2D cut-out rigs in Blender, baked to keys.

Longer chains are solved by CCD or FABRIK; every solve can be previewed live and baked to F-curve keys.

Layers, each importing only those below it: ``solver/`` (pure Python + numpy, no Blender), ``rigging/`` (the
Blender-side core: reads rigs into plain data, samples, bakes, writes keys, previews), ``operators/`` and
``panels/`` (the user interface). Blender modules are imported inside ``register()`` only, so the pure solver and
its tests import this package without Blender.
"""

from types import ModuleType


def _modules() -> tuple[ModuleType, ...]:
    # Dependency order: properties first (everything reads them), translations last.
    from . import operators, panels
    from .panels import overlay, pin_overlay
    from .rigging import cli, linked_data, live_preview, properties, translations

    return (properties, linked_data, operators, panels, live_preview, overlay, pin_overlay, cli, translations)


def register() -> None:
    """Register the add-on's modules in dependency order (Blender calls it when the extension is enabled)."""
    for module in _modules():
        module.register()


def unregister() -> None:
    """Unregister the modules in reverse order, leaving Blender as it was without the add-on."""
    for module in reversed(_modules()):
        module.unregister()
