/* The pictures of a profile: the flame graph tree (sample/flame.c), the
 * SVG, pprof (with its protobuf encoder) and speedscope writers, on
 * snapshots made with agg as the sources make them. */
#include "out/pb.h"
#include "out/pprof.h"
#include "out/speedscope.h"
#include "out/svg.h"
#include "sample/agg.h"
#include "sample/flame.h"
#include "sample/local.h"
#include "tap.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* app-1: main;loop;hot x6 (at two addresses of hot), main;loop;cold x2,
 * main;a;a;a x1 (recursion), and thread 2 "<b>&\"x": main;hot x1, under
 * unit u. */
static struct samp_snapshot *make(enum samp_unit u, uint64_t wt)
{
	struct agg *a = agg_new(u);
	struct samp_fninfo fi[] = { { .name = "main", .module = "/bin/app" }, { .name = "loop", .module = "/bin/app" },
				    { .name = "hot", .module = "/bin/app", .file = "app.c", .line = 12 },
				    { .name = "cold", .module = "/lib/libc.so.6" }, { .name = "a", .module = "/bin/app" } };
	uint32_t id[5];

	for (int i = 0; i < 5; i++)
		id[i] = agg_func(a, &fi[i]);
	/* hot, loop and main at addresses of /bin/app's mapping (hot at two:
	 * 4 samples and 2), the others as functions only. */
	struct samp_mapinfo mi = { .path = "/bin/app", .build_id = "0123456789abcdef", .start = 0x400000,
				   .limit = 0x402000, .offset = 0x1000 };
	uint32_t map = agg_map(a, &mi);
	uint32_t hot_a = agg_loc(a, id[2], map, 0x400100, 13), hot_b = agg_loc(a, id[2], map, 0x400110, 14),
		 loop = agg_loc(a, id[1], map, 0x400200, 21), m = agg_loc(a, id[0], map, 0x400300, 31),
		 cl = agg_func_loc(a, id[3]), al = agg_func_loc(a, id[4]);
	uint32_t hot[] = { hot_a, loop, m }, hot2[] = { hot_b, loop, m }, cold[] = { cl, loop, m },
		 rec[] = { al, al, al, m }, t2[] = { hot_a, m };
	for (int i = 0; i < 6; i++)
		agg_add(a, 1, i < 4 ? hot : hot2, 3, SAMP_NONE, wt);
	agg_add(a, 1, cold, 3, SAMP_NONE, wt);
	agg_add(a, 1, cold, 3, SAMP_NONE, wt);
	agg_add(a, 1, rec, 4, SAMP_NONE, wt);
	agg_add(a, 2, t2, 2, SAMP_NONE, wt);
	agg_close_interval(a, 1.0);
	struct samp_thread th[2] = { { .tid = 1, .comm = "app" }, { .tid = 2, .comm = "<b>&\"x" } };
	struct samp_snapshot *s = calloc(1, sizeof(*s));
	s->elapsed = 1;
	s->freq = 100;
	s->target.pid = 1;
	strcpy(s->comm, "app");
	strcpy(s->event, "cpu-clock");
	agg_finish(a, s, th, sizeof(th[0]), 2, NULL);
	agg_free(a);
	return s;
}

static uint32_t child(const struct samp_snapshot *s, const struct samp_flame *f, uint32_t at, const char *name)
{
	char buf[64];

	for (uint32_t c = f->nodes[at].child; c != FLAME_NONE; c = f->nodes[c].next)
		if (!strcmp(samp_flame_name(s, f, c, buf, sizeof(buf)), name))
			return c;
	return FLAME_NONE;
}

