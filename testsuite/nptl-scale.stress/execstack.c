/* dlopen of a module that needs an executable stack while threads are
   created and joined on cached stacks of several sizes.

   Checks: every thread created after the dlopen can run code on its
   stack (the module's nested-function trampoline; a stack that is not
   executable kills the test with SIGSEGV).  The dynamic linker makes
   the stacks in use and the cached stacks executable while it holds
   GL (dl_load_tls_lock); a stack that pthread_create took out of the
   cache before that walk reached it, and puts on the list of stacks in
   use only after it (its creator waits for that lock in
   stack_list_add_new, which dlopen holds), is on no list during the
   walk and must be made executable by its creator.  With many creators,
   some are in that window whenever the dlopen runs.

   UNSUPPORTED where dlopen refuses such a module (glibc 2.41 and later,
   unless glibc.rtld.execstack allows it).  */

#include "../lib/churn.h"
#include <dlfcn.h>
#include <stdatomic.h>
#include <unistd.h>

static int (*mod_call) (int);
static atomic_int loaded;
static atomic_long calls;

static void *
worker (void *arg)
{
  if (atomic_load (&loaded))
    {
      TEST_COMPARE (mod_call (41), 42);
      atomic_fetch_add (&calls, 1);
    }
  return arg;
}

int
main (void)
{
  double duration = stress_seconds ();
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
  int ncreators = 8 * (ncpu > 0 ? ncpu : 1);
  pthread_t creators[ncreators];
  char path[4096];
  const char *moddir = getenv ("MODDIR");
  if (moddir == NULL)
    UNSUPPORTED ("MODDIR not set");
  snprintf (path, sizeof path, "%s/execstack-mod.so", moddir);

  double deadline = now () + duration;
  churn_start (creators, ncreators, worker, deadline);

  /* Load the module while the threads come and go.  */
  struct timespec third = { (time_t) (duration / 3),
                            (long) ((duration / 3 - (time_t) (duration / 3))
                                    * 1e9) };
  nanosleep (&third, NULL);
  void *h = dlopen (path, RTLD_NOW);
  if (h == NULL)
    {
      /* Let the creators finish before leaving.  */
      churn_join (creators, ncreators);
      UNSUPPORTED ("dlopen of a module that needs an executable stack: %s",
                   dlerror ());
    }
  mod_call = (int (*) (int)) dlsym (h, "execstack_mod_call");
  TEST_VERIFY (mod_call != NULL);
  atomic_store (&loaded, 1);
  TEST_COMPARE (mod_call (41), 42);

  long creates = churn_join (creators, ncreators);
  printf ("%d creators: %ld create+join, %ld calls on new stacks\n",
          ncreators, creates, atomic_load (&calls));
  TEST_VERIFY (atomic_load (&calls) > 0);
  return 0;
}
