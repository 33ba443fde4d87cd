/* Aggregation: interned functions and call stacks, weighed per second (the
 * last SAMP_HISTORY seconds) and since the start; copied into immutable
 * snapshots. A weight is in the profile's unit: 1 per sample for a CPU
 * profile, nanoseconds or faults for the weighted ones. */
#include "sample/agg.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct afunc {
	char *name, *module, *file;
	int line;
	unsigned flags;
	uint32_t next; /* hash chain */
};

struct aloc {
	uint32_t func, map;
	uint64_t addr;
	int line;
	uint32_t next; /* hash chain */
};

struct amap {
	char *path, *build_id;
	uint64_t start, limit, offset;
	uint32_t next;
};

struct agg {
	enum samp_unit unit;
	struct afunc *funcs;
	uint32_t nfuncs, capfuncs;
	struct hmap fheads; /* function hash -> first function id, chains SAMP_NONE terminated */
	struct aloc *locs;
	uint32_t nlocs, caplocs;
	struct hmap lheads; /* location hash -> first location id */
	struct amap *maps;
	uint32_t nmaps, capmaps;
	struct hmap mheads; /* mapping hash -> first mapping id */

	struct samp_stack *stacks;
	uint32_t *snext;    /* hash chain of stacks */
	uint32_t nstacks, capstacks;
	uint32_t *frames;
	size_t nframes, capframes;
	struct hmap sheads; /* stack hash -> first stack id */

	unsigned long long *all;  /* weight per stack, since start */
	unsigned long long *cur;  /* weight per stack, current interval */
	uint32_t *touched;   /* stacks with cur > 0 */
	uint32_t ntouched;
	unsigned long all_samples, cur_samples;
	unsigned long long all_weight;

	struct samp_bucket hist[SAMP_HISTORY]; /* ring */
	unsigned hhead, hcount;                /* hhead: oldest */
};

static const char *const root_names[] = {
	"_start", "__libc_start_main", "__libc_start_call_main", "__libc_start_main_impl",
	"start_thread", "clone", "clone3", "__clone", "__clone3", "__clone_internal", "thread_start",
	/* Go: every goroutine's stack starts at goexit (its return address),
	 * every M's system stack at mstart, the first thread's at rt0_go. */
	"runtime.goexit", "runtime.goexit.abi0", "runtime.mstart", "runtime.mstart.abi0", "runtime.rt0_go",
	"runtime.rt0_go.abi0", "runtime.clone", "runtime.clone.abi0",
};

