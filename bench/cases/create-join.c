/* One operation: pthread_create of a thread with default attributes (so
   the default stack size), then pthread_join.  The thread's body is empty,
   or with -p touch=KIB it first writes KIB KiB of its stack, page by page,
   as a thread with a deep call chain would; with -p frame=KIB it leaves
   the 64 KiB below its frame untouched and writes the KIB KiB below that,
   as a large frame used only at its far end followed by deep calls does
   without stack-clash probing (stacks that grow down).  */
#include "../bench.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t touch, frame;

enum { frame_gap = 64 * 1024 };

static int
setup (int nthreads, const char *param)
{
  unsigned long kib = 0;
  char end;
  bench_extra_threads = nthreads;
  if (param == NULL || *param == '\0')
    return 0;
  if (sscanf (param, "touch=%lu%c", &kib, &end) == 1 && kib <= 4096)
    touch = kib * 1024;
  else if (sscanf (param, "frame=%lu%c", &kib, &end) == 1 && kib <= 4096)
    frame = kib * 1024;
  else
    {
      fprintf (stderr, "create-join: bad parameter '%s' (touch=KIB or"
               " frame=KIB, at most 4096)\n", param);
      return 1;
    }
  return 0;
}

static void *
body (void *arg)
{
  bench_label_self ();
  if (touch > 0)
    {
      volatile char buf[touch];
      memset ((char *) buf, 1, touch);
      return (void *) (long) buf[touch / 2];
    }
  if (frame > 0)
    {
      volatile char *here = __builtin_frame_address (0);
      for (size_t off = frame_gap; off < frame_gap + frame; off += 4096)
        here[-(long) off] = 1;
    }
  return arg;
}

static void
run (struct bench_thread *self)
{
  while (!bench_stopped ())
    {
      if (bench_spawn_join (body))
        bench_count (self);
    }
}

const struct bench_case bench_case = { "create-join", "create+join", setup, run, NULL,
                                       .ramp_up = 1 };
