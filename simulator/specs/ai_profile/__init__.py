"""ai-profile's spec: config keys, knobs, budget explanation, the whole config file
(``config_file.py``); the version in ``spec.py``."""
