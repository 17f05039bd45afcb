"""The pytest front door: the plugin (:mod:`.plugin`, the ``pytest11`` entry point) and its
gathering of the workers' results under pytest-xdist (:mod:`.xdist`).
"""
