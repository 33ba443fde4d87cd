/* Recordings: the format's pure parts (intervals encoded as a key and as
 * deltas and decoded back, the header's versions, the frame headers, the
 * footer, the nearest interval by time, TIME and durations) and a file
 * written and read back: whole, with a torn tail, with a damaged index
 * and a damaged block, each said with the file and the offset. */
#include "tap.h"
#include "record/file.h"
#include "record/format.h"
#include "record/when.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* An interval of n processes at second k: pid 100+i burns a tick a
 * second when i is odd, grows its RSS; the rest sleep. */
static void make(struct rec_interval *iv, int n, int k)
{
	static int cpu_id[2] = { 0, 1 };
	static struct sys_cpu_times ct[2];
	static struct rec_user users[2] = { { 0, "root" }, { 1000, "사용자" } };

	memset(iv, 0, sizeof(*iv));
	iv->t_ns = 1000000000ull * (uint64_t)(k + 1);
	iv->wall_ns = 1700000000ull * 1000000000ull + iv->t_ns;
	iv->counts = (struct ptable_counts){ n, n, 0, 1 };
	iv->have_sys = true;
	iv->ncpu = 2;
	iv->cpu_id = cpu_id;
	ct[0].user = ct[1].idle = 100u * (unsigned)k;
	iv->cpu_t = ct;
	iv->total_t.user = 100u * (unsigned)k;
	iv->mem.total = 1000000;
	iv->load.load[0] = 1.25;
	iv->uptime = 1234.5;
	iv->users = users;
	iv->nusers = 2;
	iv->rows = calloc((size_t)n, sizeof(*iv->rows));
	iv->n = (size_t)n;
	for (int i = 0; i < n; i++) {
		struct rec_row *r = &iv->rows[i];
		r->pid = 100 + i;
		r->f[RF_TGID] = (uint64_t)r->pid;
		r->f[RF_PPID] = 1;
		r->f[RF_START] = 500 + (uint64_t)i;
		r->f[RF_UID] = i % 2 ? 1000 : 0;
		r->f[RF_STATE] = i % 2 ? 'R' : 'S';
		r->f[RF_NICE] = (uint64_t)-5;
		r->f[RF_TICKS] = i % 2 ? 100u * (unsigned)k : 7;
		r->f[RF_READ_NS] = i % 2 || k == 0 ? iv->t_ns - 1000 : 1000000000ull - 1000;
		r->f[RF_RES] = i % 2 ? 1000u + 500u * (unsigned)k : 800;
		snprintf(r->comm, sizeof(r->comm), "p%d\x1b[31m", i);
		if (i % 3)
			r->cmdline = (char *)(i % 2 ? "/bin/burn --hard" : "sleep 1000");
		if (i == 1) {
			r->has_x = true;
			r->x.io_rb = 4096u * (unsigned)k;
			r->x.io_ns = iv->t_ns;
			r->x.oom = 3;
			r->x.cgroup = (char *)"/system.slice/x.service";
		}
	}
}

static bool same(const struct rec_interval *a, const struct rec_interval *b)
{
	if (a->n != b->n || a->t_ns != b->t_ns || a->wall_ns != b->wall_ns || a->ncpu != b->ncpu ||
	    a->cpu_t[0].user != b->cpu_t[0].user || a->mem.total != b->mem.total || a->load.load[0] != b->load.load[0] ||
	    a->nusers != b->nusers || strcmp(a->users[1].name, b->users[1].name))
		return false;
	for (size_t i = 0; i < a->n; i++) {
		const struct rec_row *x = &a->rows[i], *y = &b->rows[i];
		if (x->pid != y->pid || memcmp(x->f, y->f, sizeof(x->f)) || strcmp(x->comm, y->comm) ||
		    (!x->cmdline != !y->cmdline) || (x->cmdline && strcmp(x->cmdline, y->cmdline)) || x->has_x != y->has_x ||
		    x->x.io_rb != y->x.io_rb || x->x.oom != y->x.oom || (x->x.cgroup && strcmp(x->x.cgroup, y->x.cgroup)))
			return false;
	}
	return true;
}

