/* The sampler's pure parts: the perf-map and kallsyms parsers, the views
 * of a snapshot (Self%, Total%, callers/callees, history) and the folded
 * writer. (The perf records and ring are src/perf/'s: test-perf.c.) */
#include <errno.h>
#include "out/folded.h"
#include "sample/agg.h"
#include "sample/local.h"
#include "sample/sample.h"
#include "tap.h"

#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

static void test_maps(void)
{
	const char map[] = "7f0000001000 100 jit_fn_a\n7f0000000000 80 jit fn b with spaces\nbad line\n";
	const char ks[] = "ffffffff81000000 T _stext\nffffffff81000100 t do_thing\nffffffff81000200 D data_sym\n"
			  "ffffffffc0000000 t mod_fn\t[e1000]\n";
	const char hidden[] = "0000000000000000 T _stext\n0000000000000000 t do_thing\n";
	struct sym_range *r;
	char *pool;

	ssize_t n = sym_perfmap_parse(map, sizeof(map) - 1, &r, &pool);
	is_int(n, 2, "perf map: two entries, the bad line skipped");
	const struct sym_range *f = sym_range_find(r, (size_t)n, 0x7f0000001080, true);
	is_str(f ? f->name : NULL, "jit_fn_a", "perf map lookup inside a range");
	ok(sym_range_find(r, (size_t)n, 0x7f0000001100, true) == NULL, "perf map: just past the end is nothing");
	f = sym_range_find(r, (size_t)n, 0x7f0000000010, true);
	is_str(f ? f->name : NULL, "jit fn b with spaces", "perf map names keep their spaces");
	free(r);
	free(pool);

	n = sym_kallsyms_parse(ks, sizeof(ks) - 1, &r, &pool);
	is_int(n, 3, "kallsyms: text symbols only");
	f = sym_range_find(r, (size_t)n, 0xffffffff81000150, false);
	is_str(f ? f->name : NULL, "do_thing", "kallsyms: nearest symbol below");
	f = sym_range_find(r, (size_t)n, 0xffffffffc0000010, false);
	is_str(f ? f->module : NULL, "[e1000]", "kallsyms: module name kept");
	free(r);
	free(pool);
	n = sym_kallsyms_parse(hidden, sizeof(hidden) - 1, &r, &pool);
	is_int(n, 0, "kallsyms with kptr_restrict (all zero) names nothing");
}

/* A snapshot by hand: main -> loop -> {hot x3, cold x1} on thread 1, and
 * one sample of thread 2 in "we;ird\nname" called by loop. */
static struct samp_snapshot *fake_snapshot(void)
{
	static struct samp_func funcs[] = {
		{ .name = "main", .module = "/bin/x" },   { .name = "loop", .module = "/bin/x" },
		{ .name = "hot", .module = "/bin/x", .file = "x.c", .line = 3 },
		{ .name = "cold", .module = "/bin/x" },   { .name = "we;ird\nname", .module = "/lib/y.so" },
	};
	static unsigned frames[] = { 2, 1, 0, 3, 1, 0, 4, 1, 0 };
	static struct samp_stack stacks[] = { { 1, 3, 0 }, { 1, 3, 3 }, { 2, 3, 6 } };
	static struct samp_thread threads[] = { { .tid = 1, .comm = "t1" }, { .tid = 2, .comm = "t;2" } };
	struct samp_snapshot *s = calloc(1, sizeof(*s));

	s->nfuncs = 5;
	s->funcs = malloc(sizeof(funcs));
	memcpy(s->funcs, funcs, sizeof(funcs));
	s->nstacks = 3;
	s->stacks = malloc(sizeof(stacks));
	memcpy(s->stacks, stacks, sizeof(stacks));
	s->frames = malloc(sizeof(frames));
	memcpy(s->frames, frames, sizeof(frames));
	s->nthreads = 2;
	s->threads = malloc(sizeof(threads));
	memcpy(s->threads, threads, sizeof(threads));
	/* Two seconds: first only hot (3), then hot 3, cold 1, weird 1. */
	s->nbuckets = 2;
	s->buckets[0].c = malloc(sizeof(struct samp_count));
	s->buckets[0].c[0] = (struct samp_count){ 0, 3 };
	s->buckets[0].n = 1;
	s->buckets[0].samples = 3;
	s->buckets[1].c = malloc(3 * sizeof(struct samp_count));
	s->buckets[1].c[0] = (struct samp_count){ 0, 3 };
	s->buckets[1].c[1] = (struct samp_count){ 1, 1 };
	s->buckets[1].c[2] = (struct samp_count){ 2, 1 };
	s->buckets[1].n = 3;
	s->buckets[1].samples = 5;
	s->all.c = malloc(3 * sizeof(struct samp_count));
	s->all.c[0] = (struct samp_count){ 0, 6 };
	s->all.c[1] = (struct samp_count){ 1, 1 };
	s->all.c[2] = (struct samp_count){ 2, 1 };
	s->all.n = 3;
	s->all.samples = 8;
	return s;
}

