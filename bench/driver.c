/* Benchmark driver: runs one case (linked in) with N threads.

     BENCH -t THREADS [-w WARMUP_S] [-d SECONDS] [-i INTERVAL_S] [-p PARAM]

   The threads start together behind a barrier (or each as soon as it is
   created, for a case that asks so).  For a case that ramps up, the warm-up
   begins when every thread has counted its first operation.  After the
   warm-up the driver samples the sum of the per-thread counters every
   interval and prints one line of JSON: the rate of each sample and their
   median, the operations of the least and most productive thread
   (fairness), how busy the CPUs were: the process's CPU time (getrusage)
   and the whole machine's non-idle share (/proc/stat) over the measured
   period, what the scheduler did meanwhile: the process's involuntary
   context switches (preemptions: getrusage, which adds those of exited
   threads) and the mean of the machine's runnable tasks (procs_running
   of /proc/stat, read at every sample), the time it took to create the threads, the threads it has alive
   at most (tasks_live: the peak of the kernel's count, which keeps a thread
   until it releases the task, after pthread_join has returned, is read from
   outside by bench/run.py), the creates that failed, by errno, and what the
   case adds.  On stderr it names each phase as it enters it ("bench-phase:
   startup"), so that a run stopped from outside says where it was.  */
#define _GNU_SOURCE
#include "bench.h"
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

atomic_int bench_stop;
atomic_int bench_measuring;
int bench_extra_threads;
int bench_lines;
static pthread_barrier_t start;
/* Creates that failed with EAGAIN (the only error retried); written only
   on a failure.  */
static atomic_ulong create_eagain;
static struct bench_thread *threads;

static double
now (void)
{
  return bench_now_ns () / 1e9;
}

static void sleep_s (double s);

void
bench_create_failed (int err)
{
  if (err != EAGAIN)
    {
      fprintf (stderr, "%s: creating a thread: %s\n", bench_case.name,
               strerror (err));
      exit (1);
    }
  atomic_fetch_add (&create_eagain, 1);
  sleep_s (0.001);
}

/* Tell the line-transfer plugin where libc.so and ld.so are.  */
static int
name_module (struct dl_phdr_info *info, size_t size, void *data)
{
  const char *base = strrchr (info->dlpi_name, '/');
  base = base ? base + 1 : info->dlpi_name;
  int module = strncmp (base, "libc.so", 7) == 0 ? bench_module_libc
               : strncmp (base, "ld-linux", 8) == 0 ? bench_module_ldso : -1;
  if (module >= 0)
    syscall (bench_lines_syscall, bench_lines_module, module,
             (long) info->dlpi_addr);
  return 0;
}

static void
phase (const char *name)
{
  fprintf (stderr, "bench-phase: %s\n", name);
  fflush (stderr);
}

static long
read_long (const char *path)
{
  long v = -1;
  FILE *f = fopen (path, "r");
  if (f != NULL)
    {
      if (fscanf (f, "%ld", &v) != 1)
        v = -1;
      fclose (f);
    }
  return v;
}

/* The process's CPU time in seconds; its involuntary context switches
   in *PREEMPTED.  */
static double
cpu_seconds (long *preempted)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  *preempted = ru.ru_nivcsw;
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6
         + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* The process's resident set (VmRSS) in KiB, or -1.  */
static long
rss_kib (void)
{
  char line[128];
  long kib = -1;
  FILE *f = fopen ("/proc/self/status", "r");
  if (f == NULL)
    return -1;
  while (fgets (line, sizeof line, f) != NULL)
    if (sscanf (line, "VmRSS: %ld kB", &kib) == 1)
      break;
  fclose (f);
  return kib;
}

/* Total and idle (idle + iowait) jiffies of all CPUs, and the number of
   runnable tasks of the machine (procs_running), or -1.  */
