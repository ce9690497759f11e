/* The floor under create-join: one operation is a thread made with the bare
   clone system call on a stack allocated once per creator, which exits at
   once, and a wait for the kernel to clear its TID (CLONE_CHILD_CLEARTID),
   as pthread_join does.  No TLS, no stack cache, no signal masking.  */
#define _GNU_SOURCE
#include "../bench.h"
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { stack_size = 64 * 1024 };

static int
child (void *arg)
{
  /* Must not touch TLS (it shares the creator's thread pointer).  */
  syscall (SYS_exit, 0);
  return 0;
}

static void
run (struct bench_thread *self)
{
  char *stack = mmap (NULL, stack_size, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED)
    abort ();
  while (!bench_stopped ())
    {
      volatile pid_t tid = 1;
      int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND
                  | CLONE_THREAD | CLONE_SYSVSEM | CLONE_CHILD_CLEARTID;
      if (clone (child, stack + stack_size, flags, NULL, NULL, NULL,
                 (pid_t *) &tid) < 0)
        abort ();
      pid_t t;
      while ((t = tid) != 0)
        syscall (SYS_futex, &tid, FUTEX_WAIT, t, NULL, NULL, 0);
      bench_count (self);
    }
  munmap (stack, stack_size);
}

const struct bench_case bench_case = { "clone-floor", "clone+wait", NULL, run, NULL };
