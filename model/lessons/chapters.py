"""The eight chapters and their prepared states (assets/lessons.json).

Each prepared state is a scenario, the chapter's knobs (params), a claim (a caption template the
chapter's facts fill, model/lessons/facts.py) and speaker notes. The facts of each chapter live
in its own module, named as its screen is (model/lessons/ch5_decode.py ↔ ui/chapters/ch5_decode.py).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from model.errors import AssetError, ModelError
from model.files.assets import ASSETS_DIR, read_asset_json
from model.physics.scenario import Scenario
from model.values import frozen


@frozen
class PreparedState:
    caption: str                    # the state's one claim: a template filled by model.lessons.facts.Facts.fill
    scenario: Scenario
    params: tuple[tuple[str, Any], ...]
    notes: str = ""                 # what the speaker says (read by the presenter's speaker view)
    takeaway: str = ""              # the caption under the chart: a template like the claim (default: the chapter's)

    def param(self, key: str, default: Any = None) -> Any:
        return dict(self.params).get(key, default)


@frozen
class Chapter:
    number: int
    key: str
    title: str
    takeaway: str
    states: tuple[PreparedState, ...]


def load_chapters(path=None) -> tuple[Chapter, ...]:
    p = path or ASSETS_DIR / "lessons.json"
    doc = read_asset_json(p)
    chapters = []
    try:
        for ch in doc["chapters"]:
            base = Scenario.from_dict(ch.get("scenario", {}))
            states = []
            for st in ch["states"]:
                scen = base.with_(**st.get("scenario", {}))
                states.append(PreparedState(st["caption"], scen, tuple(sorted(st.get("params", {}).items())),
                                            str(st.get("notes", "")), str(st.get("takeaway", ch["takeaway"]))))
            chapters.append(Chapter(int(ch["number"]), ch["key"], ch["title"], ch["takeaway"], tuple(states)))
    except (KeyError, TypeError, ValueError, ModelError) as exc:
        raise AssetError(f"lessons.json is malformed: {exc}") from None
    if [c.number for c in chapters] != list(range(1, len(chapters) + 1)):
        raise AssetError("lessons.json: chapters must be numbered 1, 2, 3 … in order")
    return tuple(chapters)


@lru_cache(maxsize=1)
def default_chapters() -> tuple[Chapter, ...]:
    return load_chapters()
