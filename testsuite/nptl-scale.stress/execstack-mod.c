/* A module that needs an executable stack: the address of a nested
   function that refers to its parent's frame is taken, so GCC builds a
   trampoline on the stack and marks the object as needing an executable
   stack (.note.GNU-stack "x").  glibc before 2.41 makes the stacks of
   all threads executable when dlopen loads it
   (_dl_make_stacks_executable); later versions refuse to load it.  */

static int __attribute__ ((noinline))
apply (int (*volatile f) (int), int x)
{
  return f (x);
}

int
execstack_mod_call (int base)
{
  int add (int x)
  {
    return x + base;
  }
  /* Runs the trampoline on this thread's stack: SIGSEGV if the stack
     is not executable.  */
  return apply (add, 1);
}
