/* pscope record: the process list (its counters, the meters) once an
 * interval into a recording (doc/record-format.md), read through the live
 * list source as the screen reads it; the --pid processes with their
 * extras (I/O, context switches, OOM score, cgroup, SHR). */
#include "cmd/cmd.h"
#include "i18n.h"
#include "out/escape.h"
#include "record/convert.h"
#include "record/file.h"
#include "record/when.h"
#include "source/source.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RECORD_PIDS_MAX 64

struct record_args {
	const char *out;
	double interval, duration, until;
	unsigned long long max_size;
	pid_t pids[RECORD_PIDS_MAX];
	size_t npids;
};

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
}

static void record_init(void *state)
{
	struct record_args *a = state;

	a->out = ".";
	a->interval = 10;
}

static int size_parse(const char *s, unsigned long long *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	double mult = 1;

	if (errno || end == s || !(v > 0))
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': mult = 1024; end++; break;
	case 'm': case 'M': mult = 1024.0 * 1024; end++; break;
	case 'g': case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
	default: break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v * mult > 1e18)
		return -EINVAL;
	*out = (unsigned long long)(v * mult);
	return 0;
}

static int record_option(void *state, int opt, const char *arg)
{
	struct record_args *a = state;
	double t;

	switch (opt) {
	case 'o': a->out = arg; break;
	case 'i':
		if (rec_duration_parse(arg, &a->interval) < 0 || !(a->interval >= 0.05 && a->interval <= 3600))
			return cmd_bad_value("record", _("invalid interval '%s' (seconds, 0.05 to 3600)"), arg);
		break;
	case 'd':
		if (rec_duration_parse(arg, &a->duration) < 0 || !(a->duration > 0))
			return cmd_bad_value("record", _("invalid duration '%s' (like 30, 90s, 10m, 2h)"), arg);
		break;
	case 'u':
		if (rec_when_parse(arg, (double)time(NULL), (double)time(NULL), (double)time(NULL), &t) < 0)
			return cmd_bad_value("record", _("invalid time '%s' (HH:MM[:SS] or YYYY-MM-DD HH:MM[:SS])"), arg);
		if (t <= (double)time(NULL) && strchr(arg, '-') == NULL)
			t += 86400; /* HH:MM already past today: tomorrow's */
		a->until = t;
		break;
	case 'p': {
		pid_t pid = cmd_parse_pid("record", arg);
		if (pid < 0)
			return -1;
		if (a->npids == RECORD_PIDS_MAX)
			return cmd_bad_value("record", _("too many --pid (at most 64; '%s')"), arg);
		a->pids[a->npids++] = pid;
		break;
	}
	case 'm':
		if (size_parse(arg, &a->max_size) < 0)
			return cmd_bad_value("record", _("invalid size '%s' (bytes, or with K, M, G)"), arg);
		break;
	}
	return 0;
}

static struct rec_header header_now(const struct record_args *a, const struct snap_list *s)
{
	struct rec_header h = { .version = REC_VERSION, .min_version = REC_VERSION, .hz = s->times.hz,
				.btime = s->times.btime, .interval_ms = (unsigned)lround(a->interval * 1000) };
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	h.start_wall_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (gethostname(h.host, sizeof(h.host) - 1) < 0)
		h.host[0] = '\0';
	strlcpy_ps(h.schema, rec_schema(), sizeof(h.schema));
	return h;
}

/* Sleep until the monotonic deadline, or a signal. */
static void sleep_until(const struct timespec *deadline)
{
	while (!stop_sig && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, deadline, NULL) == EINTR)
		;
}

