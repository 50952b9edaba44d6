"""Floor 8 — the window's toolkit: theme, pens, text fitting, steady labels, work done while idle,
small widgets, layouts, the user's folders (folders.py) and the one QApplication (qt_app.py)."""
