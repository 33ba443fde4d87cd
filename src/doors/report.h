/* The doors report an instructor hands out or checks a classroom machine
 * with (`pscope doors --report FILE`): every door's state here, what it
 * blocks and how to open it; which tool needs which door, here and in a pod
 * without capabilities; with a PID, each operation probed. Markdown, in the
 * language of the messages. */
#ifndef PS_DOORS_REPORT_H
#define PS_DOORS_REPORT_H

#include <stdio.h>

#include "doors/doors.h"

/* Write r as Markdown to f; host names the machine (may be NULL).
 * Returns 0 or -errno (a write error). */
int door_report_markdown(FILE *f, const struct door_report *r, const char *host);

/* Write r as Markdown, this machine's host name in it, to path through
 * out_save() (the directory checked, written whole or not at all, an old
 * file replaced). 0 or -errno with e filled (cause and fix). */
struct ps_error;
int door_report_save(const char *path, const struct door_report *r, struct ps_error *e);

/* What a tool can do in a pod without capabilities under the container
 * runtime's default seccomp profile (which refuses perf_event_open and bpf
 * without CAP_PERFMON / CAP_SYS_ADMIN), on this machine's sysctls: the
 * same words as door_tool_expect(). */
const char *door_tool_expect_pod(const struct door_tool *t, const struct door_report *r);

#endif
