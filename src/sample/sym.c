/* Symbolization for the sampler: libdwfl for the target's modules (reported
 * from /proc/PID/maps, re-reported when a new executable mapping appears),
 * /proc/kallsyms for kernel frames, /tmp/perf-PID.map for JIT code. The
 * callers cache results by pc; libdwfl caches per module. */
#include "sample/local.h"
#include "sample/sample.h"
#include "util.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct samp_sym {
	pid_t pid;
	uid_t uid;
	Dwfl *dwfl;
	bool modules_stale;
	uint64_t reported_ns;   /* last report of the modules */
	/* /tmp/perf-PID.map */
	bool anon_stale, anon_loaded;
	struct sym_range *jit;
	size_t njit;
	char *jit_pool;
	/* /proc/kallsyms */
	bool ksyms_tried;
	struct sym_range *ksyms;
	size_t nksyms;
	char *ksyms_pool;
	char name[512], module[512];
};

static char *debuginfo_path;
static __thread pid_t find_pid; /* the process the calling thread symbolizes */

/* A module whose file was deleted (or replaced, e.g. by an upgrade):
 * libdwfl can only read it from memory while ptrace-attached, so open
 * the mapping itself through /proc/PID/map_files (needs CAP_SYS_ADMIN)
 * or /proc/PID/exe (the main program). */
static int open_deleted(const char *name, Dwarf_Addr base)
{
	char path[96], *buf = NULL, *line, *save;
	size_t cap = 0;
	int fd = -1;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)find_pid);
	if (read_file_alloc_at(AT_FDCWD, path, &buf, &cap) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line && fd < 0; line = strtok_r(NULL, "\n", &save)) {
		unsigned long start, end, off;
		int used = 0;
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %n", &start, &end, &off, &used) < 3 || !used)
			continue;
		if (off != 0 || strcmp(line + used, name) || start > base + 0x200000 || end <= base)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/map_files/%lx-%lx", (int)find_pid, start, end);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	free(buf);
	if (fd < 0) {
		char exe[4096];
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)find_pid);
		ssize_t n = readlink(path, exe, sizeof(exe) - 1);
		if (n > 0) {
			exe[n] = '\0';
			if (!strcmp(exe, name))
				fd = open(path, O_RDONLY | O_CLOEXEC);
		}
	}
	return fd;
}

static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base, char **file_name,
		    Elf **elfp)
{
	const char *del = name ? strstr(name, " (deleted)") : NULL;

	if (del && !del[10] && find_pid > 0) {
		int fd = open_deleted(name, base);
		if (fd >= 0) {
			*file_name = strdup(name);
			return fd;
		}
	}
	return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
}

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static void report(struct samp_sym *y)
{
	if (!y->dwfl)
		y->dwfl = dwfl_begin(&proc_callbacks);
	if (!y->dwfl)
		return;
	find_pid = y->pid;
	dwfl_report_begin(y->dwfl);
	dwfl_linux_proc_report(y->dwfl, y->pid);
	dwfl_report_end(y->dwfl, NULL, NULL);
	y->modules_stale = false;
	y->reported_ns = now_ns();
}

struct samp_sym *sym_new(pid_t pid, uid_t uid)
{
	struct samp_sym *y = calloc(1, sizeof(*y));

	if (!y)
		return NULL;
	y->pid = pid;
	y->uid = uid;
	y->anon_stale = true;
	report(y);
	return y;
}

void sym_free(struct samp_sym *y)
{
	if (!y)
		return;
	if (y->dwfl)
		dwfl_end(y->dwfl);
	free(y->jit);
	free(y->jit_pool);
	free(y->ksyms);
	free(y->ksyms_pool);
	free(y);
}

void sym_modules_stale(struct samp_sym *y)
{
	y->modules_stale = true;
}

void sym_anon_stale(struct samp_sym *y)
{
	y->anon_stale = true;
}

