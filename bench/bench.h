/* The contract between the benchmark driver (driver.c) and one benchmark
   case (cases/NAME.c), after will-it-scale: a case says what one operation
   is and provides the loop of one thread; the driver starts the threads
   behind a barrier, samples their counters and prints one summary line.  */
#ifndef NPTL_SCALE_BENCH_H
#define NPTL_SCALE_BENCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct bench_thread
{
  int id;                       /* 0 .. nthreads - 1 */
  int nthreads;
  /* Operations done by this thread; the thread alone writes it.  */
  _Atomic unsigned long ops;
} __attribute__ ((aligned (128)));

struct bench_case
{
  const char *name;
  const char *unit;             /* what one operation is */
  /* Once, before the threads start; PARAM is the -p argument (or NULL).
     Returns 0, or 77 if the case cannot run here.  */
  int (*setup) (int nthreads, const char *param);
  /* The body of each thread: repeat the operation, counting each one with
     bench_count, until bench_stopped.  */
  void (*run) (struct bench_thread *self);
  /* After the stop flag is set: wake threads that may be blocked.  */
  void (*wake) (void);
  /* After the threads are joined, or NULL: print the case's own members
     of the result line (',"NAME": VALUE...', each with a leading comma).  */
  void (*report) (FILE *out);
  /* Nonzero: each thread starts its loop as soon as it is created, as a
     program that spawns its workers one by one does, instead of behind the
     driver's start barrier; the creation of the later threads then runs
     while the earlier ones work.  */
  int start_at_once;
  /* Nonzero: the warm-up begins only when every thread has counted its
     first operation (at most BENCH_RAMP_LIMIT_S after the start), because
     a thread's first operation pays for what its later ones reuse (its
     first create maps a new stack) and, with many threads on few CPUs,
     the last thread gets there long after the first.  The driver reports
     the time it took (ramp_s), so that the start is measured, not
     hidden.  */
  int ramp_up;
};

/* The longest the driver waits for every thread's first operation.  */
#define BENCH_RAMP_LIMIT_S 10.0

extern const struct bench_case bench_case;
extern atomic_int bench_stop;
/* Set by the driver while it measures (after the warm-up, until the stop
   flag): a case that records a distribution records only then.  */
extern atomic_int bench_measuring;
/* The threads the case has alive at most besides the driver's (a child
   per thread that creates and joins one, idle waiters): set by its setup,
   and what the driver counts as live when it reports the tasks of the
   process.  */
extern int bench_extra_threads;

/* A case's pthread_create (or clone) failed with ERR.  EAGAIN (no task or
   PID free, which the kernel's late release of exited threads causes):
   the driver counts it (the result line reports it) and sleeps a
   millisecond, and the caller tries again, as a server would.  Another
   error is not one of resources: the driver prints it and exits.  */
void bench_create_failed (int err);

/* Create a thread running FN with default attributes and join it: 1, or 0
   after a failed create (bench_create_failed).  */
static inline int
bench_spawn_join (void *(*fn) (void *))
{
  pthread_t t;
  int e = pthread_create (&t, NULL, fn, NULL);
  if (e != 0)
    {
      bench_create_failed (e);
      return 0;
    }
  if (pthread_join (t, NULL) != 0)
    abort ();
  return 1;
}

static inline int
bench_stopped (void)
{
  return atomic_load_explicit (&bench_stop, memory_order_relaxed);
}

static inline void
bench_count (struct bench_thread *self)
{
  atomic_store_explicit (&self->ops,
                         atomic_load_explicit (&self->ops,
                                               memory_order_relaxed) + 1,
                         memory_order_relaxed);
}

/* The target's hint for a busy-wait loop (x86 pause, Arm yield), or a
   compiler barrier where there is none.  */
static inline void
bench_cpu_relax (void)
{
#if defined __x86_64__ || defined __i386__
  __builtin_ia32_pause ();
#elif defined __aarch64__
  __asm__ volatile ("yield" ::: "memory");
#else
  __asm__ volatile ("" ::: "memory");
#endif
}

/* ITERS steps of a computation that the compiler cannot remove: the work
   a thread does on an item outside any lock.  */
static inline unsigned long
bench_work (unsigned long seed, unsigned int iters)
{
  for (unsigned int i = 0; i < iters; i++)
    {
      seed = seed * 6364136223846793005ul + 1442695040888963407ul;
      __asm__ ("" : "+r" (seed));
    }
  return seed;
}