static void test_views(void)
{
	struct samp_snapshot *s = fake_snapshot();
	struct samp_view v;

	ok(samp_view_compute(s, SAMP_WIN_ALL, 0, SAMP_SORT_SELF, &v) == 0, "view of the whole run");
	is_int(v.samples, 8, "all samples counted");
	is_str(s->funcs[v.rows[0].func].name, "hot", "hottest function first");
	ok(fabs(v.rows[0].self_pct - 75.0) < 1e-9, "hot Self%% is 6/8");
	unsigned loop_row = 0;
	for (unsigned i = 0; i < v.nrows; i++)
		if (!strcmp(s->funcs[v.rows[i].func].name, "loop"))
			loop_row = i;
	ok(fabs(v.rows[loop_row].total_pct - 100.0) < 1e-9 && v.rows[loop_row].self == 0,
	   "loop: Total%% 100, no self samples");
	ok(fabs(v.rows[0].hist[SAMP_HISTORY - 1] - 60.0f) < 1e-4 && fabs(v.rows[0].hist[SAMP_HISTORY - 2] - 100.0f) < 1e-4,
	   "history: hot was 100%% then 60%% of each second");
	ok(isnan(v.rows[0].hist[0]), "history: seconds before sampling are empty");
	samp_view_free(&v);

	ok(samp_view_compute(s, SAMP_WIN_1S, 2, SAMP_SORT_NAME, &v) == 0 && v.samples == 1 && v.nrows == 3,
	   "window 1 s, thread 2 only");
	is_str(s->funcs[v.rows[0].func].name, "loop", "sorted by name");
	samp_view_free(&v);

	struct samp_rel *cr, *ce;
	unsigned ncr, nce;
	ok(samp_view_relations(s, SAMP_WIN_ALL, 0, 1, &cr, &ncr, &ce, &nce) == 0, "relations of loop");
	ok(ncr == 1 && cr[0].func == 0 && cr[0].samples == 8, "loop is called by main in every sample");
	ok(nce == 3 && ce[0].func == 2 && ce[0].samples == 6, "loop calls hot most");
	free(cr);
	free(ce);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned long total = 0;
	ok(out_folded_write(f, s, SAMP_WIN_ALL, 0, &total) == 0, "folded write");
	fclose(f);
	is_int(total, 8, "folded counts add up to the samples");
	ok(strstr(buf, "t1-1;main;loop;hot 6\n") != NULL, "outermost frame first, thread first");
	ok(strstr(buf, "t:2-2;main;loop;we:ird\\nname 1\n") != NULL, "';' and newlines in names cannot break the format");
	regex_t re;
	regcomp(&re, "^(.+) ([0-9]+)$", REG_EXTENDED);
	int lines = 0, good = 0;
	unsigned long sum = 0;
	for (char *save, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		regmatch_t m[3];
		lines++;
		if (regexec(&re, l, 3, m, 0) == 0) {
			good++;
			sum += strtoul(l + m[2].rm_so, NULL, 10);
		}
	}
	regfree(&re);
	ok(lines == 3 && good == 3 && sum == 8, "three folded lines, each 'stack count', summing to 8");
	free(buf);
	samp_snapshot_free(s);
}

static void test_names(void)
{
	is_str(samp_module_short("/usr/lib/libc.so.6"), "libc.so.6", "module shown by its file name");
	is_str(samp_module_short("/tmp/x (deleted)"), "x (deleted)", "deleted stays visible");
	is_str(samp_module_short("[anon/JIT]"), "[anon/JIT]", "bracketed pseudo-modules stay whole");
}

/* A weighted profile (ns blocked) built through agg: weights and
 * categories through the snapshot, the views and the folded file. */
