/* Ping-pong between the threads of a pair through one mutex and one
   condition variable: each thread waits for its turn, flips it and
   signals.  The thread count must be even (pairs run independently, each
   on its own cache lines).  One operation is one round trip, counted by
   the first thread of each pair; latency = 1 / rate per pair.  */
#include "../bench.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct pair
{
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int turn;
} __attribute__ ((aligned (128)));

static struct pair *pairs;
static int npairs;

static int
setup (int n, const char *param)
{
  if (n % 2 != 0)
    {
      fprintf (stderr, "cond-pingpong: the thread count must be even\n");
      return 2;
    }
  npairs = n / 2;
  pairs = aligned_alloc (128, npairs * sizeof *pairs);
  if (pairs == NULL)
    abort ();
  for (int i = 0; i < npairs; i++)
    {
      pthread_mutex_init (&pairs[i].lock, NULL);
      pthread_cond_init (&pairs[i].cond, NULL);
      pairs[i].turn = 0;
    }
  return 0;
}

static void
run (struct bench_thread *self)
{
  struct pair *p = &pairs[self->id / 2];
  int me = self->id % 2;
  pthread_mutex_lock (&p->lock);
  while (!bench_stopped ())
    {
      if (p->turn != me)
        {
          pthread_cond_wait (&p->cond, &p->lock);
          continue;
        }
      p->turn = !me;
      pthread_cond_signal (&p->cond);
      if (me == 0)
        bench_count (self);
    }
  pthread_mutex_unlock (&p->lock);
}

static void
wake (void)
{
  for (int i = 0; i < npairs; i++)
    {
      pthread_mutex_lock (&pairs[i].lock);
      pthread_cond_broadcast (&pairs[i].cond);
      pthread_mutex_unlock (&pairs[i].lock);
    }
}

const struct bench_case bench_case = { "cond-pingpong", "round trip", setup, run, wake };
