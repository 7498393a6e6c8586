"""ZeroClaw's spec: config keys, knobs, knob notes, budget explanation, the whole config file
(``config_file.py``, ``config_schema.py``); the two versions in ``spec.py``."""
