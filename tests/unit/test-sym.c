/* The symbolizer: load bias, demangling, the maps parser's smaps fields,
 * and views of this very process (live and as an image): names of code,
 * data never naming code, [unknown], [anon/JIT], modules shared between
 * views. */
#include "proc/maps.h"
#include "sym/local.h"
#include "sym/sym.h"
#include "tap.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

int sym_test_global_table[64];

__attribute__((noinline)) int sym_test_function(int x)
{
	return x * 3 + sym_test_global_table[x & 63];
}

static ssize_t self_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	memcpy(buf, (const void *)(uintptr_t)addr, len);
	return (ssize_t)len;
}

static void test_bias(void)
{
	/* A PIE: text at vaddr 0x1000, file offset 0x1000. */
	struct sym_phdr pie[] = { { 0, 0, 0xc28, 0xc28 }, { 0x1000, 0x1000, 0x895, 0x895 },
				  { 0x3dd0, 0x2dd0, 0x300, 0x370 } };
	uint64_t b = 0;
	is_int(sym_load_bias(pie, 3, 0x555500001000, 0x1000, &b), 0, "PIE text mapping: bias found");
	is_int(b, 0x555500000000, "PIE bias is the load address");
	is_int(sym_load_bias(pie, 3, 0x555500003000, 0x2000, &b), 0, "data mapping of a segment not page-aligned");
	is_int(b, 0x555500000000, "same bias from the data mapping");
	/* Non-PIE: vaddr 0x401000 at offset 0x1000, mapped there. */
	struct sym_phdr ex[] = { { 0x400000, 0, 0x500, 0x500 }, { 0x401000, 0x1000, 0x2000, 0x2000 } };
	is_int(sym_load_bias(ex, 2, 0x401000, 0x1000, &b), 0, "ET_EXEC text");
	is_int(b, 0, "ET_EXEC bias 0");
	is_int(sym_load_bias(ex, 2, 0x900000, 0x90000, &b), -ENOENT, "an offset no segment covers");
	/* lld (rustc): the text starts in the headers' last file page, one
	 * page further in memory; both segments cover the page. */
	struct sym_phdr lld[] = { { 0, 0, 0x15438, 0x15438 }, { 0x16440, 0x15440, 0x410c0, 0x410c0 },
				  { 0x58500, 0x56500, 0x2bd8, 0x3b00 } };
	is_int(sym_load_bias(lld, 3, 0x555500016000, 0x15000, &b), 0, "lld text mapping sharing a page");
	is_int(b, 0x555500000000, "... its bias from the text segment, not the headers'");
	is_int(sym_load_bias(lld, 3, 0x555500058000, 0x56000, &b), 0, "lld RELRO mapping");
	is_int(b, 0x555500000000, "... the same bias");
	is_int(sym_load_bias(lld, 3, 0x555500000000, 0, &b), 0, "lld headers mapping");
	is_int(b, 0x555500000000, "... the same bias");
}

/* Whether this process maps the C++ runtime. */
static bool stdcxx_mapped(void)
{
	char line[4096];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "/libstdc++.so") != NULL;
	fclose(f);
	return found;
}

