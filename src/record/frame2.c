/* One interval's payload, schema 2 (doc/record-format.md): what schema 1
 * holds, laid out by column (every row's pid, then every row's parent,
 * ...) in varints, so that zstd, given the frame before as its prefix,
 * finds each column that did not change as one long match and codes the
 * few values that did in a byte or two. Pure: a snapshot in, bytes out,
 * and back. The schema-1 reader is frame1.c. */
#include "record/record.h"
#include "record/bytes.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A row's flags byte. */
enum {
	F_THREAD = 1, F_KTHREAD = 2, F_CUT = 4, F_FRESH = 8, F_EXTRA = 16,
	F_MEM = 32,                /* mem% is not res_kb of the frame's MemTotal: stored */
	F_READ = 64,               /* ticks were read (read_ns is stored) */
};

/* A string of at most 255 bytes (comm, user, container). */
static void wstr8(struct wbuf *b, const char *s)
{
	size_t n = s ? strnlen(s, 255) : 0;
	w8(b, (unsigned)n);
	wbytes(b, s, n);
}
/* A string that may be NULL (cmdline, cgroup): its length + 1, 0 NULL. */
static void wstrv(struct wbuf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	wvar(b, s ? n + 1 : 0);
	wbytes(b, s, n);
}

static void w_cpu(struct wbuf *b, const struct sys_cpu_times *t)
{
	const unsigned long long v[10] = { t->user, t->nice, t->system, t->idle, t->iowait,
					   t->irq, t->softirq, t->steal, t->guest, t->guest_nice };
	for (int i = 0; i < 10; i++)
		wvar(b, v[i]);
}

/* ns after t as whole ms, rounded (negative before t). */
static int64_t ms_after(uint64_t ns, uint64_t t)
{
	int64_t d = (int64_t)(ns - t);
	return d >= 0 ? (d + 500000) / 1000000 : -((-d + 500000) / 1000000);
}

/* A time column: 0 never read, else 1 + the zigzag of its ms after the
 * frame's time less the row before's (rows are read in order: small). */
static void w_when(struct wbuf *b, uint64_t ns, uint64_t t, int64_t *last)
{
	if (!ns) {
		wvar(b, 0);
		return;
	}
	int64_t ms = ms_after(ns, t), d = ms - *last;
	*last = ms;
	wvar(b, 1 + (((uint64_t)d << 1) ^ (uint64_t)(d >> 63)));
}

static bool mem_derived(const struct proc_row *r, uint64_t total)
{
	double m = total ? (double)r->res_kb * 100.0 / (double)total : 0;
	return memcmp(&m, &r->mem, sizeof(m)) == 0;
}

static void w_rows(struct wbuf *b, const struct proc_row *const *v, size_t n, uint64_t t, uint64_t total)
{
	int64_t last = 0;
	pid_t prev = 0;
	unsigned long long pstart = 0;

#define COL(expr) for (size_t i = 0; i < n; i++) { const struct proc_row *r = v[i]; (void)r; expr; }
	COL(wzz(b, (int64_t)r->pid - prev); prev = r->pid)
	COL(wzz(b, (int64_t)r->pid - r->tgid))
	COL(wvar(b, (uint32_t)r->ppid))
	COL(wzz(b, (int64_t)(r->starttime - pstart)); pstart = r->starttime)
	COL(wzz(b, (int64_t)(r->owner_start - r->starttime)))
	COL(wvar(b, (uint32_t)r->uid))
	COL(w8(b, (unsigned char)r->state))
	COL(w8(b, (r->is_thread ? F_THREAD : 0) | (r->is_kthread ? F_KTHREAD : 0) | (r->cmdline_cut ? F_CUT : 0) |
		  (r->fresh ? F_FRESH : 0) | (r->x ? F_EXTRA : 0) | (mem_derived(r, total) ? 0 : F_MEM) |
		  (r->read_ns ? F_READ : 0)))
	COL(wzz(b, r->priority))
	COL(wzz(b, r->nice))
	COL(wzz(b, r->nlwp))
	COL(wvar(b, r->virt_kb))
	COL(wvar(b, r->res_kb))
	COL(wvar(b, r->shr_kb))
	COL(wvar(b, r->ticks))
	COL(if (r->read_ns) w_when(b, r->read_ns, t, &last))
	COL(if (!mem_derived(r, total)) wd(b, r->mem))
	COL(wvar(b, (uint32_t)r->processor))
	COL(wvar(b, (uint32_t)r->pgrp))
	COL(wvar(b, (uint32_t)r->session))
	COL(wvar(b, (uint32_t)r->tty_nr))
	COL(wvar(b, r->majflt))
	COL(wvar(b, r->cmdline_len))
	COL(wstr8(b, r->comm))
	COL(wstrv(b, r->cmdline))
	/* The extras of the rows that have them, by column too. */
	last = 0;
	COL(if (r->x) wzz(b, r->x->io_err))
	COL(if (r->x) wzz(b, r->x->oom))
	COL(if (r->x) w_when(b, r->x->io_ns, t, &last))
	COL(if (r->x) w_when(b, r->x->ctxt_ns, t, &last))
	COL(if (r->x) wvar(b, r->x->io_rb))
	COL(if (r->x) wvar(b, r->x->io_wb))
	COL(if (r->x) wvar(b, r->x->ctxt))
	COL(if (r->x) wstrv(b, r->x->cgroup))
	COL(if (r->x) wstr8(b, r->x->container))
#undef COL
}

