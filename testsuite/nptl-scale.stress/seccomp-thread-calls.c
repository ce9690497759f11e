/* Thread creation, exit and join make only the system calls that stock
   glibc makes for them.  A seccomp allow-list (a container runtime's, a
   sandbox's) that was written for stock glibc kills or fails a process
   whose threads make any other call, so a change to these paths must not
   add one.

   A child process warms up (a thread created, ended with pthread_exit
   and joined, so that lazy initialization is done), then installs a filter that allows the calls
   that stock glibc's pthread_create, thread exit and pthread_join make
   on Linux (below) and traps every other call.  It then creates and
   joins threads in the shapes that use each path: a creator that joins
   and creates again (a stack from the cache, or one that the joiner
   kept), threads that exit with pthread_exit, detached threads, threads
   whose stacks of two sizes compete for the cache, a burst of threads
   that overflows the cache (munmap), and a thread that exits while it
   keeps the stack of the thread it joined.  The trap handler reports the
   call's number through a pipe and exits; the parent fails the test with
   that number.  write is allowed for the handler only.
   Copyright The GNU Toolchain Authors.  */
#include "../lib/check.h"
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#if defined __x86_64__ && defined __ILP32__
# define ARCH_NR 0
#elif defined __x86_64__
# define ARCH_NR AUDIT_ARCH_X86_64
#elif defined __i386__
# define ARCH_NR AUDIT_ARCH_I386
#elif defined __aarch64__ && !defined __AARCH64EB__
# define ARCH_NR AUDIT_ARCH_AARCH64
#else
# define ARCH_NR 0
#endif

/* What stock glibc calls for pthread_create, a thread's start and exit,
   and pthread_join: the stack (mmap, mprotect, madvise for guard pages
   and for the release of the unused stack at exit, munmap when the cache
   evicts), the clone, the new thread's set-up (set_robust_list, rseq,
   the signal mask), its exit, and the futex of the join.  brk, because
   pthread_create may call malloc for the DTV.  */
static const int allowed[] =
  {
    __NR_mmap,
#ifdef __NR_mmap2
    __NR_mmap2,
#endif
    __NR_munmap, __NR_mprotect, __NR_madvise, __NR_brk,
#ifdef __NR_clone3
    __NR_clone3,
#endif
    __NR_clone, __NR_set_robust_list,
#ifdef __NR_rseq
    __NR_rseq,
#endif
    __NR_rt_sigprocmask, __NR_futex,
#ifdef __NR_futex_time64
    __NR_futex_time64,
#endif
    __NR_exit, __NR_exit_group,
    /* For the trap handler and the end of the child only.  */
    __NR_write, __NR_rt_sigreturn,
  };

static int report_fd;

static void
trap (int sig, siginfo_t *si, void *ctx)
{
  int nr = si->si_syscall;
  if (write (report_fd, &nr, sizeof nr) != sizeof nr)
    _exit (4);
  _exit (3);
}

