"""The animated memory hierarchy (kept for existing imports): see ui.chip.view."""
from ui.chip.view import POOL, SPEEDS, HierarchyView

__all__ = ["HierarchyView", "POOL", "SPEEDS"]
