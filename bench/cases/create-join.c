/* One operation: pthread_create of a thread with an empty body (default
   attributes, so the default stack size), then pthread_join.  */
#include "../bench.h"
#include <pthread.h>
#include <stdlib.h>

static void *
empty (void *arg)
{
  return arg;
}

static void
run (struct bench_thread *self)
{
  while (!bench_stopped ())
    {
      pthread_t t;
      if (pthread_create (&t, NULL, empty, NULL) != 0
          || pthread_join (t, NULL) != 0)
        abort ();
      bench_count (self);
    }
}

const struct bench_case bench_case = { "create-join", "create+join", NULL, run, NULL };
