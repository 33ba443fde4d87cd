/* Folded stacks ("thread;outer;...;leaf count", one per line): the format
 * flamegraph.pl and speedscope open. Python snapshots use py-spy's raw
 * format: "name (tid);qualname (file:line);... count". */
#ifndef PS_OUT_FOLDED_H
#define PS_OUT_FOLDED_H

#include <stdio.h>

#include "error.h"
#include "sample/sample.h"

/* The names a frame (function id func) and a thread (tid: a process slot
 * machine-wide) have in the files pscope writes (folded lines, SVG,
 * pprof, speedscope): escaped, no ';' or newline; kernel functions end in
 * "_[k]", Python ones are "qualname (file:line)". Into buf, returned. */
#define OUT_FRAME_NAME_MAX 4200
const char *out_folded_frame(const struct samp_snapshot *s, unsigned func, char *buf, size_t size);
const char *out_folded_thread(const struct samp_snapshot *s, pid_t tid, char *buf, size_t size);

/* Write window w (thread filter tid, 0 = all) of s to f. *total (if not
 * NULL) gets the sum of the counts written: samples, or the weight in a
 * weighted profile's unit (then named by a first "# pscope:" line); an
 * off-CPU profile as offcputime -f writes it, in microseconds.
 * Returns 0 or -errno. */
int out_folded_write(FILE *f, const struct samp_snapshot *s, enum samp_window w, pid_t tid,
		     unsigned long *total);
/* Same into path, atomically (a temporary file renamed over it). */
int out_folded_save(const char *path, const struct samp_snapshot *s, enum samp_window w, pid_t tid,
		    unsigned long *total, struct ps_error *e);

#endif