static void test_intervals(void)
{
	struct rec_interval a, b, da, db;
	struct rec_buf ka = { 0 }, kb = { 0 }, d = { 0 };
	struct ps_error e;

	make(&a, 50, 0);
	make(&b, 50, 1);
	ok(rec_interval_encode(NULL, &a, &ka) == 0 && rec_interval_encode(NULL, &b, &kb) == 0, "encode two keys");
	ok(rec_interval_encode(&a, &b, &d) == 0, "encode a delta");
	ok(d.len < kb.len / 2, "the delta (%zu bytes) is well under half the key (%zu)", d.len, kb.len);
	ok(rec_interval_decode(NULL, ka.p, ka.len, true, &da, &e) == 0 && same(&a, &da), "a key decodes as it was");
	ok(rec_interval_decode(&da, d.p, d.len, false, &db, &e) == 0 && same(&b, &db), "a delta on it decodes as it was");
	is_int(rec_interval_decode(NULL, d.p, d.len, false, &db, &e), -EPROTO, "a delta without the one before: refused");
	rec_interval_free(&db);
	/* Every cut and every flipped byte: refused or decoded, never a crash. */
	int refused = 0;
	for (size_t n = 0; n < kb.len; n++) {
		struct rec_interval x;
		if (rec_interval_decode(NULL, kb.p, n, true, &x, &e) < 0)
			refused++;
		else
			rec_interval_free(&x);
	}
	is_int(refused, (int)kb.len, "every cut of a key is refused");
	for (size_t n = 0; n < kb.len; n += 7) {
		struct rec_interval x;
		kb.p[n] ^= 0x5a;
		if (rec_interval_decode(NULL, kb.p, kb.len, true, &x, &e) == 0)
			rec_interval_free(&x);
		kb.p[n] ^= 0x5a;
	}
	ok(1, "flipped bytes decode or are refused");
	rec_interval_free(&da);
	free(a.rows);
	free(b.rows);
	rec_buf_free(&ka);
	rec_buf_free(&kb);
	rec_buf_free(&d);
}

static void test_headers(void)
{
	struct rec_header h = { .version = REC_VERSION, .min_version = REC_VERSION, .hz = 100, .btime = 17, .interval_ms = 1000 }, g;
	uint8_t b[REC_HEAD_MAX];
	struct ps_error e;
	size_t need, n;

	strcpy(h.host, "box");
	strcpy(h.schema, rec_schema());
	n = rec_header_encode(&h, b, sizeof(b));
	ok(n > REC_HEAD_FIXED && rec_header_parse(b, n, &g, &need, &e) == 0 && g.btime == 17 && !strcmp(g.host, "box"),
	   "a header reads back");
	is_int(rec_header_parse(b, 40, &g, &need, &e), -EPROTO, "a truncated header: refused");
	ok(strstr(e.msg, "truncated") != NULL, "and said: %s", e.msg);
	b[10] = REC_VERSION + 1; /* min_version: a newer format */
	is_int(rec_header_parse(b, n, &g, &need, &e), -ENOTSUP, "a newer format: refused");
	ok(strstr(e.msg, "newer pscope") != NULL, "by name: %s", e.msg);
	b[10] = REC_VERSION;
	b[20] ^= 1;
	is_int(rec_header_parse(b, n, &g, &need, &e), -EPROTO, "a damaged header: refused");

	struct rec_frame_head f = { .type = REC_FRAME_DELTA, .t_ns = 5, .wall_ns = 6, .packed_len = 7, .raw_len = 8 }, f2;
	uint8_t fb[REC_FRAME_HEAD];
	rec_frame_head_encode(&f, fb);
	ok(rec_frame_head_parse(fb, &f2, &e) == 0 && f2.wall_ns == 6 && f2.packed_len == 7, "a frame header reads back");
	fb[9] ^= 1;
	ok(rec_frame_head_parse(fb, &f2, &e) < 0, "a damaged one is refused: %s", e.msg);

	struct rec_entry v[4] = { { .wall_ns = 10 }, { .wall_ns = 20 }, { .wall_ns = 30 }, { .wall_ns = 40 } };
	is_int((int)rec_entry_nearest(v, 4, 0), 0, "nearest before the start: the first");
	is_int((int)rec_entry_nearest(v, 4, 24), 1, "nearest to 24: 20");
	is_int((int)rec_entry_nearest(v, 4, 26), 2, "nearest to 26: 30");
	is_int((int)rec_entry_nearest(v, 4, 99), 3, "nearest after the end: the last");
}

