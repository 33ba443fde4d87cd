/* The sampler's pure parts: the perf ring protocol (records that wrap),
 * sample record parsing, the perf-map and kallsyms parsers, the views of a
 * snapshot (Self%, Total%, callers/callees, history) and the folded writer. */
#include "out/folded.h"
#include "sample/local.h"
#include "sample/sample.h"
#include "tap.h"

#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

static unsigned seen_types[16], nseen;
static uint64_t seen_ip;

static void collect(void *ctx, const struct perf_event_header *h)
{
	(void)ctx;
	if (nseen < 16)
		seen_types[nseen++] = h->type;
	struct samp_rec_sample s;
	if (samp_parse_sample(h, 0, &s) == 0)
		seen_ip = s.ip;
}

/* Put a sample record (ip, pid/tid, time, period, 2-frame chain) at off. */
static size_t put_sample(unsigned char *ring, uint64_t size, uint64_t off, uint64_t ip)
{
	unsigned char rec[8 + 40 + 16];
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = sizeof(rec) };
	uint32_t pt[2] = { 10, 11 };
	uint64_t t = 5, period = 1000, nr = 2, ips[2] = { ip, 0x400000 };

	memcpy(rec, &h, 8);
	memcpy(rec + 8, &ip, 8);
	memcpy(rec + 16, pt, 8);
	memcpy(rec + 24, &t, 8);
	memcpy(rec + 32, &period, 8);
	memcpy(rec + 40, &nr, 8);
	memcpy(rec + 48, ips, 16);
	for (size_t i = 0; i < sizeof(rec); i++)
		ring[(off + i) & (size - 1)] = rec[i];
	return sizeof(rec);
}

static void test_ring(void)
{
	unsigned char ring[128], out[8];
	struct perf_event_mmap_page pg;
	unsigned char *scratch = aligned_alloc(8, 65536);

	for (int i = 0; i < 128; i++)
		ring[i] = (unsigned char)i;
	samp_ring_copy(ring, 128, 124, out, 8);
	ok(out[0] == 124 && out[3] == 127 && out[4] == 0 && out[7] == 3, "ring copy wraps at the end of the buffer");
	samp_ring_copy(ring, 128, 128 + 2, out, 4);
	ok(out[0] == 2 && out[3] == 5, "ring offsets are taken modulo the size");

	/* Two 64-byte samples starting at 100: the second one wraps. */
	memset(&pg, 0, sizeof(pg));
	memset(ring, 0, sizeof(ring));
	uint64_t off = 100;
	off += put_sample(ring, 128, off, 0x1111);
	off += put_sample(ring, 128, off, 0x2222);
	pg.data_tail = 100;
	pg.data_head = off;
	nseen = 0;
	size_t n = samp_ring_drain(&pg, ring, 128, scratch, collect, NULL);
	is_int(n, 2, "two records read across the wrap");
	is_int(seen_ip, 0x2222, "the wrapped record is reassembled");
	is_int(pg.data_tail, off, "data_tail released up to data_head");
	n = samp_ring_drain(&pg, ring, 128, scratch, collect, NULL);
	is_int(n, 0, "nothing new: nothing read");

	/* A record whose header claims more than what is published is not read. */
	put_sample(ring, 128, off, 0x3333);
	pg.data_head = off + 20;
	n = samp_ring_drain(&pg, ring, 128, scratch, collect, NULL);
	is_int(n, 0, "a partial record is not delivered");
	free(scratch);
}