/* The short-lived processes: the end in µs after the one before (the
 * first's after the frame's time), lifetime and CPU in µs. */
static int64_t to_us(double s)
{
	return isfinite(s) && fabs(s) < 9e12 ? llround(s * 1e6) : 0;
}

static void w_exits(struct wbuf *b, const struct snap_exit *v, size_t n, double wall)
{
	pid_t prev = 0;

	wvar(b, n);
	for (size_t i = 0; i < n; i++) {
		wzz(b, (int64_t)v[i].pid - prev);
		prev = v[i].pid;
	}
	for (size_t i = 0; i < n; i++)
		wzz(b, (int64_t)v[i].pid - v[i].ppid);
	for (size_t i = 0; i < n; i++)
		wvar(b, (uint32_t)v[i].uid);
	int64_t last = to_us(wall);
	for (size_t i = 0; i < n; i++) { /* in the order they exited: small steps */
		wzz(b, to_us(v[i].end) - last);
		last = to_us(v[i].end);
	}
	for (size_t i = 0; i < n; i++)
		wzz(b, to_us(v[i].end - v[i].start));
	for (size_t i = 0; i < n; i++)
		wzz(b, to_us(v[i].cpu));
	for (size_t i = 0; i < n; i++)
		wvar(b, (uint32_t)v[i].status);
	for (size_t i = 0; i < n; i++)
		wstr8(b, v[i].comm);
}

int rec_frame_encode(const struct snap_list *s, bool (*keep)(const struct proc_row *r, void *arg), void *arg,
		     void **out, size_t *len, struct ps_error *e)
{
	struct wbuf b = { 0 };
	const struct sys_snapshot *y = &s->sys;
	const struct proc_row **v = malloc((s->n ? s->n : 1) * sizeof(*v));
	size_t n = 0;
	uid_t *uids = NULL;
	size_t nu = 0, ucap = 0;

	if (!v)
		return ps_error_set(e, ENOMEM, "%s", _("out of memory while writing a frame"));
	for (size_t i = 0; i < s->n; i++)
		if (!keep || keep(s->rows[i], arg))
			v[n++] = s->rows[i];
	w64(&b, s->h.t_ns);
	wd(&b, s->h.wall);
	w8(&b, (s->have_sys ? 1u : 0) | (s->threads ? 2u : 0) | (s->rec.exits_on ? 4u : 0));
	wzz(&b, s->counts.procs);
	wzz(&b, s->counts.threads);
	wzz(&b, s->counts.kthreads);
	wzz(&b, s->counts.running);
	if (s->have_sys) {
		wvar(&b, (uint32_t)y->ncpu);
		w_cpu(&b, &y->total_t);
		for (int i = 0; i < y->ncpu; i++) {
			wvar(&b, (uint32_t)y->cpu_id[i]);
			w_cpu(&b, &y->cpu_t[i]);
		}
		const unsigned long long m[11] = { y->mem.total, y->mem.free, y->mem.available, y->mem.buffers,
						   y->mem.cached, y->mem.sreclaimable, y->mem.shmem, y->mem.swap_total,
						   y->mem.swap_free, y->mem.swap_cached, y->mem.used };
		for (int i = 0; i < 11; i++)
			wvar(&b, m[i]);
		for (int i = 0; i < 3; i++)
			wd(&b, y->load.load[i]);
		wzz(&b, y->load.running);
		wzz(&b, y->load.total);
		wzz(&b, y->load.last_pid);
		wd(&b, y->uptime);
	}
	/* The user names of the rows kept, once each. */
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < nu && uids[k] != v[i]->uid)
			k++;
		if (k == nu) {
			if (array_reserve((void **)&uids, &ucap, nu, sizeof(*uids), 16) < 0) {
				b.oom = true;
				break;
			}
			uids[nu++] = v[i]->uid;
		}
	}
	wvar(&b, nu);
	for (size_t k = 0; k < nu; k++) {
		const char *name = NULL;
		for (size_t i = 0; i < n && !name; i++)
			if (v[i]->uid == uids[k])
				name = v[i]->user;
		wvar(&b, (uint32_t)uids[k]);
		wstr8(&b, name ? name : "?");
	}
	free(uids);
	uint64_t total = s->have_sys ? y->mem.total : 0;
	wvar(&b, n);
	w_rows(&b, v, n, s->h.t_ns, total);
	free(v);
	if (s->rec.exits_on)
		w_exits(&b, s->exits, s->nexits, s->h.wall);
	if (b.oom) {
		free(b.p);
		return ps_error_set(e, ENOMEM, "%s", _("out of memory while writing a frame"));
	}
	*out = b.p;
	*len = b.n;
	return 0;
}

