/* The floor under create-join: one operation is a thread made with the bare
   clone system call on a stack allocated once per creator, which exits at
   once, and a wait for the kernel to clear its TID (CLONE_CHILD_CLEARTID),
   as pthread_join does (bench/clone.h): no TLS, no stack cache.  The -p
   parameter:
     (none)  the bare clone and wait, no signal masking: what the kernel
             alone costs;
     calls   the same thread, but it and its creator also make the system
             calls that a glibc thread makes without a stack to map or
             release (rt_sigprocmask around the clone; rseq,
             set_robust_list and two rt_sigprocmask in the thread): the
             floor of any pthread_create that keeps those semantics.  */
#define _GNU_SOURCE
#include <string.h>
#include "../bench.h"
#include "../clone.h"

static int calls;

static void
run (struct bench_thread *self)
{
  char *stack = bench_clone_stack ();
  if (stack == NULL)
    abort ();
  while (!bench_stopped ())
    {
      volatile pid_t tid;
      int e = bench_clone_start (stack, &tid, calls);
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
  if (param != NULL && strcmp (param, "calls") == 0)
    calls = 1;
  else if (param != NULL && param[0] != '\0')
    {
      fprintf (stderr, "clone-floor: unknown parameter '%s' (calls or none)\n",
               param);
      return 2;
    }
  bench_extra_threads = nthreads;
  return 0;
}

const struct bench_case bench_case = { "clone-floor", "clone+wait", setup, run, NULL,
                                       .ramp_up = 1 };
