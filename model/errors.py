"""Floor 0 — errors the model raises for bad input. Each message is one line a user can act on."""


class ModelError(ValueError):
    """Base class: a one-line, user-facing reason."""


class UnknownIdError(ModelError):
    """An id or alias that is not in the catalogue (the message suggests the closest). ``what``
    ("GPU", "model" …), ``key`` (as given) and ``known`` (every id and alias) let a caller say more
    (the command line: model/readouts/command_line.unknown_id_text)."""

    def __init__(self, message: str, *, what: str = "", key: str = "", known: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.what, self.key, self.known = what, key, tuple(known)


class ScenarioError(ModelError):
    """A scenario that cannot run (batch < 1, a GPU count the model cannot be split over…)."""


class AssetError(ModelError):
    """A broken or missing data file under assets/."""
