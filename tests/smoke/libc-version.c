/* Print the glibc version this program runs with and the path of the libc
   it loaded, so that the harness can check which sysroot is in use.  */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <stdio.h>

int
main (void)
{
  Dl_info info;
  if (dladdr ((void *) gnu_get_libc_version, &info) == 0
      || info.dli_fname == NULL)
    {
      fputs ("dladdr failed\n", stderr);
      return 1;
    }
  printf ("version %s\nrelease %s\nlibc %s\n", gnu_get_libc_version (),
          gnu_get_libc_release (), info.dli_fname);
  return 0;
}
