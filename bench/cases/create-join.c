/* One operation: pthread_create of a thread with default attributes (so
   the default stack size), then pthread_join.  The thread's body is empty,
   or with -p touch=KIB it first writes KIB KiB of its stack, page by page,
   as a thread with a deep call chain would.  */
#include "../bench.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t touch;

static int
setup (int nthreads, const char *param)
{
  unsigned long kib = 0;
  char end;
  if (param != NULL && *param != '\0'
      && (sscanf (param, "touch=%lu%c", &kib, &end) != 1 || kib > 4096))
    {
      fprintf (stderr, "create-join: bad parameter '%s' (touch=KIB, at most 4096)\n",
               param);
      return 1;
    }
  touch = kib * 1024;
  return 0;
}

static void *
body (void *arg)
{
  if (touch > 0)
    {
      volatile char buf[touch];
      memset ((char *) buf, 1, touch);
      return (void *) (long) buf[touch / 2];
    }
  return arg;
}

static void
run (struct bench_thread *self)
{
  while (!bench_stopped ())
    {
      pthread_t t;
      if (pthread_create (&t, NULL, body, NULL) != 0
          || pthread_join (t, NULL) != 0)
        abort ();
      bench_count (self);
    }
}

const struct bench_case bench_case = { "create-join", "create+join", setup, run, NULL };
