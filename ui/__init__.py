"""Floor 8 — Qt: the window, in wings, lowest first: kit (8), plotting (9), state (10), chip and
chapters (11), explore, serve, plan, lessons and custom (12), present (13), shell (14).
docs/architecture.md is the map; tests/test_layers.py holds it."""
