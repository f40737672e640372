"""The Blender-side core: everything that is neither an operator nor a panel.

Reads rigs and chains into plain data (``rig``, ``chain_checks``, ``linked_data``), samples targets and bones
(``sampling``), solves chains through ``solver/`` (``chain_solve``, ``fk_blend``, ``reach``), writes, checks
and clears keys (``anim_keys``, ``key_target``, ``bake``, ``bake_records``, ``batch``, ``verification``,
``reduced_bake``, ``takes``), re-parents and pins targets (``target_parenting``, ``pinning``), poses live
(``live_preview``, ``live_cache``, ``live_solve``, ``posing``), bakes files headless (``cli``, ``pipeline``,
``pipeline_shot``, ``pipeline_jobs``, ``autorun``), and holds the add-on's properties, messages and
translations. Imports ``solver`` below it, never ``operators`` or ``panels`` above it.
"""
