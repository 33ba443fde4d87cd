#include "out/folded.h"
#include "out/escape.h"

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
	put_name(f, fn->name);
	if ((fn->flags & SAMP_F_KERNEL) && strcmp(fn->name, "[kernel]"))
		fputs("_[k]", f); /* flamegraph.pl colours kernel frames by this suffix */
}

int out_folded_write(FILE *f, const struct samp_snapshot *s, enum samp_window w, pid_t tid,
		     unsigned long *total)
{
	unsigned long *counts = samp_view_stack_counts(s, w, tid), sum = 0;

	if (!counts)
		return -ENOMEM;
	for (unsigned i = 0; i < s->nstacks; i++) {
		const struct samp_stack *st = &s->stacks[i];
		if (!counts[i] || !st->nframes)
			continue;
		put_name(f, samp_thread_comm(s, st->tid));
		fprintf(f, "-%d", (int)st->tid);
		for (unsigned j = st->nframes; j-- > 0;) {
			fputc(';', f);
			put_func(f, &s->funcs[s->frames[st->first + j]]);
		}
		fprintf(f, " %lu\n", counts[i]);
		sum += counts[i];
	}
	free(counts);
	if (total)
		*total = sum;
	return ferror(f) ? -EIO : 0;
}

int out_folded_save(const char *path, const struct samp_snapshot *s, enum samp_window w, pid_t tid,
		    unsigned long *total, struct ps_error *e)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + 16);
	int fd, r;
	FILE *f;

	if (!tmp)
		return ps_error_set(e, ENOMEM, "out of memory");
	snprintf(tmp, len + 16, "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		r = errno;
		free(tmp);
		ps_error_set(e, r, "cannot write %s: %s", path, strerror(r));
		e->door = DOOR_FILESYSTEM;
		return -r;
	}
	fchmod(fd, 0644);
	f = fdopen(fd, "w");
	if (!f) {
		r = errno;
		close(fd);
		goto fail;
	}
	r = out_folded_write(f, s, w, tid, total);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		r = -errno;
	if (fclose(f) != 0 && !r)
		r = -errno;
	if (r < 0) {
		r = -r;
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		r = errno;
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	unlink(tmp);
	free(tmp);
	ps_error_set(e, r, "cannot write %s: %s", path, strerror(r));
	e->door = DOOR_FILESYSTEM;
	return -r;
}
