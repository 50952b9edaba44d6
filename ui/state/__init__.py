"""Floor 10 — the one owner of the scenario (controller.py: one frozen Snapshot per change) and
the glide that moves it between prepared states (glide.py)."""
