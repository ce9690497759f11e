/* glibc's test driver (support/test-driver.c), reduced for a
   stand-alone reproducer: do_test runs under an alarm of TIMEOUT seconds
   (glibc's default is 20), a failure recorded in any process of the test
   fails it, and the last line says PASS, FAIL or UNSUPPORTED.  */

#ifndef TIMEOUT
# define TIMEOUT 20
#endif

static void
support_timed_out (int sig)
{
  static const char msg[] = "FAIL: timed out (a deadlock, or a test too slow "
    "for this machine)\n";
  write (STDERR_FILENO, msg, sizeof msg - 1);
  _exit (1);
}

int
main (void)
{
  void *shared = mmap (NULL, sizeof (int), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared != MAP_FAILED)
    support_failures = shared;
  signal (SIGALRM, support_timed_out);
  alarm (TIMEOUT);
  int status = do_test ();
  alarm (0);
  if (status == 0 && *support_failures)
    status = 1;
  puts (status == 0 ? "PASS"
	: status == EXIT_UNSUPPORTED ? "UNSUPPORTED" : "FAIL");
  return status;
}