/* ---- reading ---- */

/* A sum that wraps (hostile deltas never overflow into UB). */
static int64_t wrap_add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}
static int64_t wrap_sub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

static void rstr8(struct rbuf *b, char *out, size_t size)
{
	size_t n = r8(b);
	const unsigned char *q = take(b, n);
	copy_cstr(out, size, q ? (const char *)q : "", q ? n : 0);
}
/* NULL for none (or a short frame); *oom set when out of memory. */
static char *rstrv(struct rbuf *b, bool *oom)
{
	uint64_t n = rvar(b);
	if (!n || b->short_)
		return NULL;
	const unsigned char *q = take(b, n - 1 > b->n ? b->n + 1 : (size_t)(n - 1));
	if (!q)
		return NULL;
	char *s = malloc((size_t)n);
	if (!s) {
		*oom = true;
		return NULL;
	}
	memcpy(s, q, (size_t)n - 1);
	s[n - 1] = '\0';
	return s;
}

static void r_cpu(struct rbuf *b, struct sys_cpu_times *t)
{
	unsigned long long *v[10] = { &t->user, &t->nice, &t->system, &t->idle, &t->iowait,
				      &t->irq, &t->softirq, &t->steal, &t->guest, &t->guest_nice };
	for (int i = 0; i < 10; i++)
		*v[i] = rvar(b);
}

static uint64_t r_when(struct rbuf *b, uint64_t t, int64_t *last)
{
	uint64_t v = rvar(b);
	if (!v)
		return 0;
	v--;
	int64_t ms = wrap_add(*last, (int64_t)(v >> 1) ^ -(int64_t)(v & 1));
	*last = ms;
	return t + (uint64_t)ms * 1000000u; /* modulo 2^64: ms may be negative */
}

/* The columns into rows v[0..n) (allocated, zeroed): 0, -EBADMSG at
 * *bad_off, -ENOMEM. */
static int r_rows(struct rbuf *b, struct proc_row **v, size_t n, uint64_t t, uint64_t total, size_t *bad_off)
{
	int64_t last = 0;
	pid_t prev = 0;
	unsigned long long pstart = 0;
	bool oom = false;
	unsigned fl;

#define COL(expr) for (size_t i = 0; i < n && !b->short_; i++) { struct proc_row *r = v[i]; expr; }
	COL(r->pid = (pid_t)wrap_add(prev, rzz(b)); prev = r->pid)
	COL(r->tgid = (pid_t)wrap_sub(r->pid, rzz(b)))
	COL(r->ppid = (pid_t)rvar(b))
	COL(r->starttime = pstart + (unsigned long long)rzz(b); pstart = r->starttime)
	COL(r->owner_start = r->starttime + (unsigned long long)rzz(b))
	COL(r->uid = (uid_t)rvar(b))
	COL(r->state = (char)r8(b))
	/* The flags are kept in cmdline_len until that column is read. */
	COL(fl = r8(b); r->is_thread = fl & F_THREAD; r->is_kthread = fl & F_KTHREAD; r->cmdline_cut = fl & F_CUT;
	    r->fresh = fl & F_FRESH; r->cmdline_len = fl)
	COL(r->priority = (long)rzz(b))
	COL(r->nice = (long)rzz(b))
	COL(r->nlwp = (long)rzz(b))
	COL(r->virt_kb = rvar(b))
	COL(r->res_kb = rvar(b))
	COL(r->shr_kb = rvar(b))
	COL(r->ticks = rvar(b))
	COL(if (r->cmdline_len & F_READ) r->read_ns = r_when(b, t, &last))
	COL(if (r->cmdline_len & F_MEM) r->mem = rd(b);
	    else r->mem = total ? (double)r->res_kb * 100.0 / (double)total : 0)
	COL(r->processor = (int)rvar(b))
	COL(r->pgrp = (pid_t)rvar(b))
	COL(r->session = (pid_t)rvar(b))
	COL(r->tty_nr = (int)rvar(b))
	COL(r->majflt = (unsigned long)rvar(b))
	COL(if (r->cmdline_len & F_EXTRA) { if (!(r->x = calloc(1, sizeof(*r->x)))) oom = true; }
	    r->cmdline_len = (size_t)rvar(b))
	COL(rstr8(b, r->comm, sizeof(r->comm)))
	COL(r->cmdline = rstrv(b, &oom))
	last = 0;
	COL(if (r->x) r->x->io_err = (int)rzz(b))
	COL(if (r->x) r->x->oom = (int)rzz(b))
	COL(if (r->x) r->x->io_ns = r_when(b, t, &last))
	COL(if (r->x) r->x->ctxt_ns = r_when(b, t, &last))
	COL(if (r->x) r->x->io_rb = rvar(b))
	COL(if (r->x) r->x->io_wb = rvar(b))
	COL(if (r->x) r->x->ctxt = rvar(b))
	COL(if (r->x) r->x->cgroup = rstrv(b, &oom))
	COL(if (r->x) rstr8(b, r->x->container, sizeof(r->x->container)))
#undef COL
	if (oom)
		return -ENOMEM;
	if (b->short_) {
		*bad_off = b->n;
		return -EBADMSG;
	}
	return 0;
}

