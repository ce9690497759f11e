/* A process-shared mutex and condition variable in shared memory, used by a
   parent and a forked child for ping-pong, with several threads on each side
   (more than CPUs).  Every token passed must arrive; a lost wake-up shows as
   a stall that the timed waits turn into a failure.  */
#include "../lib/pingpong.h"
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int
main (void)
{
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
  int n = 2 * (ncpu > 0 ? ncpu : 1);
  struct pingpong *pp = mmap (NULL, sizeof *pp, PROT_READ | PROT_WRITE,
                              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  TEST_VERIFY_EXIT (pp != MAP_FAILED);
  pingpong_init (pp, 20000 * stress_seconds (), 1);

  pid_t pid = fork ();
  TEST_VERIFY_EXIT (pid >= 0);
  if (pid == 0)
    {
      pingpong_side (1, n);
      _exit (0);
    }
  pingpong_side (0, n);
  int status;
  TEST_COMPARE (waitpid (pid, &status, 0), pid);
  TEST_VERIFY (WIFEXITED (status));
  TEST_COMPARE (WEXITSTATUS (status), 0);
  TEST_COMPARE (pp->turn, pp->end);
  printf ("%ld turns across processes\n", pp->turn);
  XPT (pthread_cond_destroy (&pp->c));
  XPT (pthread_mutex_destroy (&pp->m));
  return 0;
}
