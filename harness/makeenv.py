"""The environment in which the harness's self-tests run make: the
caller's, without the variables the Makefile reads as input (so that a
developer's BASE or VARIANTS does not change what a test sees) and
without make's own from an outer make."""
import os

MAKE_INPUTS = ("BUILD", "BASE", "STOCK", "ARCH", "ARCHES", "GLIBC_SRC", "PATCHES",
               "SERIES", "BZ", "VARIANTS", "BENCH", "BENCH_THREADS", "BENCH_REPS",
               "BENCH_SECONDS", "SELECTION", "ISOLATION", "JOBS",
               "MAKEFLAGS", "MAKELEVEL", "MFLAGS")


def make_env(build=None):
    """os.environ less MAKE_INPUTS, with BUILD set to BUILD if given."""
    env = {k: v for k, v in os.environ.items() if k not in MAKE_INPUTS}
    if build is not None:
        env["BUILD"] = build
    return env
