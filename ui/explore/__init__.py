"""Floor 12 — the first screen's panels: the roofline (roofline.py, its labels and axis pictures
made ahead), the gauges, the controls and the "Why this number?" panel."""
