"""Painters of the chip view, one module per part. Each draws from a ``common.Scene``."""
