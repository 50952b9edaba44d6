"""Serving: a stream of requests on the step model (floor 4: catalog, physics, files below it)."""