static void test_when(void)
{
	double t, d;
	struct tm tm = { .tm_year = 126, .tm_mon = 11, .tm_mday = 3, .tm_hour = 12, .tm_isdst = -1 };
	double noon = (double)mktime(&tm);

	ok(rec_duration_parse("1h30m", &d) == 0 && d == 5400, "1h30m is 5400 s");
	ok(rec_duration_parse("2.5", &d) == 0 && d == 2.5, "2.5 is 2.5 s");
	ok(rec_duration_parse("5x", &d) < 0 && rec_duration_parse("", &d) < 0, "5x and nothing are refused");
	ok(rec_when_parse("+30s", noon, 100, 200, &t) == 0 && t == 130, "+30s from the start");
	ok(rec_when_parse("-10m", noon, 100, 1000, &t) == 0 && t == 400, "-10m from the end");
	ok(rec_when_parse("13:05", noon, 0, 0, &t) == 0 && t == noon + 3900, "HH:MM on the day");
	ok(rec_when_parse("13:05:09", noon, 0, 0, &t) == 0 && t == noon + 3909, "HH:MM:SS");
	ok(rec_when_parse("2026-12-03T12:00", 0, 0, 0, &t) == 0 && t == noon, "an ISO date-time");
	ok(rec_when_parse("2026-12-03 12:00:01", 0, 0, 0, &t) == 0 && t == noon + 1, "with a blank and seconds");
	ok(rec_when_parse("25:00", noon, 0, 0, &t) < 0 && rec_when_parse("noon", noon, 0, 0, &t) < 0, "nonsense refused");
}

/* ---- a file ---- */

static char dir[] = "/tmp/pscope-test-record.XXXXXX";

static void write_file(const char *path, int frames, bool close_it)
{
	struct rec_header h = { .version = REC_VERSION, .min_version = REC_VERSION, .hz = 100 };
	struct rec_writer *w;
	struct ps_error e;

	strcpy(h.schema, rec_schema());
	ps_error_clear(&e);
	if (rec_writer_open(&w, path, &h, NULL, 0, &e) < 0) {
		ok(0, "open %s: %s", path, e.msg);
		return;
	}
	for (int k = 0; k < frames; k++) {
		struct rec_interval iv;
		make(&iv, 40, k);
		rec_writer_add(w, &iv, &e);
		free(iv.rows);
	}
	rec_writer_close(w, &e);
	if (!close_it) { /* as if killed: no index, no footer */
		struct stat st;
		stat(path, &st);
		ok(truncate(path, st.st_size - REC_FOOTER - REC_FRAME_HEAD - frames * REC_INDEX_ENTRY) == 0, "cut the index off");
	}
}