static void test_demangle(void)
{
	/* libiberty's demangler is linked in: the C++ runtime is never
	 * loaded for names (a sanitizer build links it through libubsan). */
	bool linked = stdcxx_mapped();

	ok(sym_demangle("main") == NULL, "a C name is left alone");
	char *d = sym_demangle("_ZN3hot6WorkerIiE4spinEj");
	is_str(d ? d : "(null)", "hot::Worker<int>::spin(unsigned int)", "C++ name demangled");
	free(d);
	if (linked)
		ok(1, "# SKIP the C++ runtime is linked into this build");
	else
		ok(!stdcxx_mapped(), "demangling loads no C++ runtime");
	ok(sym_demangle("_Z!!garbage") == NULL, "not a valid mangling: left alone");
	ok(sym_demangle(NULL) == NULL, "NULL is no name");

	/* A symbol bomb: each level's type is two of the one before, 24
	 * levels (about 500 MB in full). Cut at the cap, quickly. */
	char bomb[512] = "_Z4spinI";
	for (int i = 0; i < 24; i++)
		strcat(bomb, "PFv");
	strcat(bomb, "Pi");
	for (int i = 0; i < 24; i++)
		strcat(bomb, i ? "S0_S0_E" : "S_S_E");
	strcat(bomb, "EvT_");
	uint64_t t0 = now_ns();
	d = sym_demangle(bomb);
	double ms = (double)(now_ns() - t0) / 1e6;
	ok(d && !strncmp(d, "void spin<void (*)(void (*)(", 28), "a symbol bomb demangles (%.40s...)", d ? d : "(null)");
	const char *mark = d ? strstr(d, "…[name cut at 1024 bytes]") : NULL;
	ok(mark && !mark[strlen("…[name cut at 1024 bytes]")], "... cut, ending with the mark");
	ok(mark && (size_t)(mark - d) <= SYM_NAME_MAX && (size_t)(mark - d) > SYM_NAME_MAX - 4,
	   "... at the cap (%zu bytes kept)", mark ? (size_t)(mark - d) : 0);
	ok(ms < 500, "... in %.1f ms, not the seconds a full demangling takes", ms);
	free(d);
	char *longm = malloc(SYM_MANGLED_MAX + 8);
	memset(longm, 'a', SYM_MANGLED_MAX + 7);
	memcpy(longm, "_Z3foo", 6);
	longm[SYM_MANGLED_MAX + 7] = '\0';
	ok(sym_demangle(longm) == NULL, "a mangled name over %d bytes is not demangled", SYM_MANGLED_MAX);
	free(longm);

	/* Raw names: kept whole up to the cap, cut with the mark past it,
	 * never in the middle of a UTF-8 character. */
	char raw[SYM_NAME_MAX + 100];
	memset(raw, 'x', sizeof(raw));
	char *c = sym_name_cut(raw, SYM_NAME_MAX);
	ok(c && strlen(c) == SYM_NAME_MAX && !strchr(c, '[' ), "a name of exactly the cap is kept whole");
	free(c);
	c = sym_name_cut(raw, sizeof(raw));
	ok(c && strlen(c) == SYM_NAME_MAX + strlen("…[name cut at 1024 bytes]") &&
		   !strcmp(c + SYM_NAME_MAX, "…[name cut at 1024 bytes]"),
	   "a longer name: the cap, then the mark");
	free(c);
	for (size_t i = SYM_NAME_MAX - 2; i + 2 < sizeof(raw); i += 3)
		memcpy(raw + i, "가", 3); /* a 3-byte character across the cut */
	c = sym_name_cut(raw, sizeof(raw));
	const char *m2 = c ? strstr(c, "…[name cut") : NULL;
	ok(m2 && (size_t)(m2 - c) == SYM_NAME_MAX - 2, "the cut backs off to a whole character (%zu)",
	   m2 ? (size_t)(m2 - c) : 0);
	free(c);
}

/* Files another user can change: read from a sealed copy, never in place. */
static void test_file_stable(void)
{
	char path[] = "/tmp/pscope-test-sym.XXXXXX";
	int fd = mkstemp(path);
	struct stat st;

	ok(fd >= 0 && write(fd, "hello, file", 11) == 11, "a file to copy");
	fchmod(fd, 0666); /* others may write it */
	fstat(fd, &st);
	ok(!sym_file_trusted(fd, &st), "writable by others: not trusted");
	int c = sym_file_stable(dup(fd));
	ok(c >= 0 && c != fd, "copied");
	ok(ftruncate(fd, 0) == 0 && write(fd, "junk", 4) == 4, "the original cut and rewritten");
	char buf[32] = { 0 };
	ok(c >= 0 && pread(c, buf, sizeof(buf), 0) == 11 && !memcmp(buf, "hello, file", 11), "the copy is unchanged");
	ok(c >= 0 && ftruncate(c, 0) < 0 && errno == EPERM, "the copy is sealed: it cannot be cut");
	ok(c >= 0 && fstat(c, &st) == 0 && sym_file_trusted(c, &st), "and is trusted");
	ok(sym_file_stable(c) == c, "a trusted file is used as it is");
	close(c);
	fchmod(fd, 0644);
	fstat(fd, &st);
	ok(st.st_uid != 0 || sym_file_trusted(fd, &st), "root's, not writable by others: trusted");
	unlink(path);
	close(fd);
	ok(sym_file_stable(open("/dev/null", O_RDONLY)) == -EINVAL, "a device is refused");
	ok(!strcmp(sym_file_why(-ESTALE), "the file changed while it was read"), "the reason of a change");

	/* A file that never holds still: a process's /proc file says size 0
	 * and reads more. Another user's (a child that became nobody) is not
	 * trusted, and its copy never matches its size. */
	int pfd[2];
	pid_t kid = getuid() == 0 && pipe(pfd) == 0 ? fork() : -1;
	if (kid == 0) {
		char b;
		close(pfd[1]);
		/* Dumpable again after the change, or its /proc files stay root's. */
		if (setresgid(65534, 65534, 65534) == 0 && setresuid(65534, 65534, 65534) == 0 &&
		    prctl(PR_SET_DUMPABLE, 1) == 0)
			(void)!read(pfd[0], &b, 1); /* until the parent is done */
		_exit(0);
	}
	if (kid > 0) {
		char pp[64];
		close(pfd[0]);
		snprintf(pp, sizeof(pp), "/proc/%d/status", (int)kid);
		/* The child is ready once its /proc files are nobody's. */
		struct stat ps = { 0 };
		for (int i = 0; i < 5000 && (stat(pp, &ps) < 0 || ps.st_uid != 65534); i++)
			usleep(1000);
		ok(sym_file_stable(open(pp, O_RDONLY)) == -ESTALE, "a file that reads more than its size: it changed");
		close(pfd[1]);
		waitpid(kid, NULL, 0);
	} else {
		ok(1, "# SKIP not root: no file of another user's that never holds still");
	}
}

