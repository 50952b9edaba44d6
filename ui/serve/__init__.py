"""The Serve page: a stream of requests on the current scenario (model/serving), animated."""
