/* A process view: the executable mappings of one address space bound to
 * shared modules, a cache by pc, /tmp/perf-PID.map for anonymous code. */
#include "sym/local.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define REFRESH_NS 200000000ULL /* a miss re-reads the maps at most 5 times a second */

enum pmap_kind { PM_MODULE, PM_NOFILE, PM_ANON, PM_SPECIAL };

struct pmap {
	uint64_t start, end, off, inode;
	enum pmap_kind kind;
	struct sym_module *mod; /* PM_MODULE */
	uint64_t bias;
	char *name;             /* PM_NOFILE, PM_SPECIAL: what the maps call it */
	const char *why;        /* PM_NOFILE: why the file was not read, or NULL */
	bool deleted;
};

struct sym_proc {
	pid_t pid;              /* > 0: a live process */
	uid_t uid;
	unsigned opts;
	char *root;             /* path prefix of the files */
	sym_read_fn read;
	void *read_arg;
	struct proc_maps maps;
	struct pmap *m;         /* executable mappings, sorted */
	size_t n;
	struct sym_module **held; /* every module bound since creation */
	size_t nheld;
	struct sym_info **owned;  /* results not owned by a module */
	size_t nowned;
	struct hmap cache;      /* pc << 1 | activation -> const struct sym_info * */
	struct hmap jit_gens;   /* the same keys, anonymous code: the JIT names' generation */
	size_t resolved;
	bool stale, anon_stale;
	unsigned gen;           /* maps re-read count */
	uint64_t refreshed_ns;
	struct sym_jit jit;
};

static const struct sym_info unknown_info = {
	.function = (char *)"[unknown]",
	.flags = SYM_F_UNKNOWN,
};

int sym_load_bias(const struct sym_phdr *ph, size_t n, uint64_t map_start, uint64_t map_off, uint64_t *bias)
{
	const struct sym_phdr *best = NULL;

	/* Segments may share a file page (lld: the text starts in the last
	 * page of the headers' segment, one page further in memory): the
	 * mapping at map_off is of the segment starting last at or below it. */
	for (size_t i = 0; i < n; i++) {
		uint64_t page_off = ph[i].offset & ~0xfffull;
		if (map_off < page_off || map_off >= ph[i].offset + (ph[i].filesz ? ph[i].filesz : 1))
			continue;
		if (!best || page_off > (best->offset & ~0xfffull))
			best = &ph[i];
	}
	if (!best)
		return -ENOENT;
	/* The file byte at map_off has vaddr p_vaddr - p_offset + map_off. */
	*bias = map_start - (best->vaddr - best->offset + map_off);
	return 0;
}

static ssize_t live_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	pid_t pid = (pid_t)(intptr_t)arg;
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };
	return process_vm_readv(pid, &l, 1, &r, 1, 0);
}

static bool hold(struct sym_proc *p, struct sym_module *m)
{
	for (size_t i = 0; i < p->nheld; i++)
		if (p->held[i] == m) {
			sym_module_put(m); /* already held once */
			return true;
		}
	struct sym_module **nh = realloc(p->held, (p->nheld + 1) * sizeof(*nh));
	if (!nh) {
		sym_module_put(m);
		return false;
	}
	p->held = nh;
	p->held[p->nheld++] = m;
	return true;
}

static int open_checked(const char *path, uint64_t inode)
{
	struct stat st;
	/* The path is the target's (or a core's): a FIFO or a device may
	 * stand there by now, behind a mount of the target's namespace. */
	int fd = sym_open_regular(AT_FDCWD, path);

	if (fd < 0)
		return -1;
	/* Replaced since it was mapped (an upgrade): not the mapped file. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (inode && st.st_ino != inode)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The file mapped at m: by its path if it still is that file, else through
 * /proc/PID/map_files (CAP_SYS_ADMIN) or /proc/PID/exe. */
static int open_mapped(struct sym_proc *p, const struct proc_map *m, char *real, size_t rsz)
{
	char path[PATH_MAX + 64];
	int fd = -1;
	size_t pl = strlen(m->path) - (m->deleted ? 10 : 0);

	snprintf(real, rsz, "%.*s", (int)pl, m->path);
	if (p->pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)p->pid, real);
	else
		snprintf(path, sizeof(path), "%s%s", p->root ? p->root : "", real);
	if (!m->deleted)
		fd = open_checked(path, m->inode);
	if (fd < 0 && p->pid > 0) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)p->pid, m->start, m->end);
		fd = open_checked(path, m->inode);
	}
	if (fd < 0 && p->pid > 0) {
		char exe[PATH_MAX];
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)p->pid);
		ssize_t n = readlink(path, exe, sizeof(exe) - 1);
		if (n > 0) {
			exe[n] = '\0';
			if (!strcmp(exe, m->path))
				fd = open_checked(path, m->inode);
		}
	}
	return fd;
}

