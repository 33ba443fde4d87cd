/* The recording's format: headers, index, footer (fixed little-endian
 * fields with a CRC-32 each) and the intervals (varints, each row as the
 * changes since the same process in the interval before). Pure. */
#include "record/format.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char schema[] =
	"interval:t_ns,wall_ns,flags,counts[4],sys{cpus[id,10 times],total[10],mem[11],load[3]x100,"
	"running,total,last_pid,uptime_ms},users{uid,name},rows{pid,mask,tgid,ppid,starttime,owner_start,"
	"uid,state,flags,priority,nice,nlwp,virt_kb,res_kb,shr_kb,ticks,read_age_ns,processor,pgrp,session,"
	"tty_nr,majflt,cmdline_len,comm,cmdline,extra{io_err,oom,io_age,ctxt_age,io_rb,io_wb,ctxt,cgroup,"
	"container}}";

const char *rec_schema(void)
{
	return schema;
}

uint32_t rec_crc32(const void *p, size_t n)
{
	static uint32_t table[256];
	static _Atomic bool ready;
	const uint8_t *b = p;
	uint32_t c = 0xffffffffu;

	if (!ready) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t v = i;
			for (int k = 0; k < 8; k++)
				v = v & 1 ? 0xedb88320u ^ (v >> 1) : v >> 1;
			table[i] = v;
		}
		ready = true;
	}
	for (size_t i = 0; i < n; i++)
		c = table[(c ^ b[i]) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffu;
}

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void put64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t get32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t get64(const uint8_t *p) { return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32; }

/* ---- the file header ---- */

size_t rec_header_encode(const struct rec_header *h, uint8_t *out, size_t size)
{
	size_t hl = strnlen(h->host, sizeof(h->host) - 1), sl = strnlen(h->schema, sizeof(h->schema) - 1);
	size_t len = REC_HEAD_FIXED + hl + sl + 4;

	if (len > size)
		return 0;
	memset(out, 0, REC_HEAD_FIXED);
	memcpy(out, REC_MAGIC, 8);
	put16(out + 8, (uint16_t)h->version);
	put16(out + 10, (uint16_t)h->min_version);
	put32(out + 12, (uint32_t)len);
	put64(out + 16, h->start_wall_ns);
	put32(out + 24, (uint32_t)h->hz);
	put32(out + 28, h->interval_ms);
	put64(out + 32, h->btime);
	put16(out + 40, (uint16_t)hl);
	put16(out + 42, (uint16_t)sl);
	memcpy(out + REC_HEAD_FIXED, h->host, hl);
	memcpy(out + REC_HEAD_FIXED + hl, h->schema, sl);
	put32(out + len - 4, rec_crc32(out, len - 4));
	return len;
}

int rec_header_parse(const uint8_t *p, size_t len, struct rec_header *h, size_t *need, struct ps_error *e)
{
	memset(h, 0, sizeof(*h));
	*need = 0;
	if (len < 8 || memcmp(p, REC_MAGIC, 8))
		return ps_error_set(e, EPROTO, "%s", len < 8 && !memcmp(p, REC_MAGIC, len) ?
			_("the header is cut short (a truncated recording)") : _("not a pscope recording (no PSCOPREC magic)"));
	if (len < REC_HEAD_FIXED)
		return ps_error_set(e, EPROTO, "%s", _("the header is cut short (a truncated recording)"));
	h->version = get16(p + 8);
	h->min_version = get16(p + 10);
	if (h->min_version > REC_VERSION)
		return ps_error_set(e, ENOTSUP, _("recorded in format version %u by a newer pscope; this one reads up to version %u"),
				     h->version, REC_VERSION);
	h->len = get32(p + 12);
	size_t hl = get16(p + 40), sl = get16(p + 42);
	if (h->len != REC_HEAD_FIXED + hl + sl + 4 || h->len > REC_HEAD_MAX || hl >= sizeof(h->host) || sl >= sizeof(h->schema))
		return ps_error_set(e, EPROTO, "%s", _("the header's lengths do not add up (a damaged header)"));
	if (len < h->len) {
		*need = h->len;
		return ps_error_set(e, EAGAIN, "%s", _("the header is cut short (a truncated recording)"));
	}
	if (get32(p + h->len - 4) != rec_crc32(p, h->len - 4))
		return ps_error_set(e, EPROTO, "%s", _("the header's checksum is wrong (a damaged header)"));
	h->start_wall_ns = get64(p + 16);
	h->hz = (long)get32(p + 24);
	h->interval_ms = get32(p + 28);
	h->btime = get64(p + 32);
	memcpy(h->host, p + REC_HEAD_FIXED, hl);
	memcpy(h->schema, p + REC_HEAD_FIXED + hl, sl);
	if (h->hz <= 0)
		h->hz = 100;
	return 0;
}

