/* A process-shared mutex and condition variable in shared memory, used by a
   parent and a forked child for ping-pong, with several threads on each side
   (more than CPUs).  Every token passed must arrive; a lost wake-up shows as
   a stall that the timed waits turn into a failure.  */
#include "../lib/check.h"
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

struct shared
{
  pthread_mutex_t m;
  pthread_cond_t c;
  long turn;                    /* even: parent's move, odd: child's.  */
  long end;
};

static struct shared *sh;

/* Take the turns of one side (PARITY) until the end.  */
static void *
play (void *arg)
{
  long parity = (long) arg;
  XPT (pthread_mutex_lock (&sh->m));
  while (sh->turn < sh->end)
    {
      if ((sh->turn & 1) == parity)
        {
          sh->turn++;
          XPT (pthread_cond_broadcast (&sh->c));
          continue;
        }
      struct timespec ts;
      clock_gettime (CLOCK_REALTIME, &ts);
      ts.tv_sec += 10;
      int e = pthread_cond_timedwait (&sh->c, &sh->m, &ts);
      if (e == ETIMEDOUT)
        check_fail (__FILE__, __LINE__, "side %ld stalled at turn %ld",
                    parity, sh->turn);
      XPT (e);
    }
  XPT (pthread_cond_broadcast (&sh->c));
  XPT (pthread_mutex_unlock (&sh->m));
  return NULL;
}

static void
side (long parity, int nthreads)
{
  pthread_t t[nthreads];
  for (int i = 0; i < nthreads; i++)
    XPT (pthread_create (&t[i], NULL, play, (void *) parity));
  for (int i = 0; i < nthreads; i++)
    XPT (pthread_join (t[i], NULL));
}

int
main (void)
{
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
  int n = 2 * (ncpu > 0 ? ncpu : 1);
  sh = mmap (NULL, sizeof *sh, PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  TEST_VERIFY_EXIT (sh != MAP_FAILED);
  pthread_mutexattr_t ma;
  pthread_condattr_t ca;
  XPT (pthread_mutexattr_init (&ma));
  XPT (pthread_mutexattr_setpshared (&ma, PTHREAD_PROCESS_SHARED));
  XPT (pthread_condattr_init (&ca));
  XPT (pthread_condattr_setpshared (&ca, PTHREAD_PROCESS_SHARED));
  XPT (pthread_condattr_setclock (&ca, CLOCK_REALTIME));
  XPT (pthread_mutex_init (&sh->m, &ma));
  XPT (pthread_cond_init (&sh->c, &ca));
  sh->end = 20000 * stress_seconds ();

  pid_t pid = fork ();
  TEST_VERIFY_EXIT (pid >= 0);
  if (pid == 0)
    {
      side (1, n);
      _exit (0);
    }
  side (0, n);
  int status;
  TEST_COMPARE (waitpid (pid, &status, 0), pid);
  TEST_VERIFY (WIFEXITED (status));
  TEST_COMPARE (WEXITSTATUS (status), 0);
  TEST_COMPARE (sh->turn, sh->end);
  printf ("%ld turns across processes\n", sh->turn);
  XPT (pthread_cond_destroy (&sh->c));
  XPT (pthread_mutex_destroy (&sh->m));
  return 0;
}
