/* The thread stack cache stays within its bound, and RSS does not grow, in a
   long create/join storm from more threads than CPUs.

   glibc.pthread.stack_cache_size (default 40 MiB) bounds the bytes of all
   cached stacks together.  Once every thread has been joined, every thread
   stack mapping left is a cached one; their total size may exceed the bound
   by at most one stack (the one whose release triggered trimming is counted
   before the trim).  Stacks are recognised by their exact size: the test
   uses one stack size, for all its threads, that nothing else maps.  */
#include "../lib/check.h"
#include <unistd.h>

#define STACK_SIZE (1536 * 1024 + 12 * 4096)
#define CACHE_BOUND (40L * 1024 * 1024)

static double deadline;

static void *
worker (void *arg)
{
  /* Touch some of the stack so that it has resident pages.  */
  volatile char buf[64 * 1024];
  memset ((char *) buf, 1, sizeof buf);
  return arg;
}

static void *
creator (void *arg)
{
  pthread_attr_t attr;
  XPT (pthread_attr_init (&attr));
  XPT (pthread_attr_setstacksize (&attr, STACK_SIZE));
  while (now () < deadline)
    {
      pthread_t t;
      XPT (pthread_create (&t, &attr, worker, NULL));
      XPT (pthread_join (t, NULL));
    }
  return arg;
}

/* Count the mappings whose size is that of a thread stack of STACK_SIZE:
   the stack itself plus its guard page, rounded to pages.  */
static long
count_stack_mappings (long *bytes)
{
  FILE *f = fopen ("/proc/self/maps", "r");
  TEST_VERIFY (f != NULL);
  long page = sysconf (_SC_PAGESIZE), n = 0;
  unsigned long lo, hi;
  char line[512];
  *bytes = 0;
  while (fgets (line, sizeof line, f) != NULL)
    if (sscanf (line, "%lx-%lx", &lo, &hi) == 2)
      {
        unsigned long size = hi - lo;
        /* The guard page may be a separate PROT_NONE mapping.  */
        if (size == STACK_SIZE || size == STACK_SIZE - page)
          {
            n++;
            *bytes += STACK_SIZE;
          }
      }
  fclose (f);
  return n;
}

static long
rss_kib (void)
{
  FILE *f = fopen ("/proc/self/statm", "r");
  long size, rss;
  TEST_VERIFY (f != NULL && fscanf (f, "%ld %ld", &size, &rss) == 2);
  fclose (f);
  return rss * (sysconf (_SC_PAGESIZE) / 1024);
}

/* The creators use the same stack size, so every thread stack of the
   process is counted.  */
static void
storm (int n, double seconds)
{
  pthread_t t[n];
  pthread_attr_t attr;
  XPT (pthread_attr_init (&attr));
  XPT (pthread_attr_setstacksize (&attr, STACK_SIZE));
  deadline = now () + seconds;
  for (int i = 0; i < n; i++)
    XPT (pthread_create (&t[i], &attr, creator, NULL));
  for (int i = 0; i < n; i++)
    XPT (pthread_join (t[i], NULL));
}

int
main (void)
{
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN), bytes, maps;
  int n = 8 * (ncpu > 0 ? ncpu : 1);
  double half = stress_seconds () / 2;

  /* Warm up: fill the cache, then measure.  */
  storm (n, half);
  long rss1 = rss_kib ();
  maps = count_stack_mappings (&bytes);
  printf ("after warm-up: %ld cached stacks, %ld KiB; RSS %ld KiB\n",
          maps, bytes / 1024, rss1);
  TEST_VERIFY (bytes <= CACHE_BOUND + STACK_SIZE);

  storm (n, half);
  long rss2 = rss_kib ();
  maps = count_stack_mappings (&bytes);
  printf ("after storm: %ld cached stacks, %ld KiB; RSS %ld KiB\n",
          maps, bytes / 1024, rss2);
  TEST_VERIFY (maps > 0);
  TEST_VERIFY (bytes <= CACHE_BOUND + STACK_SIZE);
  /* RSS may move by a few stacks' touched pages, not more.  */
  TEST_VERIFY (rss2 <= rss1 + 8 * 1024);
  return 0;
}
