/* Degenerate, on purpose: a bounded queue (16 items) on one mutex and two
   condition variables whose threads take the mutex once and release it
   only inside pthread_cond_wait, doing nothing else.  The mutex is never
   free, so every item is a condvar hand-off under contention: the
   condvar's worst case, not a pattern of use (cond-queue is the thread
   pool shape).  -p P:C:signal or P:C:broadcast; the thread count must be
   P + C.  One operation is one item consumed.  */
#include "../bench.h"
#include "../pc.h"
#include <pthread.h>

enum { cap = 16 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static int queued;

static int
setup (int n, const char *param)
{
  return pc_setup ("cond-handoff", n, param, NULL);
}

static void
run (struct bench_thread *self)
{
  int producer = self->id < pc_producers;
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
          pc_wake (&not_empty);
        }
      else
        {
          if (queued == 0)
            {
              pthread_cond_wait (&not_empty, &lock);
              continue;
            }
          queued--;
          pc_wake (&not_full);
          bench_count (self);
        }
    }
  pthread_mutex_unlock (&lock);
}

static void
wake (void)
{
  pc_wake_all (&lock, &not_empty, &not_full);
}

const struct bench_case bench_case = { "cond-handoff", "item", setup, run, wake };
