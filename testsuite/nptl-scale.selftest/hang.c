/* Self-test of the suite's library: a test that hangs (a thread waits for
   a mutex that the main thread keeps while joining it, a deadlock).  The
   FAIL line must say "TIMEOUT".  */
#include "../lib/check.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *
take (void *arg)
{
  XPT (pthread_mutex_lock (&lock));
  return NULL;
}

int
main (void)
{
  XPT (pthread_mutex_lock (&lock));
  pthread_t t;
  XPT (pthread_create (&t, NULL, take, NULL));
  XPT (pthread_join (t, NULL));
  return 0;
}