/* Under make linetraffic (bench/linetraffic/lines.c), the driver sets
   bench_lines (from NPTL_SCALE_LINES in the environment) and tells the
   plugin where libc.so and ld.so are loaded; a thread names its own
   descriptor with bench_label_self, so that the plugin counts transfers
   by its fields.  The system call does not exist: the plugin sees it, the
   kernel (qemu) answers ENOSYS.  */
extern int bench_lines;
enum { bench_lines_syscall = 0x4e50, bench_lines_module = 1,
       bench_lines_object = 2 };
enum { bench_module_libc = 0, bench_module_ldso = 1 };
enum { bench_type_pthread = 0 };

static inline void
bench_label_self (void)
{
  if (bench_lines)
    syscall (bench_lines_syscall, bench_lines_object, bench_type_pthread,
             (long) pthread_self ());
}

static inline unsigned long long
bench_now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The seed report's work unit (TiFlash): 20 memcpy calls of 1,000,000
   bytes between buffers allocated for the call, as in the report: each
   unit touches fresh memory.  */
enum { bench_copy_size = 1000000, bench_copies = 20 };

static inline void *
bench_seed_unit (void *arg)
{
  bench_label_self ();
  char *src = malloc (bench_copy_size), *dst = malloc (bench_copy_size);
  if (src == NULL || dst == NULL)
    abort ();
  memset (src, 1, bench_copy_size);
  for (int i = 0; i < bench_copies; i++)
    {
      memcpy (dst, src, bench_copy_size);
      __asm__ volatile ("" : : "r" (dst) : "memory");
    }
  free (src);
  free (dst);
  return arg;
}

/* A latency histogram that one thread writes: log-linear buckets, 16 per
   power of two from 64 ns, so a percentile read from it is at most 1/16
   (6.25%) above the true value; the maximum is kept exactly.  */
enum { bench_hist_sub = 16, bench_hist_min_log = 6, bench_hist_logs = 32 };

struct bench_hist
{
  unsigned long count[bench_hist_logs * bench_hist_sub];
  unsigned long long max_ns, n;
} __attribute__ ((aligned (128)));

static inline void
bench_hist_add (struct bench_hist *h, unsigned long long ns)
{
  int log = 63 - __builtin_clzll (ns | 1);
  int i;
  if (log < bench_hist_min_log)
    i = 0;
  else
    {
      int sub = (int) ((ns >> (log - 4)) & (bench_hist_sub - 1));
      i = (log - bench_hist_min_log) * bench_hist_sub + sub;
      if (i >= bench_hist_logs * bench_hist_sub)
        i = bench_hist_logs * bench_hist_sub - 1;
    }
  h->count[i]++;
  h->n++;
  if (ns > h->max_ns)
    h->max_ns = ns;
}

/* The upper bound in ns of bucket I.  */
static inline double
bench_hist_bound (int i)
{
  int log = i / bench_hist_sub + bench_hist_min_log;
  int sub = i % bench_hist_sub;
  return (double) (1ull << log) * (1 + (sub + 1) / (double) bench_hist_sub);
}

/* Print '"NAME": {"n": N, "p50_ns": ..., "p99_ns": ..., "max_ns": ...}'
   for the sum of the N histograms H.  */
static inline void
bench_hist_print (FILE *out, const char *name, const struct bench_hist *h,
                  int n)
{
  static struct bench_hist sum;
  memset (&sum, 0, sizeof sum);
  for (int t = 0; t < n; t++)
    {
      for (int i = 0; i < bench_hist_logs * bench_hist_sub; i++)
        sum.count[i] += h[t].count[i];
      sum.n += h[t].n;
      if (h[t].max_ns > sum.max_ns)
        sum.max_ns = h[t].max_ns;
    }
  fprintf (out, "\"%s\": {\"n\": %llu", name, sum.n);
  static const struct { const char *name; double q; } qs[]
    = { { "p50_ns", 0.5 }, { "p99_ns", 0.99 }, { "p999_ns", 0.999 } };
  for (int k = 0; k < 3; k++)
    {
      unsigned long long rank = (unsigned long long) (qs[k].q * sum.n), seen = 0;
      int i = 0;
      for (; i < bench_hist_logs * bench_hist_sub - 1; i++)
        if ((seen += sum.count[i]) > rank)
          break;
      double v = bench_hist_bound (i);
      fprintf (out, ", \"%s\": %.0f", qs[k].name,
               sum.n == 0 ? 0 : v < sum.max_ns ? v : (double) sum.max_ns);
    }
  fprintf (out, ", \"max_ns\": %llu}", sum.max_ns);
}

#endif
