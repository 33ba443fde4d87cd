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

/* app-1: main;loop;hot x6, main;loop;cold x2, main;a;a;a x1 (recursion),
 * and thread 2 "<b>&\"x": main;hot x1, under unit u. */
static struct samp_snapshot *make(enum samp_unit u, uint64_t wt)
{
	struct agg *a = agg_new(u);
	struct samp_fninfo fi[] = { { .name = "main", .module = "/bin/app" }, { .name = "loop", .module = "/bin/app" },
				    { .name = "hot", .module = "/bin/app", .file = "app.c", .line = 12 },
				    { .name = "cold", .module = "/lib/libc.so.6" }, { .name = "a", .module = "/bin/app" } };
	uint32_t id[5];

	for (int i = 0; i < 5; i++)
		id[i] = agg_func(a, &fi[i]);
	uint32_t hot[] = { id[2], id[1], id[0] }, cold[] = { id[3], id[1], id[0] }, rec[] = { id[4], id[4], id[4], id[0] },
		 t2[] = { id[2], id[0] };
	for (int i = 0; i < 6; i++)
		agg_add(a, 1, hot, 3, SAMP_NONE, wt);
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
	/* The first sample: thread 1's hot stack, locations leaf first. */
	ok(memmem(raw, n, "\x0a\x03\x03\x02\x01\x12\x01\x06", 8) != NULL, "a sample: hot, loop, main weighing 6");
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
