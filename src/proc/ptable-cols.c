/* The process list's columns, described once for the screen and `pscope
 * list`: width, alignment, and the text of a row's cell. */
#include "proc/ptable.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

const struct proc_col proc_cols[PSORT_COUNT] = {
	[PSORT_PID] = { 7, false },      [PSORT_USER] = { 9, true },       [PSORT_PRI] = { 3, false },
	[PSORT_NI] = { 3, false },       [PSORT_VIRT] = { 5, false },      [PSORT_RES] = { 5, false },
	[PSORT_SHR] = { 5, false },      [PSORT_STATE] = { 1, false },     [PSORT_CPU] = { 5, false },
	[PSORT_MEM] = { 5, false },      [PSORT_TIME] = { 9, false },      [PSORT_COMMAND] = { 0, true },
	[PSORT_PPID] = { 7, false },     [PSORT_PGRP] = { 7, false },      [PSORT_SID] = { 7, false },
	[PSORT_TTY] = { 7, true },       [PSORT_NLWP] = { 4, false },      [PSORT_PROCESSOR] = { 4, false },
	[PSORT_STARTTIME] = { 5, true }, [PSORT_IO_READ] = { 12, false },  [PSORT_IO_WRITE] = { 13, false },
	[PSORT_IO_RATE] = { 7, false },  [PSORT_IO_RBYTES] = { 9, false }, [PSORT_IO_WBYTES] = { 9, false },
	[PSORT_IO_PRIO] = { 3, true },
	[PSORT_MAJFLT] = { 6, false },   [PSORT_CTXT] = { 6, false },      [PSORT_OOM] = { 4, false },
	[PSORT_CGROUP] = { 28, true },   [PSORT_CONTAINER] = { 12, true },
	[PSORT_CPU_HIST] = { 12, true },
};

const char *proc_row_cell(const struct proc_times *t, const struct proc_row *r, enum proc_sort c, char *b, size_t size)
{
	b[0] = '\0';
	switch (c) {
	case PSORT_PID: snprintf(b, size, "%d", (int)r->pid); break;
	case PSORT_USER: return r->user;
	case PSORT_PRI: proc_fmt_pri(r->priority, b, size); break;
	case PSORT_NI: snprintf(b, size, "%ld", r->nice); break;
	case PSORT_VIRT: proc_fmt_kb(r->virt_kb, b, size); break;
	case PSORT_RES: proc_fmt_kb(r->res_kb, b, size); break;
	case PSORT_SHR: proc_fmt_kb(r->shr_kb, b, size); break;
	case PSORT_STATE: snprintf(b, size, "%c", r->state); break;
	case PSORT_CPU: snprintf(b, size, "%.1f", r->cpu); break;
	case PSORT_MEM: snprintf(b, size, "%.1f", r->mem); break;
	case PSORT_TIME: proc_fmt_time(r->ticks, t->hz, b, size); break;
	case PSORT_COMMAND: return proc_row_command(r, b, size);
	case PSORT_PPID: snprintf(b, size, "%d", (int)r->ppid); break;
	case PSORT_PGRP: snprintf(b, size, "%d", (int)r->pgrp); break;
	case PSORT_SID: snprintf(b, size, "%d", (int)r->session); break;
	case PSORT_TTY: proc_fmt_tty(r->tty_nr, b, size); break;
	case PSORT_NLWP: snprintf(b, size, "%ld", r->nlwp); break;
	case PSORT_PROCESSOR: snprintf(b, size, "%d", r->processor); break;
	case PSORT_STARTTIME:
		proc_fmt_start(t->btime ? (double)t->btime + (double)r->starttime / (double)t->hz : 0, t->wall, b, size);
		break;
	/* "-": /proc/PID/io refused (ptrace read access) */
	case PSORT_IO_READ: if (proc_row_extra(r)->io_err) snprintf(b, size, "-"); else proc_fmt_rate(proc_row_extra(r)->io_read_rate, b, size); break;
	case PSORT_IO_WRITE: if (proc_row_extra(r)->io_err) snprintf(b, size, "-"); else proc_fmt_rate(proc_row_extra(r)->io_write_rate, b, size); break;
	case PSORT_IO_RATE:
		if (proc_row_extra(r)->io_err)
			snprintf(b, size, "-");
		else
			proc_fmt_rate(proc_row_extra(r)->io_read_rate + proc_row_extra(r)->io_write_rate, b, size);
		break;
	/* bytes read and written from storage in all (read_bytes, write_bytes) */
	case PSORT_IO_RBYTES: if (!proc_row_extra(r)->io_ns) snprintf(b, size, "-"); else proc_fmt_rate((double)proc_row_extra(r)->io_rb, b, size); break;
	case PSORT_IO_WBYTES: if (!proc_row_extra(r)->io_ns) snprintf(b, size, "-"); else proc_fmt_rate((double)proc_row_extra(r)->io_wb, b, size); break;
	case PSORT_IO_PRIO: return proc_fmt_ioprio(r, b, size);
	case PSORT_MAJFLT: snprintf(b, size, "%lu", r->majflt); break;
	case PSORT_CTXT: snprintf(b, size, "%.0f", proc_row_extra(r)->ctxt_rate); break;
	case PSORT_OOM: if (proc_row_extra(r)->oom < 0) snprintf(b, size, "-"); else snprintf(b, size, "%d", proc_row_extra(r)->oom); break;
	case PSORT_CGROUP: return proc_row_extra(r)->cgroup ? proc_row_extra(r)->cgroup : "-";
	case PSORT_CONTAINER: return proc_row_extra(r)->container[0] ? proc_row_extra(r)->container : "-";
	case PSORT_CPU_HIST: return "-"; /* the list screen draws it from its snapshot's history */
	default: break;
	}
	return b;
}

const char *proc_fmt_ioprio(const struct proc_row *r, char *b, size_t size)
{
	const struct proc_extra *x = proc_row_extra(r);

	if (!x->ioprio_ok)
		snprintf(b, size, "-");
	else if (x->ioprio_cls == 1)
		snprintf(b, size, "R%d", x->ioprio_lvl);
	else if (x->ioprio_cls == 2)
		snprintf(b, size, "B%d", x->ioprio_lvl);
	else if (x->ioprio_cls == 3)
		snprintf(b, size, "id");
	else /* none: best effort at the nice value's level */
		snprintf(b, size, "B%ld", (r->nice + 20) / 5);
	return b;
}

int proc_cols_parse(const char *s, int *cols, int max)
{
	char buf[512], *save = NULL;
	int n = 0;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
		int k = proc_sort_parse(t);
		if (k < 0 || n >= max)
			return -1;
		for (int i = 0; i < n; i++)
			if (cols[i] == k)
				return -1; /* twice */
		cols[n++] = k;
	}
	return n > 0 ? n : -1;
}
