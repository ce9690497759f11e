/* A QEMU TCG plugin that counts cache-line transfers between threads,
   for memory that a map file labels, without hardware counters.

     qemu-x86_64 -plugin lines.so,map=MAP,out=OUT[,line=64][,yield=1] PROGRAM...

   In user mode every guest thread is a vCPU of its own, so an access by
   one vCPU to a line that another vCPU wrote since this one last held it
   is a transfer of that line between two cores on real hardware,
   whatever the number of cores.  The live threads are the cores: a thread
   that exits leaves its core, with what its cache holds, to the next
   thread created (vcpu_exit).  The model is MESI reduced to what
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

   MAP: one entry per line, sorted by address within each kind, ranges
   not overlapping:

     HEXADDR SIZE LABEL          a range at a fixed address (the program,
                                 linked without PIE)
     R MODULE HEXOFF SIZE LABEL  a range at an offset from the load address
                                 of module MODULE (0-7), active once the
                                 program has told it (below)
     T TYPE HEXOFF SIZE FIELD    a field of object type TYPE (0-7), whose
                                 instances the program names (below): the
                                 instance at A labels A + OFF "FIELD"

   The program tells its module load addresses and its objects with a
   system call that does not exist, which the plugin sees before the kernel
   (qemu) answers it with ENOSYS: syscall (LINES_SYSCALL, 1, MODULE, BASE)
   and syscall (LINES_SYSCALL, 2, TYPE, ADDRESS) (bench/bench.h).  Counts
   are kept per label name, so the instances of a type add up by field;
   "inside one object" compares objects (a symbol, an instance).

   OUT: one line per label that took part,
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

enum { lines_syscall = 0x4e50, max_kinds = 8, max_index = 1 << 16,
       nr_munmap = 11 /* x86_64 */ };

/* What is counted for one label name.  */
struct counter
{
  char *name;
  uint64_t accesses, writes, transfers, false_transfers, false_inside;
};

struct label
{
  uint64_t lo, hi;
  struct counter *c;
  /* The object the range belongs to (a symbol, an instance of a type).  */
  uint64_t object;
  /* A field of an instance, removed when its memory is unmapped.  */
  int instance;
};

/* One access to a line: by whom, and which bytes.  */
struct rec
{
  int vcpu;
  uint64_t lo, hi;
  struct label *label;
  uint64_t object;
};

struct line
{
  uint64_t addr;                /* the line's address + 1; 0: a free slot */
  uint64_t holders[words];
  /* The vCPU holding the line modified (it wrote it and nobody has read
     it since), or -1.  */
  int owner;
  /* REC[0]: the last access; REC[1]: the last one by another vCPU than
     REC[0]'s.  So the last access by a vCPU other than V is REC[0] or,
     if that is V's, REC[1].  */
  struct rec rec[2];
};

/* A range waiting for its module's load address, or a field of a type.  */
struct pending
{
  int kind;
  uint64_t off, size;
  struct counter *c;
  uint64_t object;
};

static struct counter **counters;
static size_t ncounters;
/* The active labels, sorted by address.  */
static struct label *labels;
static size_t nlabels, cap_labels;
static struct pending *pendings;
static size_t npendings;
static uint64_t lo = UINT64_MAX, hi, line_size = 64, next_object = 1;
static struct counter *counter (const char *name);
/* The lines, an open-addressing hash table on the line address.  */
static struct line *lines;
static size_t nlines, cap_lines;
static uint64_t beyond_vcpus;
/* QEMU numbers a new vCPU one above the highest live one, so under
   create+join churn the numbers climb past any bound while few threads
   are alive: a vCPU gets the lowest free slot (a core of the model, a bit
   of the holder sets) at its first access and gives it back when it
   exits.  slot_of: slot + 1, 0 for none yet.  */
static int slot_of[max_index];
static uint64_t slots_used[words];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *out_path;
static int yield_each;

static struct counter *
counter (const char *name)
{
  for (size_t i = 0; i < ncounters; i++)
    if (strcmp (counters[i]->name, name) == 0)
      return counters[i];
  counters = realloc (counters, (ncounters + 1) * sizeof *counters);
  struct counter *c = calloc (1, sizeof *c);
  c->name = strdup (name);
  return counters[ncounters++] = c;
}

/* Index of the first label whose range ends after ADDR.  */
static size_t
label_index (uint64_t addr)
{
  size_t a = 0, b = nlabels;
  while (a < b)
    {
      size_t m = (a + b) / 2;
      if (addr >= labels[m].hi)
        a = m + 1;
      else
        b = m;
    }
  return a;
}

static struct label *
find_label (uint64_t addr)
{
  size_t i = label_index (addr);
  return i < nlabels && addr >= labels[i].lo ? &labels[i] : NULL;
}

