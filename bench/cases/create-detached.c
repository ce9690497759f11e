/* One operation: pthread_create of a detached thread, as a server that
   starts a thread per connection does (MariaDB's one-thread-per-connection,
   Python's ThreadingHTTPServer), and a wait for that thread to say it is
   done.  The creator then creates the next one while the thread exits: the
   exit and its return of the stack to the cache overlap the next create,
   as in a server under connection churn.  Nobody joins: the stack goes
   back to the cache from the exiting thread itself.  With -p stack=KIB the
   attribute also sets that stack size (MariaDB's thread_stack is 292 KiB);
   the default is the default stack size.  */
#include "../bench.h"
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

struct done
{
  sem_t sem;
} __attribute__ ((aligned (128)));

static struct done *done;
static pthread_attr_t attr;

static int
setup (int nthreads, const char *param)
{
  unsigned long kib = 0;
  char end;
  /* A creator's thread until it posts; threads past their post that are
     still exiting are the tasks above the live count that the report
     shows.  */
  bench_extra_threads = nthreads;
  done = aligned_alloc (128, nthreads * sizeof *done);
  if (done == NULL)
    abort ();
  for (int i = 0; i < nthreads; i++)
    if (sem_init (&done[i].sem, 0, 0) != 0)
      abort ();
  if (pthread_attr_init (&attr) != 0
      || pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED) != 0)
    abort ();
  if (param == NULL || *param == '\0')
    return 0;
  if (sscanf (param, "stack=%lu%c", &kib, &end) != 1 || kib < 64 || kib > 65536
      || pthread_attr_setstacksize (&attr, kib * 1024) != 0)
    {
      fprintf (stderr, "create-detached: bad parameter '%s' (stack=KIB,"
               " 64 to 65536 and at least PTHREAD_STACK_MIN)\n", param);
      return 1;
    }
  return 0;
}

static void *
body (void *arg)
{
  bench_label_self ();
  sem_post (&((struct done *) arg)->sem);
  return NULL;
}

static void
run (struct bench_thread *self)
{
  struct done *d = &done[self->id];
  while (!bench_stopped ())
    {
      pthread_t t;
      int e = pthread_create (&t, &attr, body, d);
      if (e != 0)
        {
          bench_create_failed (e);
          continue;
        }
      while (sem_wait (&d->sem) != 0)
        ;
      bench_count (self);
    }
}

const struct bench_case bench_case = { "create-detached", "create (detached)", setup, run,
                                       NULL, .ramp_up = 1 };
