/* `pscope top`: its options, shared by the per-process report (cmd-top.c)
 * and the machine-wide one (top-machine.c). */
#ifndef PS_CMD_TOP_H
#define PS_CMD_TOP_H

#include <stdbool.h>
#include <stdint.h>

#include "sample/sample.h"

enum top_mode { TOP_AUTO, TOP_PYTHON, TOP_NATIVE };

struct top_args {
	double duration;
	unsigned long long samples; /* stop once this many are counted (0: no) */
	long freq;                  /* 0: the sampler's default */
	const char *folded, *svg, *pprof, *speedscope; /* files to write, or NULL */
	const char *annotate;        /* --annotate FUNC: that function's lines */
	bool json, idle;
	bool all;                   /* --all: every process (also without a PID) */
	bool by_comm;               /* --by comm */
	bool mode_set, events_set;  /* --python/--native, --events given */
	int stack_copy;
	bool offcpu;                /* --off-cpu: where the threads block */
	bool min_block_set;
	uint64_t min_block_ns;      /* --min-block MS */
	enum samp_events events;
	enum top_mode mode;
};

/* Ctrl-C and SIGTERM end the sampling loop early (on: install, off:
 * restore the defaults); top_interrupted() says whether one came. */
void top_signals(bool on);
bool top_interrupted(void);
struct samp_source;
/* The sampling of `pscope top`: src run until the duration, the sample
 * count or Ctrl-C (pause: the tests' "sampling" pause first), closed;
 * returns its last snapshot (NULL: no memory), *ended the end reason
 * (in why) when the target ended. */
struct samp_snapshot *top_run(const struct top_args *a, struct samp_source *src, bool pause, const char **ended,
			      char *why, size_t size);
struct json_object;
struct samp_func;
/* A function of a report's JSON: kind (the caller's: "native", "python",
 * "kernel"), name, module, file and line (null without a file). */
struct json_object *top_json_func(const struct samp_func *f, const char *kind);
struct samp_view;
/* The report's table of functions: SELF%, TOTAL%, the weight (column:
 * its heading; a count, or weighted: in the profile's unit), the function,
 * its module and source line. */
void top_print_table(const struct samp_snapshot *s, const struct samp_view *v, const char *column, bool weighted);
/* Write the files asked for (--folded, --svg, --pprof, --speedscope) of
 * snap's whole run. 0, or 1 after saying on stderr which one failed. */
int top_exports(const struct top_args *a, const struct samp_snapshot *snap);
/* The report of --annotate (top-annotate.c): 0, or 1 after the error. */
int top_annotate(const struct top_args *a, const struct samp_snapshot *s);
/* The off-CPU report of PID (top-offcpu.c): 0, or 1 after the error. */
int top_offcpu(const struct top_args *a, pid_t pid);
/* Sample every process (--all, or no PID) and print the report. */
int top_machine(const struct top_args *a);

#endif
