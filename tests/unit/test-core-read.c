/* The core reader's pure parsers on made-up cores: the notes written by
 * the core writer's own note builder read back, notes with wrong sizes and
 * counts, every cut of a notes buffer and many random corruptions (run
 * under ASan in CI: none may read out of bounds). */
#include "core/notes.h"
#include "core/read.h"
#include "core/where.h"

#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/procfs.h>

#include "tap.h"

#ifndef NT_SIGINFO
#define NT_SIGINFO 0x53494749
#endif
#ifndef NT_FILE
#define NT_FILE 0x46494c45
#endif

static void add_prstatus(struct core_notes *nb, pid_t tid, int sig, size_t size)
{
	struct elf_prstatus pr;

	memset(&pr, 0, sizeof(pr));
	pr.pr_pid = tid;
	pr.pr_cursig = (short)sig;
	struct user_regs_struct r = { .rip = 0x401000 + (unsigned long)tid, .rsp = 0x7ffd0000, .orig_rax = 202 };
	memcpy(pr.pr_reg, &r, sizeof(r));
	core_note_add(nb, "CORE", NT_PRSTATUS, &pr, size);
}

static void add_file(struct core_notes *nb, uint64_t count, int bad_names)
{
	unsigned char d[512];
	uint64_t h[2] = { count, 4096 };
	uint64_t e[2][3] = { { 0x400000, 0x401000, 0 }, { 0x401000, 0x403000, 1 } };
	size_t n = 0;

	memcpy(d, h, 16);
	memcpy(d + 16, e, sizeof(e));
	n = 16 + sizeof(e);
	memcpy(d + n, "/bin/prog\0/bin/prog", bad_names ? 19 : 20);
	n += bad_names ? 19 : 20;
	core_note_add(nb, "CORE", NT_FILE, d, n);
}

static void build_good(struct core_notes *nb)
{
	struct elf_prpsinfo ps;
	unsigned char si[128];
	uint64_t auxv[6] = { AT_ENTRY, 0x401010, AT_PHDR, 0x400040, AT_NULL, 0 };

	add_prstatus(nb, 100, SIGSEGV, sizeof(struct elf_prstatus));
	memset(&ps, 0, sizeof(ps));
	ps.pr_sname = 'R';
	ps.pr_pid = 100;
	ps.pr_uid = 1000;
	strcpy(ps.pr_fname, "prog");
	strcpy(ps.pr_psargs, "prog -x ");
	core_note_add(nb, "CORE", NT_PRPSINFO, &ps, sizeof(ps));
	memset(si, 0, sizeof(si));
	int32_t w[3] = { SIGSEGV, 0, SEGV_MAPERR };
	uint64_t addr = 0x10;
	memcpy(si, w, sizeof(w));
	memcpy(si + 16, &addr, 8);
	core_note_add(nb, "CORE", NT_SIGINFO, si, sizeof(si));
	core_note_add(nb, "CORE", NT_AUXV, auxv, sizeof(auxv));
	add_file(nb, 2, 0);
	core_note_add(nb, "LINUX", 0x202, "xstate", 6);
	add_prstatus(nb, 101, SIGSEGV, sizeof(struct elf_prstatus));
}

static bool warned(const struct core_info *ci, const char *part)
{
	for (size_t i = 0; i < ci->n_warnings; i++)
		if (strstr(ci->warnings[i], part))
			return true;
	return false;
}

static void test_good(void)
{
	struct core_notes nb = { 0 };
	struct core_info ci = { 0 };

	build_good(&nb);
	is_int(core_notes_parse(nb.buf, nb.len, &ci), 0, "notes parse");
	is_int(ci.n_threads, 2, "two threads");
	is_int(ci.threads[0].tid, 100, "first thread: the one reported first");
	ok(ci.threads[0].regs_ok && ci.threads[0].regs.rip == 0x401064 && ci.threads[0].regs.orig_rax == 202,
	   "registers from NT_PRSTATUS");
	ok(ci.threads[0].crashed && !ci.threads[1].crashed, "NT_SIGINFO marks the thread before it");
	ok(ci.sig.valid && ci.sig.signo == SIGSEGV && ci.sig.code == SEGV_MAPERR && ci.sig.addr == 0x10,
	   "signal, code, fault address");
	ok(ci.have_psinfo && ci.state == 'R' && ci.uid == 1000 && ci.pid == 100, "NT_PRPSINFO");
	is_str(ci.fname, "prog", "program name");
	is_str(ci.psargs, "prog -x", "command line without the trailing separator");
	ok(ci.auxv_entry == 0x401010 && ci.auxv_phdr == 0x400040, "AT_ENTRY, AT_PHDR");
	is_int(ci.n_files, 2, "NT_FILE: two files");
	ok(ci.files[1].start == 0x401000 && ci.files[1].pgoff == 4096, "NT_FILE offsets in bytes");
	is_str(ci.files[0].path, "/bin/prog", "NT_FILE path");
	is_int(ci.n_warnings, 0, "no warning");
	core_info_free(&ci);
	core_notes_free(&nb);
}

