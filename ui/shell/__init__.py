"""Floor 14 — the window: the app's start (app.py), the main window and its pages and mode bar
(main_window.py, pages.py) and the settings (settings.py)."""