static int range_cmp(const void *a, const void *b)
{
	const struct sym_range *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static const char *hex(const char *s, const char *end, uint64_t *v)
{
	const char *start = s;
	*v = 0;
	for (; s < end; s++) {
		int d = *s >= '0' && *s <= '9'   ? *s - '0'
			: *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
			: *s >= 'A' && *s <= 'F' ? *s - 'A' + 10
						 : -1;
		if (d < 0)
			break;
		*v = *v << 4 | (uint64_t)d;
	}
	return s > start ? s : NULL;
}

/* Shared by both parsers: lines of "HEX ..." into ranges. Hand-parsed:
 * kallsyms has over 100000 lines and sscanf made it the sampler's biggest
 * start-up cost. The pool is allocated once, so names point into it. */
static ssize_t parse_lines(const char *buf, size_t len, struct sym_range **out, char **pool, bool kallsyms)
{
	size_t cap = 0, n = 0, plen = 0;
	struct sym_range *r = NULL;
	char *p = malloc(len + 1);
	const char *s = buf, *end = buf + len;

	*out = NULL;
	*pool = NULL;
	if (!p)
		return -ENOMEM;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end, *q;
		const char *name, *name_end, *mod = NULL, *mod_end = NULL;
		uint64_t a, sz = 0;

		q = hex(s, le, &a);
		s = le + 1;
		if (!q || q == le || *q != ' ')
			continue;
		q++;
		if (kallsyms) {
			if (q + 2 > le || q[1] != ' ' || (q[0] != 't' && q[0] != 'T' && q[0] != 'w' && q[0] != 'W'))
				continue;
			q += 2;
		} else {
			q = hex(q, le, &sz);
			if (!q || q == le || *q != ' ')
				continue;
			q++;
		}
		name = q;
		name_end = le;
		if (kallsyms) {
			const char *tab = memchr(name, '\t', (size_t)(le - name));
			if (tab) {
				name_end = tab;
				mod = tab + 1;
				mod_end = le;
			}
		}
		if (name_end == name)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			struct sym_range *nr = realloc(r, cap * sizeof(*r));
			if (!nr) {
				free(r);
				free(p);
				return -ENOMEM;
			}
			r = nr;
		}
		r[n].start = a;
		r[n].size = sz;
		r[n].name = p + plen;
		memcpy(p + plen, name, (size_t)(name_end - name));
		plen += (size_t)(name_end - name);
		p[plen++] = '\0';
		r[n].module = NULL;
		if (mod && mod_end > mod) {
			r[n].module = p + plen;
			memcpy(p + plen, mod, (size_t)(mod_end - mod));
			plen += (size_t)(mod_end - mod);
			p[plen++] = '\0';
		}
		n++;
	}
	if (n)
		qsort(r, n, sizeof(*r), range_cmp);
	*out = r;
	*pool = p;
	return (ssize_t)n;
}

ssize_t sym_perfmap_parse(const char *buf, size_t len, struct sym_range **out, char **pool)
{
	return parse_lines(buf, len, out, pool, false);
}

ssize_t sym_kallsyms_parse(const char *buf, size_t len, struct sym_range **out, char **pool)
{
	ssize_t n = parse_lines(buf, len, out, pool, true);
	/* kptr_restrict: every address reads as 0, which names nothing. */
	if (n > 0 && (*out)[n - 1].start == 0) {
		free(*out);
		free(*pool);
		*out = NULL;
		*pool = NULL;
		return 0;
	}
	return n;
}

