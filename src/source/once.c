/* One-shot reads a key asks for, made on a worker like every read of a
 * process: who the process is before a screen opens for it (a reused PID
 * refused), the Doors report, and a file of the process shown as text
 * (its environment, its whole command line), source files of an annotated
 * function, the cores the kernel wrote. Each is a job on the long
 * lane posting one RING_RESULT (or a RING_ERROR with why). */
#include "source/source.h"
#include "doors/doors.h"
#include "i18n.h"
#include "sym/sym.h"
#include "util.h"
#include "worker.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct once_arg {
	struct target_id id;
	char file[32];
	char sep;
};

/* A zeroed payload, or NULL with the job's error posted. */
static void *payload(struct job *j, size_t size)
{
	void *p = calloc(1, size);
	struct ps_error e;

	if (!p) {
		ps_error_clear(&e);
		ps_error_set(&e, ENOMEM, "%s", _("out of memory"));
		job_error(j, &e);
	}
	return p;
}

static void target_check_job(struct job *j)
{
	struct once_arg *a = j->arg;
	struct target_info *info = payload(j, sizeof(*info));
	struct target t;
	struct ps_error e;

	ps_error_clear(&e);
	if (!info)
		return;
	if (target_open(&t, a->id.pid, a->id.starttime ? &a->id : NULL, &e) < 0) {
		free(info);
		job_error(j, &e);
		return;
	}
	info->id = t.id;
	info->uid = t.uid;
	strlcpy_ps(info->comm, t.comm, sizeof(info->comm));
	target_close(&t);
	job_result(j, info, free);
}

static unsigned submit(struct workers *w, void (*run)(struct job *), const struct target_id *id, const char *file,
		       char sep, const struct job_handler *h)
{
	struct once_arg *a = calloc(1, sizeof(*a));

	if (!a)
		return 0;
	a->id = *id;
	if (file)
		strlcpy_ps(a->file, file, sizeof(a->file));
	a->sep = sep;
	return workers_submit(w, LANE_LONG, id, run, a, free, h);
}

unsigned target_check_submit(struct workers *w, const struct target_id *id, const struct job_handler *h)
{
	return submit(w, target_check_job, id, NULL, 0, h);
}

static void doors_job(struct job *j)
{
	struct once_arg *a = j->arg;
	struct door_report *r = payload(j, sizeof(*r));
	struct ps_error e;

	ps_error_clear(&e);
	if (!r)
		return;
	if (door_report_build(r, a->id.pid, NULL, &e) < 0) {
		/* Gone: said, and the system's report instead. */
		job_error(j, &e);
		door_report_build(r, 0, NULL, NULL);
	}
	job_result(j, r, free);
}

unsigned door_report_submit(struct workers *w, pid_t pid, const struct job_handler *h)
{
	struct target_id id = { .pid = pid };
	return submit(w, doors_job, &id, NULL, 0, h);
}

static void text_job(struct job *j)
{
	struct once_arg *a = j->arg;
	struct proc_text *t = payload(j, sizeof(*t));
	struct ps_error e;

	ps_error_clear(&e);
	if (!t)
		return;
	if (target_read_list(&a->id, a->file, a->sep, &t->text, &t->len, &e) < 0) {
		free(t);
		job_error(j, &e);
		return;
	}
	job_result(j, t, proc_text_free);
}

void proc_text_free(void *p)
{
	struct proc_text *t = p;

	if (t)
		free(t->text);
	free(t);
}

unsigned proc_text_submit(struct workers *w, const struct target_id *id, const char *file, char sep,
			  const struct job_handler *h)
{
	return submit(w, text_job, id, file, sep, h);
}

void src_texts_free(void *p)
{
	struct src_texts *t = p;

	if (!t)
		return;
	for (unsigned i = 0; i < t->n; i++) {
		free(t->path[i]);
		sym_src_free(t->f[i]);
	}
	free(t);
}

/* The job's argument is the payload itself, its paths filled in: the
 * worker opens the files and posts it. */
static void src_job(struct job *j)
{
	struct src_texts *t = j->arg;

	j->arg = NULL; /* posted below: the message owns it */
	for (unsigned i = 0; i < t->n; i++) {
		t->err[i] = sym_src_open(t->path[i], &t->f[i]);
		if (t->err[i] < 0)
			t->f[i] = NULL;
	}
	job_result(j, t, src_texts_free);
}

unsigned src_texts_submit(struct workers *w, const struct target_id *id, const char *const *paths, unsigned n,
			  const struct job_handler *h)
{
	struct src_texts *t = calloc(1, sizeof(*t));

	if (!t)
		return 0;
	for (unsigned i = 0; i < n && i < SRC_TEXTS_MAX; i++) {
		t->path[i] = strdup(paths[i]);
		if (!t->path[i]) {
			src_texts_free(t);
			return 0;
		}
		t->n++;
	}
	return workers_submit(w, LANE_LONG, id, src_job, t, src_texts_free, h);
}

void core_listing_free(void *p)
{
	struct core_listing *l = p;

	if (l)
		free(l->f);
	free(l);
}

static void cores_job(struct job *j)
{
	struct core_listing *l = payload(j, sizeof(*l));
	struct ps_error e;
	long long ulv;

	if (!l)
		return;
	ps_error_clear(&e);
	if (core_where_here(NULL, NULL, &l->where, &e) < 0) {
		free(l);
		job_error(j, &e);
		return;
	}
	const struct core_where *w = &l->where;
	if (core_where_advice(w, l->advice, sizeof(l->advice)) != l->advice)
		l->advice[0] = 0;
	if (!core_where_ulimit(l->ulimit, sizeof(l->ulimit), &ulv))
		l->ulimit[0] = 0;
	l->listable = !(w->kind == CORE_WHERE_PIPE || w->kind == CORE_WHERE_NONE || w->dir_varies);
	ps_error_clear(&e);
	if (l->listable && core_where_list(w, &l->f, &l->n, &e) < 0)
		strlcpy_ps(l->error, e.msg, sizeof(l->error));
	job_result(j, l, core_listing_free);
}

unsigned core_listing_submit(struct workers *w, const struct job_handler *h)
{
	struct target_id none = { 0 };
	return submit(w, cores_job, &none, NULL, 0, h);
}
