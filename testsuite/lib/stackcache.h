/* Fill the stack cache: N threads with the smallest stack (at least
   16 KiB) exist at once, so that they have N distinct stacks, and are
   joined, which puts their stacks in the cache: the joins run on a
   thread of their own that then exits, since a glibc may keep the stack
   of a joined thread for the joiner's next thread, outside the cache,
   until the joiner exits.  N is what fits in a
   quarter of the default cache (40 MiB), at most MAX.  Returns the
   joined threads' IDs (in glibc, the addresses of their descriptors,
   which stay in the cache); *NP and *STACKP get N and the stack size.
   Copyright The GNU Toolchain Authors.  */
#ifndef NPTL_SCALE_STACKCACHE_H
#define NPTL_SCALE_STACKCACHE_H

#include "check.h"

static pthread_barrier_t stackcache_barrier;

static void *
stackcache_worker (void *arg)
{
  pthread_barrier_wait (&stackcache_barrier);
  return arg;
}

struct stackcache_joins
{
  pthread_t *threads;
  long n;
};

static void *
stackcache_joiner (void *arg)
{
  struct stackcache_joins *joins = arg;
  for (long i = 0; i < joins->n; ++i)
    XPT (pthread_join (joins->threads[i], NULL));
  return NULL;
}

static pthread_t *
fill_stack_cache (long max, long *np, long *stackp)
{
  long stack = sysconf (_SC_THREAD_STACK_MIN);
  if (stack < 16384)
    stack = 16384;
  long page = sysconf (_SC_PAGESIZE);
  /* The stack, its guard page and the descriptor and TLS (a few pages).  */
  long n = (10L << 20) / (stack + 4 * page);
  if (n > max)
    n = max;
  TEST_VERIFY_EXIT (n >= 40);

  pthread_t *threads = calloc (n, sizeof *threads);
  TEST_VERIFY_EXIT (threads != NULL);
  pthread_attr_t attr;
  XPT (pthread_attr_init (&attr));
  XPT (pthread_attr_setstacksize (&attr, stack));
  XPT (pthread_barrier_init (&stackcache_barrier, NULL, n + 1));
  for (long i = 0; i < n; ++i)
    XPT (pthread_create (&threads[i], &attr, stackcache_worker, NULL));
  pthread_barrier_wait (&stackcache_barrier);
  struct stackcache_joins joins = { threads, n };
  pthread_t joiner;
  XPT (pthread_create (&joiner, NULL, stackcache_joiner, &joins));
  XPT (pthread_join (joiner, NULL));
  XPT (pthread_attr_destroy (&attr));
  XPT (pthread_barrier_destroy (&stackcache_barrier));
  *np = n;
  *stackp = stack;
  return threads;
}

#endif
