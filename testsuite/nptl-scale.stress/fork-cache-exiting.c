/* In the child of fork, the cached stack of a detached thread that was
   still exiting at the fork is free.  A detached thread puts its own
   stack into the cache and then makes the exit system call; until the
   kernel has cleared the thread's TID (and JOINSTATE), its stack is not
   reused.  In a child forked in between, that thread does not exist and
   the kernel will never mark its stack: unless the child of fork treats
   the stack as free, it stays in the child's cache for good, neither
   reused nor unmapped (as stock glibc leaves it).

   A detached thread installs a seccomp filter on itself that turns its
   exit system call into a user notification, so the thread waits in
   that call, its stack in the cache, until the test lets it go.  Once the
   notification arrives, the process forks; the child creates a thread
   with the same stack size, which must get the exiting thread's stack
   (in glibc the pthread_t is the descriptor's address, at the top of the
   stack block).  The thread is the only one this process ever created,
   and its stack size fits no other cached stack.  UNSUPPORTED without
   seccomp user notifications (Linux 5.5, not in qemu-user).
   Copyright The GNU Toolchain Authors.  */
#include "../lib/check.h"
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

enum { stack_size = 512 * 1024 };

static pthread_barrier_t barrier;
static int listener = -1;
static pthread_t exiting;

static void *
detached (void *arg)
{
  struct sock_filter code[] = {
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, SYS_exit, 0, 1),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = { sizeof code / sizeof code[0], code };
  exiting = pthread_self ();
  /* Without TSYNC the filter applies to this thread alone.  */
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
    listener = syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                        SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
  pthread_barrier_wait (&barrier);
  return arg;
}

static void *
empty (void *arg)
{
  return arg;
}

int
main (void)
{
  pthread_attr_t attr;
  XPT (pthread_attr_init (&attr));
  XPT (pthread_attr_setstacksize (&attr, stack_size));
  XPT (pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED));
  XPT (pthread_barrier_init (&barrier, NULL, 2));
  pthread_t t;
  XPT (pthread_create (&t, &attr, detached, NULL));
  pthread_barrier_wait (&barrier);
  if (listener < 0)
    UNSUPPORTED ("no seccomp user notification here (%s)", strerror (errno));

  /* The thread's exit system call: its stack is in the cache now.  */
  struct pollfd pfd = { listener, POLLIN, 0 };
  if (poll (&pfd, 1, 30000) != 1)
    check_fail (__FILE__, __LINE__, "the detached thread did not reach"
                " its exit system call in 30 s");
  struct seccomp_notif req;
  memset (&req, 0, sizeof req);
  TEST_VERIFY_EXIT (ioctl (listener, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0);
  TEST_COMPARE (req.data.nr, SYS_exit);

  pid_t pid = fork ();
  TEST_VERIFY_EXIT (pid >= 0);
  if (pid == 0)
    {
      pthread_t u;
      XPT (pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_JOINABLE));
      XPT (pthread_create (&u, &attr, empty, NULL));
      XPT (pthread_join (u, NULL));
      if (!pthread_equal (u, exiting))
        check_record (__FILE__, __LINE__, "the child of fork did not reuse"
                      " the stack of the thread that was exiting at the"
                      " fork: new thread %#lx, cached stack's %#lx",
                      (unsigned long) u, (unsigned long) exiting);
      _exit (0);
    }
  int status;
  TEST_VERIFY_EXIT (waitpid (pid, &status, 0) == pid);
  TEST_VERIFY (WIFEXITED (status) && WEXITSTATUS (status) == 0);

  /* Let the thread exit.  */
  struct seccomp_notif_resp resp;
  memset (&resp, 0, sizeof resp);
  resp.id = req.id;
  resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  TEST_VERIFY (ioctl (listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0);
  XPT (pthread_attr_destroy (&attr));
  printf ("the child of fork %s the stack of the thread exiting at the"
          " fork\n", check_failures->count == 0 ? "reused" : "did not reuse");
  return 0;
}