static void test_bad_sizes(void)
{
	struct core_notes nb = { 0 };
	struct core_info ci = { 0 };
	struct elf_prpsinfo ps = { 0 };

	add_prstatus(&nb, 7, 0, 100);
	core_note_add(&nb, "CORE", NT_PRPSINFO, &ps, 10);
	core_note_add(&nb, "CORE", NT_SIGINFO, "abc", 3);
	add_file(&nb, 1000000, 0);
	core_notes_parse(nb.buf, nb.len, &ci);
	ok(ci.n_threads == 1 && ci.threads[0].tid == 7 && !ci.threads[0].regs_ok, "a short NT_PRSTATUS: the thread, no registers");
	ok(warned(&ci, "its registers are lost"), "... said");
	ok(!ci.have_psinfo && warned(&ci, "NT_PRPSINFO has 10 bytes"), "a short NT_PRPSINFO is said");
	ok(!ci.sig.valid && warned(&ci, "NT_SIGINFO has 3 bytes"), "a short NT_SIGINFO is said");
	ok(warned(&ci, "NT_FILE says 1000000 files but has room for"), "an NT_FILE count past its size is said");
	core_info_free(&ci);
	core_notes_free(&nb);

	memset(&nb, 0, sizeof(nb));
	memset(&ci, 0, sizeof(ci));
	add_file(&nb, 2, 1);
	core_notes_parse(nb.buf, nb.len, &ci);
	ok(ci.n_files == 1 && warned(&ci, "ends inside the name of file 2"), "an unterminated name: the files before it");
	core_info_free(&ci);
	core_notes_free(&nb);
}

static bool note_boundary(const struct core_notes *nb, size_t len)
{
	size_t off = 0;

	while (off < len) {
		Elf64_Nhdr nh;
		memcpy(&nh, nb->buf + off, sizeof(nh));
		size_t end = off + sizeof(nh) + ((nh.n_namesz + 3u) & ~3u) + nh.n_descsz;
		off = end + (-nh.n_descsz & 3u);
		if (len >= end && len <= off)
			return true; /* in the padding after a note */
	}
	return off == len;
}

static void test_cuts_and_noise(void)
{
	struct core_notes nb = { 0 };
	int bad = 0;

	build_good(&nb);
	for (size_t len = 0; len <= nb.len; len++) {
		struct core_info ci = { 0 };
		unsigned char *copy = malloc(len + 1); /* exact size: ASan sees any overread */
		memcpy(copy, nb.buf, len);
		core_notes_parse(copy, len, &ci);
		if (len >= 20 + 40 && (ci.n_threads < 1 || ci.threads[0].tid != 100))
			bad++;
		/* A cut between two notes looks whole here (core_open compares
		 * the notes' size with the file's); a cut inside one is said. */
		if (len < nb.len && !ci.n_warnings && !note_boundary(&nb, len))
			bad++;
		core_info_free(&ci);
		free(copy);
	}
	is_int(bad, 0, "every cut: the first thread kept once its id is in, and a warning");

	unsigned seed = 12345;
	for (int it = 0; it < 20000; it++) {
		unsigned char *copy = malloc(nb.len);
		memcpy(copy, nb.buf, nb.len);
		int flips = 1 + (int)(seed % 8);
		for (int f = 0; f < flips; f++) {
			seed = seed * 1103515245u + 12345u;
			copy[(seed >> 8) % nb.len] = (unsigned char)(seed >> 20);
		}
		struct core_info ci = { 0 };
		core_notes_parse(copy, nb.len, &ci);
		core_nt_file_parse(copy, nb.len, &ci);
		core_info_free(&ci);
		free(copy);
	}
	ok(1, "20000 corrupted notes buffers parsed without a fault");
	core_notes_free(&nb);
}

static size_t make_elf(unsigned char *buf, unsigned phnum, uint16_t type)
{
	Elf64_Ehdr eh = { 0 };

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_type = type;
	eh.e_machine = EM_X86_64;
	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = (uint16_t)phnum;
	memcpy(buf, &eh, sizeof(eh));
	Elf64_Phdr ph[3] = {
		{ .p_type = PT_NOTE, .p_offset = 0x200, .p_filesz = 0x100 },
		{ .p_type = PT_LOAD, .p_offset = 0x1000, .p_vaddr = 0x7000, .p_filesz = 0x2000, .p_memsz = 0x2000, .p_flags = PF_R | PF_W },
		{ .p_type = PT_LOAD, .p_offset = 0x3000, .p_vaddr = 0x4000, .p_filesz = 0, .p_memsz = 0x1000, .p_flags = PF_R | PF_X },
	};
	memcpy(buf + sizeof(eh), ph, sizeof(ph));
	return sizeof(eh) + phnum * sizeof(Elf64_Phdr);
}

