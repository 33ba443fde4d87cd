/* Thread names from threading._active: sys.modules["threading"] ->
 * its __dict__["_active"] -> {ident: Thread} -> Thread.__dict__["_name"].
 * Dicts are read by walking their entries (no hashing), with caps on the
 * entry count and string lengths; any oddity just leaves names out. */
#include "python/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DICT_MAX 65536           /* entries walked per dict */
#define NAMES_MAX 4096

/* PyDictKeysObject is not in the installed headers of 3.9 and 3.10
 * (Objects/dict-common.h): refcnt, size, lookup, usable, nentries, then
 * the indices (1, 2 or 4 bytes each by size) and the entries (hash, key,
 * value). 3.11+ (pycore_dict.h): refcnt, log2_size, log2_index_bytes,
 * kind, version, usable, nentries, indices; entries are (key, value)
 * unless kind is DICT_KEYS_GENERAL. Split tables keep the values apart. */
#define TPFLAGS_INLINE_VALUES (1ul << 2)
#define TPFLAGS_MANAGED_DICT (1ul << 4)

static int rd64(const struct py_mem *m, uint64_t a, uint64_t *v)
{
	return m->read(m->arg, a, v, 8);
}

/* The keys table of a dict: where its entries start, how many, how big. */
struct keys {
	uint64_t entries;
	uint64_t n;
	unsigned entry_size;     /* 24: hash, key, value; 16: key, value */
	unsigned key_off;
};

static int read_keys(const struct py_proc *p, const struct py_mem *m, uint64_t k, struct keys *out)
{
	unsigned char h[40];

	if (!py_ptr_ok(k) || m->read(m->arg, k, h, sizeof(h)) < 0)
		return -EFAULT;
	if (p->minor <= 10) {
		int64_t size, nentries;
		memcpy(&size, h + 8, 8);
		memcpy(&nentries, h + 32, 8);
		if (size <= 0 || size > (1 << 24) || (size & (size - 1)) || nentries < 0 || nentries > size)
			return -EPROTO;
		unsigned ib = size <= 0xff ? 1 : size <= 0xffff ? 2 : 4;
		out->entries = k + 40 + (uint64_t)size * ib;
		out->n = (uint64_t)nentries;
		out->entry_size = 24;
		out->key_off = 8;
	} else {
		unsigned log2_size = h[PY_DK_LOG2_SIZE], log2_ib = h[PY_DK_LOG2_INDEX_BYTES], kind = h[PY_DK_KIND];
		int64_t nentries;
		memcpy(&nentries, h + PY_DK_NENTRIES, 8);
		if (log2_size > 24 || log2_ib > 27 || kind > 2 || nentries < 0 || nentries > (1 << 24))
			return -EPROTO;
		out->entries = k + PY_DK_INDICES + (1ull << log2_ib);
		out->n = (uint64_t)nentries;
		out->entry_size = kind == 0 ? 24 : 16;
		out->key_off = kind == 0 ? 8 : 0;
	}
	if (out->n > DICT_MAX)
		out->n = DICT_MAX;
	return 0;
}

/* Walk a dict (or keys + a split values array): calls fn for each live
 * entry until it returns nonzero. */
typedef int (*entry_fn)(const struct py_proc *p, const struct py_mem *m, uint64_t key, uint64_t value, void *arg);

static int walk_keys(const struct py_proc *p, const struct py_mem *m, uint64_t keys, uint64_t values, entry_fn fn,
		     void *arg)
{
	struct keys k;
	int r = read_keys(p, m, keys, &k);

	if (r < 0)
		return r;
	for (uint64_t i = 0; i < k.n; i++) {
		uint64_t e = k.entries + i * k.entry_size, key, value;
		if (rd64(m, e + k.key_off, &key) < 0)
			return -EFAULT;
		if (values) {
			if (rd64(m, values + 8 * i, &value) < 0)
				return -EFAULT;
		} else if (rd64(m, e + k.key_off + 8, &value) < 0) {
			return -EFAULT;
		}
		if (!key || !value)
			continue;
		r = fn(p, m, key, value, arg);
		if (r)
			return r;
	}
	return 0;
}

static int walk_dict(const struct py_proc *p, const struct py_mem *m, uint64_t dict, entry_fn fn, void *arg)
{
	uint64_t keys, values;

	if (!py_ptr_ok(dict) || rd64(m, dict + p->L.ma_keys, &keys) < 0 || rd64(m, dict + p->L.ma_values, &values) < 0)
		return -EFAULT;
	if (values && p->minor >= 13)
		values += 8; /* capacity, size, embedded, valid */
	return walk_keys(p, m, keys, values, fn, arg);
}

struct find {
	const char *name;
	uint64_t value;
};

static int find_fn(const struct py_proc *p, const struct py_mem *m, uint64_t key, uint64_t value, void *arg)
{
	struct find *f = arg;
	char *s = py_read_unicode(p, m, key, 64);
	int hit = s && !strcmp(s, f->name);

	free(s);
	if (hit)
		f->value = value;
	return hit;
}

static uint64_t dict_get(const struct py_proc *p, const struct py_mem *m, uint64_t dict, const char *name)
{
	struct find f = { name, 0 };
	walk_dict(p, m, dict, find_fn, &f);
	return f.value;
}

/* An instance attribute: its __dict__ (3.9/3.10: at tp_dictoffset; 3.11+:
 * managed, before the object, or split values with the type's cached keys). */
