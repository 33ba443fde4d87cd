#include "out/folded.h"
#include "i18n.h"
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
	unsigned long *counts = samp_view_stack_counts(s, w, tid), sum = 0;

	if (!counts)
		return -ENOMEM;
	for (unsigned i = 0; i < s->nstacks; i++) {
		const struct samp_stack *st = &s->stacks[i];
		if (!counts[i] || !st->nframes)
			continue;
		put_name(f, samp_thread_comm(s, st->tid));
		if (s->python[0])
			fprintf(f, " (%d)", (int)st->tid); /* py-spy: "thread (id)" */
		else
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

/* Give the unnamed file fd a temporary name next to path (in tmp). */
static int link_temp(int fd, const char *path, char *tmp, size_t size)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (unsigned i = 0; i < 100; i++) {
		snprintf(tmp, size, "%s.%d.%u", path, (int)getpid(), i);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			return errno;
	}
	return EEXIST;
}

int out_folded_save(const char *path, const struct samp_snapshot *s, enum samp_window w, pid_t tid,
		    unsigned long *total, struct ps_error *e)
{
	size_t len = strlen(path), size = len + 32;
	char *tmp = malloc(size);
	int fd, keep = -1, r;
	FILE *f;

	if (!tmp)
		return ps_error_set(e, ENOMEM, _("out of memory"));
	/* An unnamed file in the destination's directory, named only once it
	 * is complete: a pscope killed while writing leaves nothing behind. */
	snprintf(tmp, size, "%s", path);
	char *slash = strrchr(tmp, '/');
	if (slash)
		slash[slash == tmp ? 1 : 0] = '\0';
	fd = open(slash ? tmp : ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	tmp[0] = '\0';
	if (fd >= 0) {
		keep = dup(fd);
	} else {
		snprintf(tmp, size, "%s.XXXXXX", path);
		fd = mkstemp(tmp); /* a filesystem without O_TMPFILE */
	}
	if (fd < 0 || (!tmp[0] && keep < 0)) {
		r = errno;
		if (fd >= 0)
			close(fd);
		free(tmp);
		ps_error_set(e, r, _("cannot write %s: %s"), path, strerror(r));
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
	/* Named under a temporary name, then over the old file: only these two
	 * calls apart can a kill leave that name behind. */
	if (keep >= 0 && (r = link_temp(keep, path, tmp, size)) != 0) {
		tmp[0] = '\0';
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		r = errno;
		goto fail;
	}
	if (keep >= 0)
		close(keep);
	free(tmp);
	return 0;
fail:
	if (keep >= 0)
		close(keep);
	if (tmp[0])
		unlink(tmp);
	free(tmp);
	ps_error_set(e, r, _("cannot write %s: %s"), path, strerror(r));
	e->door = DOOR_FILESYSTEM;
	return -r;
}
