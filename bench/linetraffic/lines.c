/* A QEMU TCG plugin that counts cache-line transfers between threads,
   for memory that a map file labels, without hardware counters.

     qemu-x86_64 -plugin lines.so,map=MAP,out=OUT[,line=64][,yield=1] PROGRAM...

   In user mode every guest thread is a vCPU of its own, so an access by
   one vCPU to a line that another vCPU wrote since this one last held it
   is a transfer of that line between two cores on real hardware,
   whatever the number of cores.  The model is MESI reduced to what
   coherence costs: per line, the set of vCPUs holding a copy, and the
   one holding it modified, if any.  A read of a line that another vCPU
   holds modified is a transfer (the line comes from that vCPU's cache);
   a write by a vCPU when any other vCPU holds a copy is a transfer (an
   ownership request that invalidates the copies).  Misses
   a real cache would also take (capacity, conflict, prefetch) are not
   counted, nor is anything outside the map.

   Each transfer is charged to the labelled field that the access touched,
   and classified: "true" if the field overlaps the bytes that the other
   vCPU last accessed on that line (the data itself moved), "false"
   otherwise (false sharing: the line moved for a neighbour), and a false
   one again as inside one object (the other access was to another field
   of the same object: "cond.__wseq" and "cond.__g_signals[0]") or
   between objects.

   MAP: one line per labelled range, "HEXADDR SIZE LABEL", sorted by
   address, non-overlapping; all of them must lie within one window of
   at most 64 MiB.  OUT: one line per label that took part,
   "LABEL accesses writes transfers false false_inside", then a total.  */

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

enum { max_vcpus = 256, words = max_vcpus / 64 };

struct label
{
  uint64_t lo, hi;
  char *name;
  /* The object: NAME up to its first '.' ("cond.__wseq" -> "cond").  */
  size_t object_len;
  uint64_t accesses, writes, transfers, false_transfers, false_inside;
};

/* One access to a line: by whom, and which bytes.  */
struct rec
{
  int vcpu;
  uint64_t lo, hi;
  struct label *label;
};

struct line
{
  uint64_t holders[words];
  /* The vCPU holding the line modified (it wrote it and nobody has read
     it since), or -1.  */
  int owner;
  /* REC[0]: the last access; REC[1]: the last one by another vCPU than
     REC[0]'s.  So the last access by a vCPU other than V is REC[0] or,
     if that is V's, REC[1].  */
  struct rec rec[2];
};

static struct label *labels;
static size_t nlabels;
static uint64_t lo, hi, line_size = 64;
static struct line *lines;
static uint64_t beyond_vcpus;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *out_path;
static int yield_each;

static struct label *
find_label (uint64_t addr)
{
  size_t a = 0, b = nlabels;
  while (a < b)
    {
      size_t m = (a + b) / 2;
      if (addr < labels[m].lo)
        b = m;
      else if (addr >= labels[m].hi)
        a = m + 1;
      else
        return &labels[m];
    }
  return NULL;
}

static int
others_hold (struct line *l, unsigned int v)
{
  for (int i = 0; i < words; i++)
    if (l->holders[i] & ~(i == (int) v / 64 ? 1ull << (v % 64) : 0))
      return 1;
  return 0;
}

static void
access_line (unsigned int v, uint64_t addr, unsigned int size, int store)
{
  struct label *lab = find_label (addr);
  if (lab == NULL)
    return;
  struct line *l = &lines[(addr - lo) / line_size];
  pthread_mutex_lock (&lock);
  lab->accesses++;
  lab->writes += store;
  struct rec *other = &l->rec[l->rec[0].vcpu == (int) v];
  int transfer = store ? others_hold (l, v) : l->owner >= 0 && l->owner != (int) v;
  if (transfer)
    {
      lab->transfers++;
      if (addr + size <= other->lo || addr >= other->hi)
        {
          lab->false_transfers++;
          /* False sharing between two fields of one object, or with
             another object on the line.  */
          if (other->label != NULL && other->label->object_len == lab->object_len
              && memcmp (other->label->name, lab->name, lab->object_len) == 0)
            lab->false_inside++;
        }
    }
  if (store)
    {
      memset (l->holders, 0, sizeof l->holders);
      l->owner = v;
    }
  else if (l->owner != (int) v)
    l->owner = -1;
  l->holders[v / 64] |= 1ull << (v % 64);
  if (l->rec[0].vcpu != (int) v)
    l->rec[1] = l->rec[0];
  l->rec[0] = (struct rec) { v, addr, addr + size, lab };
  pthread_mutex_unlock (&lock);
}

