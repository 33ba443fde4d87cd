/* One interval's payload (schema 1): the process list's rows with their raw
 * counters (never a rate: a replay computes CPU% and bytes/s from two
 * consecutive frames, as the live list does from two scans), the counts
 * and the system meters' counters. Pure: a snapshot in, bytes out, and
 * back. */
#include "record/record.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing ---- */

struct wbuf {
	unsigned char *p;
	size_t n, cap;
	bool oom;
};

static unsigned char *room(struct wbuf *b, size_t k)
{
	if (b->oom)
		return NULL;
	if (b->n + k > b->cap) {
		size_t c = b->cap ? b->cap : 65536;
		while (c < b->n + k)
			c *= 2;
		unsigned char *q = realloc(b->p, c);
		if (!q) {
			b->oom = true;
			return NULL;
		}
		b->p = q;
		b->cap = c;
	}
	unsigned char *r = b->p + b->n;
	b->n += k;
	return r;
}

static void w8(struct wbuf *b, unsigned v)
{
	unsigned char *q = room(b, 1);
	if (q)
		*q = (unsigned char)v;
}
static void w32(struct wbuf *b, uint32_t v)
{
	unsigned char *q = room(b, 4);
	if (q)
		rec_put32(q, v);
}
static void w64(struct wbuf *b, uint64_t v)
{
	unsigned char *q = room(b, 8);
	if (q)
		rec_put64(q, v);
}
static void wd(struct wbuf *b, double d)
{
	uint64_t v;
	memcpy(&v, &d, 8);
	w64(b, v);
}
static void wbytes(struct wbuf *b, const void *s, size_t n)
{
	unsigned char *q = room(b, n);
	if (q && n)
		memcpy(q, s, n);
}
/* A string of at most 255 bytes (comm, user, container). */
static void wstr8(struct wbuf *b, const char *s)
{
	size_t n = s ? strnlen(s, 255) : 0;
	w8(b, (unsigned)n);
	wbytes(b, s, n);
}
/* A string that may be NULL (cmdline, cgroup). */
static void wstr32(struct wbuf *b, const char *s)
{
	if (!s) {
		w32(b, UINT32_MAX);
		return;
	}
	size_t n = strlen(s);
	w32(b, (uint32_t)n);
	wbytes(b, s, n);
}

static void w_cpu(struct wbuf *b, const struct sys_cpu_times *t)
{
	const unsigned long long v[10] = { t->user, t->nice, t->system, t->idle, t->iowait,
					   t->irq, t->softirq, t->steal, t->guest, t->guest_nice };
	for (int i = 0; i < 10; i++)
		w64(b, v[i]);
}

/* ns after t as whole ms, rounded; modulo 2^64 (signed) before t. */
static uint64_t to_ms(uint64_t ns, uint64_t t)
{
	int64_t d = (int64_t)(ns - t);
	return (uint64_t)(d >= 0 ? (d + 500000) / 1000000 : -((-d + 500000) / 1000000));
}