static struct sym_module *vdso_module(struct sym_proc *p, const struct proc_map *m)
{
	size_t len = (size_t)(m->end - m->start);
	sym_read_fn rd = p->read ? p->read : p->pid > 0 ? live_read : NULL;
	void *arg = p->read ? p->read_arg : (void *)(intptr_t)p->pid;
	unsigned char *img;
	struct sym_module *mod = NULL;

	if (!rd || len > (1u << 20) || !(img = malloc(len)))
		return NULL;
	if (rd(arg, m->start, img, len) == (ssize_t)len) {
		int fd = memfd_create("pscope-vdso", MFD_CLOEXEC);
		if (fd >= 0 && write(fd, img, len) == (ssize_t)len)
			mod = sym_module_get(fd, "[vdso]", "[vdso]", 0, 0);
		else if (fd >= 0)
			close(fd);
	}
	free(img);
	return mod;
}

static void pmap_clear(struct sym_proc *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->m[i].name);
	free(p->m);
	p->m = NULL;
	p->n = 0;
}

static void cache_clear(struct sym_proc *p)
{
	hmap_clear(&p->cache);
	hmap_clear(&p->jit_gens);
}

/* Bind every executable mapping of p->maps, reusing what old already knew. */
static int bind(struct sym_proc *p, struct pmap *old, size_t nold)
{
	struct pmap *v = calloc(p->maps.n + 1, sizeof(*v));
	size_t n = 0;
	char real[PATH_MAX];

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < p->maps.n; i++) {
		const struct proc_map *m = &p->maps.v[i];
		if (m->perms[2] != 'x')
			continue;
		struct pmap *q = &v[n];
		*q = (struct pmap){ .start = m->start, .end = m->end, .off = m->offset, .inode = m->inode,
				    .deleted = m->deleted };
		bool reused = false;
		for (size_t k = 0; k < nold && !reused; k++) {
			struct pmap *o = &old[k];
			if (o->start == q->start && o->end == q->end && o->off == q->off && o->inode == q->inode &&
			    (o->kind == PM_MODULE || o->kind == PM_ANON)) {
				q->kind = o->kind;
				q->mod = o->mod;
				q->bias = o->bias;
				reused = true;
			}
		}
		if (reused) {
			n++;
			continue;
		}
		if (!m->path[0] || !strncmp(m->path, "[anon:", 6) || !strncmp(m->path, "/memfd:", 7)) {
			q->kind = PM_ANON;
		} else if (!strcmp(m->path, "[vdso]")) {
			q->mod = vdso_module(p, m);
			q->kind = q->mod ? PM_MODULE : PM_SPECIAL;
		} else if (m->path[0] == '/') {
			uint64_t dev = ((uint64_t)m->dev_major << 32) | m->dev_minor;
			/* A file another view has loaded: no need to open it
			 * again (one open per library per new process adds up
			 * when every process is sampled). */
			q->mod = m->deleted ? NULL : sym_module_find(dev, m->inode, m->path);
			if (!q->mod) {
				int fd = open_mapped(p, m, real, sizeof(real));
				/* A file its owner can rewrite while it is read
				 * is read from a private copy (sym/file.c). */
				int sfd = fd >= 0 ? sym_file_stable(fd) : -1;
				q->mod = sfd >= 0 ? sym_module_get(sfd, real, m->path, dev, m->inode) : NULL;
				if (fd >= 0 && sfd < 0)
					q->why = sym_file_why(sfd);
			}
			q->kind = q->mod ? PM_MODULE : PM_NOFILE;
		} else {
			q->kind = PM_SPECIAL;
		}
		if (q->mod && !hold(p, q->mod)) {
			q->mod = NULL;
			q->kind = PM_NOFILE;
		}
		if (q->mod && sym_load_bias(q->mod->ph, q->mod->nph, q->start, q->off, &q->bias) < 0)
			q->bias = q->start - q->off;
		if (q->kind == PM_NOFILE || q->kind == PM_SPECIAL) {
			const char *s = strrchr(m->path, '/');
			q->name = strdup(s && s[1] ? s + 1 : m->path);
			if (!q->name)
				q->kind = PM_ANON;
		}
		n++;
	}
	pmap_clear(p);
	p->m = v;
	p->n = n;
	return 0;
}

int sym_proc_refresh(struct sym_proc *p)
{
	char path[64];
	char *buf = NULL;
	size_t cap = 0;

	p->stale = false;
	p->refreshed_ns = now_ns();
	if (p->pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pid);
	ssize_t len = read_file_alloc_at(AT_FDCWD, path, &buf, &cap);
	if (len < 0) {
		free(buf);
		return (int)len;
	}
	int r = proc_maps_parse(buf, (size_t)len, false, &p->maps);
	free(buf);
	p->gen++;
	if (r < 0)
		return r;
	struct pmap *old = p->m;
	size_t nold = p->n;
	p->m = NULL;
	p->n = 0;
	r = bind(p, old, nold);
	for (size_t i = 0; i < nold; i++)
		free(old[i].name);
	free(old);
	cache_clear(p);
	return r;
}