/* Add [LO, LO + SIZE) as C's, unless it overlaps an active label (an
   instance named again: a reused descriptor).  Lock held, or before the
   program runs.  */
static void
add_label (uint64_t start, uint64_t size, struct counter *c, uint64_t object,
           int instance)
{
  size_t i = label_index (start);
  if (size == 0 || (i < nlabels && labels[i].lo < start + size))
    return;
  if (nlabels == cap_labels)
    {
      cap_labels = cap_labels ? 2 * cap_labels : 1024;
      labels = realloc (labels, cap_labels * sizeof *labels);
    }
  memmove (&labels[i + 1], &labels[i], (nlabels - i) * sizeof *labels);
  labels[i] = (struct label) { start, start + size, c, object, instance };
  nlabels++;
  lo = start < lo ? start : lo;
  hi = start + size > hi ? start + size : hi;
}

/* The object of a static label: its name up to the first '.'
   ("_rtld_global._dl_stack_cache_lock" -> "_rtld_global"), one id per
   such name.  Instances of types get small numbers (next_object).  */
static uint64_t
object_of (const char *name)
{
  char prefix[512];
  size_t n = strcspn (name, ".");
  if (n >= sizeof prefix)
    n = sizeof prefix - 1;
  memcpy (prefix, name, n);
  prefix[n] = '\0';
  return (uint64_t) (uintptr_t) counter (prefix);
}

static struct line *
find_line (uint64_t addr)
{
  if (2 * (nlines + 1) > cap_lines)
    {
      size_t old = cap_lines;
      struct line *o = lines;
      cap_lines = cap_lines ? 2 * cap_lines : 1 << 16;
      lines = calloc (cap_lines, sizeof *lines);
      nlines = 0;
      for (size_t i = 0; i < old; i++)
        if (o[i].addr != 0)
          {
            size_t h = (o[i].addr / line_size * 0x9e3779b97f4a7c15ull) & (cap_lines - 1);
            while (lines[h].addr != 0)
              h = (h + 1) & (cap_lines - 1);
            lines[h] = o[i];
            nlines++;
          }
      free (o);
    }
  size_t h = ((addr + 1) / line_size * 0x9e3779b97f4a7c15ull) & (cap_lines - 1);
  while (lines[h].addr != 0 && lines[h].addr != addr + 1)
    h = (h + 1) & (cap_lines - 1);
  if (lines[h].addr == 0)
    {
      lines[h].addr = addr + 1;
      lines[h].owner = lines[h].rec[0].vcpu = lines[h].rec[1].vcpu = -1;
      nlines++;
    }
  return &lines[h];
}

static int
others_hold (struct line *l, unsigned int v)
{
  for (int i = 0; i < words; i++)
    if (l->holders[i] & ~(i == (int) v / 64 ? 1ull << (v % 64) : 0))
      return 1;
  return 0;
}

