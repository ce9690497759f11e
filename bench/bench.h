/* The contract between the benchmark driver (driver.c) and one benchmark
   case (cases/NAME.c), after will-it-scale: a case says what one operation
   is and provides the loop of one thread; the driver starts the threads
   behind a barrier, samples their counters and prints one summary line.  */
#ifndef NPTL_SCALE_BENCH_H
#define NPTL_SCALE_BENCH_H

#include <stdatomic.h>

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
};

extern const struct bench_case bench_case;
extern atomic_int bench_stop;

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

#endif
