/* The core writer's pure parts: the smaps parser, the kernel's dump rule,
 * the notes and the default file name. */
#include "core/core.h"
#include "core/maps.h"
#include "core/notes.h"

#include <elf.h>
#include <stdlib.h>

#include "tap.h"

static char buf[1 << 16];

static const char *hows(const struct core_maps *m)
{
	static char s[64];
	size_t i;

	for (i = 0; i < m->n && i < sizeof(s) - 1; i++)
		s[i] = "NWHO"[m->v[i].how];
	s[i] = '\0';
	return s;
}

static void test_maps(void)
{
	size_t n = tap_fixture("core-smaps.txt", buf, sizeof(buf));
	struct core_maps m;

	is_int(core_maps_parse(buf, n, &m), 0, "smaps parses");
	is_int(m.n, 12, "12 mappings");
	is_str(m.v[0].path, "/usr/bin/my prog", "a path with a space");
	ok(m.v[0].start == 0x55d0c0a00000ull && m.v[0].end == 0x55d0c0a02000ull, "start-end");
	ok(m.v[1].offset == 0x2000 && m.v[1].w && !m.v[1].x && !m.v[1].shared, "offset and perms");
	is_int(m.v[2].anon, 12 * 1024, "Anonymous in bytes");
	is_int(m.v[8].swap, 8 * 1024, "Swap in bytes");
	is_str(m.v[3].path, "", "anonymous mapping has no path");
	ok(m.v[4].vmflags & CORE_VMF_DD, "dd flag");
	ok((m.v[9].vmflags & (CORE_VMF_IO | CORE_VMF_DD | CORE_VMF_PF)) == (CORE_VMF_IO | CORE_VMF_DD | CORE_VMF_PF),
	   "vvar: io dd pf");
	ok(m.v[5].shared && (m.v[5].vmflags & CORE_VMF_SH), "shared");
	ok(m.v[7].vmflags & CORE_VMF_HT, "hugetlb");
	ok(!(m.v[0].vmflags & CORE_VMF_DD), "'dd' only as a whole word");

	/* Default filter 0x33: anon private + anon shared + ELF headers + hugetlb private. */
	core_maps_decide(&m, CORE_FILTER_DEFAULT, false);
	is_str(hows(&m), "HWWNNWNWWNWO", "kernel rule for filter 0x33");
	ok(m.v[3].why && strstr(m.v[3].why, "never written"), "untouched: why");
	ok(m.v[4].why && strstr(m.v[4].why, "DONTDUMP"), "dd: why");
	is_int(core_map_dump_bytes(&m.v[0], 4096), 4096, "ELF header: one page");
	is_int(core_map_dump_bytes(&m.v[2], 4096), 132 * 1024, "heap: whole");
	is_int(core_map_disk_bytes(&m.v[2], 4096), 12 * 1024, "heap on disk: resident only");
	is_int(core_map_disk_bytes(&m.v[8], 4096), 24 * 1024, "stack on disk: resident + swap");
	/* 0x3f adds mapped private and mapped shared. */
	core_maps_decide(&m, 0x3f, false);
	is_str(hows(&m), "WWWNNWWWWNWO", "filter 0x3f");
	/* 0: nothing but the vdso. */
	core_maps_decide(&m, 0, false);
	is_str(hows(&m), "NNNNNNNNNNWO", "filter 0: vdso only");
	/* --all-mappings. */
	core_maps_decide(&m, 0, true);
	is_str(hows(&m), "WWWWWWWWWWWO", "all mappings");

	/* NT_FILE: count, page size, triples, names. */
	struct core_notes f = { 0 };
	is_int(core_nt_file_build(&m, 4096, &f), 0, "NT_FILE builds");
	const uint64_t *w = (const uint64_t *)f.buf;
	is_int(w[0], 5, "NT_FILE: 5 file mappings");
	is_int(w[1], 4096, "NT_FILE: page size");
	ok(w[2] == 0x55d0c0a00000ull && w[3] == 0x55d0c0a02000ull && w[4] == 0, "NT_FILE: first triple");
	ok(w[5] == 0x55d0c0a02000ull && w[7] == 2, "NT_FILE: file offset in pages");
	is_str((const char *)(w + 2 + 5 * 3), "/usr/bin/my prog", "NT_FILE: first name");
	core_notes_free(&f);
	core_maps_free(&m);

	is_int(core_maps_parse("garbage\n", 8, &m), 0, "lines before a header are ignored");
	is_int(m.n, 0, "no mappings");
	core_maps_free(&m);
	is_int(core_maps_parse("zz-1 r 0\n", 9, &m), 0, "not hex: ignored");
	core_maps_free(&m);
	is_int(core_maps_parse("5-1 r--p 0 0:0 0\n", 17, &m), -22, "end before start: -EINVAL");
}