/* Count an access; returns whether ADDR is labelled.  */
static int
access_line (unsigned int v, uint64_t addr, unsigned int size, int store)
{
  pthread_mutex_lock (&lock);
  struct label *lab = find_label (addr);
  if (lab == NULL)
    {
      pthread_mutex_unlock (&lock);
      return 0;
    }
  struct counter *c = lab->c;
  struct line *l = find_line (addr / line_size * line_size);
  c->accesses++;
  c->writes += store;
  struct rec *other = &l->rec[l->rec[0].vcpu == (int) v];
  int transfer = store ? others_hold (l, v) : l->owner >= 0 && l->owner != (int) v;
  if (transfer)
    {
      c->transfers++;
      if (addr + size <= other->lo || addr >= other->hi)
        {
          c->false_transfers++;
          /* False sharing between two fields of one object, or with
             another object on the line.  */
          if (other->label != NULL && other->object == lab->object)
            c->false_inside++;
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
  l->rec[0] = (struct rec) { v, addr, addr + size, lab, lab->object };
  pthread_mutex_unlock (&lock);
  return 1;
}

/* The program's LINES_SYSCALL: what = 1, a module's load address; 2, an
   instance of a type.  */
static void
syscall_cb (qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t what,
            uint64_t kind, uint64_t addr, uint64_t a4, uint64_t a5,
            uint64_t a6, uint64_t a7, uint64_t a8)
{
  if (num == nr_munmap)
    {
      /* WHAT and KIND are the range: its descriptors are gone, and what
         is mapped there next is something else.  */
      uint64_t start = what, end = what + kind;
      pthread_mutex_lock (&lock);
      size_t j = 0;
      for (size_t i = 0; i < nlabels; i++)
        if (!(labels[i].instance && labels[i].lo >= start && labels[i].hi <= end))
          labels[j++] = labels[i];
      nlabels = j;
      pthread_mutex_unlock (&lock);
      return;
    }
  if (num != lines_syscall || (what != 1 && what != 2) || kind >= max_kinds)
    return;
  pthread_mutex_lock (&lock);
  uint64_t object = next_object++;
  for (size_t i = 0; i < npendings; i++)
    if (pendings[i].kind == (int) (what == 1 ? kind : kind + max_kinds))
      add_label (addr + pendings[i].off, pendings[i].size, pendings[i].c,
                 what == 1 ? pendings[i].object : object, what == 2);
  pthread_mutex_unlock (&lock);
}

static void
mem_cb (unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
        void *udata)
{
  if (vaddr < lo || vaddr >= hi)
    return;
  int slot = vcpu < max_index ? slot_of[vcpu] - 1 : -1;
  if (slot < 0)
    {
      pthread_mutex_lock (&lock);
      for (int i = 0; vcpu < max_index && slot < 0 && i < max_vcpus; i++)
        if (!(slots_used[i / 64] & (1ull << (i % 64))))
          {
            slots_used[i / 64] |= 1ull << (i % 64);
            slot_of[vcpu] = i + 1;
            slot = i;
          }
      pthread_mutex_unlock (&lock);
      if (slot < 0)
        {
          __atomic_fetch_add (&beyond_vcpus, 1, __ATOMIC_RELAXED);
          return;
        }
    }
  unsigned int size = 1u << qemu_plugin_mem_size_shift (info);
  int store = qemu_plugin_mem_is_store (info);
  /* An access that spans two lines is one access to each.  */
  uint64_t end = vaddr + size;
  int watched = 0;
  for (uint64_t a = vaddr; a < end; a = (a / line_size + 1) * line_size)
    {
      uint64_t e = (a / line_size + 1) * line_size;
      watched |= access_line (slot, a, (e < end ? e : end) - a, store);
    }
  /* With fewer host CPUs than guest threads, a thread would otherwise run
     for a whole time slice, doing many operations while the others wait
     to be scheduled, and its lines would stay put: give the CPU to the
     next runnable thread after each access to the watched memory, so that
     threads interleave at that grain, as they do with a core each.  */
  if (yield_each && watched)
    sched_yield ();
}

/* A thread exited: its slot is free for the next thread.  The lines keep
   what the slot held, as a core's cache does for the next thread it runs
   (what the exited thread wrote moves when another slot reads it).  */
static void
vcpu_exit (qemu_plugin_id_t id, unsigned int vcpu)
{
  if (vcpu >= max_index || slot_of[vcpu] == 0)
    return;
  pthread_mutex_lock (&lock);
  int v = slot_of[vcpu] - 1;
  slot_of[vcpu] = 0;
  slots_used[v / 64] &= ~(1ull << (v % 64));
  pthread_mutex_unlock (&lock);
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
  for (size_t i = 0; i < ncounters; i++)
    if (counters[i]->accesses != 0)
      {
        struct counter *c = counters[i];
        fprintf (f, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
                 " %" PRIu64 "\n", c->name, c->accesses, c->writes,
                 c->transfers, c->false_transfers, c->false_inside);
        t += c->transfers;
        ft += c->false_transfers;
        fi += c->false_inside;
        acc += c->accesses;
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
  char buf[1024], name[512];
  uint64_t addr, size;
  unsigned int kind;
  size_t cap = 0;
  int bad = 0;
  while (fgets (buf, sizeof buf, f) != NULL)
    {
      char tag;
      if (sscanf (buf, "%c %u %" SCNx64 " %" SCNu64 " %511s", &tag, &kind,
                  &addr, &size, name) == 5 && (tag == 'R' || tag == 'T'))
        {
          if (kind >= max_kinds)
            bad = 1;
          if (npendings == cap)
            {
              cap = cap ? 2 * cap : 256;
              pendings = realloc (pendings, cap * sizeof *pendings);
            }
          pendings[npendings++] = (struct pending) {
            tag == 'R' ? (int) kind : (int) kind + max_kinds, addr, size,
            counter (name), object_of (name) };
        }
      else if (sscanf (buf, "%" SCNx64 " %" SCNu64 " %511s", &addr, &size,
                       name) == 3)
        {
          size_t before = nlabels;
          add_label (addr, size, counter (name), object_of (name), 0);
          bad |= nlabels == before && size != 0;
        }
      else
        bad = 1;
    }
  fclose (f);
  return bad || (nlabels == 0 && npendings == 0) ? -1 : 0;
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
      fprintf (stderr, "lines: %s: unreadable, empty, malformed or overlapping\n",
               map);
      return -1;
    }
  qemu_plugin_register_vcpu_tb_trans_cb (id, tb_trans);
  qemu_plugin_register_vcpu_syscall_cb (id, syscall_cb);
  qemu_plugin_register_vcpu_exit_cb (id, vcpu_exit);
  qemu_plugin_register_atexit_cb (id, at_exit, NULL);
  return 0;
}
