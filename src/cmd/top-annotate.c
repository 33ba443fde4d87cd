/* `pscope top PID --annotate FUNC`: the lines of one function with their
 * share of its samples (the view samp_view_annotate()), the hottest
 * marked '>', with the source text when the file is readable. */
#include "cmd/cmd.h"
#include "cmd/top.h"
#include "i18n.h"
#include "out/escape.h"
#include "out/json.h"
#include "sym/sym.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SRC_SHOWN 120 /* bytes of a source line printed */

/* The source files of the lines, opened once each. */
struct srcs {
	const char *path[8];
	struct sym_src *f[8];
	unsigned n;
};

static const struct sym_src *src_of(struct srcs *c, const char *path)
{
	if (!path)
		return NULL;
	for (unsigned i = 0; i < c->n; i++)
		if (!strcmp(c->path[i], path))
			return c->f[i];
	if (c->n == 8)
		return NULL;
	c->path[c->n] = path;
	if (sym_src_open(path, &c->f[c->n]) < 0)
		c->f[c->n] = NULL;
	return c->f[c->n++];
}

static void srcs_free(struct srcs *c)
{
	for (unsigned i = 0; i < c->n; i++)
		sym_src_free(c->f[i]);
}

/* The source text of line l, tabs as spaces, cut at SRC_SHOWN bytes
 * (NUL-terminated, raw: escape it), or "". */
static const char *text_of(struct srcs *c, const struct samp_aline *l, char *buf, size_t size)
{
	size_t len;
	const char *t = l->file ? sym_src_line(src_of(c, l->file), l->line, &len) : NULL;

	buf[0] = 0;
	if (!t)
		return buf;
	return untab(buf, size, t, len < SRC_SHOWN ? len : SRC_SHOWN);
}

static const char *where(const struct samp_aline *l, char *buf, size_t size)
{
	if (!l->file)
		snprintf(buf, size, "[0x%" PRIx64 "-0x%" PRIx64 "]", l->lo, l->hi);
	else
		snprintf(buf, size, "%s:%d", samp_module_short(l->file), l->line);
	return buf;
}

static void print_text(const struct samp_snapshot *s, const struct samp_annot *a, struct srcs *c)
{
	const struct samp_func *f = &s->funcs[a->func];
	char loc[300], text[SRC_SHOWN * 8 + 16];

	if (s->python[0])
		printf(_("PID %d (%s), %.1f s, CPython %s frames, %d Hz requested, %.0f Hz achieved\n"),
		       (int)s->target.pid, esc(s->comm), s->elapsed, esc(s->python), s->freq, s->rate);
	else
		printf(_("PID %d (%s), %.1f s, event %s (%s), %d Hz requested, %.0f Hz achieved\n"),
		       (int)s->target.pid, esc(s->comm), s->elapsed, s->event, s->event_why, s->freq, s->rate);
	printf(P_("%s (%s): %llu sample in its own code\n", "%s (%s): %llu samples in its own code\n", a->samples),
	       esc(f->name), esc(samp_module_short(f->module)), a->samples);
	if (s->pcs_dropped)
		printf(P_("(%llu sample at an address past the histogram's %u not counted)\n", "(%llu samples at addresses past the histogram's %u not counted)\n", s->pcs_dropped), s->pcs_dropped, SAMP_PCS_MAX);
	printf("  %6s %8s  %-24s %s\n", "SHARE%", "SAMPLES", "LINE", "SOURCE");
	for (unsigned i = 0; i < a->nlines; i++) {
		const struct samp_aline *l = &a->lines[i];
		printf("%c %6.2f %8llu  %s %s", i == a->hot ? '>' : ' ', l->pct, l->samples,
		       pad(esc(where(l, loc, sizeof(loc))), 24), esc(text_of(c, l, text, sizeof(text))));
		if (l->inlined)
			printf(_("  [inlined: %s]"), esc(l->inlined));
		else if (!l->file)
			printf("%s", _("(no source line)"));
		putchar('\n');
	}
}

static void print_json(const struct samp_snapshot *s, const struct samp_annot *a, struct srcs *c)
{
	const struct samp_func *f = &s->funcs[a->func];
	struct json_object *o = json_object_new_object(), *la = json_object_new_array();
	char text[SRC_SHOWN * 8 + 16];

	out_json_int(o, "pid", s->target.pid);
	out_json_str(o, "function", f->name);
	out_json_str(o, "module", f->module);
	out_json_str(o, "kind", a->python ? "python" : "native");
	out_json_str(o, "event", s->python[0] ? "python" : s->event);
	out_json_int(o, "freq", s->freq);
	out_json_int(o, "samples", (long long)a->samples);
	out_json_int(o, "dropped", (long long)s->pcs_dropped);
	for (unsigned i = 0; i < a->nlines; i++) {
		const struct samp_aline *l = &a->lines[i];
		struct json_object *lo = json_object_new_object();
		out_json_str(lo, "file", l->file);
		if (l->file)
			out_json_int(lo, "line", l->line);
		else
			json_object_object_add(lo, "line", NULL);
		out_json_str(lo, "inlined", l->inlined);
		if (!a->python) {
			out_json_int(lo, "lo", (long long)l->lo);
			out_json_int(lo, "hi", (long long)l->hi);
		}
		out_json_int(lo, "samples", (long long)l->samples);
		out_json_double(lo, "pct", round(l->pct * 100) / 100);
		out_json_bool(lo, "hot", i == a->hot);
		text_of(c, l, text, sizeof(text));
		out_json_str(lo, "source", l->file && text[0] ? text : NULL);
		json_object_array_add(la, lo);
	}
	json_object_object_add(o, "lines", la);
	out_json_print(stdout, o, 1);
}

int top_annotate(const struct top_args *a, const struct samp_snapshot *s)
{
	struct samp_annot an;
	struct srcs c = { 0 };
	struct ps_error e;
	int r = samp_view_annotate(s, SAMP_WIN_ALL, a->annotate, &an);

	if (r == -ENOENT) {
		ps_error_set(&e, ENOENT, _("no samples in the code of a function named '%s' (see `pscope top %d` for its functions)"),
			     esc(a->annotate), (int)s->target.pid);
		return cmd_fail("top", &e);
	}
	if (r < 0) {
		ps_error_set(&e, ENOMEM, _("out of memory"));
		return cmd_fail("top", &e);
	}
	if (a->json)
		print_json(s, &an, &c);
	else
		print_text(s, &an, &c);
	srcs_free(&c);
	samp_annot_free(&an);
	return 0;
}
