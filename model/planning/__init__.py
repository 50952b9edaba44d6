"""Floor 4 — planning: every configuration of the GPUs available swept, the frontier of
throughput per GPU against speed per user, disaggregated pools, expert parallelism, cost and the
cheapest setup that meets the targets. docs/planning.md has the equations."""