static void w_row(struct wbuf *b, const struct proc_row *r, uint64_t t_ns)
{
	const struct proc_extra *x = r->x;
	unsigned fl = (r->is_thread ? 1u : 0) | (r->is_kthread ? 2u : 0) | (r->cmdline_cut ? 4u : 0) |
		      (r->fresh ? 8u : 0) | (x ? 16u : 0);

	w32(b, (uint32_t)r->pid);
	w32(b, (uint32_t)r->tgid);
	w32(b, (uint32_t)r->ppid);
	w64(b, r->starttime);
	w64(b, r->owner_start);
	w32(b, (uint32_t)r->uid);
	w8(b, (unsigned char)r->state);
	w8(b, fl);
	w32(b, (uint32_t)r->priority);
	w32(b, (uint32_t)r->nice);
	w32(b, (uint32_t)r->nlwp);
	w64(b, r->virt_kb);
	w64(b, r->res_kb);
	w64(b, r->shr_kb);
	w64(b, r->ticks);
	/* When ticks were read, in ms after the frame's time (the scan's
	 * start): small numbers that compress to a byte or two. A ms at
	 * each end is 0.1 % of a 1 s interval. */
	w64(b, r->read_ns ? to_ms(r->read_ns, t_ns) : UINT64_MAX);
	wd(b, r->mem);
	w32(b, (uint32_t)r->processor);
	w32(b, (uint32_t)r->pgrp);
	w32(b, (uint32_t)r->session);
	w32(b, (uint32_t)r->tty_nr);
	w64(b, r->majflt);
	wstr8(b, r->comm);
	wstr32(b, r->cmdline);
	w64(b, r->cmdline_len);
	if (!x)
		return;
	w32(b, (uint32_t)x->io_err);
	w32(b, (uint32_t)x->oom);
	w64(b, x->io_ns ? x->io_ns - t_ns : UINT64_MAX);
	w64(b, x->ctxt_ns ? x->ctxt_ns - t_ns : UINT64_MAX);
	w64(b, x->io_rb);
	w64(b, x->io_wb);
	w64(b, x->ctxt);
	wstr32(b, x->cgroup);
	wstr8(b, x->container);
}

int rec_frame_encode(const struct snap_list *s, bool (*keep)(const struct proc_row *r, void *arg), void *arg,
		     void **out, size_t *len, struct ps_error *e)
{
	struct wbuf b = { 0 };
	const struct sys_snapshot *y = &s->sys;
	size_t nrows = 0;
	uid_t *uids = NULL;
	size_t nu = 0, ucap = 0;

	w64(&b, s->h.t_ns);
	wd(&b, s->h.wall);
	w8(&b, (s->have_sys ? 1u : 0) | (s->threads ? 2u : 0) | (s->rec.exits_on ? 4u : 0));
	w32(&b, (uint32_t)s->counts.procs);
	w32(&b, (uint32_t)s->counts.threads);
	w32(&b, (uint32_t)s->counts.kthreads);
	w32(&b, (uint32_t)s->counts.running);
	if (s->have_sys) {
		w32(&b, (uint32_t)y->ncpu);
		w_cpu(&b, &y->total_t);
		for (int i = 0; i < y->ncpu; i++) {
			w32(&b, (uint32_t)y->cpu_id[i]);
			w_cpu(&b, &y->cpu_t[i]);
		}
		const unsigned long long m[11] = { y->mem.total, y->mem.free, y->mem.available, y->mem.buffers,
						   y->mem.cached, y->mem.sreclaimable, y->mem.shmem, y->mem.swap_total,
						   y->mem.swap_free, y->mem.swap_cached, y->mem.used };
		for (int i = 0; i < 11; i++)
			w64(&b, m[i]);
		for (int i = 0; i < 3; i++)
			wd(&b, y->load.load[i]);
		w32(&b, (uint32_t)y->load.running);
		w32(&b, (uint32_t)y->load.total);
		w32(&b, (uint32_t)y->load.last_pid);
		wd(&b, y->uptime);
	}
	/* The user names of the rows kept, once each. */
	for (size_t i = 0; i < s->n; i++) {
		const struct proc_row *r = s->rows[i];
		if (keep && !keep(r, arg))
			continue;
		nrows++;
		size_t k = 0;
		while (k < nu && uids[k] != r->uid)
			k++;
		if (k == nu) {
			if (array_reserve((void **)&uids, &ucap, nu, sizeof(*uids), 16) < 0) {
				b.oom = true;
				break;
			}
			uids[nu++] = r->uid;
		}
	}
	w32(&b, (uint32_t)nu);
	for (size_t k = 0; k < nu; k++) {
		const char *name = NULL;
		for (size_t i = 0; i < s->n && !name; i++)
			if (s->rows[i]->uid == uids[k])
				name = s->rows[i]->user;
		w32(&b, (uint32_t)uids[k]);
		wstr8(&b, name ? name : "?");
	}
	free(uids);
	w32(&b, (uint32_t)nrows);
	for (size_t i = 0; i < s->n; i++)
		if (!keep || keep(s->rows[i], arg))
			w_row(&b, s->rows[i], s->h.t_ns);
	/* The processes that started and ended since the frame before. */
	if (s->rec.exits_on) {
		w32(&b, (uint32_t)s->nexits);
		for (size_t i = 0; i < s->nexits; i++) {
			const struct snap_exit *x = &s->exits[i];
			w32(&b, (uint32_t)x->pid);
			w32(&b, (uint32_t)x->ppid);
			w32(&b, (uint32_t)x->uid);
			wd(&b, x->start);
			wd(&b, x->end);
			wd(&b, x->cpu);
			w32(&b, (uint32_t)x->status);
			wstr8(&b, x->comm);
		}
	}
	if (b.oom) {
		free(b.p);
		return ps_error_set(e, ENOMEM, "%s", _("out of memory while writing a frame"));
	}
	*out = b.p;
	*len = b.n;
	return 0;
}

