/* The latency of one thread creation while N threads churn (the seed's
   symptom: a creator that blocks).  Each of the N threads loops creating
   a thread and joining it, and times each create, from the call until it
   returns in the creator; the distribution over the measured period is
   reported (p50, p99, p99.9, max), beside the driver's own creation of the
   N threads, which starts each one's loop at once (start_at_once), so that
   the later creates wait behind the earlier threads' churn as in a program
   that spawns its workers one by one.  The -p parameter is the churn:

     empty   the child returns at once
     work    the child does the seed's work unit (20 x memcpy 1 MB)
     clone   the clone floor's method: a bare clone whose child exits at
             once, and a wait for its TID (bench/clone.h); the kernel and
             the scheduler alone, the bound on this machine  */
#define _GNU_SOURCE
#include "../bench.h"
#include "../clone.h"
#include <pthread.h>

enum churn { empty, work, bare };
static enum churn churn;
static struct bench_hist *hist;
static int nthreads;

static int
setup (int n, const char *param)
{
  if (param == NULL || strcmp (param, "empty") == 0)
    churn = empty;
  else if (strcmp (param, "work") == 0)
    churn = work;
  else if (strcmp (param, "clone") == 0)
    churn = bare;
  else
    {
      fprintf (stderr, "create-latency: unknown parameter '%s' (empty, work"
               " or clone)\n", param);
      return 2;
    }
  hist = aligned_alloc (128, n * sizeof *hist);
  if (hist == NULL)
    return 1;
  memset (hist, 0, n * sizeof *hist);
  nthreads = n;
  bench_extra_threads = n;
  return 0;
}

static void *
empty_body (void *arg)
{
  return arg;
}

static void
run (struct bench_thread *self)
{
  struct bench_hist *h = &hist[self->id];
  char *stack = churn == bare ? bench_clone_stack () : NULL;
  if (churn == bare && stack == NULL)
    abort ();
  while (!bench_stopped ())
    {
      pthread_t t;
      volatile pid_t tid;
      unsigned long long t0 = bench_now_ns ();
      int e = churn == bare ? bench_clone_start (stack, &tid, 0)
              : pthread_create (&t, NULL,
                                churn == work ? bench_seed_unit : empty_body,
                                NULL);
      unsigned long long ns = bench_now_ns () - t0;
      if (e != 0)
        {
          bench_create_failed (e);
          continue;
        }
      if (atomic_load_explicit (&bench_measuring, memory_order_relaxed))
        bench_hist_add (h, ns);
      if (churn == bare)
        bench_clone_wait (&tid);
      else if (pthread_join (t, NULL) != 0)
        abort ();
      bench_count (self);
    }
  if (stack != NULL)
    munmap (stack, bench_clone_stack_size);
}

static void
report (FILE *out)
{
  fprintf (out, ", ");
  bench_hist_print (out, "create_latency", hist, nthreads);
}

const struct bench_case bench_case = { "create-latency", "create+join",
                                       setup, run, NULL, report,
                                       .start_at_once = 1 };
