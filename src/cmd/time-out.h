/* `pscope time`: the text and JSON reports of a time snapshot, for one
 * process (time-out.c) and for the machine (time-machine.c). */
#ifndef PS_CMD_TIME_OUT_H
#define PS_CMD_TIME_OUT_H

#include <stdbool.h>
#include <sys/types.h>

#include "time/model.h"

struct json_object;

struct time_args {
	double duration;
	pid_t tid;           /* --tid: only this thread (0: all) */
	int tier;            /* -1: by the doors */
	int hz;              /* /proc tier sampling rate (0: default) */
	long rate;           /* trace tier: events/s traced in full (0: default) */
	int top;             /* machine: rows per ranking */
	bool json;
	bool no_syscalls;    /* --no-syscalls */
	bool bpf_stats;      /* --bpf-stats */
	const char *timeline; /* --timeline FILE: the Chrome trace of the window */
};

/* One process: the thread table and the process's syscalls, run-queue
 * histogram and worst waits; with tid, that thread's. */
void time_print_text(const struct tm_snapshot *s, pid_t tid);
void time_print_json(const struct tm_snapshot *s, pid_t tid);
/* The JSON object time_print_json prints (the caller owns it). */
struct json_object *time_json(const struct tm_snapshot *s, pid_t tid);
/* The machine: processes ranked by run-queue wait and by blocked time. */
void time_print_machine_text(const struct tm_snapshot *s, int top);
void time_print_machine_json(const struct tm_snapshot *s);
/* The measuring loop of pscope time (both): 0, or 1 after printing why. */
int time_machine(const struct time_args *a);

#endif
