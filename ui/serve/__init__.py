"""Floor 12 — the Serve page: a stream of requests on the current scenario (model/serving), animated."""
