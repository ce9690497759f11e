# Included after a glibc subdirectory's Makefile to print its test lists:
#   make -r -C SRC/SUBDIR -f Makefile -f print-var.mk objdir=OBJ subdir=SUBDIR ..=../ print-tests
.PHONY: print-tests
print-tests:
	@echo $(sort $(tests) $(tests-internal) $(tests-static) \
	  $(patsubst $(objpfx)%.out,%,$(filter $(objpfx)%.out,$(tests-special))))

# The tests that nptl/Makefile runs again with glibc.pthread.cond_legacy=1
# (empty where the series does not have it).
.PHONY: print-cond-legacy
print-cond-legacy:
	@echo $(sort $(tests-cond-legacy))