static void test_tree(void)
{
	struct samp_snapshot *s = make(SAMP_UNIT_SAMPLES, 1);
	struct samp_flame f;

	ok(samp_flame_build(s, SAMP_WIN_ALL, 0, &f) == 0, "the tree is built");
	is_int((int)f.nodes[0].total, 10, "the root weighs every stack");
	uint32_t t1 = child(s, &f, 0, "app-1"), t2 = child(s, &f, 0, "<b>&\"x-2");
	ok(t1 != FLAME_NONE && t2 != FLAME_NONE && f.nodes[t1].next == t2, "one node per thread, by TID");
	uint32_t m = child(s, &f, t1, "main"), loop = child(s, &f, m, "loop");
	uint32_t hot = child(s, &f, loop, "hot"), cold = child(s, &f, loop, "cold"), a = child(s, &f, m, "a");
	ok(loop != FLAME_NONE && hot != FLAME_NONE && cold != FLAME_NONE && a != FLAME_NONE, "the call paths");
	ok(f.nodes[loop].total == 8 && f.nodes[hot].total == 6 && f.nodes[hot].self == 6 && f.nodes[cold].total == 2,
	   "totals and self along a path");
	ok(f.nodes[m].child == a && f.nodes[a].next == loop && f.nodes[loop].child == cold, "siblings in name order");
	ok(f.nodes[cold].x == f.nodes[loop].x && f.nodes[hot].x == f.nodes[loop].x + 2 && f.nodes[t2].x == 9,
	   "a frame starts where its previous sibling ends");
	is_int((int)f.maxdepth, 5, "the deepest frame (root 0, thread 1)");
	ok(samp_flame_kind(s, &f, t1) == FLAME_K_THREAD && samp_flame_kind(s, &f, hot) == FLAME_K_NATIVE, "kinds");

	unsigned char *marks = calloc(f.n, 1);
	ok(samp_flame_match(s, &f, 0, "HOT", marks) == 7 && marks[hot] && !marks[loop], "search: the weight matched");
	ok(samp_flame_match(s, &f, 0, "a", marks) == 10, "a stack with many matches counts once (main holds 'a')");
	ok(samp_flame_match(s, &f, loop, "o", marks) == 8, "search under a zoom counts its subtree only");
	ok(samp_flame_match(s, &f, 0, "libc", marks) == 2, "search matches the module too");
	free(marks);
	samp_flame_free(&f);

	ok(samp_flame_build(s, SAMP_WIN_ALL, 2, &f) == 0 && f.nodes[0].total == 1 && f.n == 4, "a thread filter");
	samp_flame_free(&f);
	samp_snapshot_free(s);
}

static char *written(int (*fn)(FILE *, void *), void *arg, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	ok(fn(f, arg) == 0, "written");
	fclose(f);
	return buf;
}

static int svg_fn(FILE *f, void *s)
{
	return out_svg_write(f, s, SAMP_WIN_ALL, 0, NULL);
}

static int pprof_fn(FILE *f, void *s)
{
	return out_pprof_write(f, s, SAMP_WIN_ALL, 0, NULL);
}

static int ss_fn(FILE *f, void *s)
{
	return out_speedscope_write(f, s, SAMP_WIN_ALL, 0, NULL);
}

static void test_svg(void)
{
	struct samp_snapshot *s = make(SAMP_UNIT_NS_BLOCKED, 1000);
	size_t len;
	char *svg = written(svg_fn, s, &len);

	ok(strstr(svg, "data-total=\"10000\"") != NULL, "the SVG's total is the weight");
	ok(strstr(svg, "data-n=\"6000\" data-d=\"4\" data-v=\"6.0us\"><title>hot</title>") != NULL,
	   "a frame: its weight, depth, figure and name");
	ok(strstr(svg, "<title>&lt;b&gt;&amp;&quot;x-2</title>") != NULL, "a hostile thread name is escaped");
	ok(!strstr(svg, "<b>"), "no markup from a name");
	int frames = 0;
	for (char *p = svg; (p = strstr(p, "<g class=\"f\"")); p++)
		frames++;
	is_int(frames, 12, "one element per node of the tree");
	free(svg);
	samp_snapshot_free(s);
}

/* ---- a reader of profile.proto, for what the writer must have put ---- */
static uint64_t rd_varint(const unsigned char **p, const unsigned char *end)
{
	uint64_t v = 0;

	for (unsigned sh = 0; *p < end && sh < 64; sh += 7) {
		unsigned char c = *(*p)++;
		v |= (uint64_t)(c & 0x7f) << sh;
		if (!(c & 0x80))
			break;
	}
	return v;
}

