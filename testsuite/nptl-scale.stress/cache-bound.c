/* The thread stack cache stays within its bound, and RSS does not grow, in a
   long create/join storm from more threads than CPUs.

   glibc.pthread.stack_cache_size (default 40 MiB) bounds the bytes of all
   cached stacks together.  Once every thread has been joined, every thread
   stack mapping left is a cached one; their total size may exceed the bound
   by at most one stack (the one whose release triggered trimming is counted
   before the trim).  Stacks are recognised by their exact size: the test
   uses one stack size, for all its threads, that nothing else maps.  */
#include "../lib/check.h"
#include <malloc.h>
#include <unistd.h>

#define STACK_SIZE (1536 * 1024 + 12 * 4096)
#define CACHE_BOUND (40L * 1024 * 1024)
/* A stack's block: the stack and its guard page.  */
#define BLOCK (STACK_SIZE + 4096)

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

/* The bytes of cached thread stacks: anonymous read-write private
   mappings of at least STACK_SIZE bytes.  Nothing else in this process is
   that large (malloc uses one arena, the main heap, see main), and
   adjacent stacks may be merged into one mapping (glibc 2.42 and later
   puts the guard page inside the stack's mapping with MADV_GUARD_INSTALL,
   where the kernel has it), so sizes are summed, not mappings counted.  */
static long
stack_bytes (void)
{
  FILE *f = fopen ("/proc/self/maps", "r");
  TEST_VERIFY_EXIT (f != NULL);
  long bytes = 0;
  unsigned long lo, hi, inode;
  char line[512], perms[8], path[256];
  while (fgets (line, sizeof line, f) != NULL)
    {
      path[0] = '\0';
      if (sscanf (line, "%lx-%lx %7s %*s %*s %lu %255s", &lo, &hi, perms,
                  &inode, path) >= 4
          && strcmp (perms, "rw-p") == 0 && inode == 0 && path[0] == '\0'
          && hi - lo >= STACK_SIZE)
        bytes += hi - lo;
    }
  fclose (f);
  return bytes;
}

static long
rss_kib (void)
{
  FILE *f = fopen ("/proc/self/statm", "r");
  long size, rss;
  TEST_VERIFY_EXIT (f != NULL && fscanf (f, "%ld %ld", &size, &rss) == 2);
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
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN), bytes;
  int n = 8 * (ncpu > 0 ? ncpu : 1);
  double half = stress_seconds () / 2;
  TEST_VERIFY_EXIT (mallopt (M_ARENA_MAX, 1) == 1);

  /* Warm up: fill the cache, then measure.  */
  storm (n, half);
  long rss1 = rss_kib ();
  bytes = stack_bytes ();
  printf ("after warm-up: %ld KiB of cached stacks; RSS %ld KiB\n",
          bytes / 1024, rss1);
  TEST_VERIFY (bytes <= CACHE_BOUND + BLOCK);

  storm (n, half);
  long rss2 = rss_kib ();
  bytes = stack_bytes ();
  printf ("after storm: %ld KiB of cached stacks; RSS %ld KiB\n",
          bytes / 1024, rss2);
  /* The cache is used, and within its bound (plus the one stack whose
     release triggers trimming).  */
  TEST_VERIFY (bytes >= STACK_SIZE);
  TEST_VERIFY (bytes <= CACHE_BOUND + BLOCK);
  /* RSS may move by a few stacks' touched pages, not more.  */
  TEST_VERIFY (rss2 <= rss1 + 8 * 1024);
  return 0;
}
