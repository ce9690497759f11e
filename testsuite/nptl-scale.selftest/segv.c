/* Self-test of the suite's library: a test killed by a signal.  The FAIL
   line must say "killed by SIGSEGV".  A thread other than the main one
   crashes, as in a real test of the stack cache.  */
#include "../lib/check.h"
#include <sys/resource.h>

static void *
crash (void *arg)
{
  *(volatile int *) arg = 1;
  return NULL;
}

int
main (void)
{
  /* No core file in the output directory.  */
  struct rlimit no_core = { 0, 0 };
  TEST_VERIFY (setrlimit (RLIMIT_CORE, &no_core) == 0);
  pthread_t t;
  XPT (pthread_create (&t, NULL, crash, NULL));
  XPT (pthread_join (t, NULL));
  return 0;
}