static void test_parse(void)
{
	uint64_t buf[16] = { 0 };
	struct perf_event_header *h = (struct perf_event_header *)buf;
	struct samp_rec_sample s;

	h->type = PERF_RECORD_SAMPLE;
	h->size = 8 + 40 + 8;
	buf[1] = 0xabc;
	buf[2] = ((uint64_t)7 << 32) | 6;
	buf[5] = 1;
	buf[6] = 0xabc;
	ok(samp_parse_sample(h, 0, &s) == 0 && s.pid == 6 && s.tid == 7 && s.nr == 1 && s.ips[0] == 0xabc,
	   "sample record fields");
	buf[5] = 1000;
	ok(samp_parse_sample(h, 0, &s) < 0, "a call chain longer than the record is refused");
	h->type = PERF_RECORD_MMAP2;
	ok(samp_parse_sample(h, 0, &s) < 0, "only samples parse as samples");

	/* With user registers (mask of 3) and a 16-byte stack copy of which
	 * 8 bytes were filled (dyn_size). */
	uint64_t d[32] = { 0 };
	h = (struct perf_event_header *)d;
	h->type = PERF_RECORD_SAMPLE;
	d[1] = 0x1000;
	d[2] = ((uint64_t)9 << 32) | 8;
	d[5] = 0;                 /* no callchain */
	d[6] = 2;                 /* abi 64 */
	d[7] = 0x11, d[8] = 0x22, d[9] = 0x33;
	d[10] = 16;               /* stack size */
	d[11] = 0xaaaa, d[12] = 0xbbbb;
	d[13] = 8;                /* dyn_size */
	h->size = 14 * 8;
	ok(samp_parse_sample(h, 7, &s) == 0 && s.regs_abi == 2 && s.regs && s.regs[2] == 0x33 && s.stack &&
		   s.stack_size == 8 && !memcmp(s.stack, &d[11], 8),
	   "registers and the stack copy (dyn_size bytes of it)");
	d[6] = 0;                 /* abi none: no registers follow */
	d[7] = 0;                 /* stack size 0: nothing more */
	h->size = 8 * 8;
	ok(samp_parse_sample(h, 7, &s) == 0 && !s.regs && !s.stack, "a sample without user registers or stack");
	d[6] = 2;
	d[10] = 4096;             /* claims more stack than the record holds */
	h->size = 14 * 8;
	ok(samp_parse_sample(h, 7, &s) < 0, "a stack copy longer than the record is refused");
	h->size = 9 * 8;          /* registers cut short */
	ok(samp_parse_sample(h, 7, &s) < 0, "registers cut short are refused");

	/* MMAP2: pid, tid, addr, len, pgoff, maj, min, ino, ino_gen, prot,
	 * flags, then the file name (padded to 8 bytes). */
	unsigned char m[8 + 64 + 16] = { 0 };
	struct samp_rec_mmap2 mm;
	uint32_t u;
	uint64_t v;
	h = (struct perf_event_header *)m;
	h->type = PERF_RECORD_MMAP2;
	h->size = sizeof(m);
	u = 41, memcpy(m + 8, &u, 4);
	u = 42, memcpy(m + 12, &u, 4);
	v = 0x400000, memcpy(m + 16, &v, 8);
	v = 0x2000, memcpy(m + 24, &v, 8);
	v = 0x1000, memcpy(m + 32, &v, 8);
	u = 8, memcpy(m + 40, &u, 4);
	u = 1, memcpy(m + 44, &u, 4);
	v = 1234, memcpy(m + 48, &v, 8);
	u = 4, memcpy(m + 64, &u, 4); /* PROT_EXEC */
	memcpy(m + 72, "/bin/true", 10);
	ok(samp_parse_mmap2(h, &mm) == 0 && mm.pid == 41 && mm.tid == 42 && mm.start == 0x400000 && mm.len == 0x2000 &&
		   mm.pgoff == 0x1000 && mm.maj == 8 && mm.min == 1 && mm.ino == 1234 && mm.prot == 4 &&
		   !strcmp(mm.name, "/bin/true") && mm.name_ok && !mm.build_id,
	   "MMAP2 record fields and file name");
	memset(m + 72, 'x', 16);
	ok(samp_parse_mmap2(h, &mm) == 0 && !mm.name_ok, "an MMAP2 file name not ended inside the record is marked");
	h->misc = PERF_RECORD_MISC_MMAP_BUILD_ID;
	ok(samp_parse_mmap2(h, &mm) == 0 && mm.build_id, "an MMAP2 record with a build id says so");
	h->size = 8 + 64 + 4;
	ok(samp_parse_mmap2(h, &mm) < 0, "an MMAP2 record too short for its fields is refused");
}

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

static void test_hmap(void)
{
	struct hmap m = { 0 };
	int bad = 0;
	for (uint64_t i = 0; i < 5000; i++)
		hmap_put(&m, i * 0x1000, (uint32_t)i);
	for (uint64_t i = 0; i < 5000; i++)
		bad += hmap_get(&m, i * 0x1000) != i;
	is_int(bad, 0, "hash map keeps 5000 keys through growth");
	ok(hmap_get(&m, 0x1001) == HMAP_EMPTY, "absent key");
	hmap_free(&m);
}

int main(void)
{
	test_ring();
	test_parse();
	test_maps();
	test_views();
	test_names();
	test_hmap();
	return tap_done();
}
