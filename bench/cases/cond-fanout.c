/* Broadcast fan-out: thread 0 starts a round by bumping a generation and
   broadcasting; every other thread waits for the new generation and
   acknowledges; thread 0 waits for all acknowledgements on a second
   condition variable.  One operation is one complete round.  */
#include "../bench.h"
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER;
static pthread_cond_t done = PTHREAD_COND_INITIALIZER;
static unsigned long generation;
static int acks, waiters;

static int
setup (int n, const char *param)
{
  waiters = n - 1;
  return 0;
}

static void
run (struct bench_thread *self)
{
  pthread_mutex_lock (&lock);
  if (self->id == 0)
    while (!bench_stopped ())
      {
        acks = 0;
        generation++;
        pthread_cond_broadcast (&go);
        while (acks < waiters && !bench_stopped ())
          pthread_cond_wait (&done, &lock);
        bench_count (self);
      }
  else
    {
      /* Generations start at 0; thread 0 waits for every ack before it
         starts the next one, so no waiter can miss one.  */
      unsigned long seen = 0;
      while (!bench_stopped ())
        {
          if (generation == seen)
            {
              pthread_cond_wait (&go, &lock);
              continue;
            }
          seen = generation;
          if (++acks == waiters)
            pthread_cond_signal (&done);
        }
    }
  pthread_mutex_unlock (&lock);
}

static void
wake (void)
{
  pthread_mutex_lock (&lock);
  pthread_cond_broadcast (&go);
  pthread_cond_broadcast (&done);
  pthread_mutex_unlock (&lock);
}

const struct bench_case bench_case = { "cond-fanout", "broadcast round", setup, run, wake };
