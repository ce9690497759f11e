/* Self-test of the suite's library: two failed TEST_VERIFY checks, then
   main returns 0.  As in glibc, each failure is printed and recorded and
   the test goes on; the recorded failures make the test FAIL (exit 1),
   and the last line counts them and names the first.  */
#include "../lib/check.h"

int
main (void)
{
  int one = 1;
  TEST_VERIFY (one == 2);
  TEST_VERIFY (one == 3);
  puts ("reached the end");
  return 0;
}
