/* Fill the stack cache: N threads with the smallest stack (at least
   16 KiB) exist at once, so that they have N distinct stacks, and are
   joined, which puts their stacks in the cache: the joins run on a
   detached thread of their own, which exits, and whose end is awaited
   by the kernel's count of the process's threads, since a glibc may keep
   the stack of a joined thread for the joiner's next thread, outside
   the cache, until the joiner exits (and a join of that thread would
   keep its stack).  Afterwards no thread other than the main thread
   exists, nor does any kept stack.  N is what fits in a
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

/* The number of threads of this process, as the kernel counts them.  */
static long
stackcache_threads (void)
{
  FILE *f = fopen ("/proc/self/status", "r");
  TEST_VERIFY_EXIT (f != NULL);
  char line[256];
  long n = -1;
  while (fgets (line, sizeof line, f) != NULL)
    if (sscanf (line, "Threads: %ld", &n) == 1)
      break;
  fclose (f);
  TEST_VERIFY_EXIT (n > 0);
  return n;
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
  pthread_attr_t detached;
  XPT (pthread_attr_init (&detached));
  XPT (pthread_attr_setdetachstate (&detached, PTHREAD_CREATE_DETACHED));
  XPT (pthread_create (&joiner, &detached, stackcache_joiner, &joins));
  XPT (pthread_attr_destroy (&detached));
  /* A detached thread gives its stack to the cache before it exits; the
     kernel counts it until it has exited.  */
  for (int tries = 0; stackcache_threads () != 1; ++tries)
    {
      TEST_VERIFY_EXIT (tries < 10000);
      nanosleep (&(struct timespec) { 0, 1000 * 1000 }, NULL);
    }
  XPT (pthread_attr_destroy (&attr));
  XPT (pthread_barrier_destroy (&stackcache_barrier));
  *np = n;
  *stackp = stack;
  return threads;
}

#endif
