/* Two sides of threads passing a turn back and forth through a mutex and
   a condition variable in shared memory (process-shared, for tests whose
   sides are processes).  Each waiter waits with a timeout of 10 s, so a
   lost wake-up is a failure rather than a hang.  */
#ifndef NPTL_SCALE_PINGPONG_H
#define NPTL_SCALE_PINGPONG_H

#include "check.h"

struct pingpong
{
  pthread_mutex_t m;
  pthread_cond_t c;
  long turn;                    /* even: side 0's move, odd: side 1's.  */
  long end;
  int broadcast;                /* wake with broadcast, else signal.  */
};

static struct pingpong *pingpong;

/* Initialize PP, process-shared, for END turns.  */
static void
pingpong_init (struct pingpong *pp, long end, int broadcast)
{
  pthread_mutexattr_t ma;
  pthread_condattr_t ca;
  memset (pp, 0, sizeof *pp);
  XPT (pthread_mutexattr_init (&ma));
  XPT (pthread_mutexattr_setpshared (&ma, PTHREAD_PROCESS_SHARED));
  XPT (pthread_condattr_init (&ca));
  XPT (pthread_condattr_setpshared (&ca, PTHREAD_PROCESS_SHARED));
  XPT (pthread_mutex_init (&pp->m, &ma));
  XPT (pthread_cond_init (&pp->c, &ca));
  pp->end = end;
  pp->broadcast = broadcast;
  pingpong = pp;
}

/* Take the turns of one side (PARITY) until the end.  */
static void *
pingpong_play (void *arg)
{
  long parity = (long) arg;
  struct pingpong *pp = pingpong;
  XPT (pthread_mutex_lock (&pp->m));
  while (pp->turn < pp->end)
    {
      if ((pp->turn & 1) == parity)
        {
          pp->turn++;
          XPT (pp->broadcast ? pthread_cond_broadcast (&pp->c)
               : pthread_cond_signal (&pp->c));
          continue;
        }
      struct timespec ts;
      clock_gettime (CLOCK_REALTIME, &ts);
      ts.tv_sec += 10;
      int e = pthread_cond_timedwait (&pp->c, &pp->m, &ts);
      if (e == ETIMEDOUT)
        check_fail (__FILE__, __LINE__, "side %ld stalled at turn %ld (%s)",
                    parity, pp->turn, pp->broadcast ? "broadcast" : "signal");
      XPT (e);
    }
  XPT (pthread_cond_broadcast (&pp->c));
  XPT (pthread_mutex_unlock (&pp->m));
  return NULL;
}

/* Play side PARITY with NTHREADS threads; return when the game is over.  */
static void
pingpong_side (long parity, int nthreads)
{
  pthread_t t[nthreads];
  for (int i = 0; i < nthreads; i++)
    XPT (pthread_create (&t[i], NULL, pingpong_play, (void *) parity));
  for (int i = 0; i < nthreads; i++)
    XPT (pthread_join (t[i], NULL));
}

#endif
