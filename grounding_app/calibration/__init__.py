"""Each scope on its own scale: calibrations fitted from a scope's labels (a grounding
config, a trace source, a batch label), guarded by held-back labels, applied by someone
and followed by every check in that scope (docs/calibration.md)."""
