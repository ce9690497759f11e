/* Degenerate, on purpose: a bounded queue (16 items) on one mutex and two
   condition variables whose threads take the mutex once and release it
   only inside pthread_cond_wait, doing nothing else.  The mutex is never
   free, so every item is a condvar hand-off under contention: the
   condvar's worst case, not a pattern of use (cond-queue is the thread
   pool shape).  -p P:C:signal or P:C:broadcast; the thread count must be
   P + C.  One operation is one item consumed.  */
#include "../bench.h"
#include <pthread.h>
#include <stdio.h>
#include <string.h>

enum { cap = 16 };

static int producers;
static int broadcast;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static int queued;

static int
setup (int n, const char *param)
{
  int p, c;
  char how[16];
  if (param == NULL || sscanf (param, "%d:%d:%15s", &p, &c, how) != 3
      || p < 1 || c < 1 || p + c != n
      || (strcmp (how, "signal") != 0 && strcmp (how, "broadcast") != 0))
    {
      fprintf (stderr, "cond-handoff: -p P:C:signal|broadcast with P + C = -t\n");
      return 2;
    }
  producers = p;
  broadcast = how[0] == 'b';
  return 0;
}

static void
wake_one (pthread_cond_t *c)
{
  if (broadcast)
    pthread_cond_broadcast (c);
  else
    pthread_cond_signal (c);
}

static void
run (struct bench_thread *self)
{
  int producer = self->id < producers;
  pthread_mutex_lock (&lock);
  while (!bench_stopped ())
    {
      if (producer)
        {
          if (queued == cap)
            {
              pthread_cond_wait (&not_full, &lock);
              continue;
            }
          queued++;
          wake_one (&not_empty);
        }
      else
        {
          if (queued == 0)
            {
              pthread_cond_wait (&not_empty, &lock);
              continue;
            }
          queued--;
          wake_one (&not_full);
          bench_count (self);
        }
    }
  pthread_mutex_unlock (&lock);
}

static void
wake (void)
{
  pthread_mutex_lock (&lock);
  pthread_cond_broadcast (&not_empty);
  pthread_cond_broadcast (&not_full);
  pthread_mutex_unlock (&lock);
}

const struct bench_case bench_case = { "cond-handoff", "item", setup, run, wake };
