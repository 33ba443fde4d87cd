/* Walking the interpreter: thread states, frame chains (py_snapshot_take)
 * and the GIL holder. Every pointer is checked, every chain capped and
 * checked for cycles. */
#include "python/internal.h"
#include "hmap.h"
#include "i18n.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INTERPS 16

static int rd_ptr(const struct py_mem *m, uint64_t addr, uint64_t *out)
{
	return m->read(m->arg, addr, out, sizeof(*out));
}

/* A small set of addresses for cycle detection, emptied before each walk
 * (its memory kept). A walk is bounded by its depth anyway: an address
 * not kept (no memory) only lets a cycle run to that bound. */
struct seen {
	struct hmap h;
};

static void seen_init(struct seen *s)
{
	hmap_clear(&s->h);
}

/* true when a was already in the set. */
static bool seen_add(struct seen *s, uint64_t a)
{
	if (hmap_get(&s->h, a) != HMAP_NONE)
		return true;
	hmap_put(&s->h, a, 1);
	return false;
}

static int pool_push(struct py_snapshot *s, const struct py_raw_frame *f)
{
	if (s->pool_n == s->pool_cap) {
		size_t cap = s->pool_cap ? 2 * s->pool_cap : 1024;
		void *v = realloc(s->pool, cap * sizeof(*s->pool));
		if (!v)
			return -ENOMEM;
		s->pool = v;
		s->pool_cap = cap;
	}
	s->pool[s->pool_n++] = *f;
	return 0;
}

/* The current frame of a thread state, from its fields in ts. */
static int first_frame(const struct py_layout *L, const struct py_mem *m, const unsigned char *ts, uint64_t *out)
{
	if (L->ts_cframe) {
		uint64_t cf;
		memcpy(&cf, ts + L->ts_cframe, 8);
		if (!cf) {
			*out = 0;
			return 0;
		}
		if (!py_ptr_ok(cf))
			return -EFAULT;
		return rd_ptr(m, cf + L->ts_frame, out);
	}
	memcpy(out, ts + L->ts_frame, 8);
	return 0;
}

static uint32_t max4(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	uint32_t x = a > b ? a : b, y = c > d ? c : d;
	return x > y ? x : y;
}

/* One thread's frame chain, innermost first, into the pool. */
static void walk_frames(const struct py_proc *p, const struct py_mem *m, uint64_t frame, unsigned max_depth,
			struct seen *seen, struct py_raw_thread *t, struct py_snapshot *s, uint64_t *first_code)
{
	const struct py_layout *L = &p->L;
	size_t span = max4(L->fr_back, L->fr_code, L->fr_instr, L->fr_entry) + 8;
	unsigned char buf[256];
	size_t start = s->pool_n;

	seen_init(seen);
	for (unsigned depth = 0; frame; depth++) {
		if (depth >= max_depth) {
			t->truncated = true;
			break;
		}
		if (!py_ptr_ok(frame)) {
			t->error = _("bad frame pointer");
			break;
		}
		if (seen_add(seen, frame)) {
			t->error = _("the frame chain loops");
			break;
		}
		if (m->read(m->arg, frame, buf, span) < 0) {
			t->error = _("frame unreadable");
			break;
		}
		uint64_t code, back, instr = 0;
		memcpy(&code, buf + L->fr_code, 8);
		memcpy(&back, buf + L->fr_back, 8);
		if (depth == 0)
			*first_code = code;
		struct py_raw_frame f = { .frame = frame, .code = code, .lasti = -1 };
		if (L->frame == PY_FRAME_OBJECT) {
			int32_t lasti;
			memcpy(&lasti, buf + L->fr_instr, 4);
			/* A hostile f_lasti must not overflow (code is < 64 MiB). */
			f.lasti = lasti < 0 || lasti > (1 << 26) ? -1 : L->lines == PY_LINETABLE ? lasti * 2 : lasti;
			f.entry = true;
		} else {
			memcpy(&instr, buf + L->fr_instr, 8);
			if (L->frame == PY_IFRAME_SHIM && buf[L->fr_entry] == PY_FRAME_OWNED_BY_CSTACK) {
				/* A shim frame: the frame pushed before it ends an eval call. */
				if (s->pool_n > start)
					s->pool[s->pool_n - 1].entry = true;
				frame = back;
				continue;
			}
			int64_t off = (int64_t)(instr - (code + L->co_code));
			f.lasti = off < 0 || off > (1 << 26) ? -1 : (int32_t)off;
			f.entry = L->frame == PY_IFRAME_ENTRY && buf[L->fr_entry];
		}
		if (!py_ptr_ok(code)) {
			t->error = _("frame without a code object");
			break;
		}
		if (pool_push(s, &f) < 0) {
			t->error = _("out of memory");
			break;
		}
		frame = back;
	}
	/* The outermost frame always ends an eval call. */
	if (s->pool_n > start)
		s->pool[s->pool_n - 1].entry = true;
	t->n = s->pool_n - start;
	t->frames = (void *)(uintptr_t)start; /* fixed up once the pool stops moving */
}

