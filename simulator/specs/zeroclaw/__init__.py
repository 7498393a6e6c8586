"""ZeroClaw's spec: config keys, knobs, budget explanation; the two versions in ``spec.py``."""