/* ---- frames, footer, index ---- */

#define FRAME_MAGIC 0x52465350u /* "PSFR" */
static const char footer_magic[8] = { 'P', 'S', 'C', 'I', 'D', 'X', '0', '1' };

void rec_frame_head_encode(const struct rec_frame_head *f, uint8_t out[REC_FRAME_HEAD])
{
	memset(out, 0, REC_FRAME_HEAD);
	put32(out, FRAME_MAGIC);
	out[4] = (uint8_t)f->type;
	put64(out + 8, f->t_ns);
	put64(out + 16, f->wall_ns);
	put32(out + 24, f->packed_len);
	put32(out + 28, f->raw_len);
	put32(out + 32, f->crc);
	put32(out + 36, rec_crc32(out, 36));
}

int rec_frame_head_parse(const uint8_t p[REC_FRAME_HEAD], struct rec_frame_head *f, struct ps_error *e)
{
	memset(f, 0, sizeof(*f));
	if (get32(p) != FRAME_MAGIC)
		return ps_error_set(e, EPROTO, "%s", _("no frame starts here"));
	if (get32(p + 36) != rec_crc32(p, 36))
		return ps_error_set(e, EPROTO, "%s", _("the frame header's checksum is wrong"));
	f->type = (enum rec_frame_type)p[4];
	f->t_ns = get64(p + 8);
	f->wall_ns = get64(p + 16);
	f->packed_len = get32(p + 24);
	f->raw_len = get32(p + 28);
	f->crc = get32(p + 32);
	if (f->type < REC_FRAME_KEY || f->type > REC_FRAME_INDEX)
		return ps_error_set(e, EPROTO, _("unknown frame type %u"), p[4]);
	if (f->packed_len > REC_FRAME_MAX || f->raw_len > REC_FRAME_MAX)
		return ps_error_set(e, EPROTO, "%s", _("the frame is impossibly big"));
	return 0;
}

void rec_footer_encode(const struct rec_footer *f, uint8_t out[REC_FOOTER])
{
	memcpy(out, footer_magic, 8);
	put64(out + 8, f->index_off);
	put32(out + 16, f->count);
	put32(out + 20, rec_crc32(out, 20));
}

int rec_footer_parse(const uint8_t p[REC_FOOTER], struct rec_footer *f)
{
	if (memcmp(p, footer_magic, 8) || get32(p + 20) != rec_crc32(p, 20))
		return -ENOENT;
	f->index_off = get64(p + 8);
	f->count = get32(p + 16);
	return 0;
}

void rec_entry_encode(const struct rec_entry *en, uint8_t out[REC_INDEX_ENTRY])
{
	memset(out, 0, REC_INDEX_ENTRY);
	put64(out, en->wall_ns);
	put64(out + 8, en->off);
	put32(out + 16, en->packed_len);
	out[20] = en->type;
}

void rec_entry_parse(const uint8_t p[REC_INDEX_ENTRY], struct rec_entry *en)
{
	en->wall_ns = get64(p);
	en->off = get64(p + 8);
	en->packed_len = get32(p + 16);
	en->type = p[20];
}

size_t rec_entry_nearest(const struct rec_entry *v, size_t n, uint64_t wall_ns)
{
	size_t lo = 0, hi = n; /* the first one at or after wall_ns */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].wall_ns < wall_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n)
		return n - 1;
	if (lo > 0 && wall_ns - v[lo - 1].wall_ns < v[lo].wall_ns - wall_ns)
		return lo - 1;
	return lo;
}