static void test_notes(void)
{
	struct core_notes nb = { 0 };
	const char desc[5] = "abcd";

	is_int(core_note_add(&nb, "CORE", NT_AUXV, desc, 5), 0, "note added");
	is_int(nb.len, 12 + 8 + 8, "note header + name padded + desc padded to 4");
	const Elf64_Nhdr *h = (const Elf64_Nhdr *)nb.buf;
	ok(h->n_namesz == 5 && h->n_descsz == 5 && h->n_type == NT_AUXV, "note header fields");
	is_str((const char *)nb.buf + 12, "CORE", "note name");
	core_notes_free(&nb);

	struct elf_prpsinfo ps;
	const char stat[] = "42 (a) b) S 1 42 42 0 -1 4194560 100 0 0 0 7 3 0 0 20 -5 2 0 123 1000 10 "
			    "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n";
	const char status[] = "Name:\ta) b\nUid:\t1000\t1000\t1000\t1000\nGid:\t100\t100\t100\t100\n";
	const char cmd[] = "/bin/prog\0--flag\0value\0";
	core_prpsinfo_fill(&ps, stat, sizeof(stat) - 1, status, sizeof(status) - 1, cmd, sizeof(cmd) - 1);
	is_int(ps.pr_pid, 42, "prpsinfo pid");
	is_int(ps.pr_ppid, 1, "prpsinfo ppid");
	ok(ps.pr_sname == 'S' && ps.pr_state == 1, "prpsinfo state S = 1");
	is_int(ps.pr_nice, -5, "prpsinfo nice");
	is_int(ps.pr_uid, 1000, "prpsinfo uid");
	is_int(ps.pr_gid, 100, "prpsinfo gid");
	is_str(ps.pr_fname, "a) b", "prpsinfo fname from comm");
	is_str(ps.pr_psargs, "/bin/prog --flag value", "prpsinfo psargs: NULs become spaces");

	/* Signal masks come from a status slice that need not end in a NUL:
	 * digits past its length are not part of it. */
	struct elf_prstatus pr;
	struct frozen_thread t = { .tid = 42 };
	struct core_proc_info pi = { .ppid = 1 };
	const char st2[] = "SigPnd:\t0000000000000100\nShdPnd:\t0000000000000000\nSigBlk:\t00000000000000ff";
	core_prstatus_fill(&pr, &t, &pi, NULL, 0, st2, sizeof(st2) - 1);
	is_int(pr.pr_sigpend, 0x100, "prstatus pending signals from status");
	is_int(pr.pr_sighold, 0xff, "prstatus blocked signals from status");
	core_prstatus_fill(&pr, &t, &pi, NULL, 0, st2, sizeof(st2) - 2);
	is_int(pr.pr_sighold, 0xf, "a status cut inside a mask reads only the digits before the cut");
	core_prstatus_fill(&pr, &t, &pi, NULL, 0, st2, 20);
	is_int(pr.pr_sigpend, 0, "SigPnd cut after 12 zero digits is 0");
}

static void test_name(void)
{
	char b[128];

	core_default_name("we\x1b[2Jird/na me", 77, b, sizeof(b));
	ok(!strncmp(b, "core.we__2Jird_na_me.77.", 24), "default name is sanitized (%s)", b);
	core_default_name("", 5, b, sizeof(b));
	ok(!strncmp(b, "core._.5.", 9), "empty comm");
	core_default_name(".hidden", 5, b, sizeof(b));
	ok(!strncmp(b, "core._hidden.5.", 15), "no leading dot");
}

int main(void)
{
	test_maps();
	test_notes();
	test_name();
	return tap_done();
}
