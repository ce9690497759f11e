/* A module with initial-exec (static) TLS that storm.c loads a second
   time into a new namespace with dlmopen (LM_ID_NEWLM).  Every thread
   created after that must see its TLS image: _dl_allocate_tls_init
   copies the images of modules outside the base namespace only when it
   is asked to (its init_tls argument in glibc 2.36; a backport that
   passed upstream's later main_thread meaning there left them zero).
   Small, so that it fits in the static TLS surplus that glibc keeps for
   other namespaces.  */
static __thread int value __attribute__ ((tls_model ("initial-exec"))) = 42;
static __thread char pad[16] __attribute__ ((tls_model ("initial-exec")))
  = { 1 };

int
storm_ns_mod_get (void)
{
  return value + pad[0] + pad[15];
}

void
storm_ns_mod_dirty (void)
{
  value = -1000;
  pad[0] = 100;
  pad[15] = 100;
}
