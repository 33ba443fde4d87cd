/* Recordings on hand-made snapshots: a frame made again is the snapshot
 * written; the CPU% of a replayed interval comes from the raw counters of
 * two consecutive frames (a process burning 82 % shows 82 %, whichever
 * frame is read first and however the reader got there: a key frame, a
 * delta chain, a step forward or back); the times a user names; and every
 * broken file (newer version, truncated header, corrupted index,
 * corrupted block, torn tail) a clear error or note naming file and
 * offset. */
#include "tap.h"
#include "record/record.h"
#include "record/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HZ 100
#define diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))
#define BURNER 4242

static char dir[] = "/tmp/pscope-test-record.XXXXXX";

/* Frame k of a recording at 1 s: init idle, a burner at 82 % from frame
 * 1 on (its ticks grow by 82 a second) that leaks 1 MiB a second, a
 * short one in frames 10 to 12. */
static unsigned long long burner_ticks(int k)
{
	return 1000 + 82ull * (unsigned long long)k;
}

static struct snap_list *frame(int k)
{
	int n = k >= 10 && k <= 12 ? 3 : 2;
	struct snap_list *s = snap_list_alloc((size_t)n, 2);
	uint64_t t = 5000000000ull + (uint64_t)k * 1000000000ull + (k % 3) * 7000000ull; /* a little jitter */

	s->h.t_ns = t;
	s->h.wall = 1796000000.0 + (double)(t - 5000000000ull) / 1e9;
	s->times.hz = HZ;
	s->users = ptable_users_new();
	s->have_sys = true;
	s->counts.procs = n;
	for (int c = 0; c < 2; c++) {
		s->sys.cpu_id[c] = c;
		s->sys.cpu_t[c].user = 500 + 41ull * (unsigned long long)k;
		s->sys.cpu_t[c].idle = 500 + 59ull * (unsigned long long)k;
	}
	s->sys.total_t.user = 1000 + 82ull * (unsigned long long)k;
	s->sys.total_t.idle = 1000 + 118ull * (unsigned long long)k;
	s->sys.mem.total = 1 << 20;
	for (int i = 0; i < n; i++) {
		struct proc_row *r = proc_row_alloc();
		r->pid = r->tgid = i == 0 ? 1 : i == 1 ? BURNER : 5000;
		r->starttime = (unsigned long long)r->pid * 10;
		r->uid = i == 0 ? 0 : 1000;
		r->user = ptable_users_add(s->users, r->uid, i == 0 ? "root" : "alice");
		r->state = i == 1 ? 'R' : 'S';
		snprintf(r->comm, sizeof(r->comm), "%s", i == 0 ? "init" : i == 1 ? "burner" : "short");
		r->cmdline = strdup(i == 1 ? "/usr/bin/burner --hot" : r->comm);
		r->ticks = i == 1 ? burner_ticks(k) : 10;
		r->read_ns = t;
		r->res_kb = i == 1 ? 1024ull * (unsigned long long)(k + 1) : 500;
		if (i == 1) {
			r->x = calloc(1, sizeof(*r->x));
			r->x->io_ns = r->x->ctxt_ns = t;
			r->x->io_wb = 4096ull * (unsigned long long)k;
			r->x->ctxt = 10ull * (unsigned long long)k;
			r->x->oom = 7;
			r->x->cgroup = strdup("/user.slice");
		}
		s->rows[s->n++] = r;
	}
	snap_list_index(s);
	return s;
}

