"""Floor 12 — your own hardware and models: the hardware editor, the config import, measuring
this machine, the menu that offers them and the folder that keeps them (store.py)."""
