/* Lost-wakeup detector: a bounded queue with more producers and consumers
   than CPUs, each side waiting on its own condition variable and woken by
   pthread_cond_signal only.  If a wake-up is lost (as in BZ 25847) the queue
   stalls with items queued and consumers asleep, or with space free and
   producers asleep; a watchdog that sees no progress for 10 seconds reports
   the state and fails.  A second round uses pthread_cond_broadcast.  */
#include "../lib/check.h"
#include <stdatomic.h>
#include <unistd.h>

#define CAP 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static int queued, done, use_broadcast;
static atomic_long produced, consumed;

static void
wake (pthread_cond_t *c)
{
  if (use_broadcast)
    XPT (pthread_cond_broadcast (c));
  else
    XPT (pthread_cond_signal (c));
}

static void *
producer (void *arg)
{
  long i = 0;
  XPT (pthread_mutex_lock (&lock));
  while (!done)
    {
      if (queued == CAP)
        {
          XPT (pthread_cond_wait (&not_full, &lock));
          continue;
        }
      queued++;
      atomic_fetch_add (&produced, 1);
      /* Alternate signalling with and without the mutex held.  */
      if (++i & 1)
        wake (&not_empty);
      else
        {
          XPT (pthread_mutex_unlock (&lock));
          wake (&not_empty);
          XPT (pthread_mutex_lock (&lock));
        }
    }
  XPT (pthread_mutex_unlock (&lock));
  return arg;
}

static void *
consumer (void *arg)
{
  XPT (pthread_mutex_lock (&lock));
  while (!done || queued > 0)
    {
      if (queued == 0)
        {
          if (done)
            break;
          XPT (pthread_cond_wait (&not_empty, &lock));
          continue;
        }
      queued--;
      atomic_fetch_add (&consumed, 1);
      wake (&not_full);
    }
  XPT (pthread_mutex_unlock (&lock));
  return arg;
}

static void
round_ (int broadcast, int np, int nc, double seconds)
{
  pthread_t p[np], c[nc];
  use_broadcast = broadcast;
  done = 0;
  for (int i = 0; i < np; i++)
    XPT (pthread_create (&p[i], NULL, producer, NULL));
  for (int i = 0; i < nc; i++)
    XPT (pthread_create (&c[i], NULL, consumer, NULL));
  double end = now () + seconds, last_change = now ();
  long last = -1;
  while (now () < end)
    {
      usleep (10000);
      long total = atomic_load (&produced) + atomic_load (&consumed);
      if (total != last)
        {
          last = total;
          last_change = now ();
        }
      else if (now () - last_change > 10)
        {
          pthread_mutex_lock (&lock);
          check_fail (__FILE__, __LINE__,
                      "no progress for 10 s (%s): %d queued of %d, %ld "
                      "produced, %ld consumed: a wake-up was lost",
                      broadcast ? "broadcast" : "signal", queued, CAP,
                      atomic_load (&produced), atomic_load (&consumed));
        }
    }
  XPT (pthread_mutex_lock (&lock));
  done = 1;
  XPT (pthread_cond_broadcast (&not_empty));
  XPT (pthread_cond_broadcast (&not_full));
  XPT (pthread_mutex_unlock (&lock));
  for (int i = 0; i < np; i++)
    XPT (pthread_join (p[i], NULL));
  for (int i = 0; i < nc; i++)
    XPT (pthread_join (c[i], NULL));
  TEST_COMPARE (queued, 0);
  TEST_COMPARE (atomic_load (&produced), atomic_load (&consumed));
  printf ("%s: %d producers, %d consumers: %ld items\n",
          broadcast ? "broadcast" : "signal", np, nc, atomic_load (&consumed));
}

int
main (void)
{
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
  int n = 4 * (ncpu > 0 ? ncpu : 1);
  double s = stress_seconds ();
  round_ (0, n, n, s * 0.7);
  TEST_VERIFY (atomic_load (&consumed) > 0);
  round_ (1, n, n, s * 0.3);
  return 0;
}