static void path_of(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

/* A recording of nframes frames at path. */
static int write_rec(const char *path, int nframes, unsigned key_every)
{
	struct rec_writer *w;
	struct ps_error e;
	struct rec_header h = { .hz = HZ, .interval_ms = 1000, .key_every = key_every, .start = 1796000000.0 };

	if (rec_writer_open(&w, path, &h, false, &e) < 0) {
		diag("%s", e.msg);
		return -1;
	}
	for (int k = 0; k < nframes; k++) {
		struct snap_list *s = frame(k);
		int r = rec_writer_add(w, s, NULL, NULL, &e);
		snap_put(&s->h);
		if (r < 0) {
			diag("%s", e.msg);
			return -1;
		}
	}
	return rec_writer_close(w, &e);
}

static double cpu_of(struct rec_file *f, size_t i, pid_t pid, struct snap_list **keep)
{
	struct snap_list *s;
	struct ps_error e;

	if (rec_snapshot(f, i, &s, &e) < 0) {
		diag("frame %zu: %s", i, e.msg);
		return -1;
	}
	const struct proc_row *r = snap_list_find(s, pid);
	double v = r ? r->cpu : -2;
	if (keep)
		*keep = s;
	else
		snap_put(&s->h);
	return v;
}

static void test_roundtrip(void)
{
	struct snap_list *s = frame(11), *d;
	void *raw;
	size_t len, bad_off = 0;
	struct ps_error e;
	struct rec_header h = { .hz = HZ, .key_every = 1, .schema = REC_SCHEMA };

	s->rec.exits_on = true;
	s->exits = calloc(2, sizeof(*s->exits));
	s->nexits = 2;
	s->exits[0] = (struct snap_exit){ .pid = 77, .ppid = BURNER, .start = 10.25, .end = 10.35, .cpu = 0.01, .status = 7 << 8 };
	snprintf(s->exits[0].comm, sizeof(s->exits[0].comm), "child");
	s->exits[1] = (struct snap_exit){ .pid = 78, .ppid = BURNER, .status = 9 };
	ok(rec_frame_encode(s, NULL, NULL, &raw, &len, &e) == 0, "a frame is encoded");
	ok(rec_frame_decode(raw, len, &h, &d, &bad_off, &e) == 0, "and decoded");
	is_int((long)d->n, 3, "its rows");
	const struct proc_row *r = snap_list_find(d, BURNER);
	ok(r && r->ticks == burner_ticks(11) && r->read_ns == s->h.t_ns && r->res_kb == 12 * 1024, "the counters as written");
	ok(r && !strcmp(r->user, "alice") && !strcmp(r->cmdline, "/usr/bin/burner --hot") && r->x &&
		   r->x->io_wb == 4096 * 11 && !strcmp(r->x->cgroup, "/user.slice"),
	   "the user, command line and extras");
	ok(d->sys.ncpu == 2 && d->sys.cpu_t[1].user == s->sys.cpu_t[1].user && d->h.wall == s->h.wall, "the meters");
	ok(d->rec.exits_on && d->nexits == 2 && d->exits[0].pid == 77 && d->exits[0].ppid == BURNER &&
		   d->exits[0].end - d->exits[0].start > 0.09 && d->exits[0].status == 7 << 8 && !strcmp(d->exits[0].comm, "child") &&
		   d->exits[1].status == 9,
	   "the short-lived processes");
	/* Every prefix is refused, never read past. */
	int refused = 0;
	for (size_t k = 0; k < len; k++) {
		struct snap_list *x = NULL;
		if (rec_frame_decode(raw, k, &h, &x, &bad_off, &e) < 0 && bad_off <= k)
			refused++;
		snap_put(x ? &x->h : NULL);
	}
	is_int(refused, (long)len, "every cut frame is refused with an offset inside it");
	snap_put(&d->h);
	snap_put(&s->h);
	free(raw);
}

/* Every field of every kind of row comes back exactly: threads, a kernel
 * thread, negative priorities, no command line, a cut one, a mem% that is
 * not RSS of MemTotal, a row never read, reads before the frame's time,
 * pids out of order, extras with and without their reads. */
static bool same_row(const struct proc_row *a, const struct proc_row *b)
{
	const struct proc_extra *x = a->x, *y = b->x;
	bool xs = (!x && !y) ||
		  (x && y && x->io_err == y->io_err && x->oom == y->oom && x->io_ns == y->io_ns &&
		   x->ctxt_ns == y->ctxt_ns && x->io_rb == y->io_rb && x->io_wb == y->io_wb && x->ctxt == y->ctxt &&
		   (x->cgroup ? y->cgroup && !strcmp(x->cgroup, y->cgroup) : !y->cgroup) &&
		   !strcmp(x->container, y->container));
	return xs && a->pid == b->pid && a->tgid == b->tgid && a->ppid == b->ppid && a->starttime == b->starttime &&
	       a->owner_start == b->owner_start && a->uid == b->uid && !strcmp(a->user, b->user) &&
	       a->state == b->state && a->is_thread == b->is_thread && a->is_kthread == b->is_kthread &&
	       a->fresh == b->fresh && a->priority == b->priority && a->nice == b->nice && a->nlwp == b->nlwp &&
	       a->virt_kb == b->virt_kb && a->res_kb == b->res_kb && a->shr_kb == b->shr_kb && a->ticks == b->ticks &&
	       a->read_ns == b->read_ns && memcmp(&a->mem, &b->mem, sizeof(a->mem)) == 0 &&
	       a->processor == b->processor && a->pgrp == b->pgrp && a->session == b->session &&
	       a->tty_nr == b->tty_nr && a->majflt == b->majflt && !strcmp(a->comm, b->comm) &&
	       (a->cmdline ? b->cmdline && !strcmp(a->cmdline, b->cmdline) : !b->cmdline) &&
	       a->cmdline_cut == b->cmdline_cut && a->cmdline_len == b->cmdline_len;
}

static void test_fields(void)
{
	const int n = 6;
	struct snap_list *s = snap_list_alloc((size_t)n, 1), *d = NULL;
	struct rec_header h = { .hz = HZ, .key_every = 1, .schema = REC_SCHEMA };
	uint64_t t = 90000000000ull;
	void *raw = NULL;
	size_t len = 0, bad_off = 0;
	struct ps_error e;

	s->h.t_ns = t;
	s->h.wall = 1796000123.25;
	s->users = ptable_users_new();
	s->have_sys = true;
	s->threads = true;
	s->sys.mem.total = 3000000;
	s->sys.cpu_id[0] = 3;
	s->sys.cpu_t[0].steal = 1ull << 40;
	s->counts = (struct ptable_counts){ .procs = 4, .threads = 2, .kthreads = 1, .running = 1 };
	const pid_t pids[] = { 4194304, 4194310, 2, 700, 9, 12 };
	for (int i = 0; i < n; i++) {
		struct proc_row *r = proc_row_alloc();
		r->pid = pids[i];
		r->tgid = i == 1 ? pids[0] : pids[i];
		r->is_thread = i == 1;
		r->is_kthread = i == 2;
		r->fresh = i == 3;
		r->ppid = i == 2 ? 0 : 1;
		r->starttime = 5000000ull - (unsigned long long)i * 777;
		r->owner_start = i == 1 ? 5000000ull : r->starttime;
		r->uid = i == 4 ? 65534 : (uid_t)i;
		r->user = ptable_users_add(s->users, r->uid, i == 4 ? "nobody" : "u\xffser");
		r->state = "RSIDZt"[i];
		r->priority = i == 3 ? -51 : 20;
		r->nice = i == 3 ? -20 : 19;
		r->nlwp = i == 0 ? 2 : 1;
		r->virt_kb = 1ull << (30 + i);
		r->res_kb = 1000ull * (unsigned long long)i;
		r->shr_kb = 3;
		r->ticks = i == 5 ? ~0ull : (unsigned long long)i * 12345;
		r->read_ns = i == 4 ? 0 : i == 5 ? t - 3000000 : t + (uint64_t)i * 1000000;
		r->mem = i == 3 ? 12.5 : (double)r->res_kb * 100.0 / 3000000.0;
		r->processor = i % 2;
		r->pgrp = pids[0];
		r->session = 1;
		r->tty_nr = i == 0 ? 34816 : 0;
		r->majflt = 99;
		snprintf(r->comm, sizeof(r->comm), "c%d\t\x1b[31m", i);
		r->cmdline = i == 2 ? NULL : strdup(i == 3 ? "" : "/bin/x --flag \xe2\x80\xae");
		r->cmdline_cut = i == 0;
		r->cmdline_len = i == 0 ? 123456 : r->cmdline ? strlen(r->cmdline) : 0;
		if (i == 0 || i == 5) {
			r->x = calloc(1, sizeof(*r->x));
			r->x->io_err = i == 5 ? -13 : 0;
			r->x->oom = i == 5 ? -1 : 666;
			r->x->io_ns = i == 5 ? 0 : t + 2000000;
			r->x->ctxt_ns = t - 1000000;
			r->x->io_rb = 1ull << 50;
			r->x->io_wb = 7;
			r->x->ctxt = 1000000007ull;
			r->x->cgroup = i == 5 ? NULL : strdup("/system.slice/x.service");
			snprintf(r->x->container, sizeof(r->x->container), "%s", i == 0 ? "ab12cd34" : "");
		}
		s->rows[s->n++] = r;
	}
	snap_list_index(s);
	ok(rec_frame_encode(s, NULL, NULL, &raw, &len, &e) == 0, "a frame of every kind of row is encoded");
	ok(rec_frame_decode(raw, len, &h, &d, &bad_off, &e) == 0, "and decoded (%s)", d ? "" : e.msg);
	int same = 0;
	for (int i = 0; d && i < n && (size_t)i < d->n; i++)
		same += same_row(s->rows[i], d->rows[i]);
	is_int(same, n, "every field of every row as written, in the order written");
	ok(d && d->counts.threads == 2 && d->threads && d->sys.cpu_id[0] == 3 && d->sys.cpu_t[0].steal == 1ull << 40 &&
		   d->h.t_ns == t && d->h.wall == s->h.wall && !d->rec.exits_on,
	   "the counts, meters and times");
	snap_put(d ? &d->h : NULL);
	snap_put(&s->h);
	free(raw);
}

static void test_rates(void)
{
	char path[256];
	struct rec_file *f;
	struct ps_error e;

	path_of(path, sizeof(path), "rates.rec");
	ok(write_rec(path, 70, 32) == 0, "70 frames written (key frames 0, 32, 64)");
	f = NULL;
	ok(rec_open(path, &f, &e) == 0, "opened (%s)", f ? "" : e.msg);
	if (!f)
		return;
	is_int((long)f->n, 70, "every frame indexed");
	ok(f->closed && !f->note[0], "closed cleanly, nothing to say");
	/* Frame k's interval (k-1, k]: 82 ticks over 1 s plus jitter. */
	for (int k = 1; k < 70; k++) {
		double dt = 1.0 + ((double)((k % 3) - ((k - 1) % 3)) * 7e-3);
		double want = 82.0 / dt;
		if (k == 1 || k == 31 || k == 32 || k == 33 || k == 45 || k == 63 || k == 64 || k == 69) {
			double got = cpu_of(f, (size_t)k, BURNER, NULL);
			ok(fabs(got - want) < 0.01, "frame %d read out of order: burner %.2f%% (want %.2f)", k, got, want);
		}
	}
	/* Stepping forward and back from a delta frame. */
	int bad = 0;
	for (int k = 40; k < 50; k++) {
		double dt = 1.0 + ((double)((k % 3) - ((k - 1) % 3)) * 7e-3);
		if (fabs(cpu_of(f, (size_t)k, BURNER, NULL) - 82.0 / dt) > 0.01)
			bad++;
	}
	for (int k = 60; k > 20; k -= 3) {
		double dt = 1.0 + ((double)((k % 3) - ((k - 1) % 3)) * 7e-3);
		if (fabs(cpu_of(f, (size_t)k, BURNER, NULL) - 82.0 / dt) > 0.01)
			bad++;
	}
	is_int(bad, 0, "stepping forward and back: every interval 82%% (no 0.0%%)");
	struct snap_list *s = NULL;
	ok(cpu_of(f, 0, BURNER, &s) == 0 && s->interval == 0, "the first frame: no rates (interval 0)");
	snap_put(s ? &s->h : NULL);
	ok(cpu_of(f, 11, 5000, &s) == 0, "a process new in this frame: no rate");
	ok(s && fabs(s->sys.total.busy - 82.0 / 200.0) < 0.01, "the CPU meter from two frames' counters (%.3f)",
	   s ? s->sys.total.busy : -1);
	const struct proc_row *r = s ? snap_list_find(s, BURNER) : NULL;
	ok(r && r->x && fabs(r->x->io_write_rate - 4096) < 50, "the write rate from two frames (%.0f B/s)",
	   r && r->x ? r->x->io_write_rate : -1);
	snap_put(s ? &s->h : NULL);
	ok(cpu_of(f, 13, 5000, NULL) == -2, "a process gone: not in the frame");
	/* Seeks. */
	is_int((long)rec_find(f, 1796000000.0 + 12.4), 12, "seek: the nearest frame");
	is_int((long)rec_find(f, 0), 0, "seek before the start: the first");
	is_int((long)rec_find(f, 1e12), 69, "seek after the end: the last");
	rec_close(f);
}

/* The file's bytes, changed at off (or cut at len). */
static int mutate(const char *from, const char *to, long off, unsigned char x, long cut)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	long n = 0;
	int c;

	if (!in || !out)
		return -1;
	while ((c = fgetc(in)) != EOF && (cut < 0 || n < cut)) {
		if (n == off)
			c ^= x;
		fputc(c, out);
		n++;
	}
	fclose(in);
	fclose(out);
	return 0;
}