static struct sym_proc *proc_new(pid_t pid, uid_t uid, unsigned opts)
{
	struct sym_proc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->pid = pid;
	p->uid = uid;
	p->opts = opts;
	p->anon_stale = true;
	return p;
}

struct sym_proc *sym_proc_live(pid_t pid, uid_t uid, unsigned opts)
{
	struct sym_proc *p = proc_new(pid, uid, opts);

	if (p && sym_proc_refresh(p) == -ENOMEM) {
		sym_proc_free(p);
		return NULL;
	}
	return p;
}

struct sym_proc *sym_proc_image(const struct sym_image *img, unsigned opts)
{
	struct sym_proc *p = proc_new(img->pid, img->uid, opts);

	if (!p)
		return NULL;
	p->read = img->read;
	p->read_arg = img->read_arg;
	if ((img->root && !(p->root = strdup(img->root))) ||
	    (img->maps ? proc_maps_copy(img->maps, &p->maps) < 0 || bind(p, NULL, 0) < 0
			: sym_proc_refresh(p) == -ENOMEM)) {
		sym_proc_free(p);
		return NULL;
	}
	p->refreshed_ns = now_ns();
	return p;
}

void sym_proc_free(struct sym_proc *p)
{
	if (!p)
		return;
	pmap_clear(p);
	for (size_t i = 0; i < p->nheld; i++)
		sym_module_put(p->held[i]);
	free(p->held);
	for (size_t i = 0; i < p->nowned; i++)
		sym_info_free(p->owned[i]);
	free(p->owned);
	hmap_free(&p->cache);
	hmap_free(&p->jit_gens);
	sym_jit_free(&p->jit);
	free(p->root);
	proc_maps_free(&p->maps);
	free(p);
}

void sym_proc_stale(struct sym_proc *p, bool anon)
{
	p->stale = true;
	if (anon)
		p->anon_stale = true;
}

void sym_proc_exec(struct sym_proc *p)
{
	pmap_clear(p);
	cache_clear(p);
	p->stale = p->anon_stale = true;
}

unsigned sym_proc_sync(struct sym_proc *p)
{
	if (p->stale && p->pid > 0)
		sym_proc_refresh(p);
	return p->gen;
}

size_t sym_proc_count(const struct sym_proc *p)
{
	return p->resolved;
}

const struct proc_maps *sym_proc_maps(const struct sym_proc *p)
{
	return &p->maps;
}

const struct proc_map *sym_proc_map(struct sym_proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->maps.n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (addr < p->maps.v[mid].start)
			hi = mid;
		else if (addr >= p->maps.v[mid].end)
			lo = mid + 1;
		else
			return &p->maps.v[mid];
	}
	return NULL;
}

static struct pmap *pmap_find(struct sym_proc *p, uint64_t pc)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (pc < p->m[mid].start)
			hi = mid;
		else if (pc >= p->m[mid].end)
			lo = mid + 1;
		else
			return &p->m[mid];
	}
	return NULL;
}

int sym_proc_eh_frame(struct sym_proc *p, uint64_t pc, uint64_t *addr, uint64_t *size)
{
	struct pmap *m = pmap_find(p, pc);
	uint64_t v;

	if (!m || m->kind != PM_MODULE || sym_module_section(m->mod, ".eh_frame", &v, size) < 0)
		return -ENOENT;
	*addr = v + m->bias;
	return 0;
}

static void poll_jit(struct sym_proc *p)
{
	p->anon_stale = false;
	sym_jit_poll(&p->jit, p->pid, p->uid, &p->maps, p->root);
}

/* A result the view owns: anonymous code, files it cannot open. */
static const struct sym_info *own(struct sym_proc *p, const char *function, const char *module, uint64_t rel,
				  unsigned flags)
{
	struct sym_info *s = calloc(1, sizeof(*s));
	struct sym_info **no = realloc(p->owned, (p->nowned + 1) * sizeof(*no));

	if (no)
		p->owned = no;
	if (!s || !no || !(s->function = sym_name_cut(function, strnlen(function, SYM_NAME_MAX + 1))) ||
	    (module && !(s->module = strdup(module)))) {
		sym_info_free(s);
		return &unknown_info;
	}
	s->rel = rel;
	s->flags = flags;
	p->owned[p->nowned++] = s;
	return s;
}