const struct sym_range *sym_range_find(const struct sym_range *r, size_t n, uint64_t pc, bool sized)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* first range starting above pc */
		size_t mid = lo + (hi - lo) / 2;
		if (r[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct sym_range *c = &r[lo - 1];
	if (sized && pc - c->start >= c->size)
		return NULL;
	return c;
}

static void load_perfmap(struct samp_sym *y)
{
	char path[64], *buf = NULL;
	struct stat sb;
	int fd;

	y->anon_stale = false;
	free(y->jit);
	free(y->jit_pool);
	y->jit = NULL;
	y->jit_pool = NULL;
	y->njit = 0;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)y->pid);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	/* Like perf: only a regular file owned by the target's user (or root),
	 * so nobody else can put names on its code. */
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || (sb.st_uid != y->uid && sb.st_uid != 0) ||
	    sb.st_size > (64 << 20)) {
		close(fd);
		return;
	}
	ssize_t len = 0;
	size_t cap = (size_t)sb.st_size + 1;
	buf = malloc(cap);
	while (buf && (size_t)len + 1 < cap) {
		ssize_t r = read(fd, buf + len, cap - 1 - (size_t)len);
		if (r <= 0)
			break;
		len += r;
	}
	close(fd);
	if (buf) {
		ssize_t n = sym_perfmap_parse(buf, (size_t)len, &y->jit, &y->jit_pool);
		y->njit = n > 0 ? (size_t)n : 0;
	}
	free(buf);
}

static void load_kallsyms(struct samp_sym *y)
{
	char *buf = NULL;
	size_t cap = 0;

	y->ksyms_tried = true;
	ssize_t len = read_file_alloc_at(AT_FDCWD, "/proc/kallsyms", &buf, &cap);
	if (len > 0) {
		ssize_t n = sym_kallsyms_parse(buf, (size_t)len, &y->ksyms, &y->ksyms_pool);
		y->nksyms = n > 0 ? (size_t)n : 0;
	}
	free(buf);
}

bool sym_kernel_named(struct samp_sym *y)
{
	if (!y->ksyms_tried)
		load_kallsyms(y);
	return y->nksyms > 0;
}

void sym_kernel(struct samp_sym *y, uint64_t pc, struct sym_info *out)
{
	memset(out, 0, sizeof(*out));
	out->flags = SAMP_F_KERNEL;
	out->name = "[kernel]";
	out->module = "[kernel]";
	if (!sym_kernel_named(y))
		return;
	const struct sym_range *r = sym_range_find(y->ksyms, y->nksyms, pc, false);
	if (!r)
		return;
	out->name = r->name;
	if (r->module) {
		snprintf(y->module, sizeof(y->module), "%s", r->module); /* already "[mod]" */
		out->module = y->module;
	}
}

void sym_user(struct samp_sym *y, uint64_t pc, struct sym_info *out)
{
	Dwfl_Module *mod = NULL;

	memset(out, 0, sizeof(*out));
	find_pid = y->pid;
	if (y->modules_stale)
		report(y);
	if (y->dwfl)
		mod = dwfl_addrmodule(y->dwfl, pc);
	if (!mod && y->dwfl && now_ns() - y->reported_ns > 200000000ULL) {
		/* Maybe a library mapped since the last report whose MMAP2
		 * record is still in another CPU's ring: look again (at most
		 * five times a second, for JIT code that no module holds). */
		report(y);
		mod = dwfl_addrmodule(y->dwfl, pc);
	}
	if (!mod) {
		if (y->anon_stale || !y->anon_loaded) {
			y->anon_loaded = true;
			load_perfmap(y);
		}
		const struct sym_range *r = sym_range_find(y->jit, y->njit, pc, true);
		out->flags = SAMP_F_ANON;
		out->module = "[anon/JIT]";
		out->name = r ? r->name : "[anon/JIT]";
		return;
	}
	const char *mname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	snprintf(y->module, sizeof(y->module), "%s", mname ? mname : "?");
	out->module = y->module;
	if (strstr(y->module, " (deleted)"))
		out->flags |= SAMP_F_DELETED;

	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, pc, &off, &sym, NULL, NULL, NULL);
	if (!name || !*name) {
		out->flags |= SAMP_F_STRIPPED;
		out->name = "[stripped]";
		return;
	}
	snprintf(y->name, sizeof(y->name), "%s", name);
	out->name = y->name;

	Dwarf_Addr bias;
	if (dwfl_module_getdwarf(mod, &bias)) {
		Dwfl_Line *l = dwfl_module_getsrc(mod, pc - off);
		int line = 0;
		const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
		if (file) {
			out->file = file;
			out->line = line;
		}
	}
}