/* ---- reading ---- */

struct rbuf {
	const unsigned char *p;
	size_t n, o;
	bool short_;
};

static const unsigned char *take(struct rbuf *b, size_t k)
{
	if (b->short_ || k > b->n - b->o) {
		b->short_ = true;
		return NULL;
	}
	const unsigned char *q = b->p + b->o;
	b->o += k;
	return q;
}
static unsigned r8(struct rbuf *b)
{
	const unsigned char *q = take(b, 1);
	return q ? *q : 0;
}
static uint32_t r32(struct rbuf *b)
{
	const unsigned char *q = take(b, 4);
	return q ? rec_get32(q) : 0;
}
static uint64_t r64(struct rbuf *b)
{
	const unsigned char *q = take(b, 8);
	return q ? rec_get64(q) : 0;
}
static double rd(struct rbuf *b)
{
	uint64_t v = r64(b);
	double d;
	memcpy(&d, &v, 8);
	return d;
}
static void rstr8(struct rbuf *b, char *out, size_t size)
{
	size_t n = r8(b);
	const unsigned char *q = take(b, n);
	copy_cstr(out, size, q ? (const char *)q : "", q ? n : 0);
}
/* NULL for none (or a short frame); *oom set when out of memory. */
static char *rstr32(struct rbuf *b, bool *oom)
{
	uint32_t n = r32(b);
	if (n == UINT32_MAX || b->short_)
		return NULL;
	const unsigned char *q = take(b, n);
	if (!q)
		return NULL;
	char *s = malloc((size_t)n + 1);
	if (!s) {
		*oom = true;
		return NULL;
	}
	memcpy(s, q, n);
	s[n] = '\0';
	return s;
}

static void r_cpu(struct rbuf *b, struct sys_cpu_times *t)
{
	unsigned long long *v[10] = { &t->user, &t->nice, &t->system, &t->idle, &t->iowait,
				      &t->irq, &t->softirq, &t->steal, &t->guest, &t->guest_nice };
	for (int i = 0; i < 10; i++)
		*v[i] = r64(b);
}

static uint64_t at_ns(uint64_t rel, uint64_t t_ns)
{
	return rel == UINT64_MAX ? 0 : t_ns + rel; /* modulo 2^64: rel is signed */
}

