/* The reader of schema 1's payload (doc/record-format.md), the one the
 * first pscope that recorded wrote: row by row, fixed-width fields. This
 * pscope writes schema 2 (frame2.c) and reads both, so a file recorded
 * before stays readable. Pure. */
#include "record/record.h"
#include "record/bytes.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int rec_frame1_decode(const void *data, size_t len, const struct rec_header *h, struct snap_list **out,
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
