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

/* name made safe for the format at buf+o: escaped, and no ';' (the
 * separator) or newline. Returns the new length. */
static size_t put_name(char *buf, size_t size, size_t o, const char *name)
{
	for (const char *p = esc(name); *p && o + 1 < size; p++)
		buf[o++] = *p == ';' ? ':' : *p;
	buf[o < size ? o : size - 1] = 0;
	return o;
}

const char *out_folded_frame(const struct samp_snapshot *s, unsigned func, char *buf, size_t size)
{
	const struct samp_func *fn = &s->funcs[func];
	size_t o = put_name(buf, size, 0, fn->name);

	if (fn->flags & SAMP_F_PYTHON) {
		/* py-spy's raw format: "qualname (file:line)". */
		o = put_name(buf, size, o, " (");
		o = put_name(buf, size, o, fn->file ? fn->file : "?");
		snprintf(buf + o, size - o, ":%d)", fn->line);
	} else if ((fn->flags & SAMP_F_KERNEL) && strcmp(fn->name, "[kernel]")) {
		put_name(buf, size, o, "_[k]"); /* flamegraph.pl colours kernel frames by this suffix */
	}
	return buf;
}

const char *out_folded_thread(const struct samp_snapshot *s, pid_t tid, char *buf, size_t size)
{
	size_t o = put_name(buf, size, 0, samp_thread_comm(s, tid));

	if (s->machine)
		snprintf(buf + o, size - o, "-%d", (int)s->procs[tid].pid); /* perf script's comm-pid */
	else if (s->python[0])
		snprintf(buf + o, size - o, " (%d)", (int)tid); /* py-spy: "thread (id)" */
	else
		snprintf(buf + o, size - o, "-%d", (int)tid);
	return buf;
}

/* An off-CPU profile as bcc's offcputime -f writes it: the thread's name,
 * the frames outermost first (kernel ones plain), the microseconds. */
static int offcpu_write(FILE *f, const struct samp_snapshot *s, const unsigned long long *counts,
			unsigned long *total)
{
	char name[OUT_FRAME_NAME_MAX];
	unsigned long long sum = 0;

	fprintf(f, "# pscope: counts are microseconds off CPU, not samples\n");
	for (unsigned i = 0; i < s->nstacks; i++) {
		const struct samp_stack *st = &s->stacks[i];
		if (counts[i] / 1000 == 0 || !st->nframes)
			continue;
		put_name(name, sizeof(name), 0, samp_thread_comm(s, st->tid));
		fputs(name, f);
		for (unsigned j = st->nframes; j-- > 0;) {
			const struct samp_func *fn = &s->funcs[s->frames[st->first + j]];
			fputc(';', f);
			if (fn->flags & SAMP_F_PYTHON)
				out_folded_frame(s, s->frames[st->first + j], name, sizeof(name));
			else
				put_name(name, sizeof(name), 0, fn->name);
			fputs(name, f);
		}
		fprintf(f, " %llu\n", counts[i] / 1000);
		sum += counts[i] / 1000;
	}
	if (total)
		*total = (unsigned long)sum;
	return ferror(f) ? -EIO : 0;
}

int out_folded_write(FILE *f, const struct samp_snapshot *s, enum samp_window w, pid_t tid,
		     unsigned long *total)
{
	unsigned long long *counts = samp_view_func_stack_counts(s, w, tid), sum = 0;
	char name[OUT_FRAME_NAME_MAX];

	if (!counts)
		return -ENOMEM;
	if (s->offcpu) {
		int r = offcpu_write(f, s, counts, total);
		free(counts);
		return r;
	}
	/* A weighted profile says what its counts are (flamegraph.pl and
	 * speedscope skip the line); a CPU profile's file stays plain. */
	if (s->unit != SAMP_UNIT_SAMPLES)
		fprintf(f, "# pscope: counts are %s, not samples\n", samp_unit_key(s->unit));
	for (unsigned i = 0; i < s->nstacks; i++) {
		const struct samp_stack *st = &s->stacks[i];
		if (!counts[i] || !st->nframes)
			continue;
		fputs(out_folded_thread(s, st->tid, name, sizeof(name)), f);
		for (unsigned j = st->nframes; j-- > 0;) {
			fputc(';', f);
			fputs(out_folded_frame(s, s->frames[st->first + j], name, sizeof(name)), f);
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