/* Paths a target names: regular files only, never blocking on a FIFO nor
 * opening a device. */
static void test_open_regular(void)
{
	char dir[] = "/tmp/pscope-test-open.XXXXXX", p[96], l[96];

	ok(mkdtemp(dir) != NULL, "a directory for the paths");
	snprintf(p, sizeof(p), "%s/fifo", dir);
	ok(mkfifo(p, 0600) == 0, "a FIFO");
	is_int(sym_open_regular(AT_FDCWD, p), -EINVAL, "a FIFO is refused, without waiting for a writer");
	unlink(p);
	is_int(sym_open_regular(AT_FDCWD, "/dev/null"), -EINVAL, "a device is refused");
	is_int(sym_open_regular(AT_FDCWD, dir), -EINVAL, "a directory is refused");
	snprintf(p, sizeof(p), "%s/file", dir);
	int w = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ok(w >= 0 && write(w, "text", 4) == 4, "a regular file");
	close(w);
	snprintf(l, sizeof(l), "%s/link", dir);
	ok(symlink(p, l) == 0, "a link to it");
	int fd = sym_open_regular(AT_FDCWD, l);
	char b[8] = { 0 };
	ok(fd >= 0 && read(fd, b, sizeof(b)) == 4 && !memcmp(b, "text", 4), "opened (through the link) and read");
	ok(fd >= 0 && write(fd, "x", 1) < 0, "read-only");
	ok(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC), "close-on-exec");
	if (fd >= 0)
		close(fd);
	is_int(sym_open_regular(AT_FDCWD, "/nonexistent/x"), -ENOENT, "a missing file: its errno");
	unlink(l);
	unlink(p);
	rmdir(dir);
}

static void test_smaps(void)
{
	static const char smaps[] = "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"
				    "Rss:                   8 kB\n"
				    "Anonymous:             4 kB\n"
				    "VmFlags: rd wr mr mw me dd ac\n"
				    "7f0000002000-7f0000003000 r-xp 00001000 fe:01 42   /usr/lib/a b.so\n"
				    "VmFlags: rd ex mr mw me sh\n";
	struct proc_maps m = { 0 }, c = { 0 };

	is_int(proc_maps_parse(smaps, sizeof(smaps) - 1, true, &m), 0, "smaps parses");
	is_int(m.n, 2, "two mappings");
	is_int(m.v[0].anon_kb, 4, "Anonymous kB");
	ok(m.v[0].vmflags == PROC_VMF_DD, "VmFlags dd (and nothing else of interest)");
	ok(m.v[1].vmflags == PROC_VMF_SH, "VmFlags sh");
	is_int(proc_maps_copy(&m, &c), 0, "copy");
	proc_maps_free(&m);
	is_str(c.v[1].path, "/usr/lib/a b.so", "the copy owns its paths");
	is_int(c.v[1].inode, 42, "inode kept");
	proc_maps_free(&c);
}

