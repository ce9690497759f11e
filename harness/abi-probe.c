/* The ABI of the pthread types, as a program built against a sysroot's
   headers sees it, and what happens to a program built against another
   glibc's headers.  Used by check.sh (the "abi" part).

     abi-probe sizes      print "TYPE SIZE ALIGN", one line per type
     abi-probe embedded   use a pthread_cond_t embedded in a structure
                          between two guard areas; exit 1 if the library
                          writes outside the object, 0 otherwise

   Built with one sysroot's compiler and run on another sysroot's library
   (bin/run), "embedded" shows whether binaries built against the first
   can run on the second.  */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <threads.h>
#include <time.h>

#define TYPE(t) printf ("%s %zu %zu\n", #t, sizeof (t), _Alignof (t))

static int
sizes (void)
{
  TYPE (pthread_attr_t);
  TYPE (pthread_barrier_t);
  TYPE (pthread_barrierattr_t);
  TYPE (pthread_cond_t);
  TYPE (pthread_condattr_t);
  TYPE (pthread_key_t);
  TYPE (pthread_mutex_t);
  TYPE (pthread_mutexattr_t);
  TYPE (pthread_once_t);
  TYPE (pthread_rwlock_t);
  TYPE (pthread_rwlockattr_t);
  TYPE (pthread_spinlock_t);
  TYPE (sem_t);
  TYPE (cnd_t);
  TYPE (mtx_t);
  TYPE (once_flag);
  return 0;
}

enum { guard = 64 };

static struct
{
  unsigned char before[guard];
  pthread_cond_t cond;
  unsigned char after[guard];
} s;

static int
intact (const unsigned char *p)
{
  for (int i = 0; i < guard; i++)
    if (p[i] != 0xa5)
      return 0;
  return 1;
}

static int
embedded (void)
{
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  memset (s.before, 0xa5, guard);
  memset (s.after, 0xa5, guard);
  pthread_condattr_t a;
  pthread_condattr_init (&a);
  pthread_condattr_setclock (&a, CLOCK_MONOTONIC);
  if (pthread_cond_init (&s.cond, &a) != 0)
    return 1;
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  pthread_mutex_lock (&m);
  int e = pthread_cond_timedwait (&s.cond, &m, &ts);
  pthread_mutex_unlock (&m);
  pthread_cond_signal (&s.cond);
  pthread_cond_broadcast (&s.cond);
  pthread_cond_destroy (&s.cond);
  int ok = intact (s.before) && intact (s.after);
  printf ("pthread_cond_t of %zu bytes: timedwait %s, guard areas %s\n",
          sizeof s.cond, e == ETIMEDOUT ? "timed out" : strerror (e),
          ok ? "intact" : "overwritten");
  return ok && e == ETIMEDOUT ? 0 : 1;
}

int
main (int argc, char **argv)
{
  if (argc == 2 && strcmp (argv[1], "sizes") == 0)
    return sizes ();
  if (argc == 2 && strcmp (argv[1], "embedded") == 0)
    return embedded ();
  fprintf (stderr, "usage: %s sizes|embedded\n", argv[0]);
  return 2;
}
