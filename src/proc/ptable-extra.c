/* The process-list columns that cost a file read each (I/O counters,
 * context switches, OOM score, cgroup and container): read only for the
 * rows on screen, or for every row while the list is sorted by one of
 * them; their rates come from two snapshots (snap_list_rates). Also the
 * formatting of the columns the scan fills (TTY, STARTTIME). */
#include "proc/ptable.h"
#include "proc/ptable-priv.h"
#include "clock.h"
#include "proc/io.h"
#include "proc/status.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

const struct proc_extra proc_extra_none = { .io_err = -ENODATA, .oom = -1 };

static void row_path(const struct proc_row *r, const char *file, char *buf, size_t size)
{
	if (r->is_thread)
		snprintf(buf, size, "%d/task/%d/%s", (int)r->tgid, (int)r->pid, file);
	else
		snprintf(buf, size, "%d/%s", (int)r->pid, file);
}

static void fill_io(int dfd, const struct proc_row *r, struct proc_extra *x, uint64_t now)
{
	char path[64], buf[512];
	struct proc_io io;
	ssize_t n;

	row_path(r, "io", path, sizeof(path));
	n = read_file_at(dfd, path, buf, sizeof(buf));
	if (n < 0 || proc_io_parse(buf, (size_t)n, &io) < 0) {
		x->io_err = n < 0 ? (int)n : -EINVAL;
		x->io_ns = 0;
		return;
	}
	x->io_err = 0;
	x->io_rb = io.read_bytes;
	x->io_wb = io.write_bytes;
	x->io_ns = now;
}

/* The thread's own (a process row: its main thread's). */
static void fill_ioprio(const struct proc_row *r, struct proc_extra *x)
{
	long v = syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, (int)r->pid);

	x->ioprio_ok = v >= 0;
	x->ioprio_cls = v >= 0 ? (int)(v >> 13) : 0; /* IOPRIO_CLASS_SHIFT */
	x->ioprio_lvl = v >= 0 ? (int)(v & ((1 << 13) - 1)) : 0;
}

static void fill_ctxt(int dfd, const struct proc_row *r, struct proc_extra *x, uint64_t now)
{
	char path[64], buf[4096];
	struct proc_status st;
	ssize_t n;

	row_path(r, "status", path, sizeof(path));
	n = read_file_at(dfd, path, buf, sizeof(buf));
	if (n < 0 || proc_status_parse(buf, (size_t)n, &st) < 0) {
		x->ctxt_ns = 0;
		return;
	}
	x->ctxt = (unsigned long long)st.voluntary_ctxt + st.nonvoluntary_ctxt;
	x->ctxt_ns = now;
}

static void fill_oom(int dfd, const struct proc_row *r, struct proc_extra *x)
{
	char path[64], buf[32];
	ssize_t n;

	row_path(r, "oom_score", path, sizeof(path));
	n = read_file_at(dfd, path, buf, sizeof(buf));
	x->oom = n > 0 ? atoi(buf) : -1;
}

/* cgroup v2 ("0::/path"), else the first hierarchy's path. */
static void fill_cgroup(int dfd, const struct proc_row *r, struct proc_extra *x)
{
	char path[64], buf[4096];
	ssize_t n;
	const char *p = NULL;

	row_path(r, "cgroup", path, sizeof(path));
	n = read_file_at(dfd, path, buf, sizeof(buf));
	free(x->cgroup);
	x->cgroup = NULL;
	x->container[0] = '\0';
	if (n <= 0)
		return;
	for (char *line = buf; line && *line;) {
		char *nl = strchr(line, '\n'), *c1 = strchr(line, ':');
		if (nl)
			*nl = '\0';
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (c2 && (!p || !strncmp(line, "0::", 3)))
			p = c2 + 1;
		line = nl ? nl + 1 : NULL;
	}
	if (!p)
		return;
	x->cgroup = strdup(p);
	proc_cgroup_container(p, x->container, sizeof(x->container));
}

void ptable_fill_extra(struct ptable *pt, pid_t pid, unsigned px)
{
	unsigned gen = ptable_gen_(pt);
	int dfd = ptable_dirfd_(pt);
	uint64_t now = clock_mono_ns(pt->clk);
	long idx = ptable_hash_find_(pt, pid);

	if (px & PX_SHR)
		ptable_fill_shr(pt, pid);
	if (idx < 0 || !(px &= ~(unsigned)PX_SHR))
		return;
	const struct ptable_priv *cp = ptable_priv_(pt, pt->rows[idx]);
	/* each stat once a scan (a rate's two reads an interval apart) */
	unsigned todo = px & (PX_IO | PX_CTXT | PX_OOM | PX_IOPRIO) & (cp->extra_gen == gen ? ~cp->extra_px : ~0u);
	bool stats = todo != 0;
	bool cgroup = (px & PX_CGROUP) && (!cp->cgroup_gen || gen - cp->cgroup_gen >= 64);
	struct proc_row *r;
	if ((!stats && !cgroup && pt->rows[idx]->x) || !(r = ptable_mut_(pt, (size_t)idx)))
		return; /* nothing to read again this scan (or out of memory) */
	struct ptable_priv *p = ptable_priv_(pt, r);
	if (!r->x) {
		r->x = calloc(1, sizeof(*r->x));
		if (!r->x)
			return; /* the columns read "-" */
		r->x->oom = -1;
	}
	struct proc_extra *x = r->x;
	if (todo) {
		if (p->extra_gen != gen)
			p->extra_px = 0;
		p->extra_gen = gen;
		p->extra_px |= todo;
		if (todo & PX_IO)
			fill_io(dfd, r, x, now);
		if (todo & PX_CTXT)
			fill_ctxt(dfd, r, x, now);
		if (todo & PX_OOM)
			fill_oom(dfd, r, x);
		if (todo & PX_IOPRIO)
			fill_ioprio(r, x);
	}
	/* The cgroup rarely changes: once, then every 64th scan. */
	if ((px & PX_CGROUP) && (!p->cgroup_gen || gen - p->cgroup_gen >= 64)) {
		p->cgroup_gen = gen ? gen : 1;
		fill_cgroup(dfd, r, x);
	}
}

