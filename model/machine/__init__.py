"""Floor 4 — measuring: this machine's benchmarks, published measurements predicted by the
model, the calibration of engine factors, and leave-one-source-out validation."""
