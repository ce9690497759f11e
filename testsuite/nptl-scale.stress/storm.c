/* Create/join storm from more threads than CPUs while other threads fork,
   call setuid-family functions (which signal every thread, __nptl_setxid)
   and dlopen a module with static TLS, and dlmopen another into a new
   namespace (LM_ID_NEWLM).

   Checks: every create and join succeeds; a forked child can create and join
   threads (its stack lists were reclaimed and repaired); set*id succeeds;
   every thread, whether it existed when the module was loaded or was created
   after on a possibly reused stack, sees the TLS of both modules
   initialised.  The one in the new namespace would stay zero (or keep
   the garbage of a reused stack) in new threads if pthread_create asked
   _dl_allocate_tls_init not to copy the images of modules outside the
   base namespace (2.36's init_tls argument passed as false, as the first
   2.36 backport of the series did).

   set*id runs while the dlopen runs too: set*id, dlopen of a static-TLS
   module and pthread_create together deadlocked in glibc itself (stock
   2.43 too): __nptl_setxid held GL (dl_stack_cache_lock) and waited for
   a thread that was not cloned yet, whose creator waited in
   _dl_allocate_tls_init for GL (dl_load_tls_lock), which dlopen held
   while it waited in _dl_init_static_tls for GL (dl_stack_cache_lock).
   Patch 1 of the series fixes it (nptl/tst-setxid-dlopen-create shows it
   deterministically); on stock this test hangs some of the time and is
   killed.  */

#include "../lib/churn.h"
#include <dlfcn.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

static double deadline;
static int (*mod_get) (void);
static void (*mod_dirty) (void);
static int (*ns_mod_get) (void);
static void (*ns_mod_dirty) (void);
static atomic_int loaded;
static atomic_long forks, setxids, tls_checks;

/* The module's TLS as this thread sees it, if the module is loaded.  */
static void
check_module_tls (void)
{
  if (atomic_load (&loaded))
    {
      TEST_COMPARE (mod_get (), 43);
      TEST_COMPARE (ns_mod_get (), 43);
      /* Leave garbage behind: a cached stack reused without its static TLS
         being initialised again would show it.  */
      mod_dirty ();
      ns_mod_dirty ();
      atomic_fetch_add (&tls_checks, 1);
    }
}

static void *
worker (void *arg)
{
  check_module_tls ();
  return arg;
}

static void *
forker (void *arg)
{
  while (now () < deadline)
    {
      pid_t pid = fork ();
      TEST_VERIFY_EXIT (pid >= 0);
      if (pid == 0)
        {
          /* Only this thread exists now; all others' stacks must have been
             reclaimed, and the lists usable.  */
          for (int i = 0; i < 16; i++)
            {
              pthread_t t;
              if (pthread_create (&t, NULL, worker, NULL) != 0
                  || pthread_join (t, NULL) != 0)
                _exit (3);
            }
          _exit (0);
        }
      int status;
      TEST_COMPARE (waitpid (pid, &status, 0), pid);
      TEST_VERIFY (WIFEXITED (status));
      TEST_COMPARE (WEXITSTATUS (status), 0);
      atomic_fetch_add (&forks, 1);
    }
  return arg;
}

static void *
setxider (void *arg)
{
  while (now () < deadline)
    {
      TEST_COMPARE (setresuid (-1, -1, -1), 0);
      TEST_COMPARE (setgid (getgid ()), 0);
      atomic_fetch_add (&setxids, 1);
      usleep (1000);
    }
  return arg;
}

static pthread_barrier_t old_barrier;

/* Threads that exist before the dlopen and look at the TLS after it.  */
static void *
old_thread (void *arg)
{
  pthread_barrier_wait (&old_barrier);
  pthread_barrier_wait (&old_barrier);
  check_module_tls ();
  TEST_VERIFY (atomic_load (&loaded));
  return arg;
}

int
main (void)
{
  double duration = stress_seconds ();
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
  int ncreators = 4 * (ncpu > 0 ? ncpu : 1);
  enum { NOLD = 8 };
  pthread_t creators[ncreators], old[NOLD], f, s;
  char path[4096], ns_path[4096];
  const char *moddir = getenv ("MODDIR");
  if (moddir == NULL)
    UNSUPPORTED ("MODDIR not set");
  snprintf (path, sizeof path, "%s/storm-tls-mod.so", moddir);
  snprintf (ns_path, sizeof ns_path, "%s/storm-ns-mod.so", moddir);

  deadline = now () + duration;
  XPT (pthread_barrier_init (&old_barrier, NULL, NOLD + 1));
  for (int i = 0; i < NOLD; i++)
    XPT (pthread_create (&old[i], NULL, old_thread, NULL));
  pthread_barrier_wait (&old_barrier);
  churn_start (creators, ncreators, worker, deadline);
  XPT (pthread_create (&f, NULL, forker, NULL));
  XPT (pthread_create (&s, NULL, setxider, NULL));

  /* Load the modules while the storm runs.  */
  struct timespec third = { (time_t) (duration / 3),
                            (long) ((duration / 3 - (time_t) (duration / 3)) * 1e9) };
  nanosleep (&third, NULL);
  void *h = dlopen (path, RTLD_NOW);
  if (h == NULL)
    check_fail (__FILE__, __LINE__, "dlopen: %s", dlerror ());
  mod_get = (int (*) (void)) dlsym (h, "storm_mod_get");
  mod_dirty = (void (*) (void)) dlsym (h, "storm_mod_dirty");
  TEST_VERIFY_EXIT (mod_get != NULL && mod_dirty != NULL);
  void *ns_h = dlmopen (LM_ID_NEWLM, ns_path, RTLD_NOW);
  if (ns_h == NULL)
    check_fail (__FILE__, __LINE__, "dlmopen: %s", dlerror ());
  ns_mod_get = (int (*) (void)) dlsym (ns_h, "storm_ns_mod_get");
  ns_mod_dirty = (void (*) (void)) dlsym (ns_h, "storm_ns_mod_dirty");
  TEST_VERIFY_EXIT (ns_mod_get != NULL && ns_mod_dirty != NULL);
  atomic_store (&loaded, 1);
  check_module_tls ();
  pthread_barrier_wait (&old_barrier);

  for (int i = 0; i < NOLD; i++)
    XPT (pthread_join (old[i], NULL));
  long creates = churn_join (creators, ncreators);
  XPT (pthread_join (f, NULL));
  XPT (pthread_join (s, NULL));
  printf ("%d creators: %ld create+join, %ld forks, %ld set*id, "
          "%ld TLS checks\n", ncreators, creates,
          atomic_load (&forks), atomic_load (&setxids),
          atomic_load (&tls_checks));
  TEST_VERIFY (creates > 0);
  TEST_VERIFY (atomic_load (&forks) > 0);
  TEST_VERIFY (atomic_load (&setxids) > 0);
  TEST_VERIFY (atomic_load (&tls_checks) > NOLD);
  return 0;
}
