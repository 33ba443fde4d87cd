/* pscope record: the process list (every row read on every interval, with
 * the raw counters behind its rates) and the system meters, one frame per
 * interval, into a recording (src/record/). */
#include "cmd/cmd.h"
#include "cmd/rec-out.h"
#include "i18n.h"
#include "out/escape.h"
#include "proc/ptable.h"
#include "out/save.h"
#include "record/record.h"
#include "record/spool.h"
#include "source/source.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RECORD_PIDS_MAX 64

struct record_args {
	const char *out;
	double interval, duration;
	const char *until;
	pid_t pids[RECORD_PIDS_MAX];
	int npids;
	unsigned long long max_size;
	unsigned keep;
	const char *now;           /* test hook: the wall clock starts here */
	const char *check;         /* --check DIR */
	bool verbose, json;
};

/* -o DIR: the day files (spool.h). */
struct record_dir {
	const char *dir;
	int dirfd;
	char name[NAME_MAX + 1];   /* the open day file */
	double midnight;           /* where it ends */
	bool warned;
};

static void record_init(void *state)
{
	struct record_args *a = state;
	a->interval = 10;
}

/* "1500000", "200K", "1.5M", "2G" (powers of 1024). */
static int parse_size(const char *s, unsigned long long *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !(v > 0))
		return -1;
	switch (*end) {
	case 'k': case 'K': v *= 1024; end++; break;
	case 'm': case 'M': v *= 1024 * 1024; end++; break;
	case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
	default: break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v < REC_DATA_OFF || v > 1e15)
		return -1;
	*out = (unsigned long long)v;
	return 0;
}

static int seconds(const char *arg, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	*out = strtod(arg, &end);
	return errno || end == arg || *end || !(*out >= lo && *out <= hi) ? -1 : 0;
}

static int record_option(void *state, int opt, const char *arg)
{
	struct record_args *a = state;

	switch (opt) {
	case 'o': a->out = arg; break;
	case 'i':
		if (seconds(arg, 0.1, 3600, &a->interval) < 0)
			return cmd_bad_value("record", _("invalid interval '%s' (seconds, 0.1 to 3600)"), arg);
		break;
	case 'd':
		if (seconds(arg, 0.1, 366 * 86400.0, &a->duration) < 0)
			return cmd_bad_value("record", _("invalid duration '%s' (seconds)"), arg);
		break;
	case 'u': a->until = arg; break;
	case 'v': a->verbose = true; break;
	case 'p': {
		/* --pid 12 --pid 13, or --pid 12,13 */
		char buf[512];
		strlcpy_ps(buf, arg, sizeof(buf));
		for (char *sv, *t = strtok_r(buf, ",", &sv); t; t = strtok_r(NULL, ",", &sv)) {
			char *end;
			errno = 0;
			long v = strtol(t, &end, 10);
			if (errno || *end || end == t || v <= 0 || v > 4194304)
				return cmd_bad_value("record", _("invalid PID '%s'"), t);
			if (a->npids == RECORD_PIDS_MAX)
				return cmd_bad_value("record", _("too many PIDs (at most 64): '%s'"), arg);
			a->pids[a->npids++] = (pid_t)v;
		}
		break;
	}
	case 'k': {
		char *end;
		errno = 0;
		long v = strtol(arg, &end, 10);
		if (errno || end == arg || *end || v < 1 || v > 36600)
			return cmd_bad_value("record", _("invalid number of days '%s' (1 to 36600)"), arg);
		a->keep = (unsigned)v;
		break;
	}
	case 'N': a->now = arg; break;
	case 'c': a->check = arg; break;
	case 'j': a->json = true; break;
	case 'm':
		if (parse_size(arg, &a->max_size) < 0)
			return cmd_bad_value("record", _("invalid size '%s' (bytes, or with K, M, G)"), arg);
		break;
	}
	return 0;
}

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

/* The rows of the processes asked for (their threads too). */
static bool keep_pid(const struct proc_row *r, void *arg)
{
	const struct record_args *a = arg;
	for (int i = 0; i < a->npids; i++)
		if (r->tgid == a->pids[i] || r->pid == a->pids[i])
			return true;
	return false;
}

static bool any_left(const struct snap_list *s, const struct record_args *a)
{
	for (int i = 0; i < a->npids; i++)
		if (snap_list_find(s, a->pids[i]))
			return true;
	return false;
}