unsigned ptable_filled(const struct ptable *pt, pid_t pid)
{
	const struct proc_row *r = ptable_find(pt, pid);
	if (!r)
		return ~0u; /* no such row: nothing to read */
	const struct ptable_priv *p = ptable_priv_(pt, r);
	unsigned gen = ptable_gen_(pt), px = 0;

	if (p->shr_gen == gen || (p->shr_gen && p->skip_gen == gen))
		px |= PX_SHR;
	if (r->x && p->extra_gen == gen)
		px |= p->extra_px;
	if (r->x && p->cgroup_gen && gen - p->cgroup_gen < 64)
		px |= PX_CGROUP;
	return px;
}

const char *proc_fmt_tty(int tty_nr, char *buf, size_t size)
{
	unsigned maj = ((unsigned)tty_nr >> 8) & 0xfff, min = ((unsigned)tty_nr & 0xff) | (((unsigned)tty_nr >> 12) & 0xfff00);

	if (tty_nr == 0)
		snprintf(buf, size, "?");
	else if (maj >= 136 && maj <= 143)
		snprintf(buf, size, "pts/%u", min + (maj - 136) * 256);
	else if (maj == 4 && min < 64)
		snprintf(buf, size, "tty%u", min);
	else if (maj == 4)
		snprintf(buf, size, "ttyS%u", min - 64);
	else
		snprintf(buf, size, "%u:%u", maj, min);
	return buf;
}

const char *proc_fmt_start(double epoch, double now, char *buf, size_t size)
{
	time_t t = (time_t)epoch, n = (time_t)now;
	struct tm tm, tn;

	if (epoch <= 0 || !localtime_r(&t, &tm) || !localtime_r(&n, &tn)) {
		snprintf(buf, size, "?");
		return buf;
	}
	if (now - epoch < 86400 && tm.tm_yday == tn.tm_yday && tm.tm_year == tn.tm_year)
		strftime(buf, size, "%R", &tm);
	else if (tm.tm_year == tn.tm_year)
		strftime(buf, size, "%b%d", &tm);
	else
		strftime(buf, size, "%Y", &tm);
	return buf;
}

const char *proc_fmt_rate(double bps, char *buf, size_t size)
{
	static const char units[] = "KMGT";

	if (bps < 1000) {
		snprintf(buf, size, "%.0f", bps < 0 ? 0 : bps);
		return buf;
	}
	int u = -1;
	while (bps >= 1000 && u < 3) {
		bps /= 1024;
		u++;
	}
	snprintf(buf, size, bps < 100 ? "%.1f%c" : "%.0f%c", bps, units[u]);
	return buf;
}

/* Copy the first 12 hex digits after prefix in seg (up to its end), if
 * what follows the prefix is a hex id of 12 digits or more. */
static bool hex_id(const char *seg, size_t len, const char *prefix, char *out, size_t size)
{
	size_t pl = strlen(prefix), k = 0;

	if (len < pl || strncmp(seg, prefix, pl))
		return false;
	while (pl + k < len && isxdigit((unsigned char)seg[pl + k]))
		k++;
	if (k < 12)
		return false;
	snprintf(out, size, "%.12s", seg + pl);
	return true;
}

void proc_cgroup_container(const char *path, char *out, size_t size)
{
	static const char *const hex_prefixes[] = { "docker-", "libpod-", "cri-containerd-", "crio-", "" };
	bool bare_hex = strstr(path, "/docker/") || strstr(path, "kubepods");
	const char *p = path, *pseg = "";
	size_t plen = 0;

	out[0] = '\0';
	/* Every segment is looked at: the innermost that names one wins. */
	while (p && *p) {
		const char *seg = *p == '/' ? p + 1 : p, *slash = strchr(seg, '/');
		size_t len = slash ? (size_t)(slash - seg) : strlen(seg);
		for (size_t i = 0; i < sizeof(hex_prefixes) / sizeof(hex_prefixes[0]); i++) {
			if (!hex_prefixes[i][0] && !bare_hex) /* a bare id only under docker/ or kubepods */
				continue;
			if (hex_id(seg, len, hex_prefixes[i], out, size))
				break;
		}
		if (len > 14 && !strncmp(seg, "machine-", 8) && !strncmp(seg + len - 6, ".scope", 6))
			snprintf(out, size, "%.*s", (int)(len - 14), seg + 8);
		else if (len > 12 && !strncmp(seg, "lxc.payload.", 12))
			snprintf(out, size, "%.*s", (int)(len - 12), seg + 12);
		else if (len && plen == 3 && !strncmp(pseg, "lxc", 3))
			snprintf(out, size, "%.*s", (int)len, seg);
		pseg = seg;
		plen = len;
		p = slash;
	}
}
