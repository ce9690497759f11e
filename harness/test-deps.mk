# Read after a glibc subdirectory's Makefile when check.sh makes test
# results (.out files), for every variant alike: prerequisites of a
# test's run that glibc's own makefiles leave out.  Under make -j such a
# test can start before, or while, another test's rule links a module it
# loads, and fail for a reason that has nothing to do with the library.
#   make -r -C SRC/SUBDIR -f Makefile -f test-deps.mk objdir=OBJ subdir=SUBDIR ..=../ OBJ/SUBDIR/TEST.out

# elf/Makefile (2.41 and later): tst-dlopen-tlsreinit3 is
# tst-dlopen-tlsreinit1 run under LD_AUDIT, and dlopens the same three
# modules, but only tst-dlopen-tlsreinit1.out lists them.  Seen as
# "dlopen: .../tst-dlopen-tlsreinitmod1.so: file too short", the module
# being linked for tst-dlopen-tlsreinit1 at that moment.
ifeq ($(subdir),elf)
$(objpfx)tst-dlopen-tlsreinit3.out: $(objpfx)tst-dlopen-tlsreinitmod1.so \
  $(objpfx)tst-dlopen-tlsreinitmod2.so $(objpfx)tst-dlopen-tlsreinitmod3.so
endif