/* --pid: the short-lived processes whose parent is one of them. */
static bool keep_exit(const struct snap_exit *x, void *arg)
{
	const struct record_args *a = arg;
	bool keep = !a->npids;
	for (int k = 0; k < a->npids && !keep; k++)
		keep = x->ppid == a->pids[k];
	return keep;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void said_removed(const char *name, uint64_t size, void *arg)
{
	char sz[32];
	(void)arg;
	fprintf(stderr, _("pscope record: removed %s (%s) to keep within --keep and --max-size\n"), esc(name),
		human_bytes(size, sz, sizeof(sz)));
}

/* The day files kept within --keep and --max-size: never the open one. */
static int dir_prune(struct record_dir *d, const struct record_args *a, double wall, struct ps_error *e)
{
	uint64_t total = 0;
	if (!a->keep && !a->max_size)
		return 0;
	if (rec_spool_prune(d->dirfd, geteuid(), d->name[0] ? d->name : NULL, rec_day_of(wall, NULL), a->keep,
			    a->max_size, said_removed, NULL, &total, e) < 0)
		return -1;
	if (a->max_size && total > a->max_size && !d->warned) {
		fprintf(stderr, _("pscope record: the day's file alone is over --max-size: it is kept until the day ends\n"));
		d->warned = true;
	}
	return 0;
}

/* A new day file for wall's day: pscope-YYYYMMDD.rec, or -2, -3 when the
 * day already has one (a recording is never appended to). */
static int dir_open_day(struct record_dir *d, struct rec_writer **w, struct rec_header *h, double wall,
			struct ps_error *e)
{
	int day = rec_day_of(wall, &d->midnight);
	char path[4096];

	h->start = wall;
	for (unsigned seq = 1; seq < 1000; seq++) {
		rec_day_name(day, seq, d->name, sizeof(d->name));
		snprintf(path, sizeof(path), "%s/%s", d->dir, d->name);
		int r = rec_writer_open(w, path, h, true, e);
		if (r != -EEXIST)
			return r;
		ps_error_clear(e);
	}
	return ps_error_set(e, EEXIST, _("%s: a thousand day files for one day"), d->dir);
}

/* A new name in -o DIR (default: here) for a single file. */
static void out_path(const struct record_args *a, double wall, char *buf, size_t size)
{
	time_t t = (time_t)wall;
	char name[64];
	struct tm tm;

	if (a->out) {
		strlcpy_ps(buf, a->out, size);
		return;
	}
	localtime_r(&t, &tm);
	strftime(name, sizeof(name), "pscope-%Y%m%d-%H%M%S.rec", &tm);
	snprintf(buf, size, "./%s", name);
}

static void sleep_until(uint64_t when)
{
	struct timespec ts = { (time_t)(when / 1000000000ull), (long)(when % 1000000000ull) };
	/* A signal ends the wait (stop_sig is then set). */
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static int record_exec(void *state, pid_t pid_unused)
{
	struct record_args *a = state;
	char path[4096], sz[32];
	struct source src = { 0 };
	struct rec_writer *w = NULL;
	struct ps_error e;
	static atomic_bool never = false;
	struct source_io io = { .cancel = &never };
	struct source_want want = { .all_rows = true, .px_all = PX_SHR | PX_IO | PX_CTXT | PX_OOM | PX_CGROUP };
	struct snap_head *last = NULL;
	struct rec_exits *exits = NULL;
	double off = 0, start, end = 0;
	struct record_dir dir = { .dirfd = -1 };
	int rc = 1, r;

	(void)pid_unused;
	ps_error_clear(&e);
	if (a->check)
		return record_check(a->check, a->max_size, a->json);
	if (a->json)
		return cmd_usage_error("record", "%s", _("--json goes with --check DIR"));
	if (a->now) {
		/* The test hook: the recorder's wall clock runs from --now. */
		double real = clock_wall_s(&ps_clock_live), t;
		if (rec_time_parse(a->now, real, real, &t, &e) < 0)
			return cmd_usage_error("record", "%s", e.msg);
		off = t - real;
	}
	start = clock_wall_s(&ps_clock_live) + off;
	if (is_dir(a->out)) {
		dir.dir = a->out;
		if ((dir.dirfd = out_dir_open(a->out, &e)) < 0)
			return cmd_fail("record", &e);
	} else if (a->keep) {
		return cmd_usage_error("record", "%s", _("--keep goes with -o DIR (the day files)"));
	}
	if (a->until && a->duration > 0)
		return cmd_usage_error("record", "%s", _("--duration and --until are one or the other"));
	if (a->until) {
		if (rec_time_parse(a->until, start, start, &end, &e) < 0)
			return cmd_usage_error("record", "%s", e.msg);
		if (end <= start)
			return cmd_bad_value("record", _("--until '%s' is not in the future"), a->until);
	} else if (a->duration > 0) {
		end = start + a->duration;
	}
	out_path(a, start, path, sizeof(path));
	if ((r = source_live_list(&src, &ps_clock_live, false)) < 0) {
		ps_error_set(&e, -r, _("cannot read /proc: %s"), strerror(-r));
		goto out;
	}
	struct rec_header h = {
		.hz = (unsigned)proc_hz(), .interval_ms = (unsigned)lround(a->interval * 1000), .key_every = 32,
		.flags = a->npids ? REC_F_PIDS : 0, .start = start,
	};
	/* The boot time the rows' start times count from (the table's). */
	struct snap_head *first = NULL;
	if (src.ops->read(src.st, &io, &want, NULL, true, &first, &e) < 0)
		goto out;
	h.btime = ((struct snap_list *)first)->times.btime;
	if ((dir.dir ? dir_open_day(&dir, &w, &h, start, &e) : rec_writer_open(&w, path, &h, true, &e)) < 0) {
		snap_put(first);
		goto out;
	}
	if (dir.dir) {
		snprintf(path, sizeof(path), "%s/%s", dir.dir, dir.name);
		if (dir_prune(&dir, a, start, &e) < 0) {
			snap_put(first);
			goto out;
		}
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	fprintf(stderr, _("pscope record: every %g s into %s (Ctrl-C stops)\n"), a->interval, esc(path));
	struct ps_error xe;
	ps_error_clear(&xe);
	if (rec_exits_start(&exits, &xe) < 0)
		fprintf(stderr, _("pscope record: short-lived processes are not recorded: %s\n"), esc(xe.msg));
	uint64_t step = (uint64_t)llround(a->interval * 1e9), next = now_ns();
	const char *why = NULL;
	for (;;) {
		struct snap_head *s = first;
		first = NULL;
		if (!s && src.ops->read(src.st, &io, &want, last, true, &s, &e) < 0)
			goto out;
		struct snap_list *l = (struct snap_list *)s;
		/* The frame's wall clock at its t_ns (the scan's start), so a
		 * row's read time in people's time is wall + (read_ns - t_ns). */
		l->h.wall = clock_wall_s(&ps_clock_live) + off - (double)(int64_t)(now_ns() - l->h.t_ns) / 1e9;
		l->times.wall = l->h.wall;
		if (exits) /* the snapshot is the recorder's alone */
			rec_exits_attach(exits, l, (const struct snap_list *)last, keep_exit, a);
		snap_put(last);
		last = s;
		if (a->npids && !any_left(l, a)) {
			why = _("every process of --pid has exited");
			break;
		}
		if (dir.dir && l->h.wall >= dir.midnight) {
			/* Local midnight: the day's file closed, the next day's opened. */
			unsigned n = rec_writer_frames(w);
			uint64_t sz0 = rec_writer_size(w);
			r = rec_writer_close(w, &e);
			w = NULL;
			if (r < 0)
				goto out;
			if (n == 0) /* opened a moment before midnight: no interval of that day */
				out_file_remove(dir.dirfd, dir.name, geteuid(), NULL);
			else
				fprintf(stderr, P_("pscope record: %s closed (%u interval, %s)\n",
						   "pscope record: %s closed (%u intervals, %s)\n", n),
					esc(dir.name), n, human_bytes(sz0, sz, sizeof(sz)));
			dir.warned = false;
			if (dir_open_day(&dir, &w, &h, l->h.wall, &e) < 0)
				goto out;
			snprintf(path, sizeof(path), "%s/%s", dir.dir, dir.name);
			fprintf(stderr, _("pscope record: a new day: into %s\n"), esc(path));
		}
		if (rec_writer_add(w, l, a->npids ? keep_pid : NULL, a, &e) < 0)
			goto out;
		if (dir.dir && dir_prune(&dir, a, l->h.wall, &e) < 0)
			goto out;
		if (a->verbose)
			fprintf(stderr, _("pscope record: interval %u written, %llu bytes\n"), rec_writer_frames(w),
				(unsigned long long)rec_writer_size(w));
		if (!dir.dir && a->max_size && rec_writer_size(w) >= a->max_size) {
			why = _("the file reached --max-size");
			break;
		}
		next += step;
		if (next < now_ns()) /* a scan longer than the interval: no catching up */
			next = now_ns() + step;
		if (end > 0 && clock_wall_s(&ps_clock_live) + off + (double)(int64_t)(next - now_ns()) / 1e9 > end + 0.001)
			break;
		while (!stop_sig && now_ns() < next)
			sleep_until(next);
		if (stop_sig)
			break;
	}
	if (why)
		fprintf(stderr, _("pscope record: %s; recording stopped\n"), why);
	rec_exits_stop(exits);
	exits = NULL;
	unsigned frames = rec_writer_frames(w);
	uint64_t size = rec_writer_size(w);
	r = rec_writer_close(w, &e);
	w = NULL;
	if (r < 0)
		goto out;
	fprintf(stderr, P_("pscope record: %u interval, %s in %s\n", "pscope record: %u intervals, %s in %s\n", frames),
		frames, human_bytes(size, sz, sizeof(sz)), esc(path));
	rc = 0;
out:
	rec_exits_stop(exits);
	if (w) {
		struct ps_error ce;
		ps_error_clear(&ce);
		rec_writer_close(w, &ce);
	}
	snap_put(last);
	source_close(&src);
	if (dir.dirfd >= 0)
		close(dir.dirfd);
	return rc ? cmd_fail("record", &e) : 0;
}

static const struct option record_options[] = {
	{ "output", required_argument, NULL, 'o' },   { "interval", required_argument, NULL, 'i' },
	{ "duration", required_argument, NULL, 'd' }, { "until", required_argument, NULL, 'u' },
	{ "pid", required_argument, NULL, 'p' },      { "max-size", required_argument, NULL, 'm' },
	{ "verbose", no_argument, NULL, 'v' },        { "keep", required_argument, NULL, 'k' },
	{ "check", required_argument, NULL, 'c' },    { "json", no_argument, NULL, 'j' },
	{ "now", required_argument, NULL, 'N' },      { NULL, 0, NULL, 0 },
};

const struct cmd_entry cmd_record_entry = {
	.name = "record",
	.args = "[-o FILE|DIR] [--interval SEC] [--duration SEC|--until TIME]\n"
		"[--pid PID...] [--max-size N] [--keep DAYS] [--verbose]\n"
		"--check DIR [--max-size N] [--json]",
	.help = N_("Record the process list and the system meters, one interval at a time, into a\n"
		   "file that `pscope -r FILE` and `pscope list -r FILE --at TIME` replay.\n"
		   "\n"
		   "  -o, --output=FILE|DIR  the file to write (never an existing one), or a\n"
		   "                         directory for day files pscope-YYYYMMDD.rec, a new\n"
		   "                         one at each local midnight (default: a file\n"
		   "                         pscope-DATE-TIME.rec here)\n"
		   "  -i, --interval=SEC     one interval every SEC seconds (default 10)\n"
		   "  -d, --duration=SEC     stop after SEC seconds\n"
		   "  -u, --until=TIME       stop at TIME (HH:MM[:SS], YYYY-MM-DD HH:MM, +1h)\n"
		   "  -p, --pid=PID[,PID]    only these processes and their threads (the meters\n"
		   "                         are always recorded); stops when all have exited\n"
		   "  -m, --max-size=N       stop once the file is N bytes (K, M, G); with -o DIR\n"
		   "                         a cap on all the day files: the oldest removed\n"
		   "  -k, --keep=DAYS        with -o DIR: remove the day files DAYS days old\n"
		   "                         (--keep 7: today and the 6 days before are kept)\n"
		   "      --check=DIR        say what DIR keeps: each day file's span,\n"
		   "                         intervals, size, torn tail; the total\n"
		   "      --json             --check as JSON\n"
		   "      --now=TIME         a test hook: the recorder's clock starts at TIME\n"
		   "  -v, --verbose          say each interval once it is on disk\n"
		   "  -h, --help             display this help and exit\n"
		   "\n"
		   "Ctrl-C (SIGINT), SIGTERM and SIGHUP stop it cleanly. Killed, the file keeps\n"
		   "every whole interval: the replay reports and skips the torn tail. Only files\n"
		   "named pscope-YYYYMMDD[-N].rec owned by pscope's user are ever removed.\n"),
	.shortopts = "o:i:d:u:p:m:k:v",
	.options = record_options,
	.pid = CMD_PID_NONE,
	.state_size = sizeof(struct record_args),
	.init = record_init,
	.option = record_option,
	.exec = record_exec,
};
