/* A thread pool's job queue: a bounded queue of 64 items on one mutex and
   two condition variables, shared by P producers and C consumers.  Each
   put and each get takes the mutex for one item, waits while the queue is
   full (empty), signals (or broadcasts to) the other side, releases the
   mutex, and does the item's work outside it.  -p P:C:signal|broadcast or
   P:C:HOW:WORK, with P + C = -t; WORK is the item's work on each side in
   bench_work steps (default 1000, about 1 us).  One operation is one item
   consumed.  */
#include "../bench.h"
#include "../pc.h"
#include <pthread.h>

enum { cap = 64 };

static unsigned int work = 1000;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static unsigned long slots[cap];
static unsigned int head, count;

static int
setup (int n, const char *param)
{
  return pc_setup ("cond-queue", n, param, &work);
}

static void
run (struct bench_thread *self)
{
  unsigned long item = self->id;
  if (self->id < pc_producers)
    while (!bench_stopped ())
      {
        item = bench_work (item, work);
        pthread_mutex_lock (&lock);
        while (count == cap && !bench_stopped ())
          pthread_cond_wait (&not_full, &lock);
        slots[(head + count++) % cap] = item;
        pc_wake (&not_empty);
        pthread_mutex_unlock (&lock);
      }
  else
    while (!bench_stopped ())
      {
        pthread_mutex_lock (&lock);
        while (count == 0 && !bench_stopped ())
          pthread_cond_wait (&not_empty, &lock);
        if (count == 0)
          {
            pthread_mutex_unlock (&lock);
            break;
          }
        item = slots[head];
        head = (head + 1) % cap;
        count--;
        pc_wake (&not_full);
        pthread_mutex_unlock (&lock);
        bench_work (item, work);
        bench_count (self);
      }
}

static void
wake (void)
{
  pc_wake_all (&lock, &not_empty, &not_full);
}

const struct bench_case bench_case = { "cond-queue", "item", setup, run, wake };
