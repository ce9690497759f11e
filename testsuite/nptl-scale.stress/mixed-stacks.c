/* Threads with different stack and guard sizes, created and joined
   concurrently from more threads than CPUs, each get a stack of the size and
   guard they asked for: a cached stack is never handed out too small or with
   the wrong guard.  Each thread checks pthread_getattr_np and writes to the
   lowest byte of its usable stack.  User-supplied stacks are mixed in.  */
#include "../lib/check.h"
#include <limits.h>
#include <sys/mman.h>
#include <sys/param.h>
#include <unistd.h>

static const size_t sizes[] = { 64 * 1024, 256 * 1024, 1024 * 1024,
                                2 * 1024 * 1024 + 8192, 8 * 1024 * 1024 };
static const size_t guards[] = { 0, 4096, 64 * 1024 };
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define NGUARDS (sizeof guards / sizeof guards[0])

struct request
{
  size_t size, guard;
  int user_stack;
};

static double deadline;

static void *
worker (void *arg)
{
  struct request *r = arg;
  pthread_attr_t attr;
  void *addr;
  size_t size, guard;
  XPT (pthread_getattr_np (pthread_self (), &attr));
  XPT (pthread_attr_getstack (&attr, &addr, &size));
  XPT (pthread_attr_getguardsize (&attr, &guard));
  XPT (pthread_attr_destroy (&attr));
  TEST_VERIFY (size >= r->size);
  /* A reused stack must not come with a bigger or smaller guard.  */
  if (!r->user_stack)
    TEST_COMPARE (guard, r->guard);
  /* The whole reported stack is usable: write its lowest byte.  */
  ((volatile char *) addr)[0] = 1;
  char here;
  TEST_VERIFY ((char *) addr < &here && &here < (char *) addr + size);
  return NULL;
}

static void *
creator (void *arg)
{
  unsigned int seed = (unsigned long) arg;
  while (now () < deadline)
    {
      struct request r;
      pthread_attr_t attr;
      pthread_t t;
      void *mem = NULL;
      /* PTHREAD_STACK_MIN is 128 KiB on aarch64: a smaller size is
         refused there (EINVAL), so the smallest one asked is that.  */
      r.size = sizes[rand_r (&seed) % NSIZES];
      r.size = MAX (r.size, (size_t) PTHREAD_STACK_MIN);
      r.guard = guards[rand_r (&seed) % NGUARDS];
      r.user_stack = rand_r (&seed) % 8 == 0;
      XPT (pthread_attr_init (&attr));
      if (r.user_stack)
        {
          mem = mmap (NULL, r.size, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
          TEST_VERIFY_EXIT (mem != MAP_FAILED);
          XPT (pthread_attr_setstack (&attr, mem, r.size));
        }
      else
        {
          XPT (pthread_attr_setstacksize (&attr, r.size));
          XPT (pthread_attr_setguardsize (&attr, r.guard));
        }
      XPT (pthread_create (&t, &attr, worker, &r));
      XPT (pthread_join (t, NULL));
      XPT (pthread_attr_destroy (&attr));
      if (mem != NULL)
        TEST_COMPARE (munmap (mem, r.size), 0);
    }
  return NULL;
}

int
main (void)
{
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
  int n = 4 * (ncpu > 0 ? ncpu : 1);
  pthread_t t[n];
  deadline = now () + stress_seconds ();
  for (long i = 0; i < n; i++)
    XPT (pthread_create (&t[i], NULL, creator, (void *) (i + 1)));
  for (int i = 0; i < n; i++)
    XPT (pthread_join (t[i], NULL));
  return 0;
}
