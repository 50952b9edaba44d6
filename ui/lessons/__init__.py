"""Floor 12 — the Lessons page (page.py: the chapter views, their toolbar and files) and its keys."""