static void expect_error(const char *path, const char *what, const char *needle)
{
	struct rec_file *f = NULL;
	struct ps_error e;
	char want[300];

	ps_error_clear(&e);
	int r = rec_open(path, &f, &e);
	if (r == 0) {
		/* The frames are read when replayed. */
		struct snap_list *s = NULL;
		for (size_t i = 0; r == 0 && i < f->n; i++) {
			r = rec_snapshot(f, i, &s, &e);
			snap_put(s ? &s->h : NULL);
			s = NULL;
		}
		rec_close(f);
	}
	snprintf(want, sizeof(want), "%s: offset ", path);
	ok(r < 0 && strstr(e.msg, want) && strstr(e.msg, needle), "%s: %s", what, e.msg);
}

static void test_broken(void)
{
	char good[256], bad[256];
	struct rec_file *f = NULL;
	struct ps_error e;

	path_of(good, sizeof(good), "good.rec");
	path_of(bad, sizeof(bad), "bad.rec");
	ok(write_rec(good, 40, 16) == 0, "40 frames written");
	struct stat st;
	stat(good, &st);

	/* A newer version, named. */
	unsigned char hdr[REC_HEADER_SIZE];
	FILE *g = fopen(good, "rb");
	ok(g && fread(hdr, 1, sizeof(hdr), g) == sizeof(hdr), "header read");
	if (g)
		fclose(g);
	mutate(good, bad, 8, 1 ^ 2, -1); /* version 1 -> 2 */
	expect_error(bad, "a newer format version", "format version 2");
	unlink(bad);
	mutate(good, bad, 10, REC_SCHEMA ^ 3, -1); /* schema 3 */
	expect_error(bad, "a newer frame schema", "schema 3");
	unlink(bad);
	mutate(good, bad, -1, 0, 40);
	expect_error(bad, "a truncated header", "truncated header");
	unlink(bad);
	mutate(good, bad, -1, 0, 100);
	expect_error(bad, "a header cut in its slots", "truncated header");
	unlink(bad);
	mutate(good, bad, 20, 0x10, -1);
	expect_error(bad, "a corrupted header", "checksum");
	unlink(bad);
	mutate(good, bad, 0, 0x20, -1);
	expect_error(bad, "not a recording", "not a pscope recording");
	unlink(bad);

	/* A corrupted index block: said, and the frames found by a scan. */
	ok(rec_open(good, &f, &e) == 0, "the good file opens");
	uint64_t frame5 = f ? f->v[5].off : 0, frame20 = f ? f->v[20].off : 0;
	/* The first index block follows frame 15. */
	uint64_t ix = f ? f->v[15].off + f->v[15].len : 0;
	rec_close(f);
	mutate(good, bad, (long)(ix + REC_BLOCK_HEAD + REC_INDEX_HEAD + 3), 0x40, -1);
	f = NULL;
	ok(rec_open(bad, &f, &e) == 0 && f->n == 40 && f->scanned, "a corrupted index: the frames found by a scan");
	char want[300];
	snprintf(want, sizeof(want), "%s: offset %llu: index block checksum mismatch", bad,
		 (unsigned long long)(ix + REC_BLOCK_HEAD));
	ok(f && strstr(f->note, want), "and said with the file and offset: %s", f ? f->note : "");
	rec_close(f);
	unlink(bad);

	/* A corrupted compressed block: an error when it is replayed. */
	mutate(good, bad, (long)(frame5 + REC_BLOCK_HEAD + 10), 0x01, -1);
	expect_error(bad, "a corrupted compressed block", "frame checksum mismatch");
	f = NULL;
	ok(rec_open(bad, &f, &e) == 0, "the file with it opens");
	struct snap_list *s = NULL;
	ok(f && rec_snapshot(f, 20, &s, &e) == 0, "frames past the next key frame still replay");
	snap_put(s ? &s->h : NULL);
	s = NULL;
	ok(f && rec_snapshot(f, 7, &s, &e) < 0 && strstr(e.msg, "offset"), "a frame whose delta chain holds it: %s", e.msg);
	rec_close(f);
	unlink(bad);

	/* A torn tail at every cut inside the last frames: the file opens
	 * with the whole intervals before the cut, the tear said. */
	int fine = 0, cuts = 0;
	for (long cut = (long)frame20 + 1; cut < st.st_size; cut += 97) {
		cuts++;
		mutate(good, bad, -1, 0, cut);
		f = NULL;
		if (rec_open(bad, &f, &e) == 0 && f->n >= 20 && (strstr(f->note, "torn tail at offset") || !f->closed)) {
			s = NULL;
			if (rec_snapshot(f, f->n - 1, &s, &e) == 0)
				fine++;
			snap_put(s ? &s->h : NULL);
		}
		rec_close(f);
		unlink(bad);
	}
	is_int(fine, cuts, "every cut after frame 20 opens, the tear said, the last whole interval replays");
	unlink(good);
}