static uint64_t str_hash(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* A function is (name, module); a Python one also has its line. */
static uint64_t func_hash(const char *name, const char *module, int line, unsigned flags)
{
	uint64_t h = str_hash(str_hash(0xcbf29ce484222325ULL, name), module);
	return flags & SAMP_F_PYTHON ? hmap_mix(h ^ (uint64_t)(unsigned)line) : h;
}

struct agg *agg_new(enum samp_unit unit)
{
	struct agg *a = calloc(1, sizeof(struct agg));
	if (a)
		a->unit = unit;
	return a;
}

void agg_free(struct agg *a)
{
	if (!a)
		return;
	for (uint32_t i = 0; i < a->nfuncs; i++) {
		free(a->funcs[i].name);
		free(a->funcs[i].module);
		free(a->funcs[i].file);
	}
	free(a->funcs);
	hmap_free(&a->fheads);
	for (uint32_t i = 0; i < a->nmaps; i++) {
		free(a->maps[i].path);
		free(a->maps[i].build_id);
	}
	free(a->maps);
	hmap_free(&a->mheads);
	free(a->locs);
	hmap_free(&a->lheads);
	free(a->stacks);
	free(a->snext);
	free(a->frames);
	hmap_free(&a->sheads);
	free(a->all);
	free(a->cur);
	free(a->touched);
	for (unsigned i = 0; i < SAMP_HISTORY; i++)
		free(a->hist[i].c);
	free(a);
}

static int grow(void **p, uint32_t *cap, size_t elem, uint32_t need)
{
	if (need <= *cap)
		return 0;
	uint32_t nc = *cap ? *cap : 64;
	while (nc < need)
		nc *= 2;
	void *np = realloc(*p, (size_t)nc * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = nc;
	return 0;
}

uint32_t agg_func(struct agg *a, const struct samp_fninfo *si)
{
	uint64_t h = func_hash(si->name, si->module, si->line, si->flags);
	uint32_t first = samp_id_get(&a->fheads, h);

	for (uint32_t i = first; i != SAMP_NONE; i = a->funcs[i].next)
		if (!strcmp(a->funcs[i].name, si->name) && !strcmp(a->funcs[i].module, si->module) &&
		    (!(si->flags & SAMP_F_PYTHON) || ((a->funcs[i].flags & SAMP_F_PYTHON) && a->funcs[i].line == si->line)))
			return i;
	uint32_t capf = a->capfuncs;
	if (grow((void **)&a->funcs, &capf, sizeof(*a->funcs), a->nfuncs + 1) < 0)
		return SAMP_NONE;
	a->capfuncs = capf;
	struct afunc *f = &a->funcs[a->nfuncs];
	memset(f, 0, sizeof(*f));
	f->name = strdup(si->name);
	f->module = strdup(si->module);
	f->file = si->file ? strdup(si->file) : NULL;
	if (!f->name || !f->module || (si->file && !f->file) || hmap_put(&a->fheads, h, a->nfuncs) < 0) {
		free(f->name);
		free(f->module);
		free(f->file);
		return SAMP_NONE;
	}
	f->line = si->line;
	f->flags = si->flags;
	if (!(si->flags & (SAMP_F_KERNEL | SAMP_F_ANON | SAMP_F_CATEGORY)))
		for (size_t i = 0; i < sizeof(root_names) / sizeof(root_names[0]); i++)
			if (!strcmp(si->name, root_names[i]))
				f->flags |= SAMP_F_ROOT;
	f->next = first;
	return a->nfuncs++;
}

uint32_t agg_category(struct agg *a, const char *name)
{
	char buf[80];

	snprintf(buf, sizeof(buf), "[%s]", name);
	struct samp_fninfo fi = { .name = buf, .module = "[category]", .flags = SAMP_F_CATEGORY };
	return agg_func(a, &fi);
}

unsigned agg_func_flags(const struct agg *a, uint32_t id)
{
	return id < a->nfuncs ? a->funcs[id].flags : 0;
}

const char *agg_func_name(const struct agg *a, uint32_t id)
{
	return id < a->nfuncs && a->funcs[id].name ? a->funcs[id].name : "";
}

uint32_t agg_map(struct agg *a, const struct samp_mapinfo *mi)
{
	const char *bid = mi->build_id ? mi->build_id : "";
	uint64_t h = hmap_mix(str_hash(str_hash(0xcbf29ce484222325ULL, mi->path), bid) ^ mi->start) + mi->limit;
	uint32_t first = samp_id_get(&a->mheads, h);

	for (uint32_t i = first; i != SAMP_NONE; i = a->maps[i].next) {
		const struct amap *m = &a->maps[i];
		if (m->start == mi->start && m->limit == mi->limit && m->offset == mi->offset &&
		    !strcmp(m->path, mi->path) && !strcmp(m->build_id ? m->build_id : "", bid))
			return i;
	}
	uint32_t cap = a->capmaps;
	if (grow((void **)&a->maps, &cap, sizeof(*a->maps), a->nmaps + 1) < 0)
		return SAMP_NONE;
	a->capmaps = cap;
	struct amap *m = &a->maps[a->nmaps];
	*m = (struct amap){ .start = mi->start, .limit = mi->limit, .offset = mi->offset, .next = first };
	m->path = strdup(mi->path);
	m->build_id = mi->build_id ? strdup(mi->build_id) : NULL;
	if (!m->path || (mi->build_id && !m->build_id) || hmap_put(&a->mheads, h, a->nmaps) < 0) {
		free(m->path);
		free(m->build_id);
		return SAMP_NONE;
	}
	return a->nmaps++;
}

uint32_t agg_loc(struct agg *a, uint32_t func, uint32_t map, uint64_t addr, int line)
{
	if (func == SAMP_NONE)
		return SAMP_NONE;
	uint64_t h = hmap_mix(hmap_mix((uint64_t)func << 32 | map) ^ addr);
	uint32_t first = samp_id_get(&a->lheads, h);

	for (uint32_t i = first; i != SAMP_NONE; i = a->locs[i].next)
		if (a->locs[i].func == func && a->locs[i].map == map && a->locs[i].addr == addr)
			return i;
	uint32_t cap = a->caplocs;
	if (grow((void **)&a->locs, &cap, sizeof(*a->locs), a->nlocs + 1) < 0)
		return SAMP_NONE;
	a->caplocs = cap;
	if (hmap_put(&a->lheads, h, a->nlocs) < 0)
		return SAMP_NONE;
	a->locs[a->nlocs] = (struct aloc){ .func = func, .map = map, .addr = addr, .line = line, .next = first };
	return a->nlocs++;
}

uint32_t agg_func_loc(struct agg *a, uint32_t func)
{
	return func < a->nfuncs ? agg_loc(a, func, SAMP_NONE, 0, a->funcs[func].line) : SAMP_NONE;
}

uint32_t agg_loc_func(const struct agg *a, uint32_t loc)
{
	return loc < a->nlocs ? a->locs[loc].func : SAMP_NONE;
}

static uint32_t intern(struct agg *a, pid_t tid, const uint32_t *fr, unsigned n)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)(uint32_t)tid;
	for (unsigned i = 0; i < n; i++)
		h = hmap_mix(h ^ fr[i]) + i;
	uint32_t first = samp_id_get(&a->sheads, h);
	for (uint32_t i = first; i != SAMP_NONE; i = a->snext[i]) {
		struct samp_stack *st = &a->stacks[i];
		if (st->tid == tid && st->nframes == n && (!n || !memcmp(a->frames + st->first, fr, n * sizeof(*fr))))
			return i;
	}
	uint32_t id = a->nstacks, cap = a->capstacks;
	struct {
		void **p;
		size_t elem;
	} per_stack[] = {
		{ (void **)&a->stacks, sizeof(*a->stacks) }, { (void **)&a->snext, sizeof(*a->snext) },
		{ (void **)&a->all, sizeof(*a->all) },       { (void **)&a->cur, sizeof(*a->cur) },
		{ (void **)&a->touched, sizeof(*a->touched) },
	};
	for (size_t k = 0; k < sizeof(per_stack) / sizeof(per_stack[0]); k++) {
		cap = a->capstacks; /* every array grows from the same size to the same size */
		if (grow(per_stack[k].p, &cap, per_stack[k].elem, id + 1) < 0)
			return SAMP_NONE;
	}
	a->capstacks = cap;
	if (a->nframes + n > a->capframes) {
		size_t nc = a->capframes ? a->capframes : 1024;
		while (nc < a->nframes + n)
			nc *= 2;
		uint32_t *nf = realloc(a->frames, nc * sizeof(*nf));
		if (!nf)
			return SAMP_NONE;
		a->frames = nf;
		a->capframes = nc;
	}
	if (hmap_put(&a->sheads, h, id) < 0)
		return SAMP_NONE;
	if (n) /* an empty stack (nothing unwound): no frames array yet */
		memcpy(a->frames + a->nframes, fr, n * sizeof(*fr));
	a->stacks[id] = (struct samp_stack){ .tid = tid, .nframes = n, .first = (unsigned)a->nframes };
	a->snext[id] = first;
	a->all[id] = 0;
	a->cur[id] = 0;
	a->nframes += n;
	a->nstacks++;
	return id;
}

