"""Registers every Blender-facing module in dependency order (properties first, panels last)."""

from . import operators, panels, properties

_modules = (properties, operators, panels)


def register() -> None:
    for module in _modules:
        module.register()


def unregister() -> None:
    for module in reversed(_modules):
        module.unregister()
