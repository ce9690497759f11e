/* A module with initial-exec (static) TLS.  dlopen of it makes the dynamic
   linker initialise its TLS block in every existing thread
   (_dl_init_static_tls), while other threads keep being created.  */
static __thread int value __attribute__ ((tls_model ("initial-exec"))) = 42;
static __thread char pad[1024] __attribute__ ((tls_model ("initial-exec")))
  = { 1 };

int
storm_mod_get (void)
{
  return value + pad[0] + pad[1023];
}

void
storm_mod_dirty (void)
{
  value = -1000;
  pad[0] = 100;
  pad[1023] = 100;
}
