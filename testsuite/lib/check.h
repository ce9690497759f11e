/* Minimal test support for the nptl-scale DejaGnu suite, after glibc's
   support/check.h: a failed check prints where and exits 1; exit 77 means
   UNSUPPORTED.  Tests are built against the sysroot under test, so they use
   only public interfaces.  */
#ifndef NPTL_SCALE_CHECK_H
#define NPTL_SCALE_CHECK_H

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void __attribute__ ((noreturn, format (printf, 3, 4)))
check_fail (const char *file, int line, const char *fmt, ...)
{
  va_list ap;
  fprintf (stderr, "%s:%d: ", file, line);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
  exit (1);
}

#define TEST_VERIFY(e) \
  ((e) ? (void) 0 : check_fail (__FILE__, __LINE__, "check failed: %s", #e))
#define TEST_COMPARE(a, b)                                              \
  do {                                                                  \
    long long __a = (a), __b = (b);                                     \
    if (__a != __b)                                                     \
      check_fail (__FILE__, __LINE__, "%s == %lld, %s == %lld: differ", \
                  #a, __a, #b, __b);                                    \
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
