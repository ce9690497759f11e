/* A process-shared mutex and condition variable initialized by the glibc
   under test (in each of its condvar modes) and used at the same time by a
   process that runs stock glibc: a copy of this program built against
   stock, named by the environment variable PEER (this program itself
   where stock is the glibc under test).  The two hand a token back and
   forth, with broadcast and several threads a side, then with signal and
   one thread a side.  A glibc that gave such a condvar another layout in
   one of its modes would lose the stock side's wake-ups, which the timed
   waits turn into a failure.  */
#include "../lib/pingpong.h"
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static struct pingpong *sh;

/* One game: a new mutex and condvar, initialized here.  */
static void
game (const char *peer, int fd, int broadcast, int nthreads, long turns)
{
  pingpong_init (sh, turns, broadcast);

  pid_t pid = fork ();
  TEST_VERIFY_EXIT (pid >= 0);
  if (pid == 0)
    {
      char fds[16], ns[16];
      snprintf (fds, sizeof fds, "%d", fd);
      snprintf (ns, sizeof ns, "%d", nthreads);
      execl (peer, peer, "peer", fds, ns, (char *) NULL);
      fprintf (stderr, "cannot run %s: %m\n", peer);
      _exit (127);
    }
  pingpong_side (0, nthreads);
  int status;
  TEST_COMPARE (waitpid (pid, &status, 0), pid);
  TEST_VERIFY (WIFEXITED (status));
  TEST_COMPARE (WEXITSTATUS (status), 0);
  TEST_COMPARE (sh->turn, sh->end);
  printf ("%s: %ld turns with %s\n", broadcast ? "broadcast" : "signal",
          sh->turn, peer);
  XPT (pthread_cond_destroy (&sh->c));
  XPT (pthread_mutex_destroy (&sh->m));
}

int
main (int argc, char **argv)
{
  if (argc == 4 && strcmp (argv[1], "peer") == 0)
    {
      sh = mmap (NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED,
                 atoi (argv[2]), 0);
      TEST_VERIFY_EXIT (sh != MAP_FAILED);
      pingpong = sh;
      pingpong_side (1, atoi (argv[3]));
      return 0;
    }

  const char *peer = getenv ("PEER");
  if (peer == NULL || *peer == '\0')
    peer = "/proc/self/exe";
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
  int fd = memfd_create ("cond-pshared-stock", 0);
  TEST_VERIFY_EXIT (fd >= 0);
  TEST_COMPARE (ftruncate (fd, sizeof *sh), 0);
  sh = mmap (NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  TEST_VERIFY_EXIT (sh != MAP_FAILED);
  long turns = 5000 * stress_seconds ();
  game (peer, fd, 1, 2 * (ncpu > 0 ? ncpu : 1), turns);
  game (peer, fd, 0, 1, turns);
  return 0;
}