static int gil_holder(const struct py_proc *p, const struct py_mem *m, uint64_t interp, struct py_snapshot *s)
{
	const struct py_layout *L = &p->L;
	uint64_t base_locked, base_holder, gil;
	int32_t locked;
	uint64_t holder;

	switch (L->gil) {
	case PY_GIL_RUNTIME:
		base_locked = p->runtime + L->rt_gil_locked;
		base_holder = p->runtime + L->rt_gil_holder;
		break;
	case PY_GIL_INTERP_PTR:
		if (rd_ptr(m, interp + L->is_gil, &gil) < 0 || !py_ptr_ok(gil))
			return -EFAULT;
		base_locked = gil + L->gil_locked;
		base_holder = gil + L->gil_holder;
		break;
	default:
		base_locked = interp + L->gil_locked;
		base_holder = interp + L->gil_holder;
		break;
	}
	if (m->read(m->arg, base_locked, &locked, sizeof(locked)) < 0 || rd_ptr(m, base_holder, &holder) < 0)
		return -EFAULT;
	s->gil_known = true;
	s->gil_holder = locked > 0 ? holder : 0;
	return 0;
}

int py_snapshot_take(struct py_proc *p, const struct py_mem *m, const struct py_walk_opts *o, struct py_snapshot *s,
		     struct ps_error *e)
{
	const struct py_layout *L = &p->L;
	unsigned max_depth = o && o->max_depth ? o->max_depth : 1024;
	unsigned max_threads = o && o->max_threads ? o->max_threads : 4096;
	size_t ts_span = max4(L->ts_next, L->ts_thread_id, L->ts_native_id, L->ts_cframe ? L->ts_cframe : L->ts_frame) + 8;
	unsigned char ts[512];
	uint64_t interp, interps[MAX_INTERPS];
	size_t n_interps = 0, cap = s->threads_cap;
	struct seen seen_ts = { 0 }, seen_fr = { 0 };
	int rc = 0;

