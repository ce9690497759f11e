/* The child of fork does not write the stacks in the cache.  Every page
   of the parent that the child writes is a copy-on-write fault, and a
   cache of small stacks holds thousands of them: a child that wrote each
   cached stack's descriptor paid one fault per stack, so a process that
   forks after many short-lived threads forked several times slower (Open
   POSIX's pthread_cond_broadcast/1-2, which forks 200 children after
   creating 10000 threads, timed out).

   fill_stack_cache puts up to 1000 small stacks in the cache.  A child
   forked then counts its minor page faults (getrusage) and must not
   fault much more than a child forked before the first thread.  */
#include "../lib/stackcache.h"
#include <sys/resource.h>
#include <sys/wait.h>

#define MAX_THREADS 1000

/* The minor page faults of a child of fork, from fork to its report.  */
static long
child_faults (void)
{
  int fds[2];
  TEST_VERIFY_EXIT (pipe (fds) == 0);
  pid_t pid = fork ();
  TEST_VERIFY_EXIT (pid >= 0);
  if (pid == 0)
    {
      struct rusage ru;
      long faults = getrusage (RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : -1;
      _exit (write (fds[1], &faults, sizeof faults) == sizeof faults ? 0 : 1);
    }
  long faults = -1;
  int status;
  TEST_VERIFY (read (fds[0], &faults, sizeof faults) == sizeof faults);
  TEST_VERIFY_EXIT (waitpid (pid, &status, 0) == pid);
  TEST_VERIFY (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  close (fds[0]);
  close (fds[1]);
  TEST_VERIFY_EXIT (faults >= 0);
  return faults;
}

int
main (void)
{
  long before = child_faults ();

  long n, stack;
  pthread_t *threads = fill_stack_cache (MAX_THREADS, &n, &stack);

  long after = child_faults ();
  printf ("%ld cached stacks of %ld bytes; faults in the child of fork: "
          "%ld before the threads, %ld after\n", n, stack, before, after);
  /* One fault per cached stack is what this rules out; a few more pages
     of the parent's (the joined threads' list and malloc state) may be
     written.  */
  if (after - before >= n / 4)
    check_fail (__FILE__, __LINE__,
                "the child of fork faulted %ld times with %ld stacks cached,"
                " %ld times before the threads", after, n, before);
  free (threads);
  return 0;
}