/* The next field of [*p, end): its number, its varint or its bytes. */
static bool rd_field(const unsigned char **p, const unsigned char *end, unsigned *field, uint64_t *v,
		     const unsigned char **sub, size_t *len)
{
	if (*p >= end)
		return false;
	uint64_t key = rd_varint(p, end);
	*field = (unsigned)(key >> 3);
	if ((key & 7) == 0) {
		*v = rd_varint(p, end);
		*sub = NULL;
		return true;
	}
	if ((key & 7) != 2)
		return false;
	*len = (size_t)rd_varint(p, end);
	*sub = *p;
	*p += *len;
	return *p <= end;
}

/* Field f's varint in the message [p, p + len) (0: absent). */
static uint64_t msg_uint(const unsigned char *p, size_t len, unsigned f)
{
	const unsigned char *end = p + len, *sub;
	unsigned field;
	uint64_t v, out = 0;
	size_t n;

	while (rd_field(&p, end, &field, &v, &sub, &n))
		if (field == f && !sub)
			out = v;
	return out;
}

static void check_profile(const unsigned char *raw, size_t n)
{
	const unsigned char *p = raw, *end = raw + n, *sub, *strs[64];
	size_t slen[64], len;
	unsigned field, ns = 0;
	uint64_t v;
	struct { const unsigned char *p; size_t len; } maps[8], locs[16], fns[16];
	unsigned nm = 0, nl = 0, nf = 0;

	while (rd_field(&p, end, &field, &v, &sub, &len)) {
		if (field == 6 && ns < 64) {
			strs[ns] = sub;
			slen[ns++] = len;
		} else if (field == 3 && nm < 8) {
			maps[nm].p = sub;
			maps[nm++].len = len;
		} else if (field == 4 && nl < 16) {
			locs[nl].p = sub;
			locs[nl++].len = len;
		} else if (field == 5 && nf < 16) {
			fns[nf].p = sub;
			fns[nf++].len = len;
		}
	}
	ok(p == end, "the profile reads to its end");
#define STR(i) ((i) < ns ? (int)slen[i] : 0), ((i) < ns ? (const char *)strs[i] : "")
	char buf[128];
	is_int((int)nm, 1, "one mapping");
	snprintf(buf, sizeof(buf), "%.*s %.*s", STR(msg_uint(maps[0].p, maps[0].len, 5)),
		 STR(msg_uint(maps[0].p, maps[0].len, 6)));
	is_str(buf, "/bin/app 0123456789abcdef", "the mapping: its file and build-id");
	ok(msg_uint(maps[0].p, maps[0].len, 2) == 0x400000 && msg_uint(maps[0].p, maps[0].len, 3) == 0x402000 &&
		   msg_uint(maps[0].p, maps[0].len, 4) == 0x1000 && msg_uint(maps[0].p, maps[0].len, 7) == 1,
	   "the mapping: its range, file offset, and functions named");
	is_int((int)nl, 6, "a location per (function, address)");
	ok(msg_uint(locs[0].p, locs[0].len, 1) == 1 && msg_uint(locs[0].p, locs[0].len, 2) == 1 &&
		   msg_uint(locs[0].p, locs[0].len, 3) == 0x400100 && msg_uint(locs[1].p, locs[1].len, 3) == 0x400110,
	   "hot's two locations: their mapping and addresses");
	ok(msg_uint(locs[4].p, locs[4].len, 2) == 0 && msg_uint(locs[4].p, locs[4].len, 3) == 0,
	   "a function without an address: no mapping, no address");
	/* Location 2 (hot at 0x400110): Line {function 3 (hot), line 14}. */
	const unsigned char *lp = locs[1].p, *le = locs[1].p + locs[1].len, *line = NULL;
	size_t linelen = 0;
	while (rd_field(&lp, le, &field, &v, &sub, &len))
		if (field == 4 && sub) {
			line = sub;
			linelen = len;
		}
	ok(line && msg_uint(line, linelen, 1) == 3 && msg_uint(line, linelen, 2) == 14,
	   "a location's line: its function and the address's line");
	is_int((int)nf, 5, "a function per function");
	snprintf(buf, sizeof(buf), "%.*s %.*s:%d", STR(msg_uint(fns[2].p, fns[2].len, 2)),
		 STR(msg_uint(fns[2].p, fns[2].len, 4)), (int)msg_uint(fns[2].p, fns[2].len, 5));
	is_str(buf, "hot app.c:12", "a function: its name, file and first line");
#undef STR
}

