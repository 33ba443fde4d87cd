/* The pprof writer (pprof.h). Field numbers are profile.proto's. */
#include "out/pprof.h"
#include "hmap.h"
#include "out/escape.h"
#include "out/folded.h"
#include "out/pb.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

enum {
	PROF_SAMPLE_TYPE = 1, PROF_SAMPLE = 2, PROF_MAPPING = 3, PROF_LOCATION = 4, PROF_FUNCTION = 5,
	PROF_STRINGS = 6, PROF_TIME = 9, PROF_DURATION = 10, PROF_PERIOD_TYPE = 11, PROF_PERIOD = 12,
	PROF_COMMENT = 13,
	VT_TYPE = 1, VT_UNIT = 2,
	SAMPLE_LOCATION = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
	LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3,
	MAP_ID = 1, MAP_START = 2, MAP_LIMIT = 3, MAP_OFFSET = 4, MAP_FILENAME = 5, MAP_BUILD_ID = 6,
	MAP_HAS_FUNCTIONS = 7, MAP_HAS_FILENAMES = 8, MAP_HAS_LINES = 9,
	LOC_ID = 1, LOC_MAPPING = 2, LOC_ADDRESS = 3, LOC_LINE = 4,
	LINE_FUNCTION = 1, LINE_LINE = 2,
	FN_ID = 1, FN_NAME = 2, FN_SYSTEM_NAME = 3, FN_FILENAME = 4, FN_START_LINE = 5,
};

/* The string table: index 0 is "", each string once. */
struct strtab {
	struct hmap index; /* hash -> index (a collision probes the next hash) */
	char **s;
	size_t n, cap;
	int err;
};

