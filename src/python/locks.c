/* threading.Lock objects in a thread's frames (python.h, py_lock_refs):
 * every slot of each frame's localsplus (locals, cells, then the value
 * stack up to co_stacksize) that points at a _thread.lock, or at a builtin
 * method bound to one (`with lock:` keeps lock.__exit__ there for the
 * whole block; `lock.acquire()` has the lock itself on the stack while it
 * runs). Types are told apart by tp_name, read once per type. */
#include "python/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS_MAX 1024       /* localsplus slots read per frame */
#define FRAMES_MAX 256       /* frames looked at per thread */
#define TYPES_SEEN 32        /* other types remembered per call */

enum kind { K_OTHER, K_LOCK, K_CFUNC };

struct types {
	uint64_t other[TYPES_SEEN];
	size_t n;
};

static int rd64(const struct py_mem *m, uint64_t a, uint64_t *v)
{
	return m->read(m->arg, a, v, 8);
}

static enum kind kind_of(struct py_proc *p, const struct py_mem *m, struct types *ty, uint64_t obj)
{
	uint64_t type, name;
	char buf[32];

	uint64_t refs;

	/* A live object: a freed one (a stale slot above the value stack's
	 * top) has pymalloc's free-list link or 0 where its count was. */
	if (!py_ptr_ok(obj) || rd64(m, obj, &refs) < 0 || refs == 0 || refs >= (1ull << 31) ||
	    rd64(m, obj + 8, &type) < 0 || !py_ptr_ok(type))
		return K_OTHER;
	if (type == p->lock_type)
		return K_LOCK;
	if (type == p->cfunc_type)
		return K_CFUNC;
	for (size_t i = 0; i < ty->n; i++)
		if (ty->other[i] == type)
			return K_OTHER;
	if (rd64(m, type + p->L.tp_name, &name) < 0 || !name || m->read(m->arg, name, buf, sizeof(buf)) < 0) {
		/* a name near the end of a mapping: read it shorter */
		if (!name || m->read(m->arg, name, buf, 13) < 0)
			return K_OTHER;
		buf[13] = '\0';
	}
	buf[sizeof(buf) - 1] = '\0';
	if (!strcmp(buf, "_thread.lock")) {
		p->lock_type = type;
		return K_LOCK;
	}
	if (!strcmp(buf, "builtin_function_or_method")) {
		p->cfunc_type = type;
		return K_CFUNC;
	}
	if (ty->n < TYPES_SEEN)
		ty->other[ty->n++] = type;
	return K_OTHER;
}

/* Whether the builtin method at f is named __exit__. */
static bool is_exit(const struct py_mem *m, uint64_t f)
{
	uint64_t ml, name;
	char buf[9];

	if (rd64(m, f + PY_CFUNC_ML, &ml) < 0 || !py_ptr_ok(ml) || rd64(m, ml, &name) < 0 || !name ||
	    m->read(m->arg, name, buf, sizeof(buf)) < 0)
		return false;
	return !memcmp(buf, "__exit__", 9);
}

/* The name of the lock in slot i of a frame: the global bound to it (what
 * names it across threads), else its local's name. */
static void name_of(const struct py_proc *p, const struct py_mem *m, uint64_t code, uint64_t frame, int nlocals,
		    int i, uint64_t lock, char *out, size_t size)
{
	char *s = NULL;
	uint64_t names, item, globals;

	out[0] = '\0';
	if (rd64(m, frame + p->L.fr_globals, &globals) == 0 && py_ptr_ok(globals))
		s = py_dict_key_of(p, m, globals, lock);
	if (!s && i < nlocals && rd64(m, code + p->L.co_lpnames, &names) == 0 && py_ptr_ok(names) &&
	    rd64(m, names + 24 + 8 * (uint64_t)i, &item) == 0)
		s = py_read_unicode(p, m, item, 60);
	if (s)
		snprintf(out, size, "%s", s);
	free(s);
}

int py_lock_refs(struct py_proc *p, const struct py_mem *m, const struct py_raw_thread *t, struct py_lock_ref *out,
		 size_t max)
{
	const struct py_layout *L = &p->L;
	struct types ty = { .n = 0 };
	uint64_t *slots = NULL;
	size_t n = 0;

	if (p->minor < 11 || !L->fr_localsplus)
		return -ENOTSUP;
	slots = malloc(SLOTS_MAX * sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t fi = 0; fi < t->n && fi < FRAMES_MAX && n < max; fi++) {
		const struct py_raw_frame *f = &t->frames[fi];
		int32_t nlocals, stack;
		if (!py_ptr_ok(f->frame) || !py_ptr_ok(f->code) ||
		    m->read(m->arg, f->code + L->co_nlocalsplus, &nlocals, 4) < 0 ||
		    m->read(m->arg, f->code + L->co_stacksize, &stack, 4) < 0 || nlocals < 0 || stack < 0 ||
		    nlocals > SLOTS_MAX || stack > SLOTS_MAX)
			continue;
		size_t ns = (size_t)nlocals + (size_t)stack;
		if (ns > SLOTS_MAX)
			ns = SLOTS_MAX;
		/* Read what is readable: the frame may end a data-stack chunk. */
		while (ns && m->read(m->arg, f->frame + L->fr_localsplus, slots, ns * 8) < 0)
			ns /= 2;
		for (size_t i = 0; i < ns && n < max; i++) {
			uint64_t lock = slots[i];
			bool with = false;
			enum kind k = kind_of(p, m, &ty, lock);
			if (k == K_CFUNC) {
				if (rd64(m, lock + PY_CFUNC_SELF, &lock) < 0 || kind_of(p, m, &ty, lock) != K_LOCK)
					continue;
				/* Only the value stack holds a with block's __exit__. */
				with = i >= (size_t)nlocals && is_exit(m, slots[i]);
			} else if (k != K_LOCK) {
				continue;
			}
			size_t j;
			for (j = 0; j < n; j++)
				if (out[j].lock == lock)
					break;
			if (j < n) {
				/* the same lock again: a with block in this or an outer frame */
				out[j].with |= with;
				out[j].direct |= k == K_LOCK;
				if (!out[j].name[0])
					name_of(p, m, f->code, f->frame, nlocals, (int)i, lock, out[j].name, sizeof(out[j].name));
				continue;
			}
			struct py_lock_ref *r = &out[n];
			unsigned char locked = 0;
			memset(r, 0, sizeof(*r));
			if (rd64(m, lock + PY_LOCK_SEM, &r->sem) < 0 || m->read(m->arg, lock + PY_LOCK_LOCKED, &locked, 1) < 0)
				continue;
			r->lock = lock;
			r->locked = locked != 0;
			r->with = with;
			r->direct = k == K_LOCK;
			r->frame = fi;
			name_of(p, m, f->code, f->frame, nlocals, (int)i, lock, r->name, sizeof(r->name));
			n++;
		}
	}
	free(slots);
	return (int)n;
}
