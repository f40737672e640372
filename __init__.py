"""Soft IK 2D: analytic two-bone soft IK for 2D cut-out rigs in Blender.

Blender modules are imported inside ``register()`` only, so the pure solver (``solver/``) and its tests
import this package without Blender.
"""


def register() -> None:
    from . import registration

    registration.register()


def unregister() -> None:
    from . import registration

    registration.unregister()