static void test_pb(void)
{
	struct pb b = { 0 };

	pb_varint(&b, 300);
	ok(b.n == 2 && b.p[0] == 0xac && b.p[1] == 0x02, "varint 300");
	pb_reset(&b);
	pb_uint(&b, 1, 0);
	is_int((int)b.n, 0, "a zero field is left out");
	pb_uint(&b, 2, 1);
	pb_bytes(&b, 6, "ab", 2);
	ok(b.n == 6 && !memcmp(b.p, "\x10\x01\x32\x02" "ab", 6), "field keys and a length-delimited field");
	pb_reset(&b);
	uint64_t v[] = { 1, 128 };
	pb_packed(&b, 1, v, 2);
	ok(b.n == 5 && !memcmp(b.p, "\x0a\x03\x01\x80\x01", 5), "a packed field");
	pb_free(&b);

	struct samp_snapshot *s = make(SAMP_UNIT_SAMPLES, 1);
	size_t len;
	char *gz = written(pprof_fn, s, &len);
	ok(len > 18 && (unsigned char)gz[0] == 0x1f && (unsigned char)gz[1] == 0x8b, "pprof is gzip'd");
	unsigned char raw[65536];
	z_stream z = { .next_in = (unsigned char *)gz, .avail_in = (uInt)len, .next_out = raw, .avail_out = sizeof(raw) };
	ok(inflateInit2(&z, 31) == Z_OK && inflate(&z, Z_FINISH) == Z_STREAM_END, "and inflates");
	inflateEnd(&z);
	size_t n = sizeof(raw) - z.avail_out;
	ok(memmem(raw, n, "\x32\x07samples", 9) && memmem(raw, n, "\x32\x03hot", 5) && memmem(raw, n, "\x32\x05" "count", 7),
	   "its string table names the sample type, unit and functions");
	/* The first sample: thread 1's hot stack at its first address,
	 * locations leaf first. */
	ok(memmem(raw, n, "\x0a\x03\x01\x03\x04\x12\x01\x04", 8) != NULL, "a sample: hot, loop, main weighing 4");
	check_profile(raw, n);
	free(gz);
	samp_snapshot_free(s);
}

static void test_speedscope(void)
{
	struct samp_snapshot *s = make(SAMP_UNIT_NS_SYSCALL, 5);
	size_t len;
	char *js = written(ss_fn, s, &len);
	struct json_object *o = json_tokener_parse(js), *x, *p, *fr;

	ok(o && json_object_object_get_ex(o, "$schema", &x) &&
		   !strcmp(json_object_get_string(x), "https://www.speedscope.app/file-format-schema.json"),
	   "speedscope: the schema it follows");
	ok(json_object_object_get_ex(o, "shared", &x) && json_object_object_get_ex(x, "frames", &fr) &&
		   json_object_array_length(fr) == s->nfuncs,
	   "a shared frame per function");
	ok(json_object_object_get_ex(o, "profiles", &p) && json_object_array_length(p) == 2, "a profile per thread");
	struct json_object *p0 = json_object_array_get_idx(p, 0), *smp, *wts, *u, *end;
	ok(json_object_object_get_ex(p0, "samples", &smp) && json_object_object_get_ex(p0, "weights", &wts) &&
		   json_object_array_length(smp) == json_object_array_length(wts) && json_object_array_length(smp) == 3,
	   "samples and weights side by side");
	ok(json_object_object_get_ex(p0, "unit", &u) && !strcmp(json_object_get_string(u), "nanoseconds") &&
		   json_object_object_get_ex(p0, "endValue", &end) && json_object_get_int64(end) == 45,
	   "the unit and the weight of the thread");
	struct json_object *st0 = json_object_array_get_idx(smp, 0), *f0 = json_object_array_get_idx(
		fr, (size_t)json_object_get_int(json_object_array_get_idx(st0, 0))), *name;
	ok(json_object_object_get_ex(f0, "name", &name) && !strcmp(json_object_get_string(name), "main"),
	   "stacks outermost first");
	json_object_put(o);
	free(js);
	samp_snapshot_free(s);
}

int main(void)
{
	test_tree();
	test_svg();
	test_pb();
	test_speedscope();
	return tap_done();
}
