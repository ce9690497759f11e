/* Sync point (seed 003, HAProxy): the threads meet at a barrier again and
   again.  -p spin: a sense-reversing barrier that busy-waits; -p yield: the
   same barrier calling sched_yield while it waits; -p futex:
   pthread_barrier_wait.  One operation is one meeting of all threads,
   counted by thread 0.  With more threads than CPUs, spinning burns the
   time slices of the threads that everybody waits for.

   Stopping: thread 0 sees the stop flag and names the episode after which
   everybody leaves; every thread reads that after passing one more barrier,
   so all leave after the same one.  */
#include "../bench.h"
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

static enum { SPIN, YIELD, FUTEX } mode;
static int nthreads;
static atomic_int arrived;
static atomic_int sense;
static pthread_barrier_t barrier;
static atomic_ulong quit_after = (unsigned long) -1;

static int
setup (int n, const char *param)
{
  nthreads = n;
  if (param != NULL && strcmp (param, "spin") == 0)
    mode = SPIN;
  else if (param != NULL && strcmp (param, "yield") == 0)
    mode = YIELD;
  else if (param != NULL && strcmp (param, "futex") == 0)
    mode = FUTEX;
  else
    {
      fprintf (stderr, "syncpoint: -p spin|yield|futex\n");
      return 2;
    }
  pthread_barrier_init (&barrier, NULL, n);
  return 0;
}

static void
meet (int *my_sense)
{
  if (mode == FUTEX)
    {
      pthread_barrier_wait (&barrier);
      return;
    }
  *my_sense = !*my_sense;
  if (atomic_fetch_add (&arrived, 1) == nthreads - 1)
    {
      atomic_store (&arrived, 0);
      atomic_store (&sense, *my_sense);
    }
  else
    while (atomic_load_explicit (&sense, memory_order_acquire) != *my_sense)
      if (mode == YIELD)
        sched_yield ();
      else
        bench_cpu_relax ();
}

static void
run (struct bench_thread *self)
{
  int my_sense = 0;
  for (unsigned long episode = 0;; episode++)
    {
      if (self->id == 0 && bench_stopped ()
          && atomic_load (&quit_after) == (unsigned long) -1)
        atomic_store (&quit_after, episode + 1);
      meet (&my_sense);
      if (self->id == 0)
        bench_count (self);
      if (episode >= atomic_load (&quit_after))
        break;
    }
}

const struct bench_case bench_case = { "syncpoint", "meeting", setup, run, NULL };
