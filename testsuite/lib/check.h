/* Minimal test support for the nptl-scale DejaGnu suite, after glibc's
   support/check.h and support/support_record_failure.c:

   TEST_VERIFY (e), TEST_COMPARE (a, b): on failure, print where and what,
     record the failure, and go on.
   TEST_VERIFY_EXIT (e), XPT (call), check_fail (file, line, fmt, ...):
     print, record, and exit 1 at once (for what the rest of the test
     relies on: a pointer dereferenced next, a thread to be joined).
   UNSUPPORTED (fmt, ...): exit 77.

   A test ends by returning 0 from main; an exit handler then turns any
   recorded failure into exit status 1, and prints the count and the
   first failure as the last line (the one the FAIL line of the .sum
   shows).  As in glibc, the record is in a shared mapping, so failures in
   a forked child count too.  Messages go to stderr (unbuffered), one
   line each, "error: FILE:LINE: ..."; a stress loop that fails every
   round prints the first CHECK_MAX_PRINTED and counts the rest.  Tests
   are built against the sysroot under test, so they use only public
   interfaces.  */
#ifndef NPTL_SCALE_CHECK_H
#define NPTL_SCALE_CHECK_H

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define CHECK_MAX_PRINTED 10

/* Shared with forked children, as glibc's struct test_failures.  */
static struct check_failures
{
  unsigned int count;
  char first[512];
} *check_failures;
static pid_t check_owner;

/* At exit of the process that started the test: a recorded failure makes
   the exit status 1, whatever main returned.  */
static void
check_report (void)
{
  unsigned int n = __atomic_load_n (&check_failures->count, __ATOMIC_ACQUIRE);
  if (n == 0 || getpid () != check_owner)
    return;
  fflush (stdout);
  fprintf (stderr, "error: %u test failure%s; the first: %s\n",
           n, n == 1 ? "" : "s", check_failures->first);
  _exit (1);
}

static void __attribute__ ((constructor))
check_init (void)
{
  void *p = mmap (NULL, sizeof *check_failures, PROT_READ | PROT_WRITE,
                  MAP_ANONYMOUS | MAP_SHARED, -1, 0);
  if (p == MAP_FAILED)
    {
      fprintf (stderr, "error: check.h: mmap: %s\n", strerror (errno));
      exit (1);
    }
  check_failures = p;
  check_owner = getpid ();
  atexit (check_report);
}

/* Record a failure at FILE:LINE and print it (the file's base name, so
   that the message reads the same whatever the source path).  */
static void __attribute__ ((unused, format (printf, 3, 4)))
check_record (const char *file, int line, const char *fmt, ...)
{
  int saved_errno = errno;
  const char *base = strrchr (file, '/');
  char msg[sizeof check_failures->first];
  int len = snprintf (msg, sizeof msg, "%s:%d: ", base ? base + 1 : file, line);
  if (len < 0 || len >= (int) sizeof msg)
    len = 0;
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (msg + len, sizeof msg - len, fmt, ap);
  va_end (ap);
  unsigned int n = __atomic_fetch_add (&check_failures->count, 1,
                                       __ATOMIC_ACQ_REL);
  if (n == 0)
    memcpy (check_failures->first, msg, sizeof msg);
  if (n < CHECK_MAX_PRINTED)
    fprintf (stderr, "error: %s\n", msg);
  else if (n == CHECK_MAX_PRINTED)
    fprintf (stderr, "error: more failures, counted but not printed\n");
  errno = saved_errno;
}

#define check_fail(file, line, ...) \
  (check_record (file, line, __VA_ARGS__), exit (1))

#define TEST_VERIFY(e) \
  ((e) ? (void) 0 : check_record (__FILE__, __LINE__, "not true: %s", #e))
#define TEST_VERIFY_EXIT(e) \
  ((e) ? (void) 0 : check_fail (__FILE__, __LINE__, "not true: %s", #e))
#define TEST_COMPARE(a, b)                                              \
  do {                                                                  \
    long long __a = (a), __b = (b);                                     \
    if (__a != __b)                                                     \
      check_record (__FILE__, __LINE__,                                 \
                    "%s == %s: differ; left: %lld, right: %lld",        \
                    #a, #b, __a, __b);                                  \
  } while (0)
/* Check the return value of a pthread function (0 or an error number).  */
#define XPT(call)                                                       \
  do {                                                                  \
    int __e = (call);                                                   \
    if (__e != 0)                                                       \
      check_fail (__FILE__, __LINE__, "%s: %s", #call, strerror (__e)); \
  } while (0)
#define UNSUPPORTED(...) \
  do { printf ("unsupported: " __VA_ARGS__); putchar ('\n'); exit (77); } while (0)

static inline double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* How long a stress test runs: STRESS_SECONDS, default 2.  */
static inline double
stress_seconds (void)
{
  const char *s = getenv ("STRESS_SECONDS");
  double d = s != NULL ? atof (s) : 0;
  return d > 0 ? d : 2;
}

#endif
