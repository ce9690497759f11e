/* Degenerate, on purpose: pthread_cond_signal and pthread_cond_broadcast
   on a condition variable that no thread waits on, each thread on its
   own.  It measures the fixed cost of the two calls (what a code path
   that signals unconditionally pays when nobody waits), not a pattern of
   use.  One operation is one signal and one broadcast.  */
#include "../bench.h"
#include <pthread.h>

/* One condvar per thread, each on lines of its own.  */
static union
{
  pthread_cond_t c;
  char line[256];
} conds[64] __attribute__ ((aligned (128)));

static int
setup (int n, const char *param)
{
  return n <= 64 ? 0 : 2;
}

static void
run (struct bench_thread *self)
{
  pthread_cond_t *c = &conds[self->id].c;
  pthread_cond_init (c, NULL);
  while (!bench_stopped ())
    {
      pthread_cond_signal (c);
      pthread_cond_broadcast (c);
      bench_count (self);
    }
}

const struct bench_case bench_case = { "cond-signal-empty", "signal+broadcast",
                                       setup, run, NULL };