static void test_times(void)
{
	struct ps_error e;
	double t;
	/* A local midnight, whatever the zone. */
	struct tm tm = { .tm_year = 126, .tm_mon = 11, .tm_mday = 4, .tm_hour = 1, .tm_isdst = -1 };
	double start = (double)mktime(&tm), end = start + 7200;

	ok(rec_time_parse("+30s", start, end, &t, &e) == 0 && t == start + 30, "+30s from the start");
	ok(rec_time_parse("-10m", start, end, &t, &e) == 0 && t == end - 600, "-10m from the end");
	ok(rec_time_parse("+1.5h", start, end, &t, &e) == 0 && t == start + 5400, "+1.5h");
	ok(rec_time_parse("02:13", start, end, &t, &e) == 0 && t == start + 73 * 60, "HH:MM on the start's day");
	ok(rec_time_parse("02:13:05", start, end, &t, &e) == 0 && t == start + 73 * 60 + 5, "HH:MM:SS");
	ok(rec_time_parse("00:30", start, end, &t, &e) == 0 && t == start + 23.5 * 3600, "before the start: the next day");
	ok(rec_time_parse("2026-12-04T02:00", start, end, &t, &e) == 0 && t == start + 3600, "ISO date-time");
	ok(rec_time_parse("2026-12-04 02:00:30", start, end, &t, &e) == 0 && t == start + 3630, "ISO with a space");
	const char *bad[] = { "", "2:13", "25:00", "02:61", "+", "+10x", "-m", "2026-13-01 00:00", "now", "12:00:00x" };
	int refused = 0;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		refused += rec_time_parse(bad[i], start, end, &t, &e) < 0 && strstr(e.msg, "invalid time");
	is_int(refused, (long)(sizeof(bad) / sizeof(bad[0])), "bad times refused with the forms that work");
}