	s->n = 0;
	s->pool_n = 0;
	s->gil_holder = 0;
	s->gil_known = false;
	if (rd_ptr(m, p->runtime + L->rt_interp_head, &interp) < 0 || !py_ptr_ok(interp))
		return ps_error_set(e, EPROTO, _("not a readable CPython: no interpreter in _PyRuntime at 0x%llx"),
				    (unsigned long long)p->runtime);
	seen_init(&seen_ts);
	gil_holder(p, m, interp, s);
	while (interp && n_interps < MAX_INTERPS) {
		for (size_t i = 0; i < n_interps; i++)
			if (interps[i] == interp)
				goto done;
		interps[n_interps++] = interp;
		uint64_t tstate, next_interp;
		if (rd_ptr(m, interp + L->is_tstate_head, &tstate) < 0 || rd_ptr(m, interp + L->is_next, &next_interp) < 0) {
			rc = ps_error_set(e, EPROTO, _("not a readable CPython: interpreter state at 0x%llx unreadable"),
					  (unsigned long long)interp);
			goto out;
		}
		while (tstate) {
			if (!py_ptr_ok(tstate) || m->read(m->arg, tstate, ts, ts_span) < 0) {
				rc = ps_error_set(e, EPROTO, _("not a readable CPython: thread state at 0x%llx unreadable"),
						  (unsigned long long)tstate);
				goto out;
			}
			if (seen_add(&seen_ts, tstate)) {
				rc = ps_error_set(e, EPROTO, _("not a readable CPython: the thread state list loops"));
				goto out;
			}
			if (s->n >= max_threads) {
				rc = ps_error_set(e, EPROTO, _("not a readable CPython: more than %u thread states"),
						  max_threads);
				goto out;
			}
			if (s->n == cap) {
				size_t nc = cap ? 2 * cap : 64;
				void *v = realloc(s->threads, nc * sizeof(*s->threads));
				if (!v) {
					rc = ps_error_set(e, ENOMEM, _("out of memory"));
					goto out;
				}
				s->threads = v;
				s->threads_cap = cap = nc;
			}
			struct py_raw_thread *t = &s->threads[s->n++];
			memset(t, 0, sizeof(*t));
			t->tstate = tstate;
			memcpy(&t->thread_id, ts + L->ts_thread_id, 8);
			if (L->ts_native_id) {
				int32_t tid;
				memcpy(&tid, ts + L->ts_native_id, 4);
				t->tid = tid > 0 ? tid : 0;
			}
			uint64_t frame, code1 = 0;
			if (o && o->want && !o->want(o->want_arg, t, s->gil_known && s->gil_holder == tstate)) {
				t->skipped = true;
				t->frames = (void *)(uintptr_t)s->pool_n;
				memcpy(&tstate, ts + L->ts_next, 8);
				continue;
			}
			if (first_frame(L, m, ts, &frame) < 0)
				t->error = _("current frame unreadable");
			else
				walk_frames(p, m, frame, max_depth, &seen_fr, t, s, &code1);
			if (o && o->check_torn && !t->error && t->n) {
				/* Torn: the thread moved on while we read its chain. */
				unsigned char ts2[512];
				uint64_t frame2, code2;
				const struct py_mem *f = o->fresh ? o->fresh : m;
				if (f->read(f->arg, tstate, ts2, ts_span) < 0 || first_frame(L, f, ts2, &frame2) < 0 ||
				    frame2 != frame || rd_ptr(f, frame + L->fr_code, &code2) < 0 ||
				    code2 != code1) {
					s->torn++;
					t->error = "torn";
				}
			}
			memcpy(&tstate, ts + L->ts_next, 8);
		}
		interp = next_interp;
		if (interp && !py_ptr_ok(interp))
			break;
	}
done:
	for (size_t i = 0; i < s->n; i++) {
		struct py_raw_thread *t = &s->threads[i];
		/* No frame at all: no pool either (NULL + 0 is undefined). */
		t->frames = s->pool ? s->pool + (size_t)(uintptr_t)t->frames : NULL;
		/* Stopped, the chains are consistent: a bad one is corruption. */
		if (t->error && !(o && o->check_torn)) {
			rc = ps_error_set(e, EPROTO, _("not a readable CPython: thread state 0x%llx: %s"),
					  (unsigned long long)t->tstate, t->error);
			goto out;
		}
	}
out:
	if (rc < 0)
		s->n = 0;
	hmap_free(&seen_ts.h);
	hmap_free(&seen_fr.h);
	return rc;
}

void py_snapshot_free(struct py_snapshot *s)
{
	free(s->threads);
	free(s->pool);
	memset(s, 0, sizeof(*s));
}