static void test_weighted(void)
{
	struct agg *a = agg_new(SAMP_UNIT_NS_BLOCKED);
	struct samp_fninfo fm = { .name = "main", .module = "/bin/app" }, fr = { .name = "read", .module = "/lib/libc.so.6" },
			   fl = { .name = "lock", .module = "/lib/libc.so.6" };
	uint32_t m = agg_func_loc(a, agg_func(a, &fm)), r = agg_func_loc(a, agg_func(a, &fr)),
		 l = agg_func_loc(a, agg_func(a, &fl));
	uint32_t io = agg_category(a, "I/O"), fx = agg_category(a, "futex");
	uint32_t s1[] = { r, m }, s2[] = { l, m };

	ok(io != SAMP_NONE && agg_category(a, "I/O") == io && fx != io, "categories are interned functions");
	ok(agg_add(a, 1, s1, 2, io, 3000000) == 0 && agg_add(a, 1, s2, 2, fx, 1000000) == 0 &&
		   agg_add(a, 2, s2, 2, fx, 500) == 0 && agg_add(a, 1, s1, 2, io, 2000000) == 0,
	   "four blocks weighed");
	agg_close_interval(a, 1.0);
	struct samp_thread th[2] = { { .tid = 1, .comm = "app" }, { .tid = 2, .comm = "app2" } };
	struct samp_snapshot *sn = calloc(1, sizeof(*sn));
	sn->elapsed = 1;
	ok(agg_finish(a, sn, th, sizeof(th[0]), 2, NULL) == 0 && sn->nthreads == 2, "published");
	ok(sn->unit == SAMP_UNIT_NS_BLOCKED && sn->weight == 6000500 && sn->all.samples == 4 && sn->nstacks == 3,
	   "the snapshot: its unit, the weight, 4 blocks in 3 stacks");
	struct samp_view v;
	ok(samp_view_compute(sn, SAMP_WIN_ALL, 0, SAMP_SORT_TOTAL, &v) == 0 && v.samples == 6000500, "a view weighs");
	bool cat_ok = false, read_ok = false;
	for (unsigned i = 0; i < v.nrows; i++) {
		const struct samp_func *f = &sn->funcs[v.rows[i].func];
		if (!strcmp(f->name, "[futex]"))
			cat_ok = (f->flags & SAMP_F_CATEGORY) && v.rows[i].total == 1000500 && v.rows[i].self == 0;
		if (!strcmp(f->name, "read"))
			read_ok = v.rows[i].self == 5000000 && fabs(v.rows[i].self_pct - 100.0 * 5000000 / 6000500) < 1e-9;
	}
	ok(cat_ok, "a category: the outermost frame, its Total the weight under it");
	ok(read_ok, "a function's Self is its weight, Self%% its share of the weight");
	samp_view_free(&v);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned long total = 0;
	ok(out_folded_write(f, sn, SAMP_WIN_ALL, 0, &total) == 0 && total == 6000500, "folded write of the weights");
	fclose(f);
	ok(!strncmp(buf, "# pscope: counts are ns-blocked, not samples\n", 45), "the folded file names its unit first");
	ok(strstr(buf, "\napp-1;[I/O];main;read 5000000\n") && strstr(buf, "\napp2-2;[futex];main;lock 500\n"),
	   "the category is the outermost frame, the count the weight");
	free(buf);
	samp_snapshot_free(sn);
	agg_free(a);

	/* A sample-count profile says nothing of units (its files unchanged). */
	a = agg_new(SAMP_UNIT_SAMPLES);
	m = agg_func_loc(a, agg_func(a, &fm));
	agg_add(a, 1, &m, 1, SAMP_NONE, 1);
	agg_close_interval(a, 1.0);
	sn = calloc(1, sizeof(*sn));
	agg_finish(a, sn, th, sizeof(th[0]), 1, NULL);
	f = open_memstream(&buf, &len);
	out_folded_write(f, sn, SAMP_WIN_ALL, 0, NULL);
	fclose(f);
	is_str(buf, "app-1;main 1\n", "a sample count's folded file is only its stacks");
	free(buf);
	samp_snapshot_free(sn);
	agg_free(a);

	char w[32];
	is_str(samp_unit_format(SAMP_UNIT_NS_BLOCKED, 1500000000, w, sizeof(w)), "1.50s", "ns shown in s");
	is_str(samp_unit_format(SAMP_UNIT_NS_SYSCALL, 3100000, w, sizeof(w)), "3.1ms", "ns shown in ms");
	is_str(samp_unit_format(SAMP_UNIT_NS_SYSCALL, 999, w, sizeof(w)), "999ns", "a few ns as ns");
	is_str(samp_unit_format(SAMP_UNIT_FAULTS, 42, w, sizeof(w)), "42", "faults as a count");
	is_str(samp_unit_key(SAMP_UNIT_NS_SYSCALL), "ns-syscall", "the unit's stable name");
}

/* The annotated lines: the address histogram of "hot" grouped by line
 * (two pcs on line 5, one inlined, one without a line), and a Python
 * function's lines. */