static uint64_t hash64(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The index of text (copied, escaped for the terminals pprof prints to). */
static uint64_t str_id(struct strtab *t, const char *raw)
{
	const char *text = esc(raw ? raw : "");
	uint64_t h = hash64(text), v;

	if (!text[0])
		return 0;
	while ((v = hmap_get(&t->index, h)) != HMAP_NONE) {
		if (!strcmp(t->s[v], text))
			return v;
		h++;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		char **p = realloc(t->s, cap * sizeof(*p));
		if (!p)
			goto nomem;
		t->s = p;
		t->cap = cap;
	}
	if (!(t->s[t->n] = strdup(text)) || hmap_put(&t->index, h, t->n) < 0)
		goto nomem;
	return t->n++;
nomem:
	t->err = -ENOMEM;
	return 0;
}

static void value_type(struct pb *b, unsigned field, struct strtab *t, const char *type, const char *unit)
{
	struct pb vt = { 0 };

	pb_uint(&vt, VT_TYPE, str_id(t, type));
	pb_uint(&vt, VT_UNIT, str_id(t, unit));
	pb_msg(b, field, &vt);
	pb_free(&vt);
}

/* A Label {key, str} or {key, num}. */
static void label(struct pb *b, struct strtab *t, const char *k, const char *str, long long num)
{
	struct pb l = { 0 };

	pb_uint(&l, LABEL_KEY, str_id(t, k));
	if (str)
		pb_uint(&l, LABEL_STR, str_id(t, str));
	else
		pb_uint(&l, LABEL_NUM, (uint64_t)num);
	pb_msg(b, SAMPLE_LABEL, &l);
	pb_free(&l);
}

/* Mapping, function and location records: mapping, function and location
 * i + 1 for the snapshot's i (pprof's 0 is "none"). A location is a
 * run-time address in its mapping (kernel and JIT code: none) with the
 * line of its function the address is at; pscope names every function
 * itself, so pprof has nothing to symbolize. */
static void put_functions(struct pb *out, const struct samp_snapshot *s, struct strtab *t)
{
	struct pb m = { 0 }, loc = { 0 }, line = { 0 };

	for (unsigned i = 0; i < s->nmaps; i++) {
		const struct samp_map *mp = &s->maps[i];
		pb_reset(&m);
		pb_uint(&m, MAP_ID, i + 1);
		pb_uint(&m, MAP_START, mp->start);
		pb_uint(&m, MAP_LIMIT, mp->limit);
		pb_uint(&m, MAP_OFFSET, mp->offset);
		pb_uint(&m, MAP_FILENAME, str_id(t, mp->path));
		pb_uint(&m, MAP_BUILD_ID, str_id(t, mp->build_id));
		pb_uint(&m, MAP_HAS_FUNCTIONS, 1);
		pb_uint(&m, MAP_HAS_FILENAMES, 1);
		pb_uint(&m, MAP_HAS_LINES, 1);
		pb_msg(out, PROF_MAPPING, &m);
	}
	for (unsigned i = 0; i < s->nfuncs; i++) {
		const struct samp_func *fn = &s->funcs[i];
		pb_reset(&m);
		pb_uint(&m, FN_ID, i + 1);
		pb_uint(&m, FN_NAME, str_id(t, fn->name));
		pb_uint(&m, FN_SYSTEM_NAME, str_id(t, fn->name));
		pb_uint(&m, FN_FILENAME, str_id(t, fn->file ? fn->file : (fn->flags & SAMP_F_PYTHON) ? NULL : fn->module));
		pb_uint(&m, FN_START_LINE, fn->line > 0 ? (uint64_t)fn->line : 0);
		pb_msg(out, PROF_FUNCTION, &m);
	}
	for (unsigned i = 0; i < s->nlocs; i++) {
		const struct samp_loc *l = &s->locs[i];
		pb_reset(&line);
		pb_uint(&line, LINE_FUNCTION, l->func + 1ull);
		pb_uint(&line, LINE_LINE, l->line > 0 ? (uint64_t)l->line : 0);
		pb_reset(&loc);
		pb_uint(&loc, LOC_ID, i + 1);
		pb_uint(&loc, LOC_MAPPING, l->map < s->nmaps ? l->map + 1ull : 0);
		pb_uint(&loc, LOC_ADDRESS, l->addr);
		pb_msg(&loc, LOC_LINE, &line);
		pb_msg(out, PROF_LOCATION, &loc);
	}
	if (m.err || loc.err || line.err)
		out->err = -ENOMEM;
	pb_free(&m);
	pb_free(&loc);
	pb_free(&line);
}

static void put_samples(struct pb *out, const struct samp_snapshot *s, const unsigned long long *counts,
			struct strtab *t)
{
	struct pb smp = { 0 };
	uint64_t *ids = NULL;
	unsigned max = 0;
	char name[OUT_FRAME_NAME_MAX];

	for (unsigned i = 0; i < s->nstacks; i++)
		if (s->stacks[i].nframes > max)
			max = s->stacks[i].nframes;
	if (!(ids = malloc((max + 1) * sizeof(*ids)))) {
		out->err = -ENOMEM;
		return;
	}
	for (unsigned i = 0; i < s->nstacks; i++) {
		const struct samp_stack *st = &s->stacks[i];
		uint64_t v = counts[i];
		if (!counts[i] || !st->nframes)
			continue;
		for (unsigned j = 0; j < st->nframes; j++) /* leaf first, as pprof wants */
			ids[j] = s->lframes[st->first + j] + 1ull;
		pb_reset(&smp);
		pb_packed(&smp, SAMPLE_LOCATION, ids, st->nframes);
		pb_packed(&smp, SAMPLE_VALUE, &v, 1);
		label(&smp, t, s->machine ? "process" : "thread", out_folded_thread(s, st->tid, name, sizeof(name)), 0);
		pb_msg(out, PROF_SAMPLE, &smp);
	}
	pb_free(&smp);
	free(ids);
}

/* The sample type and period of s's unit. */
static void put_types(struct pb *out, const struct samp_snapshot *s, struct strtab *t)
{
	switch (s->unit) {
	case SAMP_UNIT_NS_BLOCKED:
		value_type(out, PROF_SAMPLE_TYPE, t, "off-cpu", "nanoseconds");
		value_type(out, PROF_PERIOD_TYPE, t, "off-cpu", "nanoseconds");
		pb_uint(out, PROF_PERIOD, 1);
		break;
	case SAMP_UNIT_NS_SYSCALL:
		value_type(out, PROF_SAMPLE_TYPE, t, "syscall", "nanoseconds");
		value_type(out, PROF_PERIOD_TYPE, t, "syscall", "nanoseconds");
		pb_uint(out, PROF_PERIOD, 1);
		break;
	case SAMP_UNIT_FAULTS:
		value_type(out, PROF_SAMPLE_TYPE, t, "faults", "count");
		value_type(out, PROF_PERIOD_TYPE, t, "faults", "count");
		pb_uint(out, PROF_PERIOD, 1);
		break;
	default:
		value_type(out, PROF_SAMPLE_TYPE, t, "samples", "count");
		value_type(out, PROF_PERIOD_TYPE, t, "cpu", "nanoseconds");
		pb_uint(out, PROF_PERIOD, s->freq > 0 ? (uint64_t)(1000000000 / s->freq) : 0);
		break;
	}
}

/* buf gzip'd to f. */
static int put_gzip(FILE *f, const uint8_t *buf, size_t n)
{
	z_stream z = { 0 };
	uint8_t out[65536];
	int r;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (uint8_t *)buf;
	z.avail_in = (uInt)n;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		r = deflate(&z, Z_FINISH);
		if (r == Z_STREAM_ERROR)
			break;
		fwrite(out, 1, sizeof(out) - z.avail_out, f);
	} while (r != Z_STREAM_END);
	deflateEnd(&z);
	return ferror(f) ? -(errno ? errno : EIO) : r == Z_STREAM_END ? 0 : -EIO;
}

