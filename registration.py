"""Registers every Blender-facing module in dependency order (properties first, panels last)."""

from . import linked_data, live_preview, operators, overlay, panels, properties, translations

_modules = (properties, linked_data, operators, panels, live_preview, overlay, translations)


def register() -> None:
    for module in _modules:
        module.register()


def unregister() -> None:
    for module in reversed(_modules):
        module.unregister()
