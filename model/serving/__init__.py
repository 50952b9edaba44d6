"""Floor 4 — serving: a stream of requests on the step model (scheduler, KV blocks, queues,
loads, the run's percentiles). docs/serving.md has the equations."""