int out_pprof_write(FILE *f, const struct samp_snapshot *s, enum samp_window w, pid_t tid, unsigned long long *total)
{
	unsigned long long *counts = samp_view_stack_counts(s, w, tid);
	struct strtab t = { 0 };
	struct pb out = { 0 };
	char comment[256];
	struct timespec now;
	int r = -ENOMEM;

	if (!counts || s->nstacks > (1u << 30))
		goto done;
	if (total) {
		*total = 0;
		for (unsigned i = 0; i < s->nstacks; i++)
			*total += s->stacks[i].nframes ? counts[i] : 0;
	}
	t.s = calloc(256, sizeof(*t.s));
	if (!t.s)
		goto done;
	t.cap = 256;
	t.s[0] = strdup("");
	t.n = 1;
	put_types(&out, s, &t);
	put_functions(&out, s, &t);
	put_samples(&out, s, counts, &t);
	clock_gettime(CLOCK_REALTIME, &now);
	pb_uint(&out, PROF_TIME, (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec - (uint64_t)(s->elapsed * 1e9));
	pb_uint(&out, PROF_DURATION, (uint64_t)(s->elapsed * 1e9));
	snprintf(comment, sizeof(comment), "pscope: %s (%d), %s, window %s", s->machine ? "every process" : s->comm,
		 (int)s->target.pid, s->python[0] ? "CPython" : s->event, samp_window_name(w));
	pb_uint(&out, PROF_COMMENT, str_id(&t, comment));
	for (size_t i = 0; i < t.n; i++)
		pb_bytes(&out, PROF_STRINGS, t.s[i], strlen(t.s[i]));
	if (out.err || t.err || !t.s[0])
		goto done;
	r = put_gzip(f, out.p, out.n);
done:
	for (size_t i = 0; i < t.n; i++)
		free(t.s[i]);
	free(t.s);
	hmap_free(&t.index);
	pb_free(&out);
	free(counts);
	return r;
}
