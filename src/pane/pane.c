/* The pane registry and what the panes' batch output shares. */
#include "pane/pane.h"
#include "doors/doors.h"
#include "i18n.h"
#include "out/escape.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const struct pane_desc *const pane_descs[PANE_COUNT] = {
#define PANE(name) &pane_desc_##name,
#include "pane/panes.h"
#undef PANE
};

int pane_find(const char *name, bool aliases)
{
	for (int i = 0; i < PANE_COUNT; i++) {
		const struct pane_desc *p = pane_descs[i];
		if (!strcmp(name, p->name))
			return i;
		for (size_t a = 0; aliases && a < sizeof(p->aliases) / sizeof(p->aliases[0]); a++)
			if (p->aliases[a] && !strcmp(name, p->aliases[a]))
				return i;
	}
	return -1;
}

const char *pane_names(char *buf, size_t size, bool titles)
{
	size_t o = 0;

	if (!size)
		return buf;
	buf[0] = '\0';
	for (int i = 0; i < PANE_COUNT && o + 1 < size; i++) {
		int n = snprintf(buf + o, size - o, "%s%s", i ? ", " : "", titles ? _(pane_descs[i]->title) : pane_descs[i]->name);
		size_t end = n < 0 ? o : o + (size_t)n < size ? o + (size_t)n : size - 1;
		for (size_t k = o; titles && k < end; k++)
			if (buf[k] >= 'A' && buf[k] <= 'Z') /* ASCII only: a translation's bytes stay */
				buf[k] = (char)(buf[k] - 'A' + 'a');
		o = end;
	}
	return buf;
}

const char *pane_source(const struct pane_desc *p, pid_t pid, char *buf, size_t size)
{
	const char *s = _(p->source);
	size_t o = 0;

	if (!size)
		return buf;
	while (*s && o + 1 < size) {
		if (pid > 0 && !strncmp(s, "PID", 3)) {
			o += (size_t)snprintf(buf + o, size - o, "%d", (int)pid);
			if (o >= size)
				o = size - 1;
			s += 3;
		} else {
			buf[o++] = *s++;
		}
	}
	buf[o] = '\0';
	return buf;
}

void pane_show_section(const struct pane_show *s, const struct pane_desc *p, const char *source)
{
	if (!s->json)
		printf(_("\n== %s  (source: %s)\n"), p->name, source ? source : _(p->source));
}

void pane_show_error(struct pane_show *s, const struct pane_desc *p, int err, const char *file)
{
	struct ps_error e;
	char what[96], src[64];

	ps_error_clear(&e);
	snprintf(what, sizeof(what), _("read /proc/%d/%s"), (int)s->pid, file);
	door_refused(&e, PS_OP_READ_PROC, s->pid, err, what);
	snprintf(src, sizeof(src), "/proc/PID/%s", file);
	pane_show_refusal(s, p, &e, src);
}

void pane_show_refusal(struct pane_show *s, const struct pane_desc *p, const struct ps_error *e, const char *source)
{
	char buf[1024];

	s->failed = 1;
	if (s->json) {
		struct json_object *o = json_object_new_object(), *eo = json_object_new_object();
		out_json_str(eo, "message", e->msg);
		out_json_str(eo, "door", e->door ? door_name(e->door) : NULL);
		out_json_str(eo, "fix", e->fix[0] ? e->fix : NULL);
		json_object_object_add(o, "error", eo);
		json_object_object_add(s->jpanes, p->name, o);
	} else {
		pane_show_section(s, p, source);
		printf(_("refused: %s\n"), esc(ps_error_str(e, buf, sizeof(buf))));
	}
	/* The exit status says a pane failed: stderr says which. */
	fprintf(stderr, _("pscope show: %s pane: %s\n"), p->name, esc(ps_error_str(e, buf, sizeof(buf))));
}

bool pane_show_zombie(struct pane_show *s, const struct pane_desc *p)
{
	if (!s->zombie)
		return false;
	if (s->json) {
		json_object_object_add(s->jpanes, p->name, json_object_new_object());
	} else {
		pane_show_section(s, p, NULL);
		printf(_("zombie: it has exited and its parent (PID %d) has not reaped it; it has no memory or open files\n"),
		       (int)s->ppid);
	}
	return true;
}

void pane_kb_json(struct json_object *o, const char *key, long kb)
{
	if (kb >= 0)
		out_json_int(o, key, kb);
	else
		json_object_object_add(o, key, NULL);
}

void pane_kb_text(const char *label, long kb)
{
	char h[32];
	if (kb >= 0)
		printf("%s %10ld kB  %s\n", pad(label, 16), kb, human_bytes((unsigned long long)kb * 1024, h, sizeof(h)));
}

double pane_ms_since(unsigned long long t0_ns)
{
	return (double)(now_ns() - t0_ns) / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void pane_report_times(const char *what, double *t, int n, size_t items, const char *unit)
{
	if (n <= 0)
		return;
	sort_array(t, (size_t)n, sizeof(*t), cmp_double);
	fprintf(stderr, _("pscope show: %s refresh: min %.2f ms, median %.2f ms, max %.2f ms over %d reads (%zu %s)\n"),
		what, t[0], t[n / 2], t[n - 1], n, items, unit);
}

void pane_sleep(double seconds)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}