static void test_days(void)
{
	int day;
	unsigned seq;
	char name[64];

	ok(rec_day_parse("pscope-20261204.rec", &day, &seq) == 0 && day == 20261204 && seq == 1, "a day file's name");
	ok(rec_day_parse("pscope-20261204-2.rec", &day, &seq) == 0 && day == 20261204 && seq == 2,
	   "a second start the same day");
	const char *bad[] = { "pscope-2026120.rec", "pscope-20261304.rec", "pscope-20261200.rec", "pscope-20261204.rec.bak",
			      "pscope-20261204-1.rec", "pscope-20261204-.rec", "pscope-20261204-02.rec", "Pscope-20261204.rec",
			      "pscope-20261204", "pscope-2026-12-04.rec", "pscope-20261204-2x.rec", "" };
	int refused = 0;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		refused += rec_day_parse(bad[i], &day, &seq) < 0;
	is_int(refused, (long)(sizeof(bad) / sizeof(bad[0])), "other names are not day files");
	rec_day_name(20261204, 1, name, sizeof(name));
	ok(!strcmp(name, "pscope-20261204.rec"), "the day's name");
	rec_day_name(20261204, 3, name, sizeof(name));
	ok(!strcmp(name, "pscope-20261204-3.rec"), "the third start's name");
	is_int(rec_day_diff(20261127, 20261204), 7, "days across a month");
	is_int(rec_day_diff(20251231, 20260101), 1, "across a year");
	is_int(rec_day_diff(20240228, 20240301), 2, "a leap day");
	/* Asia/Seoul (the zone main sets): the day of a wall time, and the
	 * local midnight that ends it. */
	struct tm tm = { .tm_year = 126, .tm_mon = 11, .tm_mday = 4, .tm_hour = 23, .tm_min = 59, .tm_sec = 59, .tm_isdst = -1 };
	double mid, w = (double)mktime(&tm);
	is_int(rec_day_of(w, &mid), 20261204, "the local day");
	ok(mid == w + 1, "its midnight is the next second");
	is_int(rec_day_of(mid, NULL), 20261205, "midnight is the next day's");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	setenv("TZ", "Asia/Seoul", 1);
	tzset();
	test_roundtrip();
	test_fields();
	test_rates();
	test_broken();
	test_times();
	test_days();
	rmdir(dir);
	return tap_done();
}
