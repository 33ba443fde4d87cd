/* pprof's profile.proto (github.com/google/pprof, proto/profile.proto),
 * gzip-compressed as `go tool pprof` reads it: one sample per call stack
 * (leaf first) with its weight, a location and a function per function
 * of the profile (name, file, line), a mapping per module, the thread as
 * a label, the sampling period and the profile's unit (samples, or
 * nanoseconds for the off-CPU and syscall profiles). Written by a small
 * encoder (pb.c) rather than protobuf-c: pscope only writes five message
 * types, and the generated code plus a .proto build step would be larger
 * than the encoder; tests/e2e/pprof.sh reads the result back with go tool
 * pprof. The snapshot keeps functions, not addresses: a location's address
 * is 0 and a mapping names its file only (no address range or build-id). */
#ifndef PS_OUT_PPROF_H
#define PS_OUT_PPROF_H

#include <stdio.h>

#include "out/profile.h"

/* An out_profile_fn (save it with out_profile_save). */
int out_pprof_write(FILE *f, const struct samp_snapshot *s, enum samp_window w, pid_t tid, unsigned long long *total);

#endif
