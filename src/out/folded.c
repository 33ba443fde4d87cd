#include "out/folded.h"
#include "i18n.h"
#include "out/escape.h"
#include "out/save.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A frame or thread name made safe for the format: escaped, and no ';'
 * (the separator) or newline. */
static void put_name(FILE *f, const char *s)
{
	for (const char *p = esc(s); *p; p++)
		fputc(*p == ';' ? ':' : *p, f);
}

static void put_func(FILE *f, const struct samp_func *fn)
{
	if (fn->flags & SAMP_F_PYTHON) {
		/* py-spy's raw format: "qualname (file:line)". */
		put_name(f, fn->name);
		fputs(" (", f);
		put_name(f, fn->file ? fn->file : "?");
		fprintf(f, ":%d)", fn->line);
		return;
	}
	put_name(f, fn->name);
	if ((fn->flags & SAMP_F_KERNEL) && strcmp(fn->name, "[kernel]"))
		fputs("_[k]", f); /* flamegraph.pl colours kernel frames by this suffix */
}

int out_folded_write(FILE *f, const struct samp_snapshot *s, enum samp_window w, pid_t tid,
		     unsigned long *total)
{
	unsigned long long *counts = samp_view_stack_counts(s, w, tid), sum = 0;

	if (!counts)
		return -ENOMEM;
	/* A weighted profile says what its counts are (flamegraph.pl and
	 * speedscope skip the line); a CPU profile's file stays plain. */
	if (s->unit != SAMP_UNIT_SAMPLES)
		fprintf(f, "# pscope: counts are %s, not samples\n", samp_unit_key(s->unit));
	for (unsigned i = 0; i < s->nstacks; i++) {
		const struct samp_stack *st = &s->stacks[i];
		if (!counts[i] || !st->nframes)
			continue;
		put_name(f, samp_thread_comm(s, st->tid));
		if (s->machine)
			fprintf(f, "-%d", (int)s->procs[st->tid].pid); /* perf script's comm-pid */
		else if (s->python[0])
			fprintf(f, " (%d)", (int)st->tid); /* py-spy: "thread (id)" */
		else
			fprintf(f, "-%d", (int)st->tid);
		for (unsigned j = st->nframes; j-- > 0;) {
			fputc(';', f);
			put_func(f, &s->funcs[s->frames[st->first + j]]);
		}
		fprintf(f, " %llu\n", counts[i]);
		sum += counts[i];
	}
	free(counts);
	if (total)
		*total = (unsigned long)sum;
	return ferror(f) ? -EIO : 0;
}

struct folded_args {
	const struct samp_snapshot *s;
	enum samp_window w;
	pid_t tid;
	unsigned long *total;
};

static int folded_write(FILE *f, void *arg)
{
	struct folded_args *a = arg;

	return out_folded_write(f, a->s, a->w, a->tid, a->total);
}

int out_folded_save(const char *path, const struct samp_snapshot *s, enum samp_window w, pid_t tid,
		    unsigned long *total, struct ps_error *e)
{
	struct folded_args a = { s, w, tid, total };

	return out_save(path, folded_write, &a, e);
}