static void
mem_cb (unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
        void *udata)
{
  if (vaddr < lo || vaddr >= hi)
    return;
  if (vcpu >= max_vcpus)
    {
      __atomic_fetch_add (&beyond_vcpus, 1, __ATOMIC_RELAXED);
      return;
    }
  unsigned int size = 1u << qemu_plugin_mem_size_shift (info);
  int store = qemu_plugin_mem_is_store (info);
  /* An access that spans two lines is one access to each.  */
  uint64_t end = vaddr + size;
  for (uint64_t a = vaddr; a < end; a = (a / line_size + 1) * line_size)
    {
      uint64_t e = (a / line_size + 1) * line_size;
      access_line (vcpu, a, (e < end ? e : end) - a, store);
    }
  /* With fewer host CPUs than guest threads, a thread would otherwise run
     for a whole time slice, doing many operations while the others wait
     to be scheduled, and its lines would stay put: give the CPU to the
     next runnable thread after each access to the watched memory, so that
     threads interleave at that grain, as they do with a core each.  */
  if (yield_each)
    sched_yield ();
}

static void
tb_trans (qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
  size_t n = qemu_plugin_tb_n_insns (tb);
  for (size_t i = 0; i < n; i++)
    qemu_plugin_register_vcpu_mem_cb (qemu_plugin_tb_get_insn (tb, i), mem_cb,
                                      QEMU_PLUGIN_CB_NO_REGS,
                                      QEMU_PLUGIN_MEM_RW, NULL);
}

static void
at_exit (qemu_plugin_id_t id, void *p)
{
  FILE *f = fopen (out_path, "w");
  if (f == NULL)
    {
      perror (out_path);
      return;
    }
  uint64_t t = 0, ft = 0, fi = 0, acc = 0;
  for (size_t i = 0; i < nlabels; i++)
    if (labels[i].accesses != 0)
      {
        fprintf (f, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
                 " %" PRIu64 "\n", labels[i].name, labels[i].accesses,
                 labels[i].writes, labels[i].transfers,
                 labels[i].false_transfers, labels[i].false_inside);
        t += labels[i].transfers;
        ft += labels[i].false_transfers;
        fi += labels[i].false_inside;
        acc += labels[i].accesses;
      }
  fprintf (f, "TOTAL %" PRIu64 " - %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
           acc, t, ft, fi);
  fprintf (f, "LINE %" PRIu64 "\n", line_size);
  if (beyond_vcpus != 0)
    fprintf (f, "UNCOUNTED %" PRIu64 " accesses by vCPUs past %d\n",
             beyond_vcpus, max_vcpus);
  fclose (f);
}

static int
load_map (const char *path)
{
  FILE *f = fopen (path, "r");
  if (f == NULL)
    return -1;
  char name[512];
  uint64_t addr, size;
  size_t cap = 0;
  while (fscanf (f, "%" SCNx64 " %" SCNu64 " %511s", &addr, &size, name) == 3)
    {
      if (nlabels == cap)
        {
          cap = cap ? 2 * cap : 256;
          labels = realloc (labels, cap * sizeof *labels);
        }
      labels[nlabels++] = (struct label) { addr, addr + size, strdup (name),
                                           strcspn (name, ".") };
    }
  fclose (f);
  if (nlabels == 0)
    return -1;
  for (size_t i = 1; i < nlabels; i++)
    if (labels[i].lo < labels[i - 1].hi)
      return -1;
  lo = labels[0].lo / line_size * line_size;
  hi = labels[nlabels - 1].hi;
  if (hi - lo > (64u << 20))
    return -1;
  lines = calloc ((hi - lo) / line_size + 2, sizeof *lines);
  for (uint64_t i = 0; i < (hi - lo) / line_size + 2; i++)
    lines[i].owner = lines[i].rec[0].vcpu = lines[i].rec[1].vcpu = -1;
  return 0;
}

QEMU_PLUGIN_EXPORT int
qemu_plugin_install (qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                     char **argv)
{
  const char *map = NULL;
  for (int i = 0; i < argc; i++)
    if (strncmp (argv[i], "map=", 4) == 0)
      map = argv[i] + 4;
    else if (strncmp (argv[i], "out=", 4) == 0)
      out_path = strdup (argv[i] + 4);
    else if (strncmp (argv[i], "line=", 5) == 0)
      line_size = strtoull (argv[i] + 5, NULL, 10);
    else if (strcmp (argv[i], "yield=1") == 0)
      yield_each = 1;
    else
      {
        fprintf (stderr, "lines: unknown argument %s\n", argv[i]);
        return -1;
      }
  if (map == NULL || out_path == NULL || line_size == 0
      || (line_size & (line_size - 1)) != 0)
    {
      fprintf (stderr, "lines: map=FILE,out=FILE[,line=POWER_OF_2][,yield=1]"
               " needed\n");
      return -1;
    }
  if (load_map (map) != 0)
    {
      fprintf (stderr, "lines: %s: unreadable, empty, overlapping or too wide\n",
               map);
      return -1;
    }
  qemu_plugin_register_vcpu_tb_trans_cb (id, tb_trans);
  qemu_plugin_register_atexit_cb (id, at_exit, NULL);
  return 0;
}
