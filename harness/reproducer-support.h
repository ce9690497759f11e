/* The part of glibc's test support (support/check.h, xthread.h,
   xunistd.h, xstdio.h, xdlfcn.h, support.h and test-driver.c) that the
   tests of the fixes use, for their stand-alone reproducers
   (harness/bug_reports.py puts this in place of the test's support/
   includes, so that the test builds with any C compiler against an
   installed glibc).  The semantics are glibc's: TEST_* record a failure
   and go on, FAIL_EXIT1 records one and ends the test with status 1,
   FAIL_UNSUPPORTED ends it with 77 (1 after a failure), and the x*
   wrappers end it when the call fails.  reproducer-driver.c runs do_test
   as glibc's driver does.  */

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXIT_UNSUPPORTED 77

/* Set by a failed TEST_* in any process of the test: the driver puts it
   in shared memory, as glibc's does, so that a forked child's failure
   counts.  */
static int support_failures_local;
static volatile int *support_failures = &support_failures_local;

static inline void
support_print (const char *kind, const char *file, int line,
	       const char *fmt, va_list ap)
{
  fflush (stdout);
  fprintf (stderr, "%s: %s:%d: ", kind, file, line);
  vfprintf (stderr, fmt, ap);
  fputc ('\n', stderr);
}

static void __attribute__ ((format (printf, 4, 5)))
support_fail (int status, const char *file, int line, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  support_print (status == EXIT_UNSUPPORTED ? "warning" : "error",
		 file, line, fmt, ap);
  va_end (ap);
  /* As glibc's support_record_failure: every failure counts, also one
     that ends the test (FAIL_EXIT1) or a forked child.  */
  if (status != EXIT_UNSUPPORTED)
    *support_failures = 1;
  if (status != 0)
    exit (status == EXIT_UNSUPPORTED && *support_failures ? 1 : status);
}

#define FAIL(...) support_fail (0, __FILE__, __LINE__, __VA_ARGS__)
#define FAIL_EXIT1(...) support_fail (1, __FILE__, __LINE__, __VA_ARGS__)
#define FAIL_UNSUPPORTED(...) \
  support_fail (EXIT_UNSUPPORTED, __FILE__, __LINE__, __VA_ARGS__)