static uint64_t attr(const struct py_proc *p, const struct py_mem *m, uint64_t obj, const char *name)
{
	uint64_t type, flags, dict = 0, values = 0;
	struct find f = { name, 0 };

	if (!py_ptr_ok(obj) || rd64(m, obj + 8, &type) < 0 || !py_ptr_ok(type) || rd64(m, type + p->L.tp_flags, &flags) < 0)
		return 0;
	if (p->minor <= 10 || !(flags & TPFLAGS_MANAGED_DICT)) {
		int64_t off;
		if (rd64(m, type + p->L.tp_dictoffset, (uint64_t *)&off) < 0 || off <= 0 || off > (1 << 20) ||
		    rd64(m, obj + (uint64_t)off, &dict) < 0)
			return 0;
		return dict_get(p, m, dict, name);
	}
	if (p->minor == 11) {
		if (rd64(m, obj + PY_MANAGED_DICT_OFFSET, &dict) < 0 || rd64(m, obj + PY_MANAGED_VALUES_OFFSET_311, &values) < 0)
			return 0;
	} else if (p->minor == 12) {
		uint64_t dorv;
		if (rd64(m, obj + PY_MANAGED_DICT_OFFSET, &dorv) < 0)
			return 0;
		if (dorv & 1)
			values = dorv + 1; /* stored as values - 1 (_PyDictOrValues_SetValues) */
		else
			dict = dorv;
	} else {
		uint64_t basic;
		if (rd64(m, obj + PY_MANAGED_DICT_OFFSET, &dict) < 0)
			return 0;
		if (!dict && (flags & TPFLAGS_INLINE_VALUES)) {
			if (rd64(m, type + p->L.tp_basicsize, &basic) < 0 || basic > (1 << 20))
				return 0;
			values = obj + basic + 8;
		}
	}
	if (dict)
		return dict_get(p, m, dict, name);
	if (!values)
		return 0;
	uint64_t cached;
	if (rd64(m, type + p->L.ht_cached_keys, &cached) < 0)
		return 0;
	walk_keys(p, m, cached, values, find_fn, &f);
	return f.value;
}

/* An int of at most 64 bits (an ident). */
static int read_long(const struct py_proc *p, const struct py_mem *m, uint64_t obj, uint64_t *out)
{
	int64_t size;
	uint32_t d[3] = { 0 };
	uint64_t n;

	if (!py_ptr_ok(obj) || rd64(m, obj + 16, (uint64_t *)&size) < 0)
		return -EFAULT;
	if (p->minor >= 12) {
		uint64_t tag = (uint64_t)size;
		if ((tag & 3) == 2)
			return -ERANGE;
		n = tag >> 3;
	} else {
		if (size < 0)
			return -ERANGE;
		n = (uint64_t)size;
	}
	if (n > 3 || (n && m->read(m->arg, obj + 24, d, 4 * n) < 0))
		return -EFAULT;
	*out = (uint64_t)d[0] | ((uint64_t)d[1] << 30) | ((uint64_t)d[2] << 60);
	return 0;
}

static int name_fn(const struct py_proc *cp, const struct py_mem *m, uint64_t key, uint64_t value, void *arg)
{
	struct py_proc *p = arg;
	uint64_t ident;

	(void)cp;
	if (p->n_names >= NAMES_MAX)
		return 1;
	if (read_long(p, m, key, &ident) < 0)
		return 0;
	char *name = py_read_unicode(p, m, attr(p, m, value, "_name"), 256);
	if (!name)
		return 0;
	void *v = realloc(p->names, (p->n_names + 1) * sizeof(*p->names));
	if (!v) {
		free(name);
		return 1;
	}
	p->names = v;
	p->names[p->n_names++] = (struct py_name){ ident, name };
	return 0;
}

int py_thread_names_load(struct py_proc *p, const struct py_mem *m)
{
	uint64_t interp, modules, mod, mdict, active;

	for (size_t i = 0; i < p->n_names; i++)
		free(p->names[i].name);
	p->n_names = 0;
	if (rd64(m, p->runtime + p->L.rt_interp_head, &interp) < 0 || !py_ptr_ok(interp) ||
	    rd64(m, interp + p->L.is_modules, &modules) < 0)
		return -EFAULT;
	mod = dict_get(p, m, modules, "threading");
	if (!mod || rd64(m, mod + p->L.md_dict, &mdict) < 0)
		return -ENOENT;
	active = dict_get(p, m, mdict, "_active");
	if (!active)
		return -ENOENT;
	return walk_dict(p, m, active, name_fn, p);
}

const char *py_thread_name(const struct py_proc *p, uint64_t thread_id)
{
	for (size_t i = 0; i < p->n_names; i++)
		if (p->names[i].ident == thread_id)
			return p->names[i].name;
	return NULL;
}

struct key_of {
	uint64_t value;
	char *key;
};

static int key_of_fn(const struct py_proc *p, const struct py_mem *m, uint64_t key, uint64_t value, void *arg)
{
	struct key_of *k = arg;

	if (value != k->value)
		return 0;
	k->key = py_read_unicode(p, m, key, 64);
	return k->key != NULL;
}

char *py_dict_key_of(const struct py_proc *p, const struct py_mem *m, uint64_t dict, uint64_t value)
{
	struct key_of k = { value, NULL };

	walk_dict(p, m, dict, key_of_fn, &k);
	return k.key;
}
