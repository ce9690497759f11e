# nptl-scale: a scalability patch series for glibc's NPTL, and its harness.
#
#   make sysroot && make bench     build stock and patched glibc, benchmark them
#   make check                     test stock and patched, compare test by test
#
# Variables (see README.md): BASE STOCK ARCH BUILD GLIBC_SRC PATCHES ISOLATION JOBS VARIANTS

SHELL := /bin/bash
# A tree given by GLIBC_SRC is BASE=local unless BASE names it (lib.sh).
ifeq ($(GLIBC_SRC),)
BASE ?= 2.43
else
BASE ?= local
endif
# The default variants are harness/lib.sh's DEFAULT_VARIANTS; the
# benchmarks' (bench, bench-bundle) are its bench_variants, which may add
# lock-counting builds that only the benchmarks build and run.
ifeq ($(origin VARIANTS),undefined)
VARIANTS := $(shell bash -c '. harness/lib.sh && echo "$$DEFAULT_VARIANTS"')
ifneq ($(filter bench bench-bundle,$(MAKECMDGOALS)),)
bench_variants := $(shell BASE='$(BASE)' GLIBC_SRC='$(GLIBC_SRC)' PATCHES='$(PATCHES)' \
  STOCK='$(STOCK)' BENCH='$(BENCH)' BENCH_THREADS='$(BENCH_THREADS)' \
  bash -c '. harness/lib.sh && bench_variants')
endif
endif
bench_variants ?= $(VARIANTS)
bench_extra := $(filter-out $(VARIANTS),$(bench_variants))
# Everything generated: harness/lib.sh's $BUILD, where empty means build/.
ifeq ($(BUILD),)
override BUILD := $(CURDIR)/build
endif
export BASE GLIBC_SRC PATCHES ISOLATION JOBS BENCH BUILD STOCK ARCH ARCHES BZ SERIES

# Every goal's variables are checked while make reads this file, before
# any recipe installs, starts or builds anything: a bad value costs one
# line (harness/preflight.sh).
PREFLIGHT_GOALS := $(filter sysroot smoke check check-full check-arches check-series check-fixes bench \
  bench-bundle mail export-debian linetraffic docker-image,$(MAKECMDGOALS))
ifneq ($(PREFLIGHT_GOALS),)
PREFLIGHT_ERROR := $(shell BASE='$(BASE)' STOCK='$(STOCK)' ARCH='$(ARCH)' GLIBC_SRC='$(GLIBC_SRC)' \
  BUILD='$(BUILD)' PATCHES='$(PATCHES)' ISOLATION='$(ISOLATION)' JOBS='$(JOBS)' \
  VARIANTS='$(VARIANTS)' BENCH='$(BENCH)' SELECTION='$(SELECTION)' SERIES='$(SERIES)' BZ='$(BZ)' \
  BENCH_REPS='$(BENCH_REPS)' BENCH_SECONDS='$(BENCH_SECONDS)' BENCH_THREADS='$(BENCH_THREADS)' \
  harness/preflight.sh $(PREFLIGHT_GOALS) 2>&1 >/dev/null)
ifneq ($(PREFLIGHT_ERROR),)
$(error $(PREFLIGHT_ERROR))
endif
endif
# The user's two commands set up what they need themselves.
export AUTO_INSTALL ?= 1

H := harness

.PHONY: help sysroot smoke check check-full check-series check-fixes check-arches bench bench-bundle mail export-debian linetraffic docker-image docker-stop \
        selftest clean distclean

help:  ## list the targets
	@BASE='$(BASE)' BASE_DIR='$(BASE_DIR)' BUILD='$(BUILD)' VARIANTS='$(VARIANTS)' awk -F':.*## ' \
	  '/^[a-z-]+:.*## / { t = $$2; \
	    while (match(t, /\$$\([A-Z_]+\)/)) \
	      t = substr(t, 1, RSTART - 1) ENVIRON[substr(t, RSTART + 2, RLENGTH - 3)] substr(t, RSTART + RLENGTH); \
	    printf "  %-14s %s\n", $$1, t }' $(MAKEFILE_LIST)
	@echo "Variables: BASE=$(BASE) (2.43|2.36|local), STOCK=$(STOCK_KIND) (upstream|debian), ARCH=$(ARCH_KIND) (x86_64|aarch64|i686; compiled only: powerpc64le|s390x|riscv64|hppa), BUILD=$(BUILD), GLIBC_SRC=$(GLIBC_SRC), PATCHES=$(PATCHES), ISOLATION=auto|docker|none, JOBS=, VARIANTS='$(VARIANTS)'"

sysroot:  ## build and install stock and patched glibc into $(BASE_DIR)/*/root
	$(if $(filter-out sysroot help,$(MAKECMDGOALS)),ARCH_NEED=run) $(H)/build.sh $(VARIANTS)