static int record_exec(void *state, pid_t pid_unused)
{
	struct record_args *a = state;
	struct source src = { 0 };
	/* SHR for every row (the list shows it); the rest for the --pid ones */
	struct source_want w = { .px_rows = PX_IO | PX_CTXT | PX_OOM | PX_CGROUP | PX_SHR, .px_all = PX_SHR };
	static atomic_bool never = false;
	struct source_io io = { .cancel = &never };
	struct snap_head *last = NULL;
	struct rec_writer *wr = NULL;
	struct ps_error e;
	char made[4200], sz[32];
	int rc = 1, r;
	const char *why_end = NULL;

	(void)pid_unused;
	ps_error_clear(&e);
	for (size_t i = 0; i < a->npids; i++)
		w.rows[w.nrows++] = a->pids[i];
	if (!rec_zstd_ok(&e))
		return cmd_fail("record", &e);
	if ((r = source_live_list(&src, &ps_clock_live, true)) < 0) {
		ps_error_set(&e, -r, _("cannot read /proc: %s"), strerror(-r));
		return cmd_fail("record", &e);
	}
	struct sigaction sa = { .sa_handler = on_stop };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	struct timespec next, t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	next = t0;
	for (;;) {
		struct snap_head *cur = NULL;
		if (src.ops->read(src.st, &io, &w, last, true, &cur, &e) < 0)
			goto out;
		snap_put(last);
		last = cur;
		const struct snap_list *s = (const struct snap_list *)cur;
		if (!wr) {
			struct rec_header h = header_now(a, s);
			if (rec_writer_open(&wr, a->out, &h, made, sizeof(made), &e) < 0)
				goto out;
			fprintf(stderr, _("pscope record: recording to %s every %g s (Ctrl-C stops)\n"), esc(made), a->interval);
		}
		struct rec_interval iv;
		if (rec_interval_of(s, a->pids, a->npids, (uint64_t)llround(s->h.wall * 1e9), &iv) < 0) {
			ps_error_set(&e, ENOMEM, "%s", _("out of memory"));
			goto out;
		}
		r = rec_writer_add(wr, &iv, &e);
		rec_interval_borrowed_free(&iv);
		if (r < 0)
			goto out;
		/* The end: a signal, the duration, the time, the size. */
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		double ran = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
		if (a->max_size && rec_writer_size(wr) >= a->max_size) {
			why_end = _("--max-size reached");
			break;
		}
		double step = a->interval;
		if ((a->duration > 0 && ran + step > a->duration + step / 2) ||
		    (a->until > 0 && (double)time(NULL) + step > a->until + step / 2))
			break;
		next.tv_sec += (time_t)step;
		next.tv_nsec += (long)((step - floor(step)) * 1e9);
		if (next.tv_nsec >= 1000000000) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000;
		}
		sleep_until(&next);
		if (stop_sig)
			break;
	}
	rc = 0;
out:
	if (wr) {
		size_t n = rec_writer_count(wr);
		uint64_t size = rec_writer_size(wr);
		struct ps_error ce;
		ps_error_clear(&ce);
		if (rec_writer_close(wr, &ce) < 0 && rc == 0) {
			e = ce;
			rc = 1;
		}
		fprintf(stderr, P_("pscope record: %zu interval in %s (%s)%s%s\n", "pscope record: %zu intervals in %s (%s)%s%s\n",
				   (unsigned long)n),
			n, esc(made), human_bytes(size, sz, sizeof(sz)), why_end ? ": " : "", why_end ? why_end : "");
	}
	snap_put(last);
	source_close(&src);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	return rc ? cmd_fail("record", &e) : 0;
}

static const struct option record_options[] = {
	{ "output", required_argument, NULL, 'o' },   { "interval", required_argument, NULL, 'i' },
	{ "duration", required_argument, NULL, 'd' }, { "until", required_argument, NULL, 'u' },
	{ "pid", required_argument, NULL, 'p' },      { "max-size", required_argument, NULL, 'm' },
	{ NULL, 0, NULL, 0 },
};

const struct cmd_entry cmd_record_entry = {
	.name = "record",
	.args = "[-o FILE|DIR] [--interval S] [--duration S|--until TIME] [--pid PID...] [--max-size N]",
	.help = N_("Record the process list and the system meters once an interval, to replay\n"
		   "later with `pscope -r FILE` or `pscope list -r FILE --at TIME`.\n"
		   "\n"
		   "  -o, --output=FILE|DIR  a new file (never over an existing one), or a new\n"
		   "                         pscope-DATE-TIME.psrec in DIR (default: .)\n"
		   "  -i, --interval=S       seconds between two intervals (default 10)\n"
		   "  -d, --duration=S       stop after S (30, 90s, 10m, 2h)\n"
		   "  -u, --until=TIME       stop at TIME (HH:MM[:SS], YYYY-MM-DD HH:MM)\n"
		   "  -p, --pid=PID          also the I/O, switches, OOM score, cgroup and SHR of\n"
		   "                         PID (repeat for more)\n"
		   "  -m, --max-size=N       stop when the file reaches N bytes (K, M, G)\n"
		   "  -h, --help             display this help and exit\n"
		   "\n"
		   "Ctrl-C, SIGTERM and SIGHUP stop it cleanly; a recorder killed otherwise\n"
		   "loses at most the interval it was writing.\n"),
	.shortopts = "o:i:d:u:p:m:",
	.options = record_options,
	.pid = CMD_PID_NONE,
	.state_size = sizeof(struct record_args),
	.init = record_init,
	.option = record_option,
	.exec = record_exec,
};
