"""Floor 2 — the equations: a scenario resolved, one decode step or prefill pass, what fits in
memory, the roofline, a batch sweep and the whole estimate. No wording, no file loading."""
