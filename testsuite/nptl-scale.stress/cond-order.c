/* Signal ordering (the property at issue in BZ 13165): a waiter that was
   blocked before pthread_cond_signal must be the one woken; a thread that
   starts waiting after the signal must not take the wake-up from it.

   Each round: A waits; the main thread, holding the mutex (so A is known to
   be blocked), signals once, then B starts waiting.  A must return; B must
   still be waiting when A has returned, and is released by a second
   signal.

   The pre-2.25 algorithm (glibc.pthread.cond_legacy=1) passes this simple
   case too: a waiter only takes wake-ups granted after it started to wait.
   It loses the property when a cancelled or timed-out waiter grants an
   extra wake-up; glibc's nptl/tst-cond-steal (patch family 2) builds that
   case deterministically.  */
#include "../lib/check.h"
#include <stdatomic.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int waiting[2], woken[2];
static int round_no;

static void *
waiter (void *arg)
{
  int id = (long) arg, r;
  XPT (pthread_mutex_lock (&m));
  r = round_no;
  waiting[id] = 1;
  while (round_no == r && !woken[id])
    {
      XPT (pthread_cond_wait (&c, &m));
      /* Any return counts as this waiter consuming a wake-up.  */
      woken[id] = 1;
    }
  XPT (pthread_mutex_unlock (&m));
  return NULL;
}

int
main (void)
{
  double deadline = now () + stress_seconds ();
  long rounds = 0;
  while (now () < deadline)
    {
      pthread_t a, b;
      XPT (pthread_mutex_lock (&m));
      waiting[0] = waiting[1] = woken[0] = woken[1] = 0;
      XPT (pthread_mutex_unlock (&m));
      XPT (pthread_create (&a, NULL, waiter, (void *) 0L));
      /* Wait until A is blocked in pthread_cond_wait: it set waiting[0] and
         released the mutex inside the wait.  */
      for (;;)
        {
          XPT (pthread_mutex_lock (&m));
          if (waiting[0])
            break;
          XPT (pthread_mutex_unlock (&m));
          sched_yield ();
        }
      XPT (pthread_cond_signal (&c));
      XPT (pthread_mutex_unlock (&m));
      XPT (pthread_create (&b, NULL, waiter, (void *) 1L));
      /* A must finish even though B may have started waiting.  */
      struct timespec ts;
      clock_gettime (CLOCK_REALTIME, &ts);
      ts.tv_sec += 10;
      int e = pthread_timedjoin_np (a, NULL, &ts);
      if (e == ETIMEDOUT)
        check_fail (__FILE__, __LINE__, "round %ld: the signalled waiter was "
                    "not woken; the later waiter took its wake-up", rounds);
      XPT (e);
      XPT (pthread_mutex_lock (&m));
      /* Spurious wake-ups are allowed, so B may have returned too; but the
         one signal must have reached A.  */
      TEST_VERIFY (woken[0]);
      woken[1] = 1;
      round_no++;
      XPT (pthread_cond_broadcast (&c));
      XPT (pthread_mutex_unlock (&m));
      XPT (pthread_join (b, NULL));
      rounds++;
    }
  printf ("%ld rounds\n", rounds);
  TEST_VERIFY (rounds > 0);
  return 0;
}
