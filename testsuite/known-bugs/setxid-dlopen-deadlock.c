/* Reproducer of a deadlock in glibc (seen with stock 2.43 and with the
   nptl-scale series): pthread_create, set*id and dlopen of a module with
   static TLS, concurrently.

     __nptl_setxid         holds GL (dl_stack_cache_lock); waits in
                           setxid_mark_thread for a thread that is not
                           cloned yet (setxid_futex == -1);
     pthread_create        of that thread: the new thread is on
                           GL (dl_stack_used) already; its creator waits in
                           _dl_allocate_tls_init for GL (dl_load_tls_lock);
     dlopen                holds GL (dl_load_tls_lock); waits in
                           _dl_init_static_tls for GL (dl_stack_cache_lock).

   Not part of the gate (it hangs on stock too, some runs out of ten with
   STRESS_SECONDS=2 on 2 cores): run it by hand, e.g.
     build/2.43/stock/bin/cc -pthread -o t testsuite/known-bugs/setxid-dlopen-deadlock.c -ldl
   with the module testsuite/nptl-scale.stress/storm-tls-mod.c built as
   $MODDIR/storm-tls-mod.so.  It is storm.c without the pause of set*id
   around the dlopen.  */
#define STORM_SETXID_DURING_DLOPEN 1
#include "../nptl-scale.stress/storm.c"
