"""The built-in demo: a 2D cut-out rig with targets in all three spaces (not shipped in the extension zip)."""