#define TEST_VERIFY(expr) \
  ((expr) ? (void) 0 : FAIL ("not true: %s", #expr))
#define TEST_VERIFY_EXIT(expr) \
  ((expr) ? (void) 0 : FAIL_EXIT1 ("not true: %s", #expr))
/* glibc's TEST_COMPARE: integers only (no floating point, at most the
   size of long long), equal values and equal signs.  */
#define TEST_COMPARE(left, right)					\
  ({									\
    typedef __typeof__ (+ (left)) support_left_type;			\
    typedef __typeof__ (+ (right)) support_right_type;			\
    support_left_type support_left = (left);				\
    support_right_type support_right = (right);			\
    int support_left_positive = support_left > 0;			\
    int support_right_positive = support_right > 0;			\
    _Static_assert ((support_left_type) 1.0 == (support_left_type) 1.5, \
		    "left value has floating-point type");		\
    _Static_assert ((support_right_type) 1.0				\
		    == (support_right_type) 1.5,				\
		    "right value has floating-point type");		\
    _Static_assert (sizeof (support_left) <= sizeof (long long),	\
		    "left value fits into long long");			\
    _Static_assert (sizeof (support_right) <= sizeof (long long),	\
		    "right value fits into long long");			\
    if (support_left != support_right					\
	|| support_left_positive != support_right_positive)		\
      FAIL ("%s == %s: %s%lld != %s%lld", #left, #right,		\
	    support_left_positive ? "" : "(signed) ",			\
	    (long long) support_left,					\
	    support_right_positive ? "" : "(signed) ",			\
	    (long long) support_right);				\
  })

/* An x* wrapper: CALL returns 0 or an error number.  */
#define SUPPORT_PTHREAD(call)						\
  do									\
    {									\
      int support_ret = (call);					\
      if (support_ret != 0)						\
	{								\
	  errno = support_ret;						\
	  FAIL_EXIT1 ("%s: %m", #call);					\
	}								\
    }									\
  while (0)

static inline pthread_t
xpthread_create (pthread_attr_t *attr, void *(*fn) (void *), void *closure)
{
  pthread_t thr;
  SUPPORT_PTHREAD (pthread_create (&thr, attr, fn, closure));
  return thr;
}

static inline void *
xpthread_join (pthread_t thr)
{
  void *result;
  SUPPORT_PTHREAD (pthread_join (thr, &result));
  return result;
}

#define xpthread_attr_init(a) SUPPORT_PTHREAD (pthread_attr_init (a))
#define xpthread_attr_destroy(a) SUPPORT_PTHREAD (pthread_attr_destroy (a))
#define xpthread_attr_setstacksize(a, s) \
  SUPPORT_PTHREAD (pthread_attr_setstacksize (a, s))
#define xpthread_attr_setguardsize(a, s) \
  SUPPORT_PTHREAD (pthread_attr_setguardsize (a, s))
#define xpthread_attr_setdetachstate(a, s) \
  SUPPORT_PTHREAD (pthread_attr_setdetachstate (a, s))
#define xpthread_barrier_init(b, a, n) \
  SUPPORT_PTHREAD (pthread_barrier_init (b, a, n))
#define xpthread_barrier_destroy(b) SUPPORT_PTHREAD (pthread_barrier_destroy (b))
#define xpthread_mutex_lock(m) SUPPORT_PTHREAD (pthread_mutex_lock (m))
#define xpthread_mutex_unlock(m) SUPPORT_PTHREAD (pthread_mutex_unlock (m))
#define xpthread_cond_wait(c, m) SUPPORT_PTHREAD (pthread_cond_wait (c, m))
#define xpthread_cond_broadcast(c) SUPPORT_PTHREAD (pthread_cond_broadcast (c))

/* As glibc's: true for the thread that pthread_barrier_wait made the
   serial one.  */
static inline int
xpthread_barrier_wait (pthread_barrier_t *b)
{
  int ret = pthread_barrier_wait (b);
  if (ret != 0 && ret != PTHREAD_BARRIER_SERIAL_THREAD)
    {
      errno = ret;
      FAIL_EXIT1 ("pthread_barrier_wait: %m");
    }
  return ret == PTHREAD_BARRIER_SERIAL_THREAD;
}

/* A call that returns -1 and sets errno on failure.  */
#define SUPPORT_ERRNO(call, what)				\
  ({								\
    __typeof__ (call) support_r = (call);			\
    if (support_r == (__typeof__ (call)) -1)			\
      FAIL_EXIT1 ("%s: %m", what);				\
    support_r;							\
  })

#define xfork() SUPPORT_ERRNO (fork (), "fork")
#define xwaitpid(p, s, o) SUPPORT_ERRNO (waitpid (p, s, o), "waitpid")
#define xpipe(fds) ((void) SUPPORT_ERRNO (pipe (fds), "pipe"))
#define xclose(fd) ((void) SUPPORT_ERRNO (close (fd), "close"))

static inline void
xwrite (int fd, const void *buf, size_t len)
{
  const char *p = buf;
  while (len > 0)
    {
      ssize_t n = write (fd, p, len);
      if (n <= 0)
	FAIL_EXIT1 ("write: %m");
      p += n;
      len -= n;
    }
}

static inline void *
xmalloc (size_t n)
{
  void *p = malloc (n);
  if (p == NULL)
    FAIL_EXIT1 ("malloc (%zu): %m", n);
  return p;
}

static inline FILE *
xfopen (const char *path, const char *mode)
{
  FILE *f = fopen (path, mode);
  if (f == NULL)
    FAIL_EXIT1 ("fopen (%s): %m", path);
  return f;
}

static inline void
xfclose (FILE *f)
{
  if (fclose (f) != 0)
    FAIL_EXIT1 ("fclose: %m");
}

static inline void *
xdlopen (const char *name, int flags)
{
  void *h = dlopen (name, flags);
  if (h == NULL)
    FAIL_EXIT1 ("dlopen (%s): %s", name, dlerror ());
  return h;
}

static inline void *
xdlsym (void *h, const char *name)
{
  dlerror ();
  void *p = dlsym (h, name);
  const char *error = dlerror ();
  if (error != NULL)
    FAIL_EXIT1 ("dlsym (%s): %s", name, error);
  return p;
}

static inline void
xdlclose (void *h)
{
  if (dlclose (h) != 0)
    FAIL_EXIT1 ("dlclose: %s", dlerror ());
}
