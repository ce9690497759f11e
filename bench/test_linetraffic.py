"""Unit tests of bench/linetraffic/measure.py's parsing and summaries
(no qemu, gdb or glibc needed: their output is given)."""

import os
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "linetraffic"))
import measure  # noqa: E402

PTYPE = """\
/* offset      |    size */  type = struct rtld_global {
/*      0      |    2304 */    struct link_namespaces {
/*      0      |       8 */        struct link_map *_ns_loaded;
                               } _dl_ns[16];
/*   2304      |       8 */    size_t _dl_nns;
/*   2312      |      40 */    __rtld_lock_recursive_t _dl_load_lock;
/*   2352      |       8 */    void (*_dl_rtld_lock_recursive)(void *);
/*   2360      |      16 */    union {
/*   2360      |      16 */        list_t a;
                               };
/*   2376      |      16 */    list_t _dl_stack_used;

                               /* total size (bytes): 2392 */
                             }
"""

READELF = """\
   362: 0000000000001000     4 OBJECT  GLOBAL DEFAULT   29 __nptl_nthreads@@GLIBC_PRIVATE
  3691: 0000000000001000     4 OBJECT  LOCAL  DEFAULT   29 __GI___nptl_nthreads
  8212: 0000000000001000     4 OBJECT  GLOBAL DEFAULT   29 __nptl_nthreads
     8: 0000000000000000     0 OBJECT  GLOBAL DEFAULT  UND _rtld_global_ro@GLIBC_PRIVATE (47)
    40: 0000000000002000  0x958 OBJECT  GLOBAL DEFAULT   20 _rtld_local
    41: 0000000000002000  0x958 OBJECT  GLOBAL DEFAULT   20 _rtld_global@@GLIBC_PRIVATE
   914: 0000000000000030     4 TLS     GLOBAL DEFAULT   23 errno@@GLIBC_PRIVATE
   915: 0000000000003000    16 FUNC    GLOBAL DEFAULT   13 text_symbol
   916: 0000000000004000     8 OBJECT  LOCAL  DEFAULT   29 lock.0
"""


class LinetrafficTest(unittest.TestCase):
    def test_fields(self):
        with mock.patch.object(measure, "sh", return_value=PTYPE):
            f = measure.fields("ld.so", "struct rtld_global")
        self.assertEqual(f[0], ("_dl_ns[0]", 0, 144))
        self.assertEqual(f[15], ("_dl_ns[15]", 2160, 144))
        self.assertEqual(f[16:], [("_dl_nns", 2304, 8), ("_dl_load_lock", 2312, 40),
                                  ("_dl_rtld_lock_recursive", 2352, 8),
                                  ("anon_2360", 2360, 16), ("_dl_stack_used", 2376, 16)])

    def test_data_symbols_one_name_per_address(self):
        with mock.patch.object(measure, "sh", return_value=READELF):
            self.assertEqual(measure.data_symbols("libc.so.6"),
                             [(0x1000, 4, "__nptl_nthreads"),
                              (0x2000, 0x958, "_rtld_global"),
                              (0x4000, 8, "lock.0")])

    def test_symbol_label(self):
        self.assertEqual(measure.symbol_label("main_arena", 0x10), "main_arena")
        self.assertEqual(measure.symbol_label("lock.0", 0x4000), "lock_0@4000")

    def test_object_sums(self):
        r = {"ops": 10, "fields": {
            "TOTAL": {"transfers": 60, "false": 20},
            "pthread.list": {"transfers": 30, "false": 10},
            "pthread.tid": {"transfers": 10, "false": 10},
            "rtld:_rtld_global._dl_stack_cache_lock": {"transfers": 20, "false": 0}}}
        self.assertEqual(measure.object_sums(r),
                         [("pthread", 4.0, 2.0), ("rtld:_rtld_global", 2.0, 0.0)])

    def test_sets(self):
        self.assertEqual(sorted(measure.SETS), ["condvar", "create-join"])
        self.assertIn(("seed-work", 40, "spawn"), measure.SETS["create-join"])
        cases = os.listdir(os.path.join(measure.TOP, "bench", "cases"))
        for configs in measure.SETS.values():
            for case, _, _ in configs:
                self.assertIn(case + ".c", cases)


if __name__ == "__main__":
    unittest.main()
