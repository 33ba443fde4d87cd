/* Tags (Space, c, U) and what the process list does to processes: signals,
 * nice (F7/F8), CPU affinity (a), I/O priority (i), and the views of one
 * process's environment (e) and whole command line (w). Actions apply to
 * the tagged processes when there are any, else to the selected one. */
#include "list.h"
#include "draw.h"
#include "i18n.h"
#include "actions.h"
#include "util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct list_signal list_signals[] = {
	{ SIGTERM, "SIGTERM" }, { SIGHUP, "SIGHUP" },   { SIGINT, "SIGINT" },   { SIGQUIT, "SIGQUIT" },
	{ SIGKILL, "SIGKILL" }, { SIGUSR1, "SIGUSR1" }, { SIGUSR2, "SIGUSR2" }, { SIGCONT, "SIGCONT" },
	{ SIGSTOP, "SIGSTOP" }, { SIGTSTP, "SIGTSTP" }, { SIGALRM, "SIGALRM" }, { SIGABRT, "SIGABRT" },
};
const int list_nsignals = (int)ARRAY_SIZE(list_signals);

bool id_set_has(const struct id_set *s, pid_t pid, unsigned long long start)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].pid == pid && s->v[i].starttime == start)
			return true;
	return false;
}

void id_set_add(struct id_set *s, pid_t pid, unsigned long long start)
{
	if (id_set_has(s, pid, start) || array_reserve((void **)&s->v, &s->cap, s->n, sizeof(*s->v), 16) < 0)
		return;
	memset(&s->v[s->n], 0, sizeof(s->v[s->n]));
	s->v[s->n].pid = pid;
	s->v[s->n].starttime = start;
	s->n++;
}

void id_set_del(struct id_set *s, pid_t pid, unsigned long long start)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].pid == pid && s->v[i].starttime == start) {
			s->v[i] = s->v[--s->n];
			return;
		}
}

const struct proc_row *list_selected(struct list_state *ls)
{
	int i = table_selected(&ls->tab);
	return i >= 0 && i < (int)ls->view.n ? ls->view.v[i].r : NULL;
}

const struct proc_row *list_find(const struct list_state *ls, pid_t pid)
{
	return ls->snap ? snap_list_find(ls->snap, pid) : NULL;
}

void list_tag_toggle(struct list_state *ls, const struct proc_row *r)
{
	if (!r)
		return;
	if (id_set_has(&ls->tags, r->pid, r->starttime))
		id_set_del(&ls->tags, r->pid, r->starttime);
	else
		id_set_add(&ls->tags, r->pid, r->starttime);
}

/* r and every descendant (by ppid) in the table, tagged. */
void list_tag_children(struct list_state *ls, const struct proc_row *r)
{
	size_t n = ls->snap ? ls->snap->n : 0;
	bool grew = true;

	if (!r)
		return;
	id_set_add(&ls->tags, r->pid, r->starttime);
	/* a fixed point over the table: a child's parent tagged tags it */
	while (grew) {
		grew = false;
		for (size_t i = 0; i < n; i++) {
			const struct proc_row *c = ls->snap->rows[i];
			if (c->is_thread || id_set_has(&ls->tags, c->pid, c->starttime))
				continue;
			const struct proc_row *p = list_find(ls, c->ppid);
			if (p && id_set_has(&ls->tags, p->pid, p->starttime)) {
				id_set_add(&ls->tags, c->pid, c->starttime);
				grew = true;
			}
		}
	}
}

/* The processes an action applies to: the tagged ones (still alive under
 * the same identity), else the selected row's process. */
static size_t targets(struct list_state *ls, struct target_id *out, size_t max)
{
	size_t n = 0;

	if (ls->tags.n) {
		for (size_t i = 0; i < ls->tags.n && n < max; i++)
			out[n++] = ls->tags.v[i];
		return n;
	}
	const struct proc_row *r = list_selected(ls);
	if (!r)
		return 0;
	const struct proc_row *p = r->is_thread ? list_find(ls, r->tgid) : r;
	if (!p) {
		ui_message(ls->ui, true, _("process %d has exited"), (int)r->tgid);
		return 0;
	}
	memset(&out[0], 0, sizeof(out[0]));
	out[0].pid = p->pid;
	out[0].starttime = p->starttime;
	return 1;
}

