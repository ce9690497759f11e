/* Producers and consumers on condition variables: the -p parameter that
   the queue cases share, P:C:signal or P:C:broadcast (P + C threads),
   optionally followed by :WORK, and how they wake the other side.  */
#ifndef NPTL_SCALE_PC_H
#define NPTL_SCALE_PC_H

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int pc_producers, pc_broadcast;

/* Parse PARAM for case NAME with N threads; *WORK (if WORK is not NULL)
   is set when PARAM gives it.  Returns 0, or 2 after a message.  */
static int
pc_setup (const char *name, int n, const char *param, unsigned int *work)
{
  int p, c;
  char how[16];
  unsigned int w;
  int k = param == NULL ? 0
    : sscanf (param, "%d:%d:%15[a-z]:%u", &p, &c, how, &w);
  if (k < 3 || (k == 4 && work == NULL) || p < 1 || c < 1 || p + c != n
      || (strcmp (how, "signal") != 0 && strcmp (how, "broadcast") != 0))
    {
      fprintf (stderr, "%s: -p P:C:signal|broadcast%s with P + C = -t\n",
               name, work != NULL ? "[:WORK]" : "");
      return 2;
    }
  pc_producers = p;
  pc_broadcast = how[0] == 'b';
  if (k == 4)
    *work = w;
  return 0;
}

/* Wake the other side: one waiter, or all with broadcast.  */
static void
pc_wake (pthread_cond_t *c)
{
  if (pc_broadcast)
    pthread_cond_broadcast (c);
  else
    pthread_cond_signal (c);
}

/* After the stop: wake every thread blocked on either side.  */
static void
pc_wake_all (pthread_mutex_t *lock, pthread_cond_t *a, pthread_cond_t *b)
{
  pthread_mutex_lock (lock);
  pthread_cond_broadcast (a);
  pthread_cond_broadcast (b);
  pthread_mutex_unlock (lock);
}

#endif
