# logt — build the library, the `logt` command and the tests.
#   make            build (CPU-only when nvcc is absent)
#   make run        install what is missing, build, run experiments/quickstart, plot it
#   make test       install what is missing, build, run every test
#                   (SANITIZE=1: the CPU side under ASan and UBSan, in build-san/)
#   make bench      the lstm-vs-cudnn experiment (GPU)
#   make datasets   fetch the digits and charlm files out of Debian packages into datasets/data/
#   make dev        workbenches in kernels/dev/, models/deer/dev/ (GPU): build/bin/scan-dev, scan-vec-dev, scan-multi-dev,
#                   deer-multi-dev
#   make bundle     bundle/: binaries + non-system shared libraries, for a GPU machine
#                   (BUNDLE_DEV=0: logt and logt-tests only, ~2 MB less, for size-limited copies)
#   make lib        build/lib/liblogt.so: the models behind lib/logt.h's C ABI (for python/)
#   make test-python  lib, then python/tests/test_core.py (NumPy; skipped without python3 and numpy)
CC        ?= cc
NVCC      ?= $(shell command -v nvcc 2>/dev/null)
CUDA_ARCH ?= sm_90
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
# Open MPI for `logt run --mpi` where its headers are (make deps installs them); MPI_PKG= builds without
MPI_PKG   ?= $(shell pkg-config --exists ompi-c 2>/dev/null && echo ompi-c)
B         := build

# SANITIZE=1: AddressSanitizer (leaks included) and UBSan on the C code, in a build directory
# of its own. CPU side only: CUDA code is not sanitized (NVCC is empty; compute-sanitizer checks
# the GPU side, scripts/gpu-sanitize.sh). A report fails the test it comes from, in the test
# process or in a logt the test starts: the first report ends the process with exit code 86
# (no recovery), each test checks for leaks at its end (tests/leakcheck.c, through the wrap),
# and tests/cli.h fails on a report in logt's stderr. Allocations keep their whole stack, so
# tests/lsan.supp can name the library a leak is in (Open MPI unloads its plugins first).
ifeq ($(SANITIZE),1)
  override NVCC :=
  B          := build-san
  SAN_FLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
  LDFLAGS    += $(SAN_FLAGS)
  TEST_LDFLAGS := -Wl,--wrap=criterion_internal_test_main
  SAN_ENV    := ASAN_OPTIONS=halt_on_error=1:exitcode=86:detect_leaks=1:fast_unwind_on_malloc=0 \
                UBSAN_OPTIONS=halt_on_error=1:exitcode=86:print_stacktrace=1 \
                LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0
endif

# Criterion links into the tests only: in any process that loads it, its initializer takes a
# test worker's map named in the environment (BXFI_MAP, which a logt started by a test
# inherits) for its own and aborts when the map is gone
PKGS      := hdf5-serial inih
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) criterion 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
TEST_LIBS  = $(shell pkg-config --libs criterion 2>/dev/null)

CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -MMD -MP $(PKG_CFLAGS) $(SAN_FLAGS)
LDLIBS   := -lm -lpthread

