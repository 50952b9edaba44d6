"""UI fuzz: a seeded random walk over every control, key, page (Serve and Plan too), resize, export
and file action, the hardware editor, model import, Remove, slides and Record… (tests/fuzz_walk.py),
500 actions per seed, three seeds: any exception (raised, or in
a Qt slot, which pytest-qt catches) or any Qt warning (tests/conftest.py) fails it.
`make soak` runs the same walk 10 000 actions per seed and reports memory."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_walk import FuzzWalk  # noqa: E402

pytestmark = pytest.mark.slow        # a long walk: make test runs it, make test-fast leaves it out

ACTIONS_PER_SEED = 500


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_walk_never_raises_or_warns(main_window, tmp_path, seed):
    w = main_window
    with FuzzWalk(w, seed, tmp_path) as walk:
        walk.run(ACTIONS_PER_SEED)
    assert walk.done == ACTIONS_PER_SEED
    new_surfaces = ("hardware_editor", "model_import", "remove_custom", "slide", "record", "work_page")
    assert all(walk.counts.get(k, 0) > 0 for k in new_surfaces), walk.counts   # the walk reached each
    assert walk.reached_serve and walk.reached_plan, walk.counts               # … the Serve and Plan pages too
    assert w.serve.computations > 0 and w.plan.computations > 0               # and they ran there
    w.controller.flush()
    assert w.controller.estimate is not None          # still answering
    assert w.isVisible()
    assert Path(walk.files["read_only"]).read_text().startswith('{"memory_wall_scenario": 1')   # never overwritten
