/* Self-test of the suite's library: a test that fails a check.  The FAIL
   line must give its exit status and its last line of output.  */
#include "../lib/check.h"

int
main (void)
{
  TEST_COMPARE (1 + 1, 3);
  return 0;
}
