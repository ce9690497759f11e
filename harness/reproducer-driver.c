/* glibc's test driver (support/test-driver.c and support_test_main),
   reduced for a stand-alone reproducer: do_test runs in a child process
   of its own process group, with unbuffered output and
   mallopt (M_PERTURB, 42); the parent kills the group after TIMEOUT
   seconds (default 20, times TIMEOUTFACTOR when that is set); a failure
   recorded in any process of the test fails it, also one that then
   exits 0; the last line says PASS, FAIL or UNSUPPORTED, and the exit
   status is 0, 1 or 77.  The driver options that a reproducer cannot
   honour are refused at compile time.  */

#include <malloc.h>

#ifndef TIMEOUT
# define TIMEOUT 20
#endif
#if defined EXPECTED_STATUS || defined EXPECTED_SIGNAL || defined TEST_FUNCTION \
  || defined PREPARE || defined CLEANUP_HANDLER || defined CMDLINE_OPTIONS
# error "this glibc test needs driver options that the reproducer lacks"
#endif

static pid_t support_test_pid;

static void
support_timed_out (int sig)
{
  static const char msg[] = "FAIL: timed out (a deadlock, or a test too slow "
    "for this machine)\n";
  kill (-support_test_pid, SIGKILL);
  write (STDERR_FILENO, msg, sizeof msg - 1);
  _exit (1);
}

int
main (void)
{
  void *shared = mmap (NULL, sizeof (int), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED)
    {
      perror ("mmap");
      return 1;
    }
  support_failures = shared;
  setvbuf (stdout, NULL, _IONBF, 0);
  support_test_pid = fork ();
  if (support_test_pid < 0)
    {
      perror ("fork");
      return 1;
    }
  if (support_test_pid == 0)
    {
      setpgid (0, 0);
      mallopt (M_PERTURB, 42);
      exit (do_test ());
    }
  setpgid (support_test_pid, support_test_pid);
  unsigned int timeout = TIMEOUT;
  const char *factor = getenv ("TIMEOUTFACTOR");
  if (factor != NULL && atoi (factor) > 0)
    timeout *= atoi (factor);
  signal (SIGALRM, support_timed_out);
  alarm (timeout);
  int wstatus;
  while (waitpid (support_test_pid, &wstatus, 0) < 0)
    if (errno != EINTR)
      {
	perror ("waitpid");
	return 1;
      }
  alarm (0);
  int status;
  if (WIFSIGNALED (wstatus))
    {
      fprintf (stderr, "FAIL: the test was killed by signal %d (%s)\n",
	       WTERMSIG (wstatus), strsignal (WTERMSIG (wstatus)));
      status = 1;
    }
  else
    status = WEXITSTATUS (wstatus);
  if (*support_failures && (status == 0 || status == EXIT_UNSUPPORTED))
    status = 1;
  puts (status == 0 ? "PASS"
	: status == EXIT_UNSUPPORTED ? "UNSUPPORTED" : "FAIL");
  return status == 0 || status == EXIT_UNSUPPORTED ? status : 1;
}