static const char *comm_of(struct list_state *ls, pid_t pid)
{
	const struct proc_row *r = list_find(ls, pid);
	return r ? r->comm : "?";
}

/* Report how an action over n processes went: the first error, or done. */
static void report(struct list_state *ls, int failed, const struct ps_error *first, const char *done)
{
	if (failed)
		ui_error(ls->ui, first);
	else
		ui_message(ls->ui, false, "%s", done);
}

#define MAX_TARGETS 4096

void list_send_signal(struct list_state *ls, int idx)
{
	static struct target_id ids[MAX_TARGETS];
	size_t n = targets(ls, ids, MAX_TARGETS);
	struct ps_error e, first;
	char q[320], done[160];
	int failed = 0;

	if (!n)
		return;
	if (n == 1)
		snprintf(q, sizeof(q), _("Send %s to PID %d (%s)?"), list_signals[idx].name, (int)ids[0].pid,
			 comm_of(ls, ids[0].pid));
	else
		snprintf(q, sizeof(q), _("Send %s to the %zu tagged processes?"), list_signals[idx].name, n);
	if (!ui_confirm(ls->ui, q)) {
		ui_message(ls->ui, false, "%s", _("no signal sent"));
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (target_signal(&ids[i], list_signals[idx].sig, &e) < 0 && !failed++)
			first = e;
	if (n == 1)
		snprintf(done, sizeof(done), _("sent %s to PID %d"), list_signals[idx].name, (int)ids[0].pid);
	else
		snprintf(done, sizeof(done), _("sent %s to %zu processes"), list_signals[idx].name, n);
	report(ls, failed, &first, done);
}

void list_nice(struct list_state *ls, int delta)
{
	static struct target_id ids[MAX_TARGETS];
	size_t n = targets(ls, ids, MAX_TARGETS);
	struct ps_error e, first;
	char done[160];
	int failed = 0, last = 0;

	ps_error_clear(&e);
	for (size_t i = 0; i < n; i++) {
		int cur;
		if (act_get_nice(&ids[i], &cur, &e) < 0 ||
		    act_set_nice(&ids[i], cur + delta, &e) < 0) {
			if (!failed++)
				first = e;
			continue;
		}
		last = cur + delta < -20 ? -20 : cur + delta > 19 ? 19 : cur + delta;
	}
	if (n == 1)
		snprintf(done, sizeof(done), _("PID %d: nice %d"), (int)ids[0].pid, last);
	else
		snprintf(done, sizeof(done), _("nice %+d for %zu processes"), delta, n);
	if (n)
		report(ls, failed, &first, done);
}

void list_affinity(struct list_state *ls)
{
	static struct target_id ids[MAX_TARGETS];
	size_t n = targets(ls, ids, MAX_TARGETS);
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct ps_error e, first;
	cpu_set_t set;
	char buf[256], label[128], done[160];
	int failed = 0;

	if (!n)
		return;
	ps_error_clear(&e);
	if (act_get_affinity(&ids[0], &set, &e) < 0) {
		ui_error(ls->ui, &e);
		return;
	}
	act_cpulist_fmt(&set, buf, sizeof(buf));
	if (n == 1)
		snprintf(label, sizeof(label), _("CPUs for PID %d (0-%ld, e.g. 0,2-3): "), (int)ids[0].pid, ncpu - 1);
	else
		snprintf(label, sizeof(label), _("CPUs for %zu tagged processes (0-%ld): "), n, ncpu - 1);
	if (!ui_prompt(ls->ui, label, buf, sizeof(buf)))
		return;
	if (act_cpulist_parse(buf, (int)ncpu, &set) < 0) {
		ui_message(ls->ui, true, _("not a CPU list: '%s' (CPUs 0-%ld, as 0,2-3)"), buf, ncpu - 1);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (act_set_affinity(&ids[i], &set, &e) < 0 && !failed++)
			first = e;
	act_cpulist_fmt(&set, buf, sizeof(buf));
	/* "PID 42 now runs on CPU 0", never "CPUs 0 for 1 process". */
	if (n == 1)
		snprintf(done, sizeof(done), P_("PID %d now runs on CPU %s", "PID %d now runs on CPUs %s", CPU_COUNT(&set)),
			 (int)ids[0].pid, buf);
	else
		snprintf(done, sizeof(done),
			 P_("%zu processes now run on CPU %s", "%zu processes now run on CPUs %s", CPU_COUNT(&set)), n, buf);
	report(ls, failed, &first, done);
}

void list_ioprio(struct list_state *ls)
{
	static struct target_id ids[MAX_TARGETS];
	size_t n = targets(ls, ids, MAX_TARGETS);
	struct ps_error e, first;
	char buf[64], label[128], done[160];
	int failed = 0, cls, lvl;

	if (!n)
		return;
	ps_error_clear(&e);
	if (act_get_ioprio(&ids[0], &cls, &lvl, &e) < 0) {
		ui_error(ls->ui, &e);
		return;
	}
	act_ioprio_fmt(cls, lvl, buf, sizeof(buf));
	if (n == 1)
		snprintf(label, sizeof(label), _("I/O priority of PID %d (be0-be7, rt0-rt7, idle, none): "), (int)ids[0].pid);
	else
		snprintf(label, sizeof(label), _("I/O priority of %zu tagged (be0-be7, rt0-rt7, idle, none): "), n);
	if (!ui_prompt(ls->ui, label, buf, sizeof(buf)))
		return;
	if (act_ioprio_parse(buf, &cls, &lvl) < 0) {
		ui_message(ls->ui, true, _("not an I/O priority: '%s' (be0-be7, rt0-rt7, idle, none)"), buf);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (act_set_ioprio(&ids[i], cls, lvl, &e) < 0 && !failed++)
			first = e;
	act_ioprio_fmt(cls, lvl, buf, sizeof(buf));
	if (n == 1)
		snprintf(done, sizeof(done), _("PID %d: I/O priority %s"), (int)ids[0].pid, buf);
	else
		snprintf(done, sizeof(done), P_("I/O priority %s for %zu process", "I/O priority %s for %zu processes", n), buf, n);
	report(ls, failed, &first, done);
}

/* A file of a process read on a worker, then shown in the text screen. */
struct text_ask {
	struct ui *ui;
	char title[160];
};

static bool text_message(void *ctx, struct ring_msg *m)
{
	struct text_ask *a = ctx;

	if (m->kind == RING_RESULT && m->payload) {
		const struct proc_text *t = m->payload;
		if (t->len)
			screen_text_open(a->ui, a->title, t->text, t->len);
		else
			screen_text_open(a->ui, a->title, _("(empty)"), strlen(_("(empty)")));
	} else if (m->kind == RING_ERROR) {
		ui_error(a->ui, &m->err);
	} else if (m->kind == RING_DONE) {
		free(a);
	}
	return false;
}

/* /proc/PID/<file> in the text screen: its NUL-separated items one row
 * each (sep '\0'), or joined by sep into one row. */
static void show_list(struct list_state *ls, const char *file, char sep, const char *what)
{
	const struct proc_row *r = list_selected(ls);

	if (!r)
		return;
	pid_t pid = r->tgid;
	const struct proc_row *p = list_find(ls, pid);
	if (!p) {
		ui_message(ls->ui, true, _("process %d has exited"), (int)pid);
		return;
	}
	struct text_ask *a = calloc(1, sizeof(*a));
	struct target_id id = { .pid = pid, .starttime = p->starttime };
	struct job_handler h = { text_message, a };
	if (!a) {
		ui_message(ls->ui, true, "%s", _("out of memory"));
		return;
	}
	a->ui = ls->ui;
	snprintf(a->title, sizeof(a->title), " %s %d (%s)   %s", what, (int)pid, p->comm, _("Esc returns"));
	if (!proc_text_submit(ls->ui->workers, &id, file, sep, &h)) {
		free(a);
		ui_message(ls->ui, true, "%s", _("out of memory"));
	}
}

void list_show_environ(struct list_state *ls)
{
	show_list(ls, "environ", '\0', _("Environment of PID"));
}

void list_show_cmdline(struct list_state *ls)
{
	show_list(ls, "cmdline", ' ', _("Command line of PID"));
}
