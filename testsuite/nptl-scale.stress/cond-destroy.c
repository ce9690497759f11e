/* pthread_cond_destroy right after a broadcast, while the woken waiters have
   not yet reacquired the mutex (POSIX allows this), and cancellation of a
   waiter: the cleanup handler runs with the mutex held again.  Both under
   more threads than CPUs.  */
#include "../lib/check.h"
#include <unistd.h>

struct cv
{
  pthread_mutex_t m;
  pthread_cond_t c;
  int go, waiting;
};

static void *
destroy_waiter (void *arg)
{
  struct cv *cv = arg;
  XPT (pthread_mutex_lock (&cv->m));
  cv->waiting++;
  while (!cv->go)
    XPT (pthread_cond_wait (&cv->c, &cv->m));
  XPT (pthread_mutex_unlock (&cv->m));
  return NULL;
}

static void
unlock_handler (void *arg)
{
  /* An error-checking mutex: this fails unless the cancelled wait
     reacquired it.  */
  XPT (pthread_mutex_unlock (arg));
}

static void *
cancel_waiter (void *arg)
{
  struct cv *cv = arg;
  XPT (pthread_mutex_lock (&cv->m));
  cv->waiting++;
  pthread_cleanup_push (unlock_handler, &cv->m);
  for (;;)
    XPT (pthread_cond_wait (&cv->c, &cv->m));
  pthread_cleanup_pop (0);
  return NULL;
}

int
main (void)
{
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
  int n = 4 * (ncpu > 0 ? ncpu : 1);
  double deadline = now () + stress_seconds ();
  long rounds = 0;
  pthread_mutexattr_t ma;
  XPT (pthread_mutexattr_init (&ma));
  XPT (pthread_mutexattr_settype (&ma, PTHREAD_MUTEX_ERRORCHECK));
  while (now () < deadline)
    {
      struct cv *cv = calloc (1, sizeof *cv);
      pthread_t t[n];
      TEST_VERIFY_EXIT (cv != NULL);
      XPT (pthread_mutex_init (&cv->m, &ma));
      XPT (pthread_cond_init (&cv->c, NULL));
      int cancel = rounds & 1;
      for (int i = 0; i < n; i++)
        XPT (pthread_create (&t[i], NULL,
                             cancel ? cancel_waiter : destroy_waiter, cv));
      for (;;)
        {
          XPT (pthread_mutex_lock (&cv->m));
          int w = cv->waiting;
          XPT (pthread_mutex_unlock (&cv->m));
          if (w == n)
            break;
          sched_yield ();
        }
      if (cancel)
        for (int i = 0; i < n; i++)
          {
            void *ret;
            XPT (pthread_cancel (t[i]));
            XPT (pthread_join (t[i], &ret));
            TEST_VERIFY (ret == PTHREAD_CANCELED);
          }
      else
        {
          XPT (pthread_mutex_lock (&cv->m));
          cv->go = 1;
          XPT (pthread_cond_broadcast (&cv->c));
          /* Destroy while the waiters still need the mutex to return.  */
          XPT (pthread_cond_destroy (&cv->c));
          XPT (pthread_mutex_unlock (&cv->m));
          for (int i = 0; i < n; i++)
            XPT (pthread_join (t[i], NULL));
        }
      if (cancel)
        XPT (pthread_cond_destroy (&cv->c));
      XPT (pthread_mutex_destroy (&cv->m));
      /* Poison the memory: nothing may touch it any more.  */
      memset (cv, 0xa5, sizeof *cv);
      free (cv);
      rounds++;
    }
  printf ("%ld rounds of %d waiters\n", rounds, n);
  TEST_VERIFY (rounds >= 2);
  return 0;
}