int agg_add(struct agg *a, pid_t tid, const uint32_t *frames, unsigned n, uint32_t cat, uint64_t weight)
{
	return agg_add_stack(a, tid, frames, n, cat, weight) == SAMP_NONE ? -ENOMEM : 0;
}

uint32_t agg_add_stack(struct agg *a, pid_t tid, const uint32_t *frames, unsigned n, uint32_t cat, uint64_t weight)
{
	uint32_t id, with[SAMP_MAX_FRAMES + 1];

	if (cat != SAMP_NONE) {
		uint32_t cl = agg_func_loc(a, cat);
		if (cl == SAMP_NONE)
			return SAMP_NONE;
		if (n > SAMP_MAX_FRAMES)
			n = SAMP_MAX_FRAMES;
		memcpy(with, frames, n * sizeof(*frames));
		with[n++] = cl; /* the outermost frame */
		frames = with;
	}
	id = intern(a, tid, frames, n);
	if (id == SAMP_NONE)
		return SAMP_NONE;
	if (!a->cur[id] && weight)
		a->touched[a->ntouched++] = id;
	a->cur[id] += weight;
	a->all[id] += weight;
	a->all_weight += weight;
	a->all_samples++;
	a->cur_samples++;
	return id;
}

void agg_close_interval(struct agg *a, double seconds)
{
	struct samp_bucket b = { .seconds = seconds, .samples = a->cur_samples };

	b.c = malloc((a->ntouched ? a->ntouched : 1) * sizeof(*b.c));
	if (b.c) {
		for (uint32_t i = 0; i < a->ntouched; i++)
			b.c[i] = (struct samp_count){ .stack = a->touched[i], .count = a->cur[a->touched[i]] };
		b.n = a->ntouched;
	}
	for (uint32_t i = 0; i < a->ntouched; i++)
		a->cur[a->touched[i]] = 0;
	a->ntouched = 0;
	a->cur_samples = 0;
	if (a->hcount == SAMP_HISTORY) {
		free(a->hist[a->hhead].c);
		a->hist[a->hhead] = b;
		a->hhead = (a->hhead + 1) % SAMP_HISTORY;
	} else {
		a->hist[(a->hhead + a->hcount) % SAMP_HISTORY] = b;
		a->hcount++;
	}
}

