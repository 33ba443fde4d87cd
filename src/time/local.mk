# src/time/: where a thread's time goes. The model (pure), the session and
# its three tiers: BPF (an object built here with clang, embedded through
# its bpftool skeleton), tracepoints through src/perf/, and /proc.
libpscope_a_SOURCES += src/time/model.c src/time/model.h src/time/time.h src/time/tpriv.h \
	src/time/procfs.c src/time/session.c src/time/tier-proc.c src/time/tier-trace.c src/time/trace.h src/time/trace-state.c src/time/timeline.c src/time/timeline.h src/time/tl-walk.c \
	src/time/tier-bpf.c src/time/tbpf.h src/time/machine.c src/time/job.c src/time/job.h
EXTRA_DIST += src/time/time.bpf.c src/time/bpf-types.h

if HAVE_BPF_AM
# clang -target bpf, then llvm-strip -g (the BTF the loader needs stays),
# then the skeleton that carries the object's bytes into the binary.
src/time/time.bpf.o: $(top_srcdir)/src/time/time.bpf.c $(top_srcdir)/src/time/tbpf.h $(top_srcdir)/src/time/bpf-types.h
	@mkdir -p $(@D)
	$(AM_V_GEN)$(CLANG) -g -O2 -target bpf $(BPF_CPPFLAGS) -I$(top_srcdir)/src/time -c $< -o $@.tmp && \
		$(LLVM_STRIP) -g $@.tmp && mv $@.tmp $@
src/time/time.skel.h: src/time/time.bpf.o
	$(AM_V_GEN)$(BPFTOOL) gen skeleton $< name time_bpf > $@.tmp && mv $@.tmp $@
BUILT_SOURCES += src/time/time.skel.h
CLEANFILES += src/time/time.bpf.o src/time/time.skel.h
src/time/libpscope_a-tier-bpf.$(OBJEXT) src/time/tier-bpf.$(OBJEXT): src/time/time.skel.h
endif
