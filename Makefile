# Memory Wall — the two commands a newcomer needs:
#   make run    set up (Qt's system libraries and .venv, if missing) and start the app
#   make test   set up (the same) and run the whole test suite headless
#   make soak   the UI fuzz walk, 10 000 actions per seed, with RSS; make bench: speed ratios
PY      ?= python3
VENV    := .venv
VPY     := $(VENV)/bin/python
STAMP   := $(VENV)/.installed
ARGS    ?=

.PHONY: run test test-fast bench soak package clean system-deps

$(STAMP): pyproject.toml
	test -x $(VPY) || $(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q -e '.[test,package]'
	touch $(STAMP)

# one `dpkg -s` when present; apt-get (sudo when not root) when missing; one line when neither works
system-deps:
	@packaging/ensure-system-deps

run: system-deps $(STAMP)
	$(VPY) main.py $(ARGS)

test: system-deps $(STAMP)
	QT_QPA_PLATFORM=offscreen $(VPY) -m pytest $(ARGS)

test-fast: system-deps $(STAMP)
	QT_QPA_PLATFORM=offscreen $(VPY) -m pytest -m "not slow" $(ARGS)

bench: $(STAMP)
	for b in benches/bench_*.py; do QT_QPA_PLATFORM=offscreen $(VPY) $$b || exit 1; done

soak: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(VPY) benches/soak_ui.py --actions 10000 --seeds 1 2 3

package: system-deps $(STAMP)
	packaging/build-linux

clean:
	rm -rf build dist $(VENV)
