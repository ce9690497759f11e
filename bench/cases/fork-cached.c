/* One operation: fork, _exit in the child, waitpid in the parent, in a
   process whose stack cache holds the stacks of many threads that have
   come and gone, as a server that runs short-lived threads and spawns
   helper processes (a backup, a compressor, a shell command) has.  With
   -p cached=N (default 1000; 0 for the baseline), setup runs N threads
   with 16 KiB stacks at once and joins them, which leaves N stacks in the
   cache (within the default cache size).  The child of fork does
   glibc's bookkeeping of the stack lists before it can _exit; this
   measures whether that grows with the cache.  Copyright The GNU
   Toolchain Authors.  */
#include "../bench.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_barrier_t barrier;

static void *
worker (void *arg)
{
  pthread_barrier_wait (&barrier);
  return arg;
}

static int
setup (int nthreads, const char *param)
{
  unsigned long n = 1000;
  char end;
  if (param != NULL && *param != '\0'
      && (sscanf (param, "cached=%lu%c", &n, &end) != 1 || n > 100000))
    {
      fprintf (stderr, "fork-cached: bad parameter '%s' (cached=N, at"
               " most 100000)\n", param);
      return 1;
    }
  if (n == 0)
    return 0;

  pthread_t *threads = calloc (n, sizeof *threads);
  pthread_attr_t attr;
  if (threads == NULL || pthread_attr_init (&attr) != 0
      || pthread_attr_setstacksize (&attr, 16384) != 0
      || pthread_barrier_init (&barrier, NULL, n + 1) != 0)
    return 1;
  for (unsigned long i = 0; i < n; ++i)
    if (pthread_create (&threads[i], &attr, worker, NULL) != 0)
      {
        fprintf (stderr, "fork-cached: thread %lu of %lu not created\n",
                 i, n);
        return 1;
      }
  pthread_barrier_wait (&barrier);
  for (unsigned long i = 0; i < n; ++i)
    pthread_join (threads[i], NULL);
  pthread_barrier_destroy (&barrier);
  pthread_attr_destroy (&attr);
  free (threads);
  return 0;
}

static void
run (struct bench_thread *self)
{
  while (!bench_stopped ())
    {
      pid_t pid = fork ();
      if (pid == 0)
        _exit (0);
      int status;
      if (pid < 0 || waitpid (pid, &status, 0) != pid
          || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
        abort ();
      bench_count (self);
    }
}

const struct bench_case bench_case = { "fork-cached", "fork+exit+wait",
                                       setup, run, NULL };
