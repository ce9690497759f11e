/* gdb, through the libthread_db next to the libc under test, lists every
   thread of a live process.  `maint check libthread-db' makes gdb iterate
   over the threads with td_ta_thr_iter, which walks the lists of thread
   stacks (GL (dl_stack_user), and the lists of stacks in use, which the
   series splits into per-CPU shards), and check each thread handle it
   gets.  Some threads run on user-supplied stacks (the dl_stack_user
   list), and threads are created and joined just before the attach so
   that the cache is not empty.  Each thread is created by a thread of
   its own, so that with glibc.pthread.rseq=0 (the /norseq run, where the
   shard follows the creator's TID) the threads are spread over many
   shards.  With THREAD_DB_DIR set, gdb uses the libthread_db in that
   directory instead (the /stock-process run: the libthread_db of the
   glibc under test with a process that runs stock, as after a package
   update while the process runs on, and the /stock-thread-db run: stock's
   libthread_db with a process of the glibc under test).  UNSUPPORTED
   without gdb or ptrace.  */
#include "../lib/check.h"
#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <libgen.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#define NTHREADS 12
#define NUSER 3

static pthread_barrier_t barrier;

static void *
blocker (void *arg)
{
  pthread_barrier_wait (&barrier);      /* ready */
  pthread_barrier_wait (&barrier);      /* gdb is done */
  return arg;
}

static void *
nothing (void *arg)
{
  return arg;
}

/* Create blocker number ARG (on a user-supplied stack for the first
   NUSER) and return its pthread_t.  */
static void *
create_blocker (void *arg)
{
  int i = (intptr_t) arg;
  pthread_attr_t attr;
  pthread_t t;
  XPT (pthread_attr_init (&attr));
  if (i < NUSER)
    {
      size_t size = 256 * 1024;
      void *mem = mmap (NULL, size, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
      TEST_VERIFY_EXIT (mem != MAP_FAILED);
      XPT (pthread_attr_setstack (&attr, mem, size));
    }
  XPT (pthread_create (&t, &attr, blocker, NULL));
  XPT (pthread_attr_destroy (&attr));
  return (void *) t;
}

int
main (void)
{
  const char *gdb = getenv ("GDB");
  if (gdb == NULL || gdb[0] == '\0' || access (gdb, X_OK) != 0)
    UNSUPPORTED ("no gdb (set GDB)");
  /* Let gdb attach even under Yama ptrace_scope 1.  */
  prctl (PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);

  Dl_info info;
  TEST_VERIFY_EXIT (dladdr ((void *) gnu_get_libc_version, &info) != 0);
  char libdir[4096];
  snprintf (libdir, sizeof libdir, "%s", info.dli_fname);
  dirname (libdir);
  const char *dbdir = getenv ("THREAD_DB_DIR");
  if (dbdir != NULL && dbdir[0] != '\0')
    snprintf (libdir, sizeof libdir, "%s", dbdir);

  for (int i = 0; i < 32; i++)
    {
      pthread_t t;
      XPT (pthread_create (&t, NULL, nothing, NULL));
      XPT (pthread_join (t, NULL));
    }
  XPT (pthread_barrier_init (&barrier, NULL, NTHREADS + 1));
  pthread_t t[NTHREADS];
  for (int i = 0; i < NTHREADS; i++)
    {
      pthread_t creator;
      XPT (pthread_create (&creator, NULL, create_blocker, (void *) (intptr_t) i));
      XPT (pthread_join (creator, (void **) &t[i]));
    }
  pthread_barrier_wait (&barrier);

  char cmd[8192];
  snprintf (cmd, sizeof cmd,
            "'%s' -nx -batch -iex 'set auto-load safe-path /' "
            "-iex 'set libthread-db-search-path %s' -p %d "
            "-ex 'maint check libthread-db' 2>&1", gdb, libdir, (int) getpid ());
  FILE *p = popen (cmd, "r");
  TEST_VERIFY_EXIT (p != NULL);
  char line[4096];
  int threads = 0, used_ours = 0, denied = 0, passed = 0;
  while (fgets (line, sizeof line, p) != NULL)
    {
      fputs (line, stdout);
      if (strncmp (line, "  Got thread 0x", 15) == 0
          && strstr (line, "... OK") != NULL)
        threads++;
      if (strstr (line, "libthread_db integrity checks passed") != NULL)
        passed = 1;
      if (strstr (line, "libthread_db") != NULL && strstr (line, libdir) != NULL)
        used_ours = 1;
      if (strstr (line, "ptrace: Operation not permitted") != NULL)
        denied = 1;
    }
  pclose (p);
  pthread_barrier_wait (&barrier);
  for (int i = 0; i < NTHREADS; i++)
    XPT (pthread_join (t[i], NULL));
  if (denied)
    UNSUPPORTED ("ptrace not permitted");
  printf ("gdb listed %d threads through %s/libthread_db\n", threads, libdir);
  TEST_VERIFY (used_ours);
  TEST_VERIFY (passed);
  TEST_COMPARE (threads, NTHREADS + 1);
  return 0;
}
