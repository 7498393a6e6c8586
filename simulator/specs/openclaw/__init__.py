"""OpenClaw's spec: config keys, knobs, budget explanation, the whole config file
(``config_file.py``); the versions in ``spec.py``."""
