"""Floor 12 — the Plan page: the frontier of throughput per GPU against speed per user (model/planning)."""
