"""Floor 11 — the animated chip view as parts: layout, animator, painters, control bar, frames
and words drawn ahead, and the facade (view.py). Uses the toolkit only."""
