/* The ABI of the pthread types, as a program built against a sysroot's
   headers sees it, and what happens to a program built against another
   glibc's headers.  Used by check.sh (the "abi" part).

     abi-probe sizes      print "TYPE SIZE ALIGN", one line per type
     abi-probe embedded   use a pthread_cond_t embedded in a structure
                          between two guard areas; exit 1 if the library
                          writes outside the object, 0 otherwise
     abi-probe threads    create, join, detach and exit threads (on
                          glibc's stacks, cached ones among them, and on
                          one of the program's own), wait on condvars,
                          set the process's IDs and fork while threads
                          run; exit 0 if all of it worked, 1 otherwise

   Every mode but "sizes" first prints the glibc version and the files of
   the dynamic linker and of libc that are mapped into the process
   ("loaded: VERSION LDSO LIBC", from /proc/self/maps), so that the
   caller can check which ones ran.

   Built with one sysroot's compiler and run on another sysroot's library
   (bin/run), "embedded" shows whether binaries built against the first
   can run on the second; run with one sysroot's dynamic linker and
   another's libc, "threads" shows whether the two work together.  */
#include <errno.h>
#include <gnu/libc-version.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

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

/* Print "loaded: VERSION LDSO LIBC": the files mapped into this process
   whose names are those of a dynamic linker and of libc.  */
static void
loaded (void)
{
  char line[4096], ldso[4096] = "?", libc[4096] = "?";
  FILE *f = fopen ("/proc/self/maps", "r");
  while (f != NULL && fgets (line, sizeof line, f) != NULL)
    {
      char *path = strchr (line, '/');
      if (path == NULL)
        continue;
      path[strcspn (path, "\n")] = '\0';
      const char *base = strrchr (path, '/') + 1;
      if (strncmp (base, "ld-linux", 8) == 0 || strncmp (base, "ld.so", 5) == 0
          || strncmp (base, "ld64.so", 7) == 0)
        snprintf (ldso, sizeof ldso, "%s", path);
      else if (strcmp (base, "libc.so.6") == 0)
        snprintf (libc, sizeof libc, "%s", path);
    }
  if (f != NULL)
    fclose (f);
  printf ("loaded: %s %s %s\n", gnu_get_libc_version (), ldso, libc);
  fflush (stdout);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static unsigned long done_count;
static int go;

/* One unit of work, counted under LOCK; exits with pthread_exit when ARG
   is odd.  */
static void *
work (void *arg)
{
  pthread_mutex_lock (&lock);
  ++done_count;
  pthread_cond_broadcast (&changed);
  pthread_mutex_unlock (&lock);
  if ((unsigned long) arg & 1)
    pthread_exit (arg);
  return arg;
}

/* Wait on CHANGED until GO is set, then count.  */
static void *
waiter (void *arg)
{
  pthread_mutex_lock (&lock);
  while (!go)
    pthread_cond_wait (&changed, &lock);
  pthread_mutex_unlock (&lock);
  return work (arg);
}

/* Wait until DONE_COUNT is at least N; false after 30 s.  */
static int
wait_done (unsigned long n)
{
  struct timespec ts;
  int e = 0;
  clock_gettime (CLOCK_REALTIME, &ts);
  ts.tv_sec += 30;
  pthread_mutex_lock (&lock);
  while (done_count < n && e == 0)
    e = pthread_cond_timedwait (&changed, &lock, &ts);
  int ok = done_count >= n;
  pthread_mutex_unlock (&lock);
  return ok;
}

#define FAIL(...) \
  do { printf ("threads: " __VA_ARGS__); putchar ('\n'); return 1; } while (0)

static int
threads (void)
{
  enum { rounds = 200, joined = 4, user_stack = 256 * 1024 };
  pthread_t t[joined], w[2];
  pthread_attr_t detached, own;
  unsigned long expected = 0;

  /* Two threads blocked on a condvar all along: one on a stack of the
     program's own (the list of application stacks), one on glibc's.  */
  void *stack = aligned_alloc (4096, user_stack);
  pthread_attr_init (&own);
  if (stack == NULL || pthread_attr_setstack (&own, stack, user_stack) != 0)
    FAIL ("no stack of the program's own");
  if (pthread_create (&w[0], &own, waiter, (void *) 2) != 0
      || pthread_create (&w[1], NULL, waiter, (void *) 4) != 0)
    FAIL ("pthread_create of the waiters failed");

  pthread_attr_init (&detached);
  pthread_attr_setdetachstate (&detached, PTHREAD_CREATE_DETACHED);
  for (unsigned long r = 0; r < rounds; r++)
    {
      /* Joinable threads, whose stacks go back into the cache and are
         taken again in the next round, and a detached one.  */
      for (unsigned long i = 0; i < joined; i++)
        if (pthread_create (&t[i], NULL, work, (void *) i) != 0)
          FAIL ("pthread_create failed in round %lu", r);
      pthread_t d;
      if (pthread_create (&d, &detached, work, (void *) 0) != 0)
        FAIL ("pthread_create of a detached thread failed in round %lu", r);
      for (unsigned long i = 0; i < joined; i++)
        {
          void *ret;
          if (pthread_join (t[i], &ret) != 0 || ret != (void *) i)
            FAIL ("pthread_join failed in round %lu", r);
        }
      expected += joined + 1;

      if (r == rounds / 2)
        {
          /* The walks over all threads: set*id signals each of them.  */
          if (setegid (getegid ()) != 0 || seteuid (geteuid ()) != 0)
            FAIL ("set*id failed: %s", strerror (errno));
          /* fork while threads run: the child, alone, creates and joins
             a thread, on a stack of the parent's threads.  */
          pid_t pid = fork ();
          if (pid == 0)
            {
              pthread_t c;
              void *ret;
              _exit (pthread_create (&c, NULL, work, (void *) 8) != 0
                     || pthread_join (c, &ret) != 0 || ret != (void *) 8);
            }
          int status;
          if (pid < 0 || waitpid (pid, &status, 0) != pid
              || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
            FAIL ("the child of fork failed to create and join a thread");
        }
    }
  if (!wait_done (expected))
    FAIL ("%lu of %lu threads ran", done_count, expected);

  pthread_mutex_lock (&lock);
  go = 1;
  pthread_cond_broadcast (&changed);
  pthread_mutex_unlock (&lock);
  for (int i = 0; i < 2; i++)
    if (pthread_join (w[i], NULL) != 0)
      FAIL ("pthread_join of a waiter failed");
  if (!wait_done (expected + 2))
    FAIL ("the waiters were not woken");
  printf ("threads: %lu threads ran, 2 waiters woken, set*id and fork"
          " with threads running\n", expected);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc == 2 && strcmp (argv[1], "sizes") == 0)
    return sizes ();
  if (argc == 2 && strcmp (argv[1], "embedded") == 0)
    {
      loaded ();
      return embedded ();
    }
  if (argc == 2 && strcmp (argv[1], "threads") == 0)
    {
      loaded ();
      return threads ();
    }
  fprintf (stderr, "usage: %s sizes|embedded|threads\n", argv[0]);
  return 2;
}