unsigned long agg_samples_last(const struct agg *a, unsigned buckets, double *seconds)
{
	unsigned long n = 0;
	*seconds = 0;
	for (unsigned i = 0; i < buckets && i < a->hcount; i++) {
		const struct samp_bucket *b = &a->hist[(a->hhead + a->hcount - 1 - i) % SAMP_HISTORY];
		n += b->samples;
		*seconds += b->seconds;
	}
	return n;
}

static int copy_bucket(struct samp_bucket *dst, const struct samp_bucket *src)
{
	*dst = *src;
	dst->c = malloc((src->n ? src->n : 1) * sizeof(*dst->c));
	if (!dst->c)
		return -ENOMEM;
	if (src->n)
		memcpy(dst->c, src->c, src->n * sizeof(*dst->c));
	return 0;
}

int agg_fill(const struct agg *a, struct samp_snapshot *s, double elapsed)
{
	size_t slen = 0;

	for (uint32_t i = 0; i < a->nfuncs; i++)
		slen += strlen(a->funcs[i].name) + strlen(a->funcs[i].module) + 2 +
			(a->funcs[i].file ? strlen(a->funcs[i].file) + 1 : 0);
	for (uint32_t i = 0; i < a->nmaps; i++)
		slen += strlen(a->maps[i].path) + 1 + (a->maps[i].build_id ? strlen(a->maps[i].build_id) + 1 : 0);
	s->strings = malloc(slen + 1);
	s->funcs = calloc(a->nfuncs + 1, sizeof(*s->funcs));
	s->stacks = malloc((a->nstacks + 1) * sizeof(*s->stacks));
	s->frames = malloc((a->nframes + 1) * sizeof(*s->frames));
	s->lframes = malloc((a->nframes + 1) * sizeof(*s->lframes));
	s->locs = malloc((a->nlocs + 1) * sizeof(*s->locs));
	s->maps = calloc(a->nmaps + 1, sizeof(*s->maps));
	if (!s->strings || !s->funcs || !s->stacks || !s->frames || !s->lframes || !s->locs || !s->maps)
		return -ENOMEM;
	char *p = s->strings;
	for (uint32_t i = 0; i < a->nfuncs; i++) {
		const struct afunc *f = &a->funcs[i];
		struct samp_func *o = &s->funcs[i];
		o->name = p;
		p = stpcpy(p, f->name) + 1;
		o->module = p;
		p = stpcpy(p, f->module) + 1;
		if (f->file) {
			o->file = p;
			p = stpcpy(p, f->file) + 1;
		}
		o->line = f->line;
		o->flags = f->flags;
	}
	s->nfuncs = a->nfuncs;
	for (uint32_t i = 0; i < a->nmaps; i++) {
		const struct amap *m = &a->maps[i];
		struct samp_map *o = &s->maps[i];
		o->path = p;
		p = stpcpy(p, m->path) + 1;
		if (m->build_id) {
			o->build_id = p;
			p = stpcpy(p, m->build_id) + 1;
		}
		o->start = m->start;
		o->limit = m->limit;
		o->offset = m->offset;
	}
	s->nmaps = a->nmaps;
	for (uint32_t i = 0; i < a->nlocs; i++)
		s->locs[i] = (struct samp_loc){ .func = a->locs[i].func, .map = a->locs[i].map,
						.addr = a->locs[i].addr, .line = a->locs[i].line };
	s->nlocs = a->nlocs;
	if (a->nstacks) /* memcpy from NULL is undefined even for 0 bytes */
		memcpy(s->stacks, a->stacks, a->nstacks * sizeof(*s->stacks));
	s->nstacks = a->nstacks;
	if (a->nframes)
		memcpy(s->lframes, a->frames, a->nframes * sizeof(*s->lframes));
	for (size_t i = 0; i < a->nframes; i++)
		s->frames[i] = a->locs[a->frames[i]].func;

	s->nbuckets = 0;
	for (unsigned i = 0; i < a->hcount; i++) {
		if (copy_bucket(&s->buckets[i], &a->hist[(a->hhead + i) % SAMP_HISTORY]) < 0)
			return -ENOMEM;
		s->nbuckets++;
	}
	uint32_t n = 0;
	for (uint32_t i = 0; i < a->nstacks; i++)
		n += a->all[i] > 0;
	s->all.c = malloc((n ? n : 1) * sizeof(*s->all.c));
	if (!s->all.c)
		return -ENOMEM;
	for (uint32_t i = 0; i < a->nstacks; i++)
		if (a->all[i])
			s->all.c[s->all.n++] = (struct samp_count){ .stack = i, .count = a->all[i] };
	s->all.samples = a->all_samples;
	s->unit = a->unit;
	s->weight = a->all_weight;
	s->all.seconds = elapsed;
	return 0;
}