static void test_self(void)
{
	struct sym_proc *p = sym_proc_live(getpid(), getuid(), SYM_SOURCE);
	const struct sym_info *s;
	uint64_t fn = (uint64_t)(uintptr_t)&sym_test_function;

	ok(p != NULL, "a view of this process");
	s = sym_lookup(p, fn + 2, true);
	is_str(s->function, "sym_test_function", "own function named");
	is_int(s->offset, 2, "offset from the symbol");
	is_str(s->module, "test-sym", "module short name");
	ok(s->file && strstr(s->file, "test-sym.c") && s->line > 0, "file:line from DWARF (%s:%d)",
	   s->file ? s->file : "-", s->line);
	ok(sym_lookup(p, fn + 2, true) == s, "second lookup: the cached entry");
	s = sym_lookup(p, fn, false);
	ok(strcmp(s->function, "sym_test_function") != 0, "a return address at a function's start names the call before it (%s)",
	   s->function);

	s = sym_lookup(p, 0x10, true);
	is_str(s->function, "[unknown]", "an address in no mapping is [unknown]");
	ok(s->flags & SYM_F_UNKNOWN, "flagged unknown");
	s = sym_lookup(p, (uint64_t)(uintptr_t)&sym_test_global_table[3], true);
	is_str(s->function, "[unknown]", "a data address is no code: [unknown], not the data symbol");

	char *dn = sym_data_name(p, (uint64_t)(uintptr_t)&sym_test_global_table[2]);
	is_str(dn ? dn : "(null)", "sym_test_global_table+0x8", "data name with offset");
	free(dn);
	ok(sym_data_name(p, fn) == NULL, "a function is no data name");

	uint64_t a = 0, sz = 0;
	is_int(sym_symbol_addr(p, "test-sym", "sym_test_function", &a, &sz), 0, "symbol by name");
	ok(a == fn && sz > 0, "at the function's run-time address");
	is_int(sym_symbol_addr(p, "libc", "no_such_symbol_here", &a, NULL), -ENOENT, "a missing symbol");

	void *jit = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (jit != MAP_FAILED) {
		sym_proc_stale(p, true);
		s = sym_lookup(p, (uint64_t)(uintptr_t)jit + 16, true);
		is_str(s->function, "[anon/JIT] (no perf map or jitdump)",
		       "anonymous executable memory is [anon/JIT], and why it has no name");
		ok(s->flags & SYM_F_ANON, "flagged anon");
		munmap(jit, 4096);
	}

	/* A second view shares the modules. */
	size_t before = sym_module_count();
	struct sym_proc *q = sym_proc_live(getpid(), getuid(), 0);
	is_int(sym_module_count(), before, "a second view of the same files loads no module");
	s = sym_lookup(q, fn + 2, true);
	is_str(s->function, "sym_test_function", "second view names it too");
	ok(s->file == NULL, "without SYM_SOURCE no file:line");
	sym_proc_free(q);

	/* The same address space as an image (how a core is read). */
	struct sym_image img = { .maps = sym_proc_maps(p), .read = self_read };
	struct sym_proc *im = sym_proc_image(&img, 0);
	ok(im != NULL, "an image view");
	if (im) {
		s = sym_lookup(im, fn + 2, true);
		is_str(s->function, "sym_test_function", "image view names the function");
		s = sym_lookup(im, (uint64_t)(uintptr_t)&getpid, true);
		ok(!(s->flags & (SYM_F_UNKNOWN | SYM_F_STRIPPED)), "and libc (%s)", s->function);
		sym_proc_free(im);
	}
	sym_proc_free(p);
	is_int(sym_module_count(), 0, "every module released with its last view");
}

/* jitdump records, built as a runtime writes them. */
static size_t jd_load(unsigned char *b, uint64_t addr, uint64_t size, const char *name)
{
	size_t nl = strlen(name) + 1, n = 16 + 8 + 32 + nl + 2;
	uint32_t id = 0, tsize = (uint32_t)n;
	memset(b, 0, n);
	memcpy(b, &id, 4);
	memcpy(b + 4, &tsize, 4);
	memcpy(b + 24 + 8, &addr, 8);
	memcpy(b + 24 + 16, &size, 8);
	memcpy(b + 24 + 32, name, nl);
	return n;
}

