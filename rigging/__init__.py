"""The Blender-side core: everything that is neither an operator nor a panel.

Reads rigs and chains into plain data (``rig``, ``chain_checks``, ``linked_data``), samples targets and bones
(``sampling``), solves chains through ``solver/`` (``chain_solve``), writes and clears keys (``anim_keys``,
``bake``, ``bake_records``, ``batch``, ``verification``), re-parents targets (``target_parenting``,
``key_target``), poses live (``live_preview``, ``posing``), and holds the add-on's properties, messages and
translations. Imports ``solver`` below it, never ``operators`` or ``panels`` above it.
"""