static void test_file(void)
{
	char path[256], p2[256];
	struct rec_reader *r;
	const struct rec_interval *iv;
	struct ps_error e;
	struct stat st;

	if (!rec_zstd_ok(&e)) {
		printf("ok %d # SKIP no zstd: %s\n", ++tap_n, e.msg);
		return;
	}
	ok(mkdtemp(dir) != NULL, "a scratch directory");
	snprintf(path, sizeof(path), "%s/a.psrec", dir);
	write_file(path, 130, true);
	ok(rec_reader_open(&r, path, &e) == 0 && r->indexed && r->n == 130 && !r->note[0], "130 intervals, through the index");
	ok(rec_reader_get(r, 125, &iv, &e) == 0 && iv->rows[1].f[RF_TICKS] == 12500, "interval 125 (after a key and deltas)");
	ok(rec_reader_get(r, 3, &iv, &e) == 0 && iv->rows[1].f[RF_TICKS] == 300, "back to interval 3");
	ok(rec_reader_get(r, 4, &iv, &e) == 0 && iv->rows[1].f[RF_RES] == 3000, "on to interval 4");
	rec_reader_close(r);
	struct rec_writer *w;
	struct rec_header h = { .version = REC_VERSION, .min_version = REC_VERSION };
	is_int(rec_writer_open(&w, path, &h, NULL, 0, &e), -EEXIST, "never over an existing file");

	/* Killed: no index; then torn mid-frame. */
	snprintf(p2, sizeof(p2), "%s/b.psrec", dir);
	write_file(p2, 10, false);
	ok(rec_reader_open(&r, p2, &e) == 0 && !r->indexed && r->n == 10 && !r->note[0], "no index: 10 found by a scan");
	rec_reader_close(r);
	stat(p2, &st);
	ok(truncate(p2, st.st_size - 5) == 0, "tear its last frame");
	ok(rec_reader_open(&r, p2, &e) == 0 && r->n == 9 && strstr(r->note, "torn tail") && strstr(r->note, "offset"),
	   "9 left, the tear said: %s", r ? r->note : e.msg);
	rec_reader_close(r);

	/* A damaged index: said, then a scan. */
	stat(path, &st);
	int fd = open(path, O_RDWR);
	uint8_t c;
	off_t ix_byte = st.st_size - REC_FOOTER - 10;
	ok(pread(fd, &c, 1, ix_byte) == 1 && (c ^= 0xff, pwrite(fd, &c, 1, ix_byte)) == 1, "damage the index");
	ok(rec_reader_open(&r, path, &e) == 0 && r->n == 130 && strstr(r->note, "index") && strstr(r->note, "offset"),
	   "the index is said to be damaged, the frames found: %s", r ? r->note : e.msg);
	/* A damaged block: said when read, with its offset. */
	uint64_t off = r->v[50].off + REC_FRAME_HEAD + 3;
	ok(pread(fd, &c, 1, (off_t)off) == 1 && (c ^= 0xff, pwrite(fd, &c, 1, (off_t)off)) == 1, "damage interval 50's block");
	ok(rec_reader_get(r, 50, &iv, &e) < 0 && strstr(e.msg, "damaged") && strstr(e.msg, path) && strstr(e.msg, "offset"),
	   "said: %s", e.msg);
	ok(rec_reader_get(r, 70, &iv, &e) == 0, "a later key's intervals still read");
	rec_reader_close(r);
	close(fd);

	/* Not a recording; a future version. */
	ok(rec_reader_open(&r, "/etc/passwd", &e) < 0 && strstr(e.msg, "not a pscope recording") && strstr(e.msg, "offset 0"),
	   "not a recording: %s", e.msg);
	fd = open(path, O_RDWR);
	c = REC_VERSION + 1;
	ok(pwrite(fd, &c, 1, 10) == 1, "make it a future version's");
	close(fd);
	ok(rec_reader_open(&r, path, &e) < 0 && strstr(e.msg, "newer pscope") && strstr(e.msg, path), "refused: %s", e.msg);
	ok(truncate(p2, 30) == 0 && rec_reader_open(&r, p2, &e) < 0 && strstr(e.msg, "truncated"), "a truncated header: %s", e.msg);
	unlink(path);
	unlink(p2);
	rmdir(dir);
}

int main(void)
{
	test_intervals();
	test_headers();
	test_when();
	test_file();
	return tap_done();
}
