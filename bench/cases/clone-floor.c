/* The floor under create-join: one operation is a thread made with the bare
   clone system call on a stack allocated once per creator, which exits at
   once, and a wait for the kernel to clear its TID (CLONE_CHILD_CLEARTID),
   as pthread_join does (bench/clone.h).  No TLS, no stack cache, no signal
   masking.  */
#define _GNU_SOURCE
#include "../bench.h"
#include "../clone.h"

static void
run (struct bench_thread *self)
{
  char *stack = bench_clone_stack ();
  if (stack == NULL)
    abort ();
  while (!bench_stopped ())
    {
      volatile pid_t tid;
      int e = bench_clone_start (stack, &tid);
      if (e != 0)
        {
          bench_create_failed (e);
          continue;
        }
      bench_clone_wait (&tid);
      bench_count (self);
    }
  munmap (stack, bench_clone_stack_size);
}

static int
setup (int nthreads, const char *param)
{
  bench_extra_threads = nthreads;
  return 0;
}

const struct bench_case bench_case = { "clone-floor", "clone+wait", setup, run, NULL,
                                       .ramp_up = 1 };