/* One row: 0, or -EBADMSG (short), -ENOMEM. */
static int r_row(struct rbuf *b, struct proc_row *r, uint64_t t_ns)
{
	bool oom = false;

	r->pid = (pid_t)r32(b);
	r->tgid = (pid_t)r32(b);
	r->ppid = (pid_t)r32(b);
	r->starttime = r64(b);
	r->owner_start = r64(b);
	r->uid = (uid_t)r32(b);
	r->state = (char)r8(b);
	unsigned fl = r8(b);
	r->is_thread = fl & 1;
	r->is_kthread = fl & 2;
	r->cmdline_cut = fl & 4;
	r->fresh = fl & 8;
	r->priority = (int32_t)r32(b);
	r->nice = (int32_t)r32(b);
	r->nlwp = (int32_t)r32(b);
	r->virt_kb = r64(b);
	r->res_kb = r64(b);
	r->shr_kb = r64(b);
	r->ticks = r64(b);
	uint64_t ms = r64(b);
	r->read_ns = ms == UINT64_MAX ? 0 : t_ns + ms * 1000000u; /* modulo 2^64 */
	r->mem = rd(b);
	r->processor = (int32_t)r32(b);
	r->pgrp = (pid_t)r32(b);
	r->session = (pid_t)r32(b);
	r->tty_nr = (int32_t)r32(b);
	r->majflt = (unsigned long)r64(b);
	rstr8(b, r->comm, sizeof(r->comm));
	r->cmdline = rstr32(b, &oom);
	r->cmdline_len = (size_t)r64(b);
	if (fl & 16) {
		struct proc_extra *x = calloc(1, sizeof(*x));
		if (!x)
			return -ENOMEM;
		r->x = x;
		x->io_err = (int32_t)r32(b);
		x->oom = (int32_t)r32(b);
		x->io_ns = at_ns(r64(b), t_ns);
		x->ctxt_ns = at_ns(r64(b), t_ns);
		x->io_rb = r64(b);
		x->io_wb = r64(b);
		x->ctxt = r64(b);
		x->cgroup = rstr32(b, &oom);
		rstr8(b, x->container, sizeof(x->container));
	}
	if (oom)
		return -ENOMEM;
	return b->short_ ? -EBADMSG : 0;
}

/* The smallest a row can be, to bound a count before trusting it. */
#define ROW_MIN 130

