/* An event, as MySQL's InnoDB uses them (os_event_t): a flag and a signal
   count under a mutex, set with a broadcast.  Thread 0 does a batch of
   work (-p WORK bench_work steps, default 20000, about 20 us), then sets
   the event; every other thread waits for the count to change, then does
   its own share of work (WORK / 10) outside the mutex and waits again, as
   threads waiting for a log flush or a buffer pool page do.  One
   operation is one wake-up taken by a waiter.  */
#include "../bench.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned int work = 20000;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static unsigned long signal_count;

static int
setup (int n, const char *param)
{
  if (n < 2)
    {
      fprintf (stderr, "cond-event: needs -t 2 or more\n");
      return 2;
    }
  if (param != NULL && *param != '\0')
    work = strtoul (param, NULL, 10);
  return 0;
}

static void
run (struct bench_thread *self)
{
  unsigned long seed = self->id;
  if (self->id == 0)
    while (!bench_stopped ())
      {
        seed = bench_work (seed, work);
        pthread_mutex_lock (&lock);
        signal_count++;
        pthread_cond_broadcast (&cond);
        pthread_mutex_unlock (&lock);
      }
  else
    {
      pthread_mutex_lock (&lock);
      unsigned long seen = signal_count;
      pthread_mutex_unlock (&lock);
      while (!bench_stopped ())
        {
          pthread_mutex_lock (&lock);
          while (signal_count == seen && !bench_stopped ())
            pthread_cond_wait (&cond, &lock);
          seen = signal_count;
          pthread_mutex_unlock (&lock);
          seed = bench_work (seed, work / 10);
          bench_count (self);
        }
    }
}

static void
wake (void)
{
  pthread_mutex_lock (&lock);
  pthread_cond_broadcast (&cond);
  pthread_mutex_unlock (&lock);
}

const struct bench_case bench_case = { "cond-event", "wake-up", setup, run, wake };
