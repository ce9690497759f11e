/* The seed report's experiments (TiFlash): one operation is a work unit of
   20 memcpy calls of 1,000,000 bytes.  The -p parameter picks how it runs:

     direct          each thread does work units itself (experiments 1)
     direct+idle1000 the same while 1000 more threads wait on a condition
                     variable (experiment 2)
     spawn           each thread creates a thread that does one work unit,
                     and joins it (experiments 3-5 with 40, 120, 500
                     threads)  */
#include "../bench.h"
#include <pthread.h>

enum { idle_threads = 1000 };

static int spawn;
static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle_cond = PTHREAD_COND_INITIALIZER;
static int idle_done;
static pthread_t idle[idle_threads];
static int nidle;

static void *
idle_thread (void *arg)
{
  pthread_mutex_lock (&idle_lock);
  while (!idle_done)
    pthread_cond_wait (&idle_cond, &idle_lock);
  pthread_mutex_unlock (&idle_lock);
  return arg;
}

static int
setup (int n, const char *param)
{
  if (param == NULL || strcmp (param, "direct") == 0)
    return 0;
  if (strcmp (param, "spawn") == 0)
    {
      spawn = 1;
      bench_extra_threads = n;
      return 0;
    }
  if (strcmp (param, "direct+idle1000") == 0)
    {
      pthread_attr_t attr;
      pthread_attr_init (&attr);
      pthread_attr_setstacksize (&attr, 64 * 1024);
      for (nidle = 0; nidle < idle_threads; nidle++)
        if (pthread_create (&idle[nidle], &attr, idle_thread, NULL) != 0)
          abort ();
      bench_extra_threads = nidle;
      return 0;
    }
  fprintf (stderr, "seed-work: unknown parameter '%s'\n", param);
  return 2;
}

static void
run (struct bench_thread *self)
{
  while (!bench_stopped ())
    {
      if (!spawn)
        bench_seed_unit (NULL);
      else if (!bench_spawn_join (bench_seed_unit))
        continue;
      bench_count (self);
    }
}

static void
wake (void)
{
  pthread_mutex_lock (&idle_lock);
  idle_done = 1;
  pthread_cond_broadcast (&idle_cond);
  pthread_mutex_unlock (&idle_lock);
  for (int i = 0; i < nidle; i++)
    pthread_join (idle[i], NULL);
}

const struct bench_case bench_case = { "seed-work", "20 x memcpy 1 MB", setup, run, wake,
                                       .ramp_up = 1 };
