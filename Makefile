# Memory Wall — the two commands a newcomer needs:
#   make run    set up .venv (if missing) and start the app
#   make test   set up .venv (if missing) and run the whole test suite headless
PY      ?= python3
VENV    := .venv
VPY     := $(VENV)/bin/python
STAMP   := $(VENV)/.installed
ARGS    ?=

.PHONY: run test test-fast bench package clean

$(STAMP): pyproject.toml
	test -x $(VPY) || $(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q -e '.[test,package]'
	touch $(STAMP)

run: $(STAMP)
	$(VPY) main.py $(ARGS)

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(VPY) -m pytest $(ARGS)

test-fast: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(VPY) -m pytest -m "not slow" $(ARGS)

bench: $(STAMP)
	for b in benches/bench_*.py; do QT_QPA_PLATFORM=offscreen $(VPY) $$b || exit 1; done

package: $(STAMP)
	packaging/build-linux

clean:
	rm -rf build dist $(VENV)
