"""Floor 6 — the eight lessons: the loader of assets/lessons.json, one facts module per chapter
(chN_*.py, named as its screen in ui/chapters/), and the speaker notes."""