static long
proc_stat (unsigned long long *total, unsigned long long *idle)
{
  unsigned long long v[10] = { 0 };
  char line[256];
  long running = -1;
  FILE *f = fopen ("/proc/stat", "r");
  *total = *idle = 0;
  if (f == NULL)
    return -1;
  if (fscanf (f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
              &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8],
              &v[9]) >= 5)
    {
      /* guest and guest_nice are already in user and nice; steal (v[7])
         is time the host gave to others, neither idle nor busy here.  */
      for (int i = 0; i < 7; i++)
        *total += v[i];
      *idle = v[3] + v[4];
    }
  while (fgets (line, sizeof line, f) != NULL)
    if (sscanf (line, "procs_running %ld", &running) == 1)
      break;
  fclose (f);
  return running;
}

static unsigned long
total_ops (int n)
{
  unsigned long sum = 0;
  for (int i = 0; i < n; i++)
    sum += atomic_load_explicit (&threads[i].ops, memory_order_relaxed);
  return sum;
}

/* The FIFOs of `perf stat -D -1 --control fifo:CTL,ACK` that runs the
   driver, named by NPTL_SCALE_PERF_CONTROL="CTL,ACK", or -1: perf's
   counters (one group) are then enabled for the measured period only,
   so that its counts divided by the operations of that period are those
   of the steady state, without the start-up, ramp and warm-up.  */
static int perf_ctl = -1, perf_ack = -1;

static void
perf_control_open (void)
{
  const char *s = getenv ("NPTL_SCALE_PERF_CONTROL");
  if (s == NULL)
    return;
  char *ctl = strdup (s);
  char *ack = ctl != NULL ? strchr (ctl, ',') : NULL;
  if (ack == NULL)
    {
      fprintf (stderr, "NPTL_SCALE_PERF_CONTROL=%s: not CTL,ACK\n", s);
      exit (2);
    }
  *ack++ = '\0';
  /* perf holds both FIFOs open for reading and writing: neither open
     waits.  */
  perf_ctl = open (ctl, O_WRONLY | O_CLOEXEC);
  perf_ack = open (ack, O_RDONLY | O_CLOEXEC);
  if (perf_ctl < 0 || perf_ack < 0)
    {
      fprintf (stderr, "NPTL_SCALE_PERF_CONTROL=%s: %s\n", s,
               strerror (errno));
      exit (2);
    }
  free (ctl);
}

/* Send CMD ("enable\n" or "disable\n") to perf and wait for its ack.  */
static void
perf_control (const char *cmd)
{
  if (perf_ctl < 0)
    return;
  char ack[16];
  if (write (perf_ctl, cmd, strlen (cmd)) != (ssize_t) strlen (cmd)
      || read (perf_ack, ack, sizeof ack) <= 0)
    {
      fprintf (stderr, "perf control: %s\n", strerror (errno));
      exit (2);
    }
}

/* Nonzero if every thread has counted an operation.  */
static int
all_counted (int n)
{
  for (int i = 0; i < n; i++)
    if (atomic_load_explicit (&threads[i].ops, memory_order_relaxed) == 0)
      return 0;
  return 1;
}

