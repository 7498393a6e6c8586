"""One package per reproduced runtime: its spec (``spec.py``) and the pieces the spec names.

Each ``<runtime>/`` package holds what Trimscope knows about that runtime besides the runtime's own
mirrored code (``simulator/runtimes/<runtime>/``): reading and writing its config keys
(``config.py``), the knob catalogue (``knobs.py``), the budget explanation (``budget.py``), its
ready-made profiles (``presets.py``), the runtime's whole config file as the runtime loads it
(``config_file.py``; ZeroClaw's schema knowledge in ``config_schema.py``), and, in ``spec.py``, one
:class:`~simulator.runtime_spec.RuntimeSpec` per version. ``simulator/registry.py`` collects the
specs, one line each.

Who may import: the registry, ``simulator.presets``, the replay drivers (for the budget explanation)
and ``simulator.config_files`` (the one entry point for whole config files, which tells the runtimes'
files apart). Everything else goes through the registry or the facade (``simulator``).
"""
