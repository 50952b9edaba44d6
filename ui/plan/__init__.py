"""The Plan page: the frontier of throughput per GPU against speed per user (model/planning)."""