static const struct sym_info *resolve(struct sym_proc *p, uint64_t pc, bool activation)
{
	struct pmap *m = pmap_find(p, pc);
	char buf[PATH_MAX + 32];

	if (!m && p->pid > 0 && (p->stale || now_ns() - p->refreshed_ns > REFRESH_NS)) {
		/* Maybe mapped since the last read (an MMAP2 record still in
		 * another CPU's ring, a dlopen between two dumps). */
		sym_proc_refresh(p);
		m = pmap_find(p, pc);
	}
	if (!m)
		return &unknown_info;
	switch (m->kind) {
	case PM_MODULE:
		return sym_module_lookup(m->mod, pc - m->bias, activation, p->opts & SYM_SOURCE);
	case PM_ANON: {
		if (p->anon_stale)
			poll_jit(p);
		const char *name = sym_jit_name(&p->jit, pc);
		if (!name && now_ns() - p->jit.polled_ns > SYM_JIT_POLL_NS) {
			poll_jit(p);
			name = sym_jit_name(&p->jit, pc);
		}
		if (!name) {
			snprintf(buf, sizeof(buf), "[anon/JIT] (%s)", sym_jit_why(&p->jit));
			name = buf;
		}
		return own(p, name, "[anon/JIT]", pc - m->start, SYM_F_ANON);
	}
	case PM_NOFILE:
		/* The file is gone or unreadable: name the offset in it (and
		 * why the file was not read, when it was there). */
		snprintf(buf, sizeof(buf), m->why ? "%s+0x%llx (%s)" : "%s+0x%llx", m->name,
			 (unsigned long long)(pc - m->start + m->off), m->why);
		return own(p, buf, m->name, pc - m->start + m->off,
			   SYM_F_STRIPPED | (m->deleted ? SYM_F_DELETED : 0));
	case PM_SPECIAL:
		return own(p, m->name, m->name, pc - m->start, !strcmp(m->name, "[vdso]") ? SYM_F_VDSO : 0);
	}
	return &unknown_info;
}

const struct sym_info *sym_lookup(struct sym_proc *p, uint64_t pc, bool activation)
{
	uint64_t key = (pc << 1) | (activation ? 1 : 0);

	if (p->stale && p->pid > 0)
		sym_proc_refresh(p);
	const struct sym_info *s = hmap_get_ptr(&p->cache, key);
	if (s && !(s->flags & SYM_F_ANON))
		return s;
	if (s) {
		/* JIT code: its names grow while it runs. */
		if (!strncmp(s->function, "[anon/JIT] (", 12) && now_ns() - p->jit.polled_ns > SYM_JIT_POLL_NS)
			poll_jit(p);
		if (hmap_get(&p->jit_gens, key) == p->jit.gen)
			return s;
	}
	bool cached = s != NULL;
	s = resolve(p, pc, activation);
	if (!s)
		return &unknown_info;
	/* resolve() may have refreshed and cleared the cache: put it after. */
	if (hmap_put_ptr(&p->cache, key, s) < 0)
		return s; /* not cached: owned by its module or by p all the same */
	/* Anonymous code: with the names' generation it was resolved with. */
	if ((s->flags & SYM_F_ANON) && hmap_put(&p->jit_gens, key, p->jit.gen) < 0)
		hmap_put_ptr(&p->cache, key, NULL);
	if (!cached)
		p->resolved++;
	return s;
}

/* The module whose loaded image covers addr (data and .bss included). */
static struct pmap *module_at(struct sym_proc *p, uint64_t addr, uint64_t *rel)
{
	for (size_t i = 0; i < p->n; i++) {
		struct pmap *m = &p->m[i];
		if (m->kind != PM_MODULE)
			continue;
		uint64_t r = addr - m->bias;
		for (size_t k = 0; k < m->mod->nph; k++)
			if (r >= m->mod->ph[k].vaddr && r - m->mod->ph[k].vaddr < m->mod->ph[k].memsz) {
				*rel = r;
				return m;
			}
	}
	return NULL;
}

char *sym_data_name(struct sym_proc *p, uint64_t addr)
{
	uint64_t rel = 0;
	struct pmap *m = module_at(p, addr, &rel);
	return m ? sym_module_data_name(m->mod, rel) : NULL;
}

int sym_symbol_addr(struct sym_proc *p, const char *module_prefix, const char *name, uint64_t *addr,
		    uint64_t *size)
{
	size_t pl = module_prefix ? strlen(module_prefix) : 0;

	for (size_t i = 0; i < p->n; i++) {
		struct pmap *m = &p->m[i];
		uint64_t v;
		if (m->kind != PM_MODULE || strncmp(m->mod->name, module_prefix ? module_prefix : "", pl))
			continue;
		if (sym_module_symbol(m->mod, name, &v, size) == 0) {
			*addr = v + m->bias;
			return 0;
		}
	}
	return -ENOENT;
}