static void *
thread_main (void *arg)
{
  struct bench_thread *self = arg;
  bench_label_self ();
  if (!bench_case.start_at_once)
    pthread_barrier_wait (&start);
  bench_case.run (self);
  return NULL;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static void
sleep_s (double s)
{
  struct timespec ts = { (time_t) s, (long) ((s - (time_t) s) * 1e9) };
  while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
    ;
}

int
main (int argc, char **argv)
{
  int n = 1, opt;
  double warmup = 0.2, duration = 1.0, interval = 0.1;
  const char *param = NULL;
  while ((opt = getopt (argc, argv, "t:w:d:i:p:")) != -1)
    switch (opt)
      {
      case 't': n = atoi (optarg); break;
      case 'w': warmup = atof (optarg); break;
      case 'd': duration = atof (optarg); break;
      case 'i': interval = atof (optarg); break;
      case 'p': param = optarg; break;
      default:
        fprintf (stderr, "usage: %s -t THREADS [-w S] [-d S] [-i S] [-p PARAM]\n",
                 argv[0]);
        return 2;
      }
  if (n < 1 || duration <= 0 || interval <= 0)
    {
      fprintf (stderr, "%s: bad arguments\n", argv[0]);
      return 2;
    }
  perf_control_open ();
  if (getenv ("NPTL_SCALE_LINES") != NULL)
    {
      bench_lines = 1;
      dl_iterate_phdr (name_module, NULL);
      bench_label_self ();
    }
  if (bench_case.setup != NULL)
    {
      int r = bench_case.setup (n, param);
      if (r != 0)
        return r;
    }

  threads = aligned_alloc (128, n * sizeof *threads);
  if (threads == NULL)
    return 1;
  memset (threads, 0, n * sizeof *threads);
  pthread_barrier_init (&start, NULL, bench_case.start_at_once ? 1 : n + 1);
  pthread_t *tids = calloc (n, sizeof *tids);
  pthread_attr_t attr;
  pthread_attr_init (&attr);
  /* Many threads: keep their stacks small, the cases need little.  */
  pthread_attr_setstacksize (&attr, 256 * 1024);
  phase ("startup");
  double start0 = now ();
  unsigned long long create_max_ns = 0;
  for (int i = 0; i < n; i++)
    {
      threads[i].id = i;
      threads[i].nthreads = n;
      unsigned long long c0 = bench_now_ns ();
      int e;
      while ((e = pthread_create (&tids[i], &attr, thread_main, &threads[i]))
             != 0)
        bench_create_failed (e);
      unsigned long long c = bench_now_ns () - c0;
      create_max_ns = c > create_max_ns ? c : create_max_ns;
    }
  pthread_barrier_wait (&start);
  double startup = now () - start0;
  /* -1: the case does not ramp up; otherwise the seconds until every
     thread had counted an operation, and whether they all had by the
     limit.  */
  double ramp = -1;
  int ramped = 1;
  if (bench_case.ramp_up)
    {
      phase ("ramp");
      double r0 = now ();
      while (!(ramped = all_counted (n)) && now () - r0 < BENCH_RAMP_LIMIT_S)
        sleep_s (0.001);
      ramp = now () - r0;
    }
  phase ("warmup");
  sleep_s (warmup);

  int nsamples = (int) (duration / interval + 0.5);
  if (nsamples < 1)
    nsamples = 1;
  double *rates = calloc (nsamples, sizeof *rates);
  unsigned long long tot0, idle0, tot1, idle1;
  unsigned long *start_ops = calloc (n, sizeof *start_ops);
  for (int i = 0; i < n; i++)
    start_ops[i] = atomic_load (&threads[i].ops);
  phase ("measure");
  /* perf enables its counters thread by thread (an IPI each): counted
     operations lie between those from before the enable to after the
     disable (outer) and those of the measured period (inner).  */
  unsigned long perf_ops0 = total_ops (n);
  perf_control ("enable\n");
  atomic_store (&bench_measuring, 1);
  proc_stat (&tot0, &idle0);
  long preempted0, preempted1, runnable = 0, nrunnable = 0;
  /* The process's CPU time is read inside its own wall-clock bracket
     (CPU_T0 .. the end), so that a preemption of this thread between the
     reads counts in the wall time too: with hundreds of runnable threads
     it can last longer than the measured period, and the CPU time of the
     other threads meanwhile would otherwise count against a shorter
     wall time (more than 100% of the CPUs).  */
  double cpu_t0 = now ();
  double cpu0 = cpu_seconds (&preempted0), t0 = now (), t = t0;
  unsigned long ops0 = total_ops (n), ops = ops0;
  for (int s = 0; s < nsamples; s++)
    {
      sleep_s (interval);
      double t2 = now ();
      unsigned long ops2 = total_ops (n);
      rates[s] = (ops2 - ops) / (t2 - t);
      t = t2;
      ops = ops2;
      unsigned long long tot, idle;
      long r = proc_stat (&tot, &idle);
      if (r >= 1)
        {
          /* Less this thread, which runs while it reads.  */
          runnable += r - 1;
          nrunnable++;
        }
    }
  double elapsed = t - t0, cpu = cpu_seconds (&preempted1) - cpu0;
  double cpu_wall = now () - cpu_t0;
  perf_control ("disable\n");
  unsigned long perf_ops1 = total_ops (n);
  proc_stat (&tot1, &idle1);
  long rss = rss_kib ();
  unsigned long lo = (unsigned long) -1, hi = 0;
  for (int i = 0; i < n; i++)
    {
      unsigned long d = atomic_load (&threads[i].ops) - start_ops[i];
      lo = d < lo ? d : lo;
      hi = d > hi ? d : hi;
    }

  atomic_store (&bench_measuring, 0);
  atomic_store (&bench_stop, 1);
  phase ("join");
  if (bench_case.wake != NULL)
    bench_case.wake ();
  for (int i = 0; i < n; i++)
    pthread_join (tids[i], NULL);
  /* All operations of the process, warm-up included: the denominator for
     counts that cover the whole process (lock statistics, context
     switches).  */
  unsigned long ops_total = total_ops (n);
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  long ctxsw_total = ru.ru_nvcsw + ru.ru_nivcsw;

  double *sorted = malloc (nsamples * sizeof *sorted);
  memcpy (sorted, rates, nsamples * sizeof *sorted);
  qsort (sorted, nsamples, sizeof *sorted, cmp_double);
  double median = nsamples % 2 ? sorted[nsamples / 2]
    : (sorted[nsamples / 2 - 1] + sorted[nsamples / 2]) / 2;
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
  double busy = tot1 > tot0
    ? 100.0 * ((tot1 - tot0) - (idle1 - idle0)) / (tot1 - tot0) : -1;

  printf ("{\"case\": \"%s\", \"unit\": \"%s\", \"param\": \"%s\", "
          "\"threads\": %d, \"ncpu\": %ld, \"seconds\": %.3f, "
          "\"ops\": %lu, \"rate\": %.1f, \"median_sample_rate\": %.1f, "
          "\"thread_ops_min\": %lu, \"thread_ops_max\": %lu, "
          "\"process_cpu_pct\": %.1f, \"machine_busy_pct\": %.1f, "
          "\"rss_kib\": %ld, \"ops_total\": %lu, \"samples\": [",
          bench_case.name, bench_case.unit, param ? param : "", n, ncpu,
          elapsed, ops - ops0, (ops - ops0) / elapsed, median, lo, hi,
          100.0 * cpu / (cpu_wall * ncpu), busy, rss, ops_total);
  for (int s = 0; s < nsamples; s++)
    printf ("%s%.1f", s ? ", " : "", rates[s]);
  printf ("], \"pid\": %ld, \"startup_s\": %.3f, \"startup_create_max_ns\": %llu, "
          "\"tasks_live\": %d, "
          "\"pid_max\": %ld, \"preemptions\": %ld, \"ctxsw_total\": %ld, ",
          (long) getpid (), startup, create_max_ns, 1 + n + bench_extra_threads,
          read_long ("/proc/sys/kernel/pid_max"), preempted1 - preempted0,
          ctxsw_total);
  if (nrunnable > 0)
    printf ("\"runnable_mean\": %.1f, ", (double) runnable / nrunnable);
  if (perf_ctl >= 0)
    printf ("\"perf_window\": \"measure\", \"perf_ops\": [%lu, %lu], ",
            ops - ops0, perf_ops1 - perf_ops0);
  if (ramp >= 0)
    printf ("\"ramp_s\": %.3f, \"ramped\": %s, \"ramp_limit_s\": %.0f, ",
            ramp, ramped ? "true" : "false", BENCH_RAMP_LIMIT_S);
  printf ("\"create_failed\": {");
  if (atomic_load (&create_eagain) != 0)
    printf ("\"EAGAIN\": %lu", atomic_load (&create_eagain));
  printf ("}");
  if (bench_case.report != NULL)
    bench_case.report (stdout);
  printf ("}\n");
  return 0;
}
