#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#define N 2000
#define SZ (20*1024)
static volatile long *desc[N];
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  int mode=atoi(argv[1]); int reps=200;
  for(int i=0;i<N;i++){char*p=mmap(0,SZ,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS|MAP_STACK,-1,0);
    mprotect(p,4096,PROT_NONE); desc[i]=(long*)(p+SZ-1024); for(int k=4096;k<SZ;k+=4096) p[k]=1; *desc[i]=i+1;}
  double best=1e9,sum=0;
  for(int r=0;r<reps;r++){double t0=now(); pid_t pid=fork(); if(pid==0){ long s=0; if(mode>=1) for(int i=0;i<N;i++) s+=*desc[i]; if(mode==2) for(int i=0;i<N;i++) if (i%100==0) *desc[i]=0; _exit(s==0);} int st; waitpid(pid,&st,0); double d=now()-t0; sum+=d; if(d<best)best=d;}
  printf("mode %d: mean %.3f ms, min %.3f ms\n",mode,sum/reps*1e3,best*1e3);
}