static void test_jit(void)
{
	static const char jdk[] = "0x00007f44e4ec71c0 0x0000000000000270 long Busy.fib(int)\n"
				  "0X00007f44e4ec8000 0X10 Interpreter\n0x 0x10 nothing\n";
	struct sym_range *r;
	char *pool;
	ssize_t n = sym_perfmap_parse(jdk, sizeof(jdk) - 1, &r, &pool);
	is_int(n, 2, "JDK perf map: 0x and 0X prefixes read, a bare 0x is no number");
	const struct sym_range *f = sym_range_find(r, n > 0 ? (size_t)n : 0, 0x7f44e4ec7200, true);
	is_str(f ? f->name : NULL, "long Busy.fib(int)", "JDK perf map: the entry's name");
	free(r);
	free(pool);

	unsigned char b[1024];
	uint32_t hdr[10] = { 0x4A695444, 1, 40, 62, 0, 42 };
	memcpy(b, hdr, 40);
	size_t l = 40;
	l += jd_load(b + l, 0x10000, 0x40, "jit_alpha");
	size_t second = l;
	l += jd_load(b + l, 0x20000, 0x20, "jit_beta");
	size_t used;
	n = sym_jitdump_parse(b, l - 3, true, &used, &r, &pool);
	is_int(n, 1, "jitdump: a record still being written is not read");
	ok(used == second, "jitdump: the next read starts at the record being written");
	f = n > 0 ? sym_range_find(r, (size_t)n, 0x10010, true) : NULL;
	is_str(f ? f->name : NULL, "jit_alpha", "jitdump: JIT_CODE_LOAD's name and range");
	free(r);
	free(pool);
	n = sym_jitdump_parse(b + used, l - used, false, &used, &r, &pool);
	is_int(n, 1, "jitdump: the rest read from where the last read stopped");
	f = n > 0 ? sym_range_find(r, (size_t)n, 0x2001f, true) : NULL;
	is_str(f ? f->name : NULL, "jit_beta", "jitdump: the second function");
	free(r);
	free(pool);
	b[0] ^= 0xff;
	is_int(sym_jitdump_parse(b, l, true, &used, &r, &pool), -EINVAL, "jitdump: a wrong magic is refused");
	b[0] ^= 0xff;
	uint32_t tiny = 8;
	memcpy(b + second + 4, &tiny, 4);
	n = sym_jitdump_parse(b, l, true, &used, &r, &pool);
	ok(n == 1 && used == second, "jitdump: a record shorter than its header ends the read");
	free(r);
	free(pool);
}

/* .eh_frame as gcc -static leaves it (no .eh_frame_hdr): a "zR" CIE with
 * pcrel|sdata4 FDE pointers, two FDEs out of order, a broken record. */
static size_t put32(unsigned char *b, size_t at, uint32_t v)
{
	memcpy(b + at, &v, 4);
	return at + 4;
}

static size_t fde_at(unsigned char *b, size_t at, size_t cie, uint64_t addr, uint64_t pc, uint32_t range)
{
	at = put32(b, at, 12);                                  /* length */
	at = put32(b, at, (uint32_t)(at - cie));                /* CIE pointer */
	at = put32(b, at, (uint32_t)(int32_t)(pc - (addr + at))); /* pcrel */
	at = put32(b, at, range);
	return at;
}

static void test_ehframe(void)
{
	unsigned char b[128] = { 0 };
	const uint64_t at = 0x48b000;
	struct sym_fde *f;
	/* CIE: length 16, id 0, version 1, "zR", code 1, data -8, ra 16,
	 * augmentation length 1, R = 0x1b; padded with DW_CFA_nop. */
	static const unsigned char cie[] = { 16, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b, 0, 0, 0 };
	memcpy(b, cie, sizeof(cie));
	size_t o = fde_at(b, sizeof(cie), 0, at, 0x401800, 0x40);
	o = fde_at(b, o, 0, at, 0x401000, 0x10);
	size_t second = sizeof(cie) + 16;
	o = put32(b, o, 0); /* the terminator */
	ssize_t n = sym_ehframe_index(b, o, at, &f);
	ok(n == 2, "two FDEs indexed (%zd)", n);
	ok(n == 2 && f[0].pc == 0x401000 && f[0].fde == at + second && f[1].pc == 0x401800 &&
		   f[1].fde == at + sizeof(cie),
	   "sorted by pc, each with its FDE's run-time address");
	free(f);
	put32(b, sizeof(cie), 0xfff0); /* the first FDE's length past the end */
	n = sym_ehframe_index(b, o, at, &f);
	ok(n == 0, "a record running past the section ends the index (%zd)", n);
	free(f);
	ok(sym_ehframe_index(b, 3, at, &f) == 0, "too short: nothing");
	free(f);
}

int main(void)
{
	test_bias();
	test_demangle();
	test_file_stable();
	test_open_regular();
	test_smaps();
	test_self();
	test_jit();
	test_ehframe();
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
