"""Floor 13 — on stage: presenter mode's keys (presenter.py), the stage and speaker view, slide
export, recordings (GIF, MP4) and the offscreen renders they draw with."""