static void test_elf(void)
{
	unsigned char buf[1024];
	struct core_info ci = { 0 };
	struct ps_error e;
	size_t n = make_elf(buf, 3, ET_CORE);

	is_int(core_elf_parse(buf, n, 0x2000, &ci, &e), 0, "ELF core headers parse");
	ok(ci.n_segs == 2 && ci.segs[0].vaddr == 0x4000 && ci.segs[1].vaddr == 0x7000, "segments sorted by address");
	ok(ci.segs[1].avail == 0x1000, "a segment cut by the end of the file: what is there");
	ok(ci.n_notes == 1 && ci.notes[0].offset == 0x200, "the notes segment");
	core_info_free(&ci);
	is_int(core_elf_parse(buf, n - 10, 0x4000, &ci, &e), -EINVAL, "program headers cut short: refused");
	core_info_free(&ci);
	make_elf(buf, 3, ET_DYN);
	is_int(core_elf_parse(buf, n, 0x4000, &ci, &e), -EINVAL, "a program, not a core: refused");
	ok(strstr(e.msg, "not a core") != NULL, "... said");
	core_info_free(&ci);
	is_int(core_elf_parse("hello", 5, 5, &ci, &e), -EINVAL, "5 bytes: refused");
	core_info_free(&ci);
}

static void test_names(void)
{
	const char *m = NULL;
	is_str(core_signal_name(SIGSEGV), "SIGSEGV", "signal name");
	is_str(core_sigcode_name(SIGSEGV, SEGV_ACCERR, &m), "SEGV_ACCERR", "si_code name");
	ok(m && strstr(m, "permissions"), "... and its meaning");
	is_str(core_sigcode_name(SIGABRT, SI_TKILL, NULL), "SI_TKILL", "a generic code for any signal");
	ok(core_sigcode_name(SIGSEGV, 99, &m) == NULL && m == NULL, "an unknown code: NULL");
}

static void test_where(void)
{
	struct core_where w;

	core_where_parse("/var/tmp/core.%e.%p\n", false, NULL, &w);
	ok(w.kind == CORE_WHERE_FILE && !strcmp(w.dir, "/var/tmp") && !w.dir_relative, "a file pattern: its directory");
	is_str(w.glob, "core.*.*", "... the names it makes");
	ok(!w.overwrites, "... one name per PID: nothing overwritten");
	core_where_parse("/var/tmp/core.%e", false, NULL, &w);
	ok(w.overwrites, "a name without PID, TID or time, core_uses_pid 0: each core replaces the last");
	core_where_parse("/var/tmp/core.%e.%t", false, NULL, &w);
	ok(!w.overwrites, "... the time in the name: kept apart");
	core_where_parse("/var/tmp/core.%%p", false, NULL, &w);
	ok(w.overwrites, "... %%%%p is a literal %%%%p, not the PID");
	core_where_parse("core", true, "/home/u", &w);
	ok(w.dir_relative && !strcmp(w.dir, "/home/u"), "relative: where the program ran");
	is_str(w.glob, "core.*", "core_uses_pid adds .PID");
	ok(!w.overwrites, "... so nothing is overwritten");
	core_where_parse("/cores/%u/core[%p]", false, NULL, &w);
	ok(w.dir_varies, "a directory with %%-specifiers varies");
	is_str(w.glob, "core\\[*\\]", "fnmatch specials are literal");
	core_where_parse("|/lib/systemd/systemd-coredump %P %u", false, NULL, &w);
	ok(w.kind == CORE_WHERE_SYSTEMD && !strcmp(w.dir, "/var/lib/systemd/coredump"), "systemd-coredump: its store");
	core_where_parse("|/usr/share/apport/apport -p%p", false, NULL, &w);
	ok(w.kind == CORE_WHERE_APPORT, "apport");
	core_where_parse("|/usr/bin/cat", false, NULL, &w);
	ok(w.kind == CORE_WHERE_PIPE && !strcmp(w.handler, "/usr/bin/cat"), "another pipe: its handler");
	core_where_parse("", false, NULL, &w);
	ok(w.kind == CORE_WHERE_NONE, "empty: no cores");
}

int main(void)
{
	test_where();
	test_good();
	test_bad_sizes();
	test_cuts_and_noise();
	test_elf();
	test_names();
	return tap_done();
}
