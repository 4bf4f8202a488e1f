PY ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup generate check-generated test demo tour bench lint clean

setup: $(STAMP)

$(STAMP): pyproject.toml setup.py $(wildcard ember/_speedups*.c ember/_speedups.h)
	@# the CUDA emulator compiles kernels/cuda with the host C++ compiler
	command -v g++ >/dev/null || (apt-get update -qq && apt-get install -y -qq g++)
	test -x $(VPY) || $(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

generate: setup
	$(VPY) -m codegen

check-generated: setup
	$(VPY) -m codegen --check

# two test workers fill the two cores: one BLAS thread each (OpenBLAS's threaded small solves
# spin against the other worker: a 3x3 triangular solve took 16 ms instead of 15 us)
test: setup check-generated
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(VPY) -m pytest tests -n 2

demo: setup
	$(VPY) examples/train_digits.py

tour: setup
	$(VPY) examples/demo.py

bench: setup
	$(VPY) benchmarks/suite.py
	$(VPY) benchmarks/conv.py
	$(VPY) benchmarks/amp.py
	$(VPY) benchmarks/fx.py
	$(VPY) benchmarks/fake.py
	$(VPY) benchmarks/nn.py
	$(VPY) benchmarks/profiler.py
	$(VPY) benchmarks/distributed.py
	$(VPY) benchmarks/linalg.py
	$(VPY) benchmarks/functionalize.py
	$(VPY) benchmarks/compile.py
	$(VPY) benchmarks/fft.py
	$(VPY) benchmarks/real_programs.py

lint: setup
	$(VPY) -m ruff check ember codegen kernels tests benchmarks examples

clean:
	rm -rf $(VENV) build *.egg-info