static int
install_filter (void)
{
  enum { n = sizeof allowed / sizeof allowed[0] };
  struct sock_filter f[4 + 2 * n + 1];
  int i = 0;
  f[i++] = (struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS,
                                          offsetof (struct seccomp_data, arch));
  f[i++] = (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, ARCH_NR,
                                          1, 0);
  f[i++] = (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_TRAP);
  f[i++] = (struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS,
                                          offsetof (struct seccomp_data, nr));
  for (int k = 0; k < n; ++k)
    {
      f[i++] = (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K,
                                              allowed[k], 0, 1);
      f[i++] = (struct sock_filter) BPF_STMT (BPF_RET | BPF_K,
                                              SECCOMP_RET_ALLOW);
    }
  f[i++] = (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_TRAP);
  struct sock_fprog prog = { .len = i, .filter = f };
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return -1;
  return prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

static void *
empty (void *arg)
{
  return arg;
}

static void *
exits (void *arg)
{
  pthread_exit (arg);
}

static volatile int detached_done;

static void *
detached (void *arg)
{
  __atomic_fetch_add (&detached_done, 1, __ATOMIC_RELEASE);
  return arg;
}

/* Joins a thread, so that it may keep its stack, and exits with it.  */
static void *
join_one (void *arg)
{
  pthread_t t;
  if (pthread_create (&t, NULL, empty, NULL) != 0
      || pthread_join (t, NULL) != 0)
    _exit (5);
  return arg;
}

/* The workload under the filter; exits 0, or 5 if a call fails (no
   stdio here: it may make other calls).  */
static void
workload (void)
{
  pthread_t t, ts[600];
  pthread_attr_t small;
  if (pthread_attr_init (&small) != 0
      || pthread_attr_setstacksize (&small, 64 * 1024) != 0)
    _exit (5);
  for (int i = 0; i < 2000; ++i)
    {
      if (pthread_create (&t, i % 3 == 0 ? &small : NULL,
                          i % 2 ? exits : empty, NULL) != 0
          || pthread_join (t, NULL) != 0)
        _exit (5);
    }
  pthread_attr_t det;
  if (pthread_attr_init (&det) != 0
      || pthread_attr_setdetachstate (&det, PTHREAD_CREATE_DETACHED) != 0)
    _exit (5);
  for (int i = 0; i < 200; ++i)
    if (pthread_create (&t, &det, detached, NULL) != 0)
      _exit (5);
  while (__atomic_load_n (&detached_done, __ATOMIC_ACQUIRE) < 200)
    ;
  for (int i = 0; i < 100; ++i)
    if (pthread_create (&t, NULL, join_one, NULL) != 0
        || pthread_join (t, NULL) != 0)
      _exit (5);
  /* 600 small stacks at once, then joined: they fit in a cache of the
     default size (40 MiB), so repeat with stacks of 1 MiB, which do not
     and make the cache unmap.  Not the default size: 600 stacks of
     8 MiB do not fit in the address space of a 32-bit process.  */
  pthread_attr_t big;
  if (pthread_attr_init (&big) != 0
      || pthread_attr_setstacksize (&big, 1024 * 1024) != 0)
    _exit (5);
  for (int round = 0; round < 2; ++round)
    {
      for (int i = 0; i < 600; ++i)
        if (pthread_create (&ts[i], round ? &big : &small, empty, NULL) != 0)
          _exit (5);
      for (int i = 0; i < 600; ++i)
        if (pthread_join (ts[i], NULL) != 0)
          _exit (5);
    }
  _exit (0);
}

int
main (void)
{
  if (ARCH_NR == 0)
    UNSUPPORTED ("no seccomp architecture value for this target");
  int fds[2];
  TEST_VERIFY_EXIT (pipe (fds) == 0);
  pid_t pid = fork ();
  TEST_VERIFY_EXIT (pid >= 0);
  if (pid == 0)
    {
      close (fds[0]);
      report_fd = fds[1];
      struct sigaction sa = { .sa_sigaction = trap, .sa_flags = SA_SIGINFO };
      sigemptyset (&sa.sa_mask);
      if (sigaction (SIGSYS, &sa, NULL) != 0)
        _exit (6);
      /* pthread_exit loads libgcc_s for the unwinder at its first
         call.  */
      pthread_t t;
      if (pthread_create (&t, NULL, exits, NULL) != 0
          || pthread_join (t, NULL) != 0)
        _exit (6);
      if (install_filter () != 0)
        _exit (77);
      workload ();
    }
  close (fds[1]);
  int status;
  TEST_VERIFY_EXIT (waitpid (pid, &status, 0) == pid);
  int nr = -1;
  ssize_t got = read (fds[0], &nr, sizeof nr);
  if (WIFEXITED (status) && WEXITSTATUS (status) == 77)
    UNSUPPORTED ("seccomp filters are not available (prctl failed)");
  printf ("child: %s %d\n", WIFEXITED (status) ? "exit" : "signal",
          WIFEXITED (status) ? WEXITSTATUS (status) : WTERMSIG (status));
  if (got == sizeof nr)
    check_fail (__FILE__, __LINE__, "system call %d, not in stock glibc's"
                " set for thread create, exit and join, was made", nr);
  TEST_VERIFY (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  return 0;
}