LIB_C  := $(wildcard core/*.c kernels/*.c models/*.c models/*/*.c train/*.c datasets/*.c)
LIB_CU := $(wildcard core/*.cu kernels/*.cu models/*.cu models/*/*.cu train/*.cu)
RUN_C  := $(filter-out runner/main.c,$(wildcard runner/*.c))
TEST_C := $(wildcard tests/*.c)

ifneq ($(NVCC),)
  CFLAGS    += -DLOGT_HAVE_CUDA -I$(CUDA_HOME)/include
  NVFLAGS   := -O3 -g -std=c++17 -DLOGT_HAVE_CUDA -DLOGT_CUDA_ARCH=$(CUDA_ARCH:sm_%=%) -gencode arch=compute_$(CUDA_ARCH:sm_%=%),code=[$(CUDA_ARCH),compute_$(CUDA_ARCH:sm_%=%)] \
               -Xcompiler -Wall,-Wextra -MMD -MP
  # the flashrnn backward's multicast copies (cp.async.bulk .multicast::cluster) are Hopper's:
  # ptxas advises the sm_90a target for later GPUs, which would run the PTX; built for sm_90
  ifeq ($(CUDA_ARCH),sm_90)
    NVFLAGS += -Xptxas -suppress-async-bulk-multicast-advisory-warning
  endif
  LDLIBS    += -L$(CUDA_HOME)/lib64 -L$(CUDA_HOME)/lib -lcudnn -lcublas -lcudart -lstdc++
  # NCCL (the multi-GPU scan, kernels/scan_multi.cu) where it sits beside the toolkit or the system's
  NCCL_LIB  := $(firstword $(wildcard $(CUDA_HOME)/lib64/libnccl.so $(CUDA_HOME)/lib/libnccl.so /usr/lib/x86_64-linux-gnu/libnccl.so))
  ifneq ($(NCCL_LIB),)
    CFLAGS  += -DLOGT_HAVE_NCCL
    NVFLAGS += -DLOGT_HAVE_NCCL
    LDLIBS  += -L$(dir $(NCCL_LIB)) -lnccl
  endif
  LIB_OBJ   := $(LIB_C:%.c=$(B)/%.o) $(LIB_CU:%.cu=$(B)/%.cu.o)
else
  # (said once, and not for SANITIZE=1, which leaves CUDA out on purpose)
  ifeq ($(MAKELEVEL)$(SANITIZE),0)
    $(info nvcc not found: building the CPU backend only (install the CUDA toolkit for the cuda backend))
  endif
  LIB_OBJ   := $(LIB_C:%.c=$(B)/%.o)
endif
ifneq ($(MPI_PKG),)
  CFLAGS    += -DLOGT_HAVE_MPI $(shell pkg-config --cflags $(MPI_PKG))
  LDLIBS    += $(shell pkg-config --libs $(MPI_PKG))
else ifeq ($(filter deps run test bench bundle datasets,$(MAKECMDGOALS)),)
  $(info Open MPI not found: building without `logt run --mpi` (apt-get install libopenmpi-dev openmpi-bin))
endif
RUN_OBJ  := $(RUN_C:%.c=$(B)/%.o)
TEST_OBJ := $(TEST_C:%.c=$(B)/%.o)
RPATH    := -Wl,-rpath,'$$ORIGIN/../lib'

.PHONY: all run test bench bundle clean deps dev datasets lib test-python
all: $(B)/bin/logt $(B)/bin/logt-tests

deps: $(B)/.deps
$(B)/.deps: scripts/setup.sh
	@scripts/setup.sh && mkdir -p $(B) && touch $@

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@
$(B)/%.cu.o: %.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -c $< -o $@

$(B)/liblogt.a: $(LIB_OBJ) $(RUN_OBJ)
	rm -f $@
	$(AR) rcs $@ $^
$(B)/bin/logt: $(B)/runner/main.o $(B)/liblogt.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $(RPATH) $(PKG_LIBS) $(LDLIBS)
$(B)/bin/logt-tests: $(TEST_OBJ) $(B)/liblogt.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $(TEST_LDFLAGS) $^ -o $@ $(RPATH) $(TEST_LIBS) $(PKG_LIBS) $(LDLIBS)
# kernels/dev/ holds standalone workbenches with a main (not in LIB_CU: no recursion)
$(B)/bin/%-dev: kernels/dev/%.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) $< -o $@

# the 16-bit scan's workbench
$(B)/bin/scan-vec-dev: kernels/dev/scan_vec.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) $< -o $@

# the small-GEMM workbench times cuBLAS and cublasLt's algorithms
$(B)/bin/gemm-small-dev: kernels/dev/gemm_small.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) $< -o $@ -lcublasLt -lcublas

# workbenches that call the library: the sequence-parallel scan's, and a model's (models/deer/dev/)
$(B)/bin/scan-multi-dev: kernels/dev/scan_multi.cu $(B)/liblogt.a
$(B)/bin/deer-multi-dev: models/deer/dev/deer_multi.cu $(B)/liblogt.a
$(B)/bin/scan-multi-dev $(B)/bin/deer-multi-dev:
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) $< $(B)/liblogt.a -o $@ -Xlinker -rpath -Xlinker '$$ORIGIN/../lib' $(PKG_LIBS) $(LDLIBS)

ifneq ($(NVCC),)
dev: $(B)/bin/scan-dev $(B)/bin/scan-vec-dev $(B)/bin/scan-multi-dev $(B)/bin/deer-multi-dev $(B)/bin/gemm-small-dev
else
dev:
	@echo "make dev: the kernel workbenches need CUDA (nvcc not found); skipping"
endif

# deps first, then the build (pkg-config must see what setup.sh installed, also under -j)
run: deps
	$(MAKE) --no-print-directory all
	$(B)/bin/logt run experiments/quickstart --backend auto
	$(B)/bin/logt plot experiments/quickstart

test: deps
	$(MAKE) --no-print-directory all
	$(SAN_ENV) $(B)/bin/logt-tests --jobs 2
	$(MAKE) --no-print-directory test-python

bench: deps
	$(MAKE) --no-print-directory all
	$(B)/bin/logt run experiments/lstm-vs-cudnn --backend cuda
	$(B)/bin/logt plot experiments/lstm-vs-cudnn

# the loaded datasets' files (a few MB from a Debian mirror; not part of deps, run, test)
datasets: datasets/data/digits.csv datasets/data/fortunes.txt
datasets/data/digits.csv: scripts/fetch-datasets.sh
	scripts/fetch-datasets.sh digits
datasets/data/fortunes.txt: scripts/fetch-datasets.sh
	scripts/fetch-datasets.sh fortunes

BUNDLE_DEV ?= 1
bundle: deps
	$(MAKE) --no-print-directory all lib $(if $(filter 1,$(BUNDLE_DEV)),dev)
	scripts/bundle.sh bundle $(B)/bin/logt $(B)/bin/logt-tests $(B)/lib/liblogt.so $(if $(and $(NVCC),$(filter 1,$(BUNDLE_DEV))),$(B)/bin/scan-dev $(B)/bin/scan-vec-dev $(B)/bin/scan-multi-dev $(B)/bin/deer-multi-dev $(B)/bin/gemm-small-dev)

# liblogt.so: core, kernels, models, the datasets and the readout's initialisation (no runner:
# no HDF5, no MPI) with lib/*.c, every object built again with -fPIC under $(B)/pic/; only
# lib/logt.h's functions are exported (lib/liblogt.map)
SO_C     := $(wildcard core/*.c kernels/*.c models/*.c models/*/*.c datasets/*.c lib/*.c) train/readout.c
SO_CU    := $(if $(NVCC),$(wildcard core/*.cu kernels/*.cu models/*.cu models/*/*.cu lib/*.cu))
SO_OBJ   := $(SO_C:%.c=$(B)/pic/%.o) $(SO_CU:%.cu=$(B)/pic/%.cu.o)
SO_LDLIBS = $(filter-out $(if $(MPI_PKG),$(shell pkg-config --libs $(MPI_PKG))),$(LDLIBS))
$(B)/pic/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -c $< -o $@
$(B)/pic/%.cu.o: %.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -Xcompiler -fPIC -c $< -o $@
$(B)/lib/liblogt.so: $(SO_OBJ) lib/liblogt.map
	@mkdir -p $(@D)
	$(CC) -shared $(LDFLAGS) -Wl,-soname,liblogt.so -Wl,--version-script=lib/liblogt.map \
	    -Wl,--no-undefined $(SO_OBJ) -o $@ $(SO_LDLIBS)
lib: $(B)/lib/liblogt.so

# the NumPy tests of the binding; under SANITIZE=1 skipped (an ASan-built library would need
# the sanitizer runtime preloaded into python)
test-python:
ifeq ($(SANITIZE),1)
	@echo "test-python: skipped under SANITIZE=1 (run make test-python without it)"
else
	@if ! command -v python3 >/dev/null 2>&1; then echo "test-python: python3 not found, skipping"; \
	elif ! python3 -c 'import numpy' 2>/dev/null; then echo "test-python: numpy not found, skipping (pip install numpy)"; \
	else $(MAKE) --no-print-directory lib && LOGT_LIB=$(CURDIR)/$(B)/lib/liblogt.so python3 python/tests/test_core.py; fi
endif

clean:
	rm -rf $(B) bundle bundle.tar.xz

-include $(shell find $(B) -name '*.d' 2>/dev/null)
