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

#include "../lib/check.h"
#include <dlfcn.h>
#include <stdatomic.h>
#include <unistd.h>

static double deadline;
static int (*mod_call) (int);
static atomic_int loaded;
static atomic_long creates, calls;

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

static void *
creator (void *arg)
{
  long i = (long) arg;
  pthread_attr_t attr;
  XPT (pthread_attr_init (&attr));
  XPT (pthread_attr_setstacksize (&attr, 256 * 1024));
  while (now () < deadline)
    {
      pthread_t t;
      void *ret;
      size_t size = (i++ % 4 == 0) ? 256 * 1024 : 0;
      XPT (pthread_create (&t, size ? &attr : NULL, worker, (void *) i));
      XPT (pthread_join (t, &ret));
      TEST_VERIFY (ret == (void *) i);
      atomic_fetch_add (&creates, 1);
    }
  return NULL;
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

  deadline = now () + duration;
  for (long i = 0; i < ncreators; i++)
    XPT (pthread_create (&creators[i], NULL, creator, (void *) (i * 1000)));

  /* Load the module while the threads come and go.  */
  struct timespec third = { (time_t) (duration / 3),
                            (long) ((duration / 3 - (time_t) (duration / 3))
                                    * 1e9) };
  nanosleep (&third, NULL);
  void *h = dlopen (path, RTLD_NOW);
  if (h == NULL)
    {
      /* Let the creators finish before leaving.  */
      for (int i = 0; i < ncreators; i++)
        XPT (pthread_join (creators[i], NULL));
      UNSUPPORTED ("dlopen of a module that needs an executable stack: %s",
                   dlerror ());
    }
  mod_call = (int (*) (int)) dlsym (h, "execstack_mod_call");
  TEST_VERIFY (mod_call != NULL);
  atomic_store (&loaded, 1);
  TEST_COMPARE (mod_call (41), 42);

  for (int i = 0; i < ncreators; i++)
    XPT (pthread_join (creators[i], NULL));
  printf ("%d creators: %ld create+join, %ld calls on new stacks\n",
          ncreators, atomic_load (&creates), atomic_load (&calls));
  TEST_VERIFY (atomic_load (&calls) > 0);
  return 0;
}