int rec_frame_decode(const void *data, size_t len, const struct rec_header *h, struct snap_list **out,
		     size_t *bad_off, struct ps_error *e)
{
	struct rbuf b = { data, len, 0, false };
	struct snap_list *s = NULL;
	struct ptable_users *us = NULL;
	int ncpu = 0;
	char msg[160];

	*out = NULL;
	uint64_t t_ns = r64(&b);
	double wall = rd(&b);
	unsigned fl = r8(&b);
	struct ptable_counts c;
	c.procs = (int32_t)r32(&b);
	c.threads = (int32_t)r32(&b);
	c.kthreads = (int32_t)r32(&b);
	c.running = (int32_t)r32(&b);
	size_t sys_at = b.o;
	if (fl & 1) {
		uint32_t k = r32(&b);
		if (k > SYS_MAX_CPUS || k > (len - b.o) / 84) {
			*bad_off = sys_at;
			return ps_error_set(e, EBADMSG, "%s", _("frame: bad CPU count"));
		}
		ncpu = (int)k;
	}
	/* The CPU part is read into the list once it is made: peek the row
	 * count after the meters first. */
	size_t meters_at = b.o;
	struct sys_snapshot tmp = { 0 };
	struct sys_cpu_times total_t = { 0 };
	if (fl & 1) {
		r_cpu(&b, &total_t);
		take(&b, (size_t)ncpu * 84);
		unsigned long long *m[11] = { &tmp.mem.total, &tmp.mem.free, &tmp.mem.available, &tmp.mem.buffers,
					      &tmp.mem.cached, &tmp.mem.sreclaimable, &tmp.mem.shmem,
					      &tmp.mem.swap_total, &tmp.mem.swap_free, &tmp.mem.swap_cached,
					      &tmp.mem.used };
		for (int i = 0; i < 11; i++)
			*m[i] = r64(&b);
		for (int i = 0; i < 3; i++)
			tmp.load.load[i] = rd(&b);
		tmp.load.running = (int32_t)r32(&b);
		tmp.load.total = (int32_t)r32(&b);
		tmp.load.last_pid = (int32_t)r32(&b);
		tmp.uptime = rd(&b);
	}
	size_t users_at = b.o;
	uint32_t nu = r32(&b);
	if (b.short_ || nu > (len - b.o) / 5) {
		*bad_off = users_at;
		return ps_error_set(e, EBADMSG, "%s", b.short_ ? _("frame: ends inside the meters") : _("frame: bad user count"));
	}
	if (!(us = ptable_users_new()))
		goto oom;
	for (uint32_t i = 0; i < nu; i++) {
		char name[256];
		uid_t uid = (uid_t)r32(&b);
		rstr8(&b, name, sizeof(name));
		if (!b.short_ && !ptable_users_add(us, uid, name))
			goto oom;
	}
	size_t rows_at = b.o;
	uint32_t n = r32(&b);
	if (b.short_ || n > (len - b.o) / ROW_MIN) {
		ptable_users_put(us);
		*bad_off = rows_at;
		return ps_error_set(e, EBADMSG, "%s", b.short_ ? _("frame: ends inside the user names") : _("frame: bad row count"));
	}
	if (!(s = snap_list_alloc(n, ncpu)))
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
		struct rbuf m = { data, len, meters_at, false };
		r_cpu(&m, &s->sys.total_t);
		for (int i = 0; i < ncpu; i++) {
			s->sys.cpu_id[i] = (int32_t)r32(&m);
			r_cpu(&m, &s->sys.cpu_t[i]);
		}
		s->sys.mem = tmp.mem;
		s->sys.load = tmp.load;
		s->sys.uptime = tmp.uptime;
	}
	for (uint32_t i = 0; i < n; i++) {
		size_t at = b.o;
		struct proc_row *r = proc_row_alloc();
		if (!r)
			goto oom;
		s->rows[s->n++] = r;
		int rr = r_row(&b, r, t_ns);
		if (rr == -ENOMEM)
			goto oom;
		r->user = ptable_users_add(s->users, r->uid, "?");
		if (!r->user)
			goto oom;
		if (rr < 0) {
			*bad_off = at;
			snprintf(msg, sizeof(msg), _("frame: ends inside row %u of %u"), i + 1, n);
			snap_put(&s->h);
			return ps_error_set(e, EBADMSG, "%s", msg);
		}
	}
	if (fl & 4) {
		size_t at = b.o;
		uint32_t k = r32(&b);
		s->rec.exits_on = true;
		if (b.short_ || k > (len - b.o) / 41) {
			*bad_off = at;
			snap_put(&s->h);
			return ps_error_set(e, EBADMSG, "%s", _("frame: bad count of short-lived processes"));
		}
		if (k && !(s->exits = calloc(k, sizeof(*s->exits))))
			goto oom;
		for (uint32_t i = 0; i < k; i++) {
			struct snap_exit *x = &s->exits[i];
			x->pid = (pid_t)r32(&b);
			x->ppid = (pid_t)r32(&b);
			x->uid = (uid_t)r32(&b);
			x->start = rd(&b);
			x->end = rd(&b);
			x->cpu = rd(&b);
			x->status = (int32_t)r32(&b);
			rstr8(&b, x->comm, sizeof(x->comm));
		}
		s->nexits = k;
		if (b.short_) {
			*bad_off = at;
			snap_put(&s->h);
			return ps_error_set(e, EBADMSG, "%s", _("frame: ends inside the short-lived processes"));
		}
	}
	if (b.o != len) {
		*bad_off = b.o;
		snap_put(&s->h);
		return ps_error_set(e, EBADMSG, "%s", _("frame: bytes after the last row"));
	}
	if (snap_list_index(s) < 0)
		goto oom;
	*out = s;
	return 0;
oom:
	ptable_users_put(us);
	snap_put(s ? &s->h : NULL);
	return ps_error_set(e, ENOMEM, "%s", _("out of memory while reading a frame"));
}