static void test_annotate(void)
{
	struct samp_snapshot *s = fake_snapshot();
	struct samp_annot a;
	static const struct samp_pc pcs[] = {
		{ .rel = 0x1010, .func = 2, .file = "x.c", .line = 5, .count = 4 },
		{ .rel = 0x1018, .func = 2, .file = "x.c", .line = 5, .count = 2 },
		{ .rel = 0x1000, .func = 2, .file = "x.c", .line = 4, .count = 1 },
		{ .rel = 0x1020, .func = 2, .file = "x.h", .line = 9, .inlined = "helper", .count = 1 },
		{ .rel = 0x1030, .func = 2, .count = 1 },
		{ .rel = 0x1040, .func = 2, .count = 1 },
		{ .rel = 0x2000, .func = 3, .file = "x.c", .line = 20, .count = 7 },
	};

	s->npcs = 7;
	s->pcs = malloc(sizeof(pcs));
	memcpy(s->pcs, pcs, sizeof(pcs));
	ok(samp_view_annotate(s, SAMP_WIN_ALL, "hot", &a) == 0, "annotate hot");
	is_int(a.func, 2, "its function");
	is_int(a.samples, 10, "its samples: its pcs only");
	is_int(a.nlines, 4, "four rows: two lines, one inlined, one without source");
	is_int(a.lines[0].line, 4, "source order");
	is_int(a.lines[1].line, 5, "line 5 next");
	is_int(a.lines[1].samples, 6, "line 5: its two pcs");
	ok(a.lines[1].lo == 0x1010 && a.lines[1].hi == 0x1018, "line 5's address range");
	is_int(a.hot, 1, "line 5 is the hottest");
	ok(fabs(a.lines[1].pct - 60.0) < 1e-9, "line 5 has 60%% of the samples");
	is_str(a.lines[2].inlined, "helper", "inlined code named");
	ok(!a.lines[3].file && a.lines[3].lo == 0x1030 && a.lines[3].hi == 0x1040, "no source: its range, last");
	samp_annot_free(&a);
	ok(samp_view_annotate(s, SAMP_WIN_ALL, "nothing", &a) == -ENOENT, "an unknown function");
	ok(samp_view_annotate(s, SAMP_WIN_ALL, "main", &a) == -ENOENT, "a function without self samples");
	/* The rolling windows: the seconds of the address histogram. */
	s->npc_buckets = 2;
	s->pc_buckets[0].n = 2;
	s->pc_buckets[0].c = calloc(2, sizeof(struct samp_pccount));
	s->pc_buckets[0].c[0] = (struct samp_pccount){ 0, 3 };
	s->pc_buckets[0].c[1] = (struct samp_pccount){ 6, 7 };
	s->pc_buckets[1].n = 2;
	s->pc_buckets[1].c = calloc(2, sizeof(struct samp_pccount));
	s->pc_buckets[1].c[0] = (struct samp_pccount){ 1, 2 };
	s->pc_buckets[1].c[1] = (struct samp_pccount){ 2, 1 };
	ok(samp_view_annotate(s, SAMP_WIN_1S, "hot", &a) == 0 && a.win == SAMP_WIN_1S, "annotate hot in the last second");
	ok(a.samples == 3 && a.nlines == 2, "the last second: its two pcs, on two lines");
	ok(a.nlines == 2 && a.lines[0].line == 4 && a.lines[1].line == 5 && a.lines[1].samples == 2 && a.hot == 1,
	   "line 5 with that second's samples, the hottest");
	ok(a.nlines == 2 && a.lines[1].lo == 0x1018 && a.lines[1].hi == 0x1018, "only the pc sampled in that second");
	samp_annot_free(&a);
	ok(samp_view_annotate(s, SAMP_WIN_10S, "hot", &a) == 0 && a.samples == 6 && a.nlines == 2 &&
		   a.lines[1].samples == 5 && fabs(a.lines[1].pct - 500.0 / 6) < 1e-9,
	   "10 s: both seconds");
	samp_annot_free(&a);
	ok(samp_view_annotate(s, SAMP_WIN_ALL, "hot", &a) == 0 && a.samples == 10, "all: the counts since the start");
	samp_annot_free(&a);
	samp_snapshot_free(s);

	/* Python: one function per line. */
	s = fake_snapshot();
	for (unsigned i = 2; i < 4; i++) {
		s->funcs[i].name = "f";
		s->funcs[i].file = "m.py";
		s->funcs[i].line = i == 2 ? 14 : 12;
		s->funcs[i].flags = SAMP_F_PYTHON;
	}
	ok(samp_view_annotate(s, SAMP_WIN_ALL, "f", &a) == 0 && a.python, "a Python function");
	ok(a.nlines == 2 && a.lines[0].line == 12 && a.lines[1].line == 14, "its lines in order");
	ok(a.samples == 7 && a.hot == 1 && fabs(a.lines[1].pct - 600.0 / 7) < 1e-9, "line 14: 6 of 7");
	samp_annot_free(&a);
	samp_snapshot_free(s);
}

int main(void)
{
	test_maps();
	test_views();
	test_names();
	test_weighted();
	test_annotate();
	return tap_done();
}