/* The smallest a row can be (a byte a column), to bound a count before
 * trusting it; and a short-lived process. */
#define ROW_MIN 24
#define EXIT_MIN 8

int rec_frame2_decode(const void *data, size_t len, const struct rec_header *h, struct snap_list **out,
		      size_t *bad_off, struct ps_error *e)
{
	struct rbuf b = { data, len, 0, false };
	struct snap_list *s = NULL;
	struct ptable_users *us = NULL;
	struct sys_snapshot *y = calloc(1, sizeof(*y)); /* the meters, but each CPU's */
	struct proc_row **v = NULL;     /* s's rows, while they are filled */
	size_t cpus_at = 0;
	int r = -EBADMSG;
	const char *why = NULL;
	size_t at = 0;

	*out = NULL;
	if (!y)
		goto oom;
	uint64_t t_ns = r64(&b);
	double wall = rd(&b);
	unsigned fl = r8(&b);
	struct ptable_counts c;
	c.procs = (int)rzz(&b);
	c.threads = (int)rzz(&b);
	c.kthreads = (int)rzz(&b);
	c.running = (int)rzz(&b);
	at = b.o;
	if (fl & 1) {
		uint64_t k = rvar(&b);
		if (b.short_ || k > SYS_MAX_CPUS || k > (len - b.o) / 11) {
			why = b.short_ ? _("frame: ends inside its head") : _("frame: bad CPU count");
			goto bad;
		}
		y->ncpu = (int)k;
		r_cpu(&b, &y->total_t);
		/* Each CPU's, read again into the list once it is made. */
		cpus_at = b.o;
		for (int i = 0; i < y->ncpu; i++) {
			struct sys_cpu_times skip;
			rvar(&b);
			r_cpu(&b, &skip);
		}
		unsigned long long *m[11] = { &y->mem.total, &y->mem.free, &y->mem.available, &y->mem.buffers,
					      &y->mem.cached, &y->mem.sreclaimable, &y->mem.shmem, &y->mem.swap_total,
					      &y->mem.swap_free, &y->mem.swap_cached, &y->mem.used };
		for (int i = 0; i < 11; i++)
			*m[i] = rvar(&b);
		for (int i = 0; i < 3; i++)
			y->load.load[i] = rd(&b);
		y->load.running = (int)rzz(&b);
		y->load.total = (int)rzz(&b);
		y->load.last_pid = (int)rzz(&b);
		y->uptime = rd(&b);
	}
	at = b.o;
	uint64_t nu = rvar(&b);
	if (b.short_ || nu > (len - b.o) / 2) {
		why = b.short_ ? _("frame: ends inside the meters") : _("frame: bad user count");
		goto bad;
	}
	if (!(us = ptable_users_new()))
		goto oom;
	for (uint64_t i = 0; i < nu; i++) {
		char name[256];
		uid_t uid = (uid_t)rvar(&b);
		rstr8(&b, name, sizeof(name));
		if (!b.short_ && !ptable_users_add(us, uid, name))
			goto oom;
	}
	at = b.o;
	uint64_t n = rvar(&b);
	if (b.short_ || n > (len - b.o) / ROW_MIN) {
		why = b.short_ ? _("frame: ends inside the user names") : _("frame: bad row count");
		goto bad;
	}
	if (!(s = snap_list_alloc((size_t)n, y->ncpu)))
		goto oom;
	s->users = us;
	us = NULL;
	s->h.t_ns = t_ns;
	s->h.wall = wall;
	s->threads = fl & 2;
	s->have_sys = fl & 1;
	s->counts = c;
	s->times.hz = (long)h->hz;
	s->times.btime = h->btime;
	s->times.wall = wall;
	if (s->have_sys) {
		struct rbuf m = { data, len, cpus_at, false };
		s->sys.total_t = y->total_t;
		for (int i = 0; i < y->ncpu; i++) {
			s->sys.cpu_id[i] = (int)rvar(&m);
			r_cpu(&m, &s->sys.cpu_t[i]);
		}
		s->sys.mem = y->mem;
		s->sys.load = y->load;
		s->sys.uptime = y->uptime;
	}
	if (!(v = malloc((n ? n : 1) * sizeof(*v))))
		goto oom;
	for (size_t i = 0; i < n; i++) {
		if (!(v[i] = proc_row_alloc()))
			goto oom;
		s->rows[s->n++] = v[i];
	}
	at = b.o;
	if ((r = r_rows(&b, v, s->n, t_ns, s->have_sys ? y->mem.total : 0, bad_off)) == -ENOMEM)
		goto oom;
	if (r < 0) {
		why = _("frame: ends inside the rows");
		goto bad;
	}
	for (size_t i = 0; i < s->n; i++)
		if (!(v[i]->user = ptable_users_add(s->users, v[i]->uid, "?")))
			goto oom;
	if (fl & 4) {
		at = b.o;
		uint64_t k = rvar(&b);
		s->rec.exits_on = true;
		if (b.short_ || k > (len - b.o) / EXIT_MIN) {
			why = _("frame: bad count of short-lived processes");
			goto bad;
		}
		if (k && !(s->exits = calloc((size_t)k, sizeof(*s->exits))))
			goto oom;
		s->nexits = (size_t)k;
		pid_t prev = 0;
		int64_t at_us = to_us(wall);
		for (size_t i = 0; i < k; i++)
			s->exits[i].pid = prev = (pid_t)wrap_add(prev, rzz(&b));
		for (size_t i = 0; i < k; i++)
			s->exits[i].ppid = (pid_t)wrap_sub(s->exits[i].pid, rzz(&b));
		for (size_t i = 0; i < k; i++)
			s->exits[i].uid = (uid_t)rvar(&b);
		for (size_t i = 0; i < k; i++) {
			at_us = wrap_add(at_us, rzz(&b));
			s->exits[i].end = (double)at_us / 1e6;
		}
		for (size_t i = 0; i < k; i++)
			s->exits[i].start = s->exits[i].end - (double)rzz(&b) / 1e6;
		for (size_t i = 0; i < k; i++)
			s->exits[i].cpu = (double)rzz(&b) / 1e6;
		for (size_t i = 0; i < k; i++)
			s->exits[i].status = (int)rvar(&b);
		for (size_t i = 0; i < k; i++)
			rstr8(&b, s->exits[i].comm, sizeof(s->exits[i].comm));
		if (b.short_) {
			why = _("frame: ends inside the short-lived processes");
			goto bad;
		}
	}
	if (b.o != len) {
		at = b.o;
		why = _("frame: bytes after the last row");
		goto bad;
	}
	if (snap_list_index(s) < 0)
		goto oom;
	free(y);
	free(v);
	*out = s;
	return 0;
bad:
	/* The section's start, or where it ran out. */
	*bad_off = b.short_ ? len : at;
	free(y);
	free(v);
	ptable_users_put(us);
	snap_put(s ? &s->h : NULL);
	return ps_error_set(e, EBADMSG, "%s", why);
oom:
	free(y);
	free(v);
	ptable_users_put(us);
	snap_put(s ? &s->h : NULL);
	return ps_error_set(e, ENOMEM, "%s", _("out of memory while reading a frame"));
}

int rec_frame_decode(const void *data, size_t len, const struct rec_header *h, struct snap_list **out,
		     size_t *bad_off, struct ps_error *e)
{
	*out = NULL;
	*bad_off = 0;
	if (h->schema == 1)
		return rec_frame1_decode(data, len, h, out, bad_off, e);
	if (h->schema == 2)
		return rec_frame2_decode(data, len, h, out, bad_off, e);
	return ps_error_set(e, ENOTSUP, _("frame schema %u: this pscope reads schemas 1 to %d"), h->schema, REC_SCHEMA);
}
