# In-tree fuzzing with libFuzzer (clang): `make fuzz` builds one harness per
# pure parser, `make fuzz-check` runs each for a fixed number of inputs
# (deterministic: -seed=1; CI does this), `make fuzz-long` for minutes each;
# tests/fuzz/run.sh runs as many harnesses at once as there are CPUs.
#
# Adding a harness is one file and one line: write tests/fuzz/fuzz-NAME.c
# (LLVMFuzzerTestOneInput, plus a "fuzz-seeds:" comment naming its seed
# files under tests/fixtures) and add NAME to FUZZERS. Real inputs worth
# keeping go in tests/fuzz/corpus/NAME/; a crash found becomes a fixture and
# a unit test (see tests/fuzz/README).
FUZZERS = stat status cmdline maps fdinfo net sockdiag rollup task sysinfo notes perf tpformat symtext corenotes coreelf pymem unpack elffile demangle jitdump ehframe cgroup \
	sched taskstats psi record gomem

FUZZ_RUNS = 20000
FUZZ_LONG_SECONDS = 120
FUZZ_DIR = fuzz-build
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_FLAGS = -g -O1 -fno-omit-frame-pointer -std=gnu17 $(FUZZ_SAN) -pthread \
	$(AM_CPPFLAGS) -I$(top_builddir) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS) $(LIBUNWIND_CFLAGS) $(JSONC_CFLAGS)
FUZZ_LIBS = $(LIBDW_LIBS) $(LIBELF_LIBS) $(LIBUNWIND_LIBS) $(JSONC_LIBS) $(IBERTY_LIBS) $(LZMA_LIBS) $(ZLIB_LIBS) -lm
FUZZ_OBJS = $(patsubst %.c,$(FUZZ_DIR)/%.o,$(filter %.c,$(libpscope_a_SOURCES)))
FUZZ_BINS = $(FUZZERS:%=$(FUZZ_DIR)/fuzz-%)

# Each object records the headers it was built from (-MMD), so a changed
# header rebuilds exactly the objects that include it (a stale object built
# against an old struct layout would make a false crash) and nothing else.
$(FUZZ_DIR)/%.o: $(top_srcdir)/%.c config.h
	@test -n "$(CLANG)" || { echo "make fuzz needs clang (apt-get install clang, then ./configure)"; exit 1; }
	@mkdir -p $(@D)
	$(AM_V_CC)$(CLANG) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<
-include $(FUZZ_OBJS:.o=.d)
if HAVE_BPF_AM
$(FUZZ_DIR)/src/time/tier-bpf.o: src/time/time.skel.h
endif
$(FUZZ_DIR)/libpscope-fuzz.a: $(FUZZ_OBJS)
	$(AM_V_AR)rm -f $@ && $(AR) cr $@ $(FUZZ_OBJS)
$(FUZZ_DIR)/fuzz-%: $(top_srcdir)/tests/fuzz/fuzz-%.c $(top_srcdir)/tests/fuzz/fuzz.h $(FUZZ_DIR)/libpscope-fuzz.a
	$(AM_V_CCLD)$(CLANG) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_DIR)/libpscope-fuzz.a $(FUZZ_LIBS)

fuzz: $(FUZZ_BINS)
fuzz-check: fuzz
	@$(SHELL) $(top_srcdir)/tests/fuzz/run.sh "$(FUZZ_DIR)" "$(top_srcdir)" -runs=$(FUZZ_RUNS) -- $(FUZZERS)
fuzz-long: fuzz
	@$(SHELL) $(top_srcdir)/tests/fuzz/run.sh "$(FUZZ_DIR)" "$(top_srcdir)" -max_total_time=$(FUZZ_LONG_SECONDS) -- $(FUZZERS)
clean-local: clean-fuzz
clean-fuzz:
	rm -rf $(FUZZ_DIR)
.PHONY: fuzz fuzz-check fuzz-long clean-fuzz
EXTRA_DIST += tests/fuzz/fuzz.mk tests/fuzz/fuzz.h tests/fuzz/run.sh tests/fuzz/README tests/fuzz/corpus \
	$(FUZZERS:%=tests/fuzz/fuzz-%.c)
