#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static pthread_barrier_t b;
static void *w (void *a) { pthread_barrier_wait (&b); return a; }
static double now (void) { struct timespec t; clock_gettime (CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static double forks (int k) {
  double t0 = now ();
  for (int i = 0; i < k; i++) { pid_t p = fork (); if (p == 0) _exit (0); waitpid (p, NULL, 0); }
  return (now () - t0) / k * 1e6;
}
int main (int argc, char **argv) {
  int n = atoi (argv[1]);
  double before = forks (200);
  pthread_t *t = calloc (n, sizeof *t);
  pthread_attr_t a; pthread_attr_init (&a); pthread_attr_setstacksize (&a, 16384);
  pthread_barrier_init (&b, NULL, n + 1);
  for (int i = 0; i < n; i++) if (pthread_create (&t[i], &a, w, NULL)) { fprintf (stderr, "create %d failed\n", i); return 1; }
  pthread_barrier_wait (&b);
  for (int i = 0; i < n; i++) pthread_join (t[i], NULL);
  printf ("%d threads joined: fork+exit+wait %.0f us before, %.0f us after\n", n, before, forks (200));
  return 0;
}
