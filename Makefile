# softbots: `make test` and `make demo` bootstrap everything they need (see README.md).
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
.DEFAULT_GOAL := help

VENV     ?= .venv
MODE     := $(if $(filter jazzy,$(ROS_DISTRO)),ros,wheels)
ENV_OK   := $(VENV)/.ready-$(MODE)
BUILT    := install/.built
ENV_SH   := source $(VENV)/env.sh
SOURCES  := $(shell find src launch config urdf -type f -not -path '*/__pycache__/*' -not -name '*.pyc' 2>/dev/null) colcon.meta
PYTEST   ?= -q
# on a robot these come from Ubuntu's apt through rosdep, built against ROS's numpy: never pip-installed over them
APT_PYTHON := numpy scipy matplotlib contourpy cycler fonttools kiwisolver packaging pillow pyparsing \
              python-dateutil lz4 ruamel-yaml zstandard pytest pluggy iniconfig pygments

.PHONY: help env build lint format test demo bench lock clean firmware firmware-tools

help:
	@echo "make test    build the pinned environment and the workspace, lint, then run every test (what CI runs)"
	@echo "make format  format the tree and apply ruff's safe fixes (ruff.toml); make lint: only check"
	@echo "make demo    build as for test, then run the simulated scenarios into runs/<time>/ (bags, plots, summary)"
	@echo "make bench   run the benchmarks in bench/ (JSON on stdout)"
	@echo "make firmware  build every board's firmware into build/firmware/ (.elf, .hex for avrdude)"
	@echo "make env     only the environment ($(VENV)); make build: only the workspace (install/)"
	@echo "make lock    re-resolve tools/env/*.txt from tools/env/*.in (needs the package registry)"
	@echo "make clean   remove build/, install/, log/ and $(VENV)"

env: $(ENV_OK)
$(ENV_OK): tools/env/bootstrap.sh tools/env/bootstrap.txt tools/env/ros.txt tools/env/robot.txt tools/env/nodeps.txt
	tools/env/bootstrap.sh $(VENV)
	touch $@

build: $(BUILT)
$(BUILT): $(ENV_OK) $(SOURCES)
	@mkdir -p build && $(ENV_SH) && colcon --log-base build/log build --base-paths src --build-base build --install-base install \
	    --event-handlers console_cohesion- summary+ status- >build/colcon.out 2>&1 \
	    || { tail -n 40 build/colcon.out; echo "make: colcon build failed (full output: build/colcon.out)"; exit 1; }
	@tail -n 1 build/colcon.out
	@# setuptools skips bytecode where PYTHONDONTWRITEBYTECODE is set: compiled once here, not at every start
	@$(ENV_SH) && python -m compileall -q -j0 install >/dev/null
	@$(ENV_SH) && source install/setup.bash && python -m tensegrity_sim.warm_up   # numba's disk cache, filled once
	touch $@

# ruff (ruff.toml) is the tree's one formatter and linter, at ROS's 99 columns: a format or lint error fails make test.
lint: $(ENV_OK)
	@$(VENV)/bin/ruff format --check --quiet . || { echo "make lint: run 'make format'"; exit 1; }
	@$(VENV)/bin/ruff check --quiet .

format: $(ENV_OK)
	@$(VENV)/bin/ruff format --quiet . && $(VENV)/bin/ruff check --quiet --fix .

# Every test runs in a loopback-only network namespace with its own ROS_DOMAIN_ID (tools/netns_run.sh).
test: lint $(BUILT) firmware-tools
	@$(ENV_SH) && source install/setup.bash && \
	    tools/netns_run.sh python -m pytest -c tools/pytest.ini --rootdir . $(PYTEST) src tools

# Each robot's scenario writes into runs/<time>/<robot>/; DDS stays inside a loopback-only namespace as for tests.
demo: $(BUILT)
	@out=runs/$$(date +%Y%m%d-%H%M%S) && $(ENV_SH) && source install/setup.bash && \
	    tools/netns_run.sh python -m tensegrity_sim.demo --out $$out/tensegrity && \
	    tools/netns_run.sh python -m terresoro_gait.demo --out $$out/terresoro && \
	    tools/netns_run.sh python -m pom_voxel.demo --out $$out/pom && \
	    tools/netns_run.sh python -m salamander_nav.demo --out $$out/salamander && \
	    tools/netns_run.sh python -m soft_snake.demo --out $$out/soft_snake && \
	    echo "make demo: results in $$out (summaries: $$out/tensegrity/summary.md, $$out/terresoro/summary.md," \
	         "$$out/pom/summary.md, $$out/salamander/summary.md, $$out/soft_snake/summary.md)"

# avr-gcc and qemu-system-avr from apt: installed when root; without them the firmware tests skip
firmware-tools:
	@tools/env/firmware_tools.sh

firmware:
	@tools/env/firmware_tools.sh --required
	@$(MAKE) -s -f src/soro_link/firmware/board.mk OUT=build/firmware

bench: $(BUILT) firmware-tools
	@$(ENV_SH) && source install/setup.bash && \
	    for b in bench/*.py; do [[ -e "$$b" ]] || continue; tools/netns_run.sh python "$$b"; done

lock:
	python3 -m venv build/lockenv && build/lockenv/bin/pip -q install --require-hashes -r tools/env/bootstrap.txt
	cd tools/env && UV=../../build/lockenv/bin/uv && \
	    $$UV pip compile -q --generate-hashes --universal --python-version 3.11 bootstrap.in -o bootstrap.txt && \
	    $$UV pip compile -q --generate-hashes --python-version 3.11 --python-platform x86_64-manylinux_2_28 ros.in -o ros.txt && \
	    $$UV pip compile -q --generate-hashes --no-deps --universal --python-version 3.11 nodeps.in -o nodeps.txt && \
	    $$UV pip compile -q --generate-hashes --universal --python-version 3.12 robot.in -o robot.txt \
	        $(foreach p,$(APT_PYTHON),--no-emit-package $(p))

clean:
	rm -rf build install log $(VENV) $(VENV).log