smoke: sysroot  ## check each sysroot's compiler and loader wrappers
	$(H)/smoke.sh $(VARIANTS)

# The tests start from the harness's defaults, whatever the caller's
# layout (make check ARCH=aarch64 runs them too).
selftest:  ## the harness's own unit tests (no glibc needed; part of make check)
	env -u ARCH -u BASE -u STOCK -u BUILD -u GLIBC_SRC -u TIMEOUTFACTOR \
	  python3 -m unittest harness/test_*.py bench/test_*.py

check: sysroot  ## quick gate, stock vs patched: smoke, glibc's tests, our DejaGnu suite, the POSIX condvar tests, MariaDB's thread and lock tests
	$(H)/check.sh $(VARIANTS)

check-full: sysroot  ## glibc's whole `make check` for each variant, compared (hours)
	CHECK=full $(H)/check.sh $(VARIANTS)

check-arches:  ## the other targets: aarch64 (qemu-user) and i686 checked as make check does, powerpc64le, s390x, riscv64, hppa compiled (ARCHES= some of them; hours; not in the CI gate)
	$(H)/check-arches.sh

check-series:  ## bisectability: build and test each prefix of the series against stock
	$(H)/check-series.sh

check-fixes:  ## each fix of series.fixes: its bug's reproducer fails before it and passes with it, its tests pass, and the same with the fix alone on stock where it applies alone
	$(H)/check-fixes.sh

# The builds that only the benchmarks run (bench_extra), before them.
build_bench_extra = $(if $(bench_extra),ARCH_NEED=run $(H)/build.sh $(bench_extra))

bench: sysroot  ## benchmarks, stock vs patched, report in build/bench/ (BENCH=quick|NAME)
	$(build_bench_extra)
	$(H)/bench.sh $(bench_variants)

bench-bundle: sysroot  ## a tarball that runs the benchmarks with ./run on any x86_64 Linux with python3
	$(build_bench_extra)
	BUNDLE=1 $(H)/bench.sh $(bench_variants)

mail:  ## the series as mails for libc-alpha in $(BUILD)/mail/$(BASE)/: fixes/ and scale/ (two threads), bugs/ (a Bugzilla report per stock bug; BZ=name=NUMBER,... once filed); your git identity signs off; GLIBC_SRC=checkout to check git am there
	$(H)/mail.sh

export-debian:  ## the backport's fixes (BASE=2.36 unless given; SERIES=scale: the whole series) as quilt patches with DEP-3 headers, checked with quilt push -a on Debian's source package
	BASE=$(if $(filter command line environment,$(origin BASE)),$(BASE),2.36) $(H)/export-debian.sh

linetraffic:  ## cache-line transfers per operation under qemu-user, no PMU needed: by pthread_cond_t field (VARIANTS: stock, legacy, padded layouts), or with BENCH=create-join by field of libc.so, ld.so and the descriptors (VARIANTS: stock patched)
	$(H)/linetraffic.sh $(if $(filter command line environment,$(origin VARIANTS)),$(VARIANTS))

docker-image:  ## make the build container image (FROM debian:bookworm, or debootstrap without a registry)
	$(H)/docker-image.sh

docker-stop:  ## stop the dockerd that the harness started (by its PID)
	@p="$(BUILD)/docker/dockerd.pid"; if [ -f "$$p" ] && kill -0 $$(cat "$$p") 2>/dev/null; then \
	  kill $$(cat "$$p") && echo "stopped dockerd $$(cat "$$p")"; rm -f "$$p"; \
	else echo "no dockerd started by the harness is running"; fi

# $(call lib_sh,FUNCTION): what harness/lib.sh's FUNCTION prints for
# this make's BASE, STOCK, GLIBC_SRC and BUILD ($(shell) does not see
# make's exports).  BASE_DIR: the base's directory (BASE, BASE-STOCK,
# BASE-ARCH...); STOCK_KIND: which glibc is stock (upstream, debian,
# local); ARCH_KIND: the target (ARCH, or this machine's).
lib_sh = $(shell BASE='$(BASE)' STOCK='$(STOCK)' ARCH='$(ARCH)' GLIBC_SRC='$(GLIBC_SRC)' BUILD='$(BUILD)' \
                 bash -c '. harness/lib.sh && $(1)')
BASE_DIR = $(call lib_sh,base_dir)
STOCK_KIND = $(call lib_sh,stock_kind)
ARCH_KIND = $(call lib_sh,echo $$ARCH)

clean:  ## remove $(BASE_DIR) (sources and ccache stay cached)
	rm -rf "$(BASE_DIR)"

distclean:  ## remove $(BUILD) (default build/) entirely
	rm -rf "$(BUILD)"
