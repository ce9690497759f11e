/* The clone floor's method (cases/clone-floor.c): a thread made with the
   bare clone system call on a stack its creator allocated once, which
   exits at once, and a wait for the kernel to clear its TID
   (CLONE_CHILD_CLEARTID), as pthread_join does.  No TLS, no stack cache,
   no signal masking: what the kernel alone costs.  With CALLS, the
   thread and its creator also make the system calls that glibc's
   pthread_create and thread exit make around the clone (see
   bench_clone_start).  Needs _GNU_SOURCE.  */
#ifndef NPTL_SCALE_CLONE_H
#define NPTL_SCALE_CLONE_H

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
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

/* The calls of a thread of glibc 2.35 or later (x86_64, 2.43 traced)
   between its start and its exit system call: register its rseq area and
   its robust mutex list, restore its signal mask (glibc restores the
   creator's; the benchmark's creators block nothing, so the empty mask
   is theirs), and block all signals but the one of set*id before it
   exits.  The areas live on the thread's stack, which the kernel no
   longer touches once it has cleared the TID (it walks the robust list
   before, and writes the rseq area only on a return to user mode).
   Nothing here writes TLS but errno, where a call fails (rseq on a
   kernel without it): harmless, since the creator reads errno only
   after a failed clone, when no such thread runs.  */
static int
bench_clone_child_calls (void *arg)
{
  _Alignas (32) uint32_t rseq_area[8] = { 0 };
  /* An empty robust list: its head points to itself.  */
  void *robust_head[3] = { 0 };
  const uint64_t none = 0;
  /* glibc's SIGSETXID is signal 33, bit 32 of the kernel's mask.  */
  const uint64_t all_but_setxid = ~(1ULL << 32);
  robust_head[0] = robust_head;
  syscall (SYS_rseq, rseq_area, sizeof rseq_area, 0, 0x53053053);
  syscall (SYS_set_robust_list, robust_head, sizeof robust_head);
  syscall (SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof none);
  syscall (SYS_rt_sigprocmask, SIG_BLOCK, &all_but_setxid, NULL,
           sizeof all_but_setxid);
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
   kernel when it has exited.  With CALLS, block all signals around the
   clone, as pthread_create does, and let the thread make the calls of
   bench_clone_child_calls.  Returns 0 or an errno value.  */
static inline int
bench_clone_start (char *stack, volatile pid_t *tid, int calls)
{
  int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND
              | CLONE_THREAD | CLONE_SYSVSEM | CLONE_CHILD_CLEARTID;
  const uint64_t all = ~0ULL;
  uint64_t old;
  int e = 0;
  *tid = 1;
  if (calls)
    syscall (SYS_rt_sigprocmask, SIG_BLOCK, &all, &old, sizeof old);
  if (clone (calls ? bench_clone_child_calls : bench_clone_child,
             stack + bench_clone_stack_size, flags, NULL, NULL, NULL,
             (pid_t *) tid) < 0)
    e = errno;
  if (calls)
    syscall (SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof old);
  return e;
}

static inline void
bench_clone_wait (volatile pid_t *tid)
{
  pid_t t;
  while ((t = *tid) != 0)
    syscall (SYS_futex, tid, FUTEX_WAIT, t, NULL, NULL, 0);
}

#endif
