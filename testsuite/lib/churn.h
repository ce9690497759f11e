/* The thread churn of the stress tests: threads that create and join
   threads until a deadline, most with the default stack size and every
   fourth with a 256 KiB one, so that the stack cache holds stacks of
   two sizes.  Copyright The GNU Toolchain Authors.  */
#ifndef NPTL_SCALE_CHURN_H
#define NPTL_SCALE_CHURN_H

#include "check.h"
#include <stdatomic.h>

static void *(*churn_worker) (void *);
static double churn_deadline;
static atomic_long churn_creates;

static void *
churn_creator (void *arg)
{
  long i = (long) arg;
  pthread_attr_t attr;
  XPT (pthread_attr_init (&attr));
  XPT (pthread_attr_setstacksize (&attr, 256 * 1024));
  while (now () < churn_deadline)
    {
      pthread_t t;
      void *ret;
      size_t size = (i++ % 4 == 0) ? 256 * 1024 : 0;
      XPT (pthread_create (&t, size ? &attr : NULL, churn_worker, (void *) i));
      XPT (pthread_join (t, &ret));
      TEST_VERIFY (ret == (void *) i);
      atomic_fetch_add (&churn_creates, 1);
    }
  XPT (pthread_attr_destroy (&attr));
  return NULL;
}

/* Start the N threads CREATORS, which create and join threads that run
   WORKER until DEADLINE (see now); WORKER must return its argument.  */
static void
churn_start (pthread_t *creators, int n, void *(*worker) (void *),
             double deadline)
{
  churn_worker = worker;
  churn_deadline = deadline;
  for (long i = 0; i < n; i++)
    XPT (pthread_create (&creators[i], NULL, churn_creator,
                         (void *) (i * 1000)));
}

/* Wait for the N threads CREATORS; return how many threads they created
   and joined.  */
static long
churn_join (pthread_t *creators, int n)
{
  for (int i = 0; i < n; i++)
    XPT (pthread_join (creators[i], NULL));
  return atomic_load (&churn_creates);
}

#endif