void samp_snapshot_free(void *p)
{
	struct samp_snapshot *s = p;

	if (!s)
		return;
	free(s->strings);
	free(s->funcs);
	free(s->stacks);
	free(s->frames);
	free(s->lframes);
	free(s->locs);
	free(s->maps);
	free(s->threads);
	free(s->procs);
	for (unsigned i = 0; i < s->nbuckets; i++)
		free(s->buckets[i].c);
	free(s->all.c);
	free(s->pcs);
	free(s->pc_strings);
	for (unsigned i = 0; i < s->npc_buckets; i++)
		free(s->pc_buckets[i].c);
	samp_snapshot_free(s->wakers);
	free(s->wakes);
	free(s->stack_blocks);
	free(s->stack_runq);
	free(s);
}

int agg_finish(const struct agg *a, struct samp_snapshot *o, const struct samp_thread *threads, size_t stride,
	       unsigned n, const char *end_reason)
{
	if (end_reason) {
		o->ended = true;
		strlcpy_ps(o->end_reason, end_reason, sizeof(o->end_reason));
	}
	o->threads = calloc(n + 1, sizeof(*o->threads));
	if (!o->threads || agg_fill(a, o, o->elapsed) < 0) {
		samp_snapshot_free(o);
		return -1;
	}
	for (unsigned i = 0; i < n; i++)
		o->threads[o->nthreads++] = *(const struct samp_thread *)((const char *)threads + i * stride);
	return 0;
}