/* ---- buffers and varints ---- */

void rec_buf_free(struct rec_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static void buf_put(struct rec_buf *b, const void *p, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n)
			cap *= 2;
		uint8_t *q = realloc(b->p, cap);
		if (!q) {
			b->oom = true;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put_u(struct rec_buf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;

	do {
		t[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			t[n] |= 0x80;
		n++;
	} while (v);
	buf_put(b, t, n);
}

static uint64_t zz(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static int64_t unzz(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }
static void put_s(struct rec_buf *b, int64_t v) { put_u(b, zz(v)); }

/* A string: its length + 1, 0 for none. */
static void put_str(struct rec_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	put_u(b, s ? n + 1 : 0);
	buf_put(b, s, n);
}

struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t get_u(struct rd *r)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end) {
			r->bad = true;
			return 0;
		}
		uint8_t c = *r->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

static int64_t get_s(struct rd *r) { return unzz(get_u(r)); }

/* A count no bigger than max. */
static size_t get_n(struct rd *r, size_t max)
{
	uint64_t v = get_u(r);
	if (v > max)
		r->bad = true;
	return r->bad ? 0 : (size_t)v;
}

/* A string of at most max bytes into a new allocation (*out NULL: none);
 * false when out of memory. */
static bool get_str(struct rd *r, size_t max, char **out)
{
	size_t n = get_n(r, max + 1);

	*out = NULL;
	if (r->bad || !n)
		return true;
	n--;
	if ((size_t)(r->end - r->p) < n || memchr(r->p, 0, n)) {
		r->bad = true;
		return true;
	}
	if (!(*out = malloc(n + 1)))
		return false;
	memcpy(*out, r->p, n);
	(*out)[n] = '\0';
	r->p += n;
	return true;
}

/* The same into a fixed array. */
static void get_fixed(struct rd *r, char *out, size_t size)
{
	size_t n = get_n(r, size);

	out[0] = '\0';
	if (r->bad || !n)
		return;
	n--;
	if ((size_t)(r->end - r->p) < n || memchr(r->p, 0, n)) {
		r->bad = true;
		return;
	}
	memcpy(out, r->p, n);
	out[n] = '\0';
	r->p += n;
}

/* ---- intervals ---- */

void rec_interval_free(struct rec_interval *iv)
{
	for (size_t i = 0; i < iv->n; i++) {
		free(iv->rows[i].cmdline);
		free(iv->rows[i].x.cgroup);
	}
	free(iv->rows);
	free(iv->users);
	free(iv->cpu_id);
	free(iv->cpu_t);
	memset(iv, 0, sizeof(*iv));
}

static int cmp_pid(const void *a, const void *b, void *arg)
{
	const struct rec_row *v = arg;
	pid_t x = v[*(const size_t *)a].pid, y = v[*(const size_t *)b].pid;
	return (x > y) - (x < y);
}

/* prev's rows by pid, for the delta's lookups. */
struct by_pid {
	const struct rec_row *v;
	size_t *ix, n;
};

static int by_pid_make(struct by_pid *b, const struct rec_interval *prev)
{
	b->v = prev ? prev->rows : NULL;
	b->n = prev ? prev->n : 0;
	b->ix = malloc((b->n + 1) * sizeof(*b->ix));
	if (!b->ix)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++)
		b->ix[i] = i;
	qsort_r(b->ix, b->n, sizeof(*b->ix), cmp_pid, (void *)(uintptr_t)b->v);
	return 0;
}

static const struct rec_row *by_pid_find(const struct by_pid *b, pid_t pid)
{
	size_t lo = 0, hi = b->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		pid_t p = b->v[b->ix[mid]].pid;
		if (p == pid)
			return &b->v[b->ix[mid]];
		if (p < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

#define M_COMM (1ull << RF_COUNT)
#define M_CMDLINE (1ull << (RF_COUNT + 1))
#define M_EXTRA (1ull << (RF_COUNT + 2))
#define M_ALL ((1ull << (RF_COUNT + 3)) - 1)

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool extra_eq(const struct rec_row *a, const struct rec_row *b)
{
	if (a->has_x != b->has_x)
		return false;
	if (!a->has_x)
		return true;
	const struct rec_extra *x = &a->x, *y = &b->x;
	return x->io_err == y->io_err && x->oom == y->oom && x->io_ns == y->io_ns && x->ctxt_ns == y->ctxt_ns &&
	       x->io_rb == y->io_rb && x->io_wb == y->io_wb && x->ctxt == y->ctxt && str_eq(x->cgroup, y->cgroup) &&
	       !strcmp(x->container, y->container);
}

/* An age on the interval's clock: 0 for never, else 1 + how long before. */
static uint64_t age(uint64_t t_ns, uint64_t ns)
{
	return ns ? 1 + (ns <= t_ns ? t_ns - ns : 0) : 0;
}

static uint64_t unage(uint64_t t_ns, uint64_t a)
{
	return a ? t_ns - (a - 1 <= t_ns ? a - 1 : t_ns) : 0;
}

static void put_row(struct rec_buf *b, const struct rec_interval *cur, const struct rec_row *r, const struct rec_row *p)
{
	uint64_t mask = 0;
	static const struct rec_row zero;

	if (p && p->f[RF_START] == r->f[RF_START]) {
		for (int i = 0; i < RF_COUNT; i++)
			if (r->f[i] != p->f[i])
				mask |= 1ull << i;
		if (strcmp(r->comm, p->comm))
			mask |= M_COMM;
		if (!str_eq(r->cmdline, p->cmdline))
			mask |= M_CMDLINE;
		if (!extra_eq(r, p))
			mask |= M_EXTRA;
	} else {
		mask = M_ALL;
		p = &zero;
	}
	put_u(b, mask);
	for (int i = 0; i < RF_COUNT; i++) {
		if (!(mask & (1ull << i)))
			continue;
		if (i == RF_READ_NS)
			put_u(b, age(cur->t_ns, r->f[i]));
		else
			put_s(b, (int64_t)(r->f[i] - p->f[i]));
	}
	if (mask & M_COMM)
		put_str(b, r->comm);
	if (mask & M_CMDLINE)
		put_str(b, r->cmdline);
	if (mask & M_EXTRA) {
		const struct rec_extra *x = &r->x;
		put_u(b, r->has_x);
		if (r->has_x) {
			put_s(b, x->io_err);
			put_s(b, x->oom);
			put_u(b, age(cur->t_ns, x->io_ns));
			put_u(b, age(cur->t_ns, x->ctxt_ns));
			put_u(b, x->io_rb);
			put_u(b, x->io_wb);
			put_u(b, x->ctxt);
			put_str(b, x->cgroup);
			put_str(b, x->container);
		}
	}
}

static void put_times(struct rec_buf *b, const struct sys_cpu_times *t)
{
	const unsigned long long v[10] = { t->user, t->nice, t->system, t->idle, t->iowait,
					   t->irq, t->softirq, t->steal, t->guest, t->guest_nice };
	for (int i = 0; i < 10; i++)
		put_u(b, v[i]);
}

static void get_times(struct rd *r, struct sys_cpu_times *t)
{
	unsigned long long *v[10] = { &t->user, &t->nice, &t->system, &t->idle, &t->iowait,
				      &t->irq, &t->softirq, &t->steal, &t->guest, &t->guest_nice };
	for (int i = 0; i < 10; i++)
		*v[i] = get_u(r);
}

static bool user_in(const struct rec_interval *iv, uid_t uid)
{
	for (size_t i = 0; iv && i < iv->nusers; i++)
		if (iv->users[i].uid == uid)
			return true;
	return false;
}

int rec_interval_encode(const struct rec_interval *prev, const struct rec_interval *cur, struct rec_buf *out)
{
	struct by_pid bp;
	const struct sys_meminfo *m = &cur->mem;

	if (by_pid_make(&bp, prev) < 0)
		return -ENOMEM;
	put_u(out, cur->t_ns);
	put_u(out, cur->wall_ns);
	put_u(out, (cur->threads ? 1u : 0) | (cur->have_sys ? 2u : 0));
	put_u(out, (uint64_t)cur->counts.procs);
	put_u(out, (uint64_t)cur->counts.threads);
	put_u(out, (uint64_t)cur->counts.kthreads);
	put_u(out, (uint64_t)cur->counts.running);
	if (cur->have_sys) {
		put_u(out, (uint64_t)cur->ncpu);
		for (int i = 0; i < cur->ncpu; i++) {
			put_u(out, (uint64_t)cur->cpu_id[i]);
			put_times(out, &cur->cpu_t[i]);
		}
		put_times(out, &cur->total_t);
		const unsigned long long mv[11] = { m->total, m->free, m->available, m->buffers, m->cached, m->sreclaimable,
						    m->shmem, m->swap_total, m->swap_free, m->swap_cached, m->used };
		for (int i = 0; i < 11; i++)
			put_u(out, mv[i]);
		for (int i = 0; i < 3; i++)
			put_u(out, (uint64_t)(cur->load.load[i] * 100 + 0.5));
		put_s(out, cur->load.running);
		put_s(out, cur->load.total);
		put_s(out, cur->load.last_pid);
		put_u(out, (uint64_t)(cur->uptime * 1000 + 0.5));
	}
	size_t nu = 0;
	for (size_t i = 0; i < cur->nusers; i++)
		nu += !user_in(prev, cur->users[i].uid);
	put_u(out, nu);
	for (size_t i = 0; i < cur->nusers; i++) {
		if (user_in(prev, cur->users[i].uid))
			continue;
		put_u(out, cur->users[i].uid);
		put_str(out, cur->users[i].name);
	}
	put_u(out, cur->n);
	pid_t last = 0;
	for (size_t i = 0; i < cur->n; i++) {
		const struct rec_row *r = &cur->rows[i];
		put_s(out, (int64_t)r->pid - last);
		last = r->pid;
		put_row(out, cur, r, prev ? by_pid_find(&bp, r->pid) : NULL);
	}
	free(bp.ix);
	return out->oom ? -ENOMEM : 0;
}

static bool get_row(struct rd *r, const struct rec_interval *out, const struct by_pid *bp, struct rec_row *row)
{
	uint64_t mask = get_u(r);
	const struct rec_row *p = bp->n ? by_pid_find(bp, row->pid) : NULL;
	static const struct rec_row zero;

	if (r->bad || mask > M_ALL)
		return r->bad = true;
	if (mask != M_ALL && (!p || (mask & 1ull << RF_START)))
		return r->bad = true; /* a delta of nothing */
	if (mask == M_ALL || !p)
		p = &zero;
	/* Start from p's row: the fields not in mask are its. */
	pid_t pid = row->pid;
	*row = *p;
	row->pid = pid;
	row->cmdline = NULL;
	row->x.cgroup = NULL;
	for (int i = 0; i < RF_COUNT; i++) {
		if (!(mask & (1ull << i)))
			continue;
		if (i == RF_READ_NS)
			row->f[i] = unage(out->t_ns, get_u(r));
		else
			row->f[i] = p->f[i] + (uint64_t)get_s(r);
	}
	if (mask & M_COMM)
		get_fixed(r, row->comm, sizeof(row->comm));
	if (mask & M_CMDLINE) {
		if (!get_str(r, 1u << 20, &row->cmdline))
			return false;
	} else if (p->cmdline && !(row->cmdline = strdup(p->cmdline))) {
		return false;
	}
	if (mask & M_EXTRA) {
		struct rec_extra *x = &row->x;
		memset(x, 0, sizeof(*x));
		row->has_x = get_u(r) != 0;
		if (row->has_x) {
			x->io_err = (int)get_s(r);
			x->oom = (int)get_s(r);
			x->io_ns = unage(out->t_ns, get_u(r));
			x->ctxt_ns = unage(out->t_ns, get_u(r));
			x->io_rb = get_u(r);
			x->io_wb = get_u(r);
			x->ctxt = get_u(r);
			if (!get_str(r, 4096, &x->cgroup))
				return false;
			get_fixed(r, x->container, sizeof(x->container));
		}
	} else if (p->x.cgroup && !(row->x.cgroup = strdup(p->x.cgroup))) {
		return false;
	}
	return true;
}

int rec_interval_decode(const struct rec_interval *prev, const uint8_t *p, size_t len, bool key,
			struct rec_interval *out, struct ps_error *e)
{
	struct rd r = { p, p + len, false };
	struct by_pid bp = { 0 };
	bool oom = false;

	memset(out, 0, sizeof(*out));
	if (!key && !prev)
		return ps_error_set(e, EPROTO, "%s", _("a delta interval without the one before it"));
	if (key)
		prev = NULL;
	out->t_ns = get_u(&r);
	out->wall_ns = get_u(&r);
	unsigned flags = (unsigned)get_u(&r);
	out->threads = flags & 1;
	out->have_sys = flags & 2;
	out->counts.procs = (int)get_n(&r, 1u << 24);
	out->counts.threads = (int)get_n(&r, 1u << 24);
	out->counts.kthreads = (int)get_n(&r, 1u << 24);
	out->counts.running = (int)get_n(&r, 1u << 24);
	if (out->have_sys && !r.bad) {
		out->ncpu = (int)get_n(&r, SYS_MAX_CPUS);
		out->cpu_id = calloc((size_t)out->ncpu + 1, sizeof(*out->cpu_id));
		out->cpu_t = calloc((size_t)out->ncpu + 1, sizeof(*out->cpu_t));
		if (!out->cpu_id || !out->cpu_t)
			goto nomem;
		for (int i = 0; i < out->ncpu && !r.bad; i++) {
			out->cpu_id[i] = (int)get_n(&r, 1u << 20);
			get_times(&r, &out->cpu_t[i]);
		}
		get_times(&r, &out->total_t);
		struct sys_meminfo *m = &out->mem;
		unsigned long long *mv[11] = { &m->total, &m->free, &m->available, &m->buffers, &m->cached, &m->sreclaimable,
					       &m->shmem, &m->swap_total, &m->swap_free, &m->swap_cached, &m->used };
		for (int i = 0; i < 11; i++)
			*mv[i] = get_u(&r);
		for (int i = 0; i < 3; i++)
			out->load.load[i] = (double)get_n(&r, 1u << 30) / 100;
		out->load.running = (int)get_s(&r);
		out->load.total = (int)get_s(&r);
		out->load.last_pid = (int)get_s(&r);
		out->uptime = (double)get_n(&r, 1ull << 50) / 1000;
	}
	size_t nu = get_n(&r, 1u << 16), base = prev ? prev->nusers : 0;
	if (r.bad)
		goto bad;
	out->users = calloc(base + nu + 1, sizeof(*out->users));
	if (!out->users)
		goto nomem;
	if (base)
		memcpy(out->users, prev->users, base * sizeof(*out->users));
	out->nusers = base;
	for (size_t i = 0; i < nu && !r.bad; i++) {
		struct rec_user *u = &out->users[out->nusers++];
		u->uid = (uid_t)get_u(&r);
		get_fixed(&r, u->name, sizeof(u->name));
	}
	size_t n = get_n(&r, 1u << 22);
	if (r.bad || (size_t)(r.end - r.p) < n) /* a row takes a byte at least */
		goto bad;
	if (!(out->rows = calloc(n + 1, sizeof(*out->rows))) || by_pid_make(&bp, prev) < 0)
		goto nomem;
	pid_t last = 0;
	for (size_t i = 0; i < n && !r.bad; i++) {
		struct rec_row *row = &out->rows[i];
		int64_t pid = (int64_t)last + get_s(&r);
		if (pid <= 0 || pid > INT32_MAX) {
			r.bad = true;
			break;
		}
		row->pid = last = (pid_t)pid;
		oom = !get_row(&r, out, &bp, row);
		out->n = i + 1;
		if (oom)
			goto nomem;
	}
	if (r.bad || r.p != r.end)
		goto bad;
	free(bp.ix);
	return 0;
bad:
	free(bp.ix);
	rec_interval_free(out);
	return ps_error_set(e, EPROTO, _("the interval's data is malformed (at byte %zu of %zu)"),
			     (size_t)(r.p - p), len);
nomem:
	free(bp.ix);
	rec_interval_free(out);
	return ps_error_set(e, ENOMEM, "%s", _("out of memory while decoding an interval"));
}
