/* The clone floor's method (cases/clone-floor.c): a thread made with the
   bare clone system call on a stack its creator allocated once, which
   exits at once, and a wait for the kernel to clear its TID
   (CLONE_CHILD_CLEARTID), as pthread_join does.  No TLS, no stack cache,
   no signal masking: what the kernel alone costs.  Needs _GNU_SOURCE.  */
#ifndef NPTL_SCALE_CLONE_H
#define NPTL_SCALE_CLONE_H

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { bench_clone_stack_size = 64 * 1024 };

static int
bench_clone_child (void *arg)
{
  /* Must not touch TLS (it shares the creator's thread pointer).  */
  syscall (SYS_exit, 0);
  return 0;
}

static inline char *
bench_clone_stack (void)
{
  /* The child's syscall must not go through a lazy PLT slot the first
     time: _dl_fixup would run on the creator's TCB, which the child
     shares.  One call here resolves it.  */
  syscall (SYS_gettid);
  char *stack = mmap (NULL, bench_clone_stack_size, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  return stack == MAP_FAILED ? NULL : stack;
}

/* Start a thread on STACK that exits at once; *TID is cleared by the
   kernel when it has exited.  Returns 0 or an errno value.  */
static inline int
bench_clone_start (char *stack, volatile pid_t *tid)
{
  int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND
              | CLONE_THREAD | CLONE_SYSVSEM | CLONE_CHILD_CLEARTID;
  *tid = 1;
  if (clone (bench_clone_child, stack + bench_clone_stack_size, flags, NULL,
             NULL, NULL, (pid_t *) tid) < 0)
    return errno;
  return 0;
}

static inline void
bench_clone_wait (volatile pid_t *tid)
{
  pid_t t;
  while ((t = *tid) != 0)
    syscall (SYS_futex, tid, FUTEX_WAIT, t, NULL, NULL, 0);
}

#endif
