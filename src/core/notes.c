#include "core/notes.h"
#include "proc/stat.h"
#include "proc/status.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOTE_ALIGN(x) (((x) + 3) & ~(size_t)3)

int core_note_add(struct core_notes *nb, const char *name, uint32_t type, const void *desc, size_t descsz)
{
	size_t namesz = name ? strlen(name) + 1 : 0;
	size_t need = sizeof(Elf64_Nhdr) + NOTE_ALIGN(namesz) + NOTE_ALIGN(descsz);

	if (nb->len + need > nb->cap) {
		size_t cap = nb->cap ? nb->cap : 4096;
		while (cap < nb->len + need)
			cap *= 2;
		unsigned char *b = realloc(nb->buf, cap);
		if (!b)
			return -ENOMEM;
		nb->buf = b;
		nb->cap = cap;
	}
	unsigned char *p = nb->buf + nb->len;
	Elf64_Nhdr h = { .n_namesz = (Elf64_Word)namesz, .n_descsz = (Elf64_Word)descsz, .n_type = type };
	memset(p, 0, need);
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	if (namesz)
		memcpy(p, name, namesz);
	p += NOTE_ALIGN(namesz);
	if (descsz)
		memcpy(p, desc, descsz);
	nb->len += need;
	return 0;
}

void core_notes_free(struct core_notes *nb)
{
	free(nb->buf);
	nb->buf = NULL;
	nb->len = nb->cap = 0;
}

static void ticks_to_tv(unsigned long ticks, struct timeval *tv)
{
	long hz = sysconf(_SC_CLK_TCK);

	if (hz <= 0)
		hz = 100;
	tv->tv_sec = (time_t)(ticks / (unsigned long)hz);
	tv->tv_usec = (suseconds_t)((ticks % (unsigned long)hz) * 1000000 / (unsigned long)hz);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* "Key:\t<hex>" from a status text; 0 when absent. */
static unsigned long status_hex(const char *txt, size_t len, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = txt; p && p < txt + len;) {
		if ((size_t)(txt + len - p) > kl && !memcmp(p, key, kl)) {
			/* Hex digits within len only: the text need not end in a NUL. */
			unsigned long v = 0;
			const char *q = p + kl;
			while (q < txt + len && (*q == ' ' || *q == '\t'))
				q++;
			for (int d; q < txt + len && (d = hexval(*q)) >= 0; q++)
				v = v << 4 | (unsigned long)d;
			return v;
		}
		p = memchr(p, '\n', (size_t)(txt + len - p));
		if (p)
			p++;
	}
	return 0;
}

void core_prpsinfo_fill(struct elf_prpsinfo *ps, const char *stat, size_t stat_len, const char *status,
			size_t status_len, const char *cmdline, size_t cmdline_len)
{
	static const char states[] = "RSDTZW";
	struct proc_stat st;
	struct proc_status su;

	memset(ps, 0, sizeof(*ps));
	if (stat && proc_stat_parse(stat, stat_len, &st) == 0) {
		const char *s = strchr(states, st.state);
		ps->pr_sname = st.state;
		ps->pr_state = s && st.state ? (char)(s - states) : 0;
		ps->pr_zomb = st.state == 'Z';
		ps->pr_nice = (char)st.nice;
		ps->pr_flag = st.flags;
		ps->pr_pid = st.pid;
		ps->pr_ppid = st.ppid;
		ps->pr_pgrp = st.pgrp;
		ps->pr_sid = st.session;
		size_t cl = strnlen(st.comm, sizeof(ps->pr_fname));
		memcpy(ps->pr_fname, st.comm, cl); /* NUL-padded, not terminated at 16, as the kernel */
	}
	if (status && proc_status_parse(status, status_len, &su) == 0) {
		ps->pr_uid = su.uid_real;
		ps->pr_gid = su.gid_real;
	}
	if (cmdline) {
		size_t n = cmdline_len < ELF_PRARGSZ - 1 ? cmdline_len : ELF_PRARGSZ - 1;
		memcpy(ps->pr_psargs, cmdline, n);
		for (size_t i = 0; i < n; i++)
			if (!ps->pr_psargs[i])
				ps->pr_psargs[i] = ' ';
		while (n > 0 && ps->pr_psargs[n - 1] == ' ')
			ps->pr_psargs[--n] = '\0';
	}
}

int core_nt_file_build(const struct core_maps *m, uint64_t page, struct core_notes *out)
{
	size_t count = 0, names = 0;

	for (size_t i = 0; i < m->n; i++)
		if (core_map_is_file(&m->v[i])) {
			count++;
			names += strlen(m->v[i].path) + 1;
		}
	size_t sz = 2 * 8 + count * 3 * 8 + names;
	unsigned char *b = calloc(1, sz ? sz : 1);
	if (!b)
		return -ENOMEM;
	uint64_t *w = (uint64_t *)b;
	char *s = (char *)(w + 2 + count * 3);
	w[0] = count;
	w[1] = page;
	size_t k = 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct core_map *v = &m->v[i];
		if (!core_map_is_file(v))
			continue;
		w[2 + k * 3] = v->start;
		w[2 + k * 3 + 1] = v->end;
		w[2 + k * 3 + 2] = v->offset / page;
		size_t l = strlen(v->path) + 1;
		memcpy(s, v->path, l);
		s += l;
		k++;
	}
	out->buf = b;
	out->len = out->cap = sz;
	return 0;
}

void core_prstatus_fill(struct elf_prstatus *pr, const struct frozen_thread *t, const struct core_proc_info *pi,
			const char *stat_txt, size_t stat_len, const char *status_txt, size_t status_len)
{
	struct proc_stat st;

	memset(pr, 0, sizeof(*pr));
	pr->pr_pid = t->tid;
	pr->pr_ppid = pi->ppid;
	pr->pr_pgrp = pi->pgrp;
	pr->pr_sid = pi->sid;
	_Static_assert(sizeof(pr->pr_reg) == sizeof(t->regs), "elf_gregset_t is user_regs_struct");
	memcpy(&pr->pr_reg, &t->regs, sizeof(pr->pr_reg));
	pr->pr_fpvalid = t->have_fpregs;
	if (stat_txt && proc_stat_parse(stat_txt, stat_len, &st) == 0) {
		ticks_to_tv(st.utime, &pr->pr_utime);
		ticks_to_tv(st.stime, &pr->pr_stime);
		ticks_to_tv(st.cutime > 0 ? (unsigned long)st.cutime : 0, &pr->pr_cutime);
		ticks_to_tv(st.cstime > 0 ? (unsigned long)st.cstime : 0, &pr->pr_cstime);
	}
	if (status_txt) {
		pr->pr_sigpend = status_hex(status_txt, status_len, "SigPnd:") |
				 status_hex(status_txt, status_len, "ShdPnd:");
		pr->pr_sighold = status_hex(status_txt, status_len, "SigBlk:");
	}
}

static int thread_notes(struct core_notes *nb, const struct frozen_thread *t, const struct core_proc_info *pi,
			const char *stat_txt, const char *status_txt, bool first, const struct core_maps *maps,
			uint64_t page)
{
	struct elf_prstatus pr;
	int r;

	core_prstatus_fill(&pr, t, pi, stat_txt, stat_txt ? strlen(stat_txt) : 0, status_txt,
			   status_txt ? strlen(status_txt) : 0);
	if ((r = core_note_add(nb, "CORE", NT_PRSTATUS, &pr, sizeof(pr))) < 0)
		return r;
	if (first) {
		struct core_notes f = { 0 };
		siginfo_t si;

		if ((r = core_note_add(nb, "CORE", NT_PRPSINFO, &pi->psinfo, sizeof(pi->psinfo))) < 0)
			return r;
		/* The stop pscope caused (a PTRACE_EVENT_STOP: SIGTRAP with
		 * PTRACE_EVENT_STOP << 8) is no signal of the process's own. */
		memset(&si, 0, sizeof(si));
		if (t->have_siginfo && !(t->siginfo.si_signo == SIGTRAP && (t->siginfo.si_code >> 8) == 128))
			si = t->siginfo;
		if ((r = core_note_add(nb, "CORE", NT_SIGINFO, &si, sizeof(si))) < 0)
			return r;
		if (pi->auxv_len && (r = core_note_add(nb, "CORE", NT_AUXV, pi->auxv, pi->auxv_len)) < 0)
			return r;
		if ((r = core_nt_file_build(maps, page, &f)) < 0)
			return r;
		r = core_note_add(nb, "CORE", NT_FILE, f.buf, f.len);
		core_notes_free(&f);
		if (r < 0)
			return r;
	}
	if (t->have_fpregs && (r = core_note_add(nb, "CORE", NT_FPREGSET, &t->fpregs, sizeof(t->fpregs))) < 0)
		return r;
	if (t->xstate && t->xstate_len &&
	    (r = core_note_add(nb, "LINUX", NT_X86_XSTATE, t->xstate, t->xstate_len)) < 0)
		return r;
	return 0;
}

#ifndef NT_X86_XSAVE_LAYOUT
#define NT_X86_XSAVE_LAYOUT 0x205
#endif

/* The layout of the xsave area (as the kernel writes it since 6.11), so a
 * debugger need not assume Intel's offsets on an AMD CPU: one record per
 * extended feature enabled in XCR0 (bytes 464.. of the ptrace xstate),
 * with the size and offset CPUID leaf 0xD gives. */
static int xsave_layout_note(struct core_notes *nb, const struct frozen_thread *t)
{
#if defined(__x86_64__)
	struct {
		uint32_t type, size, offset, flags;
	} rec[64];
	uint64_t xcr0;
	unsigned n = 0;

	if (!t->xstate || t->xstate_len < 472)
		return 0;
	memcpy(&xcr0, (const unsigned char *)t->xstate + 464, sizeof(xcr0));
	for (unsigned i = 2; i < 64; i++) {
		unsigned eax, ebx, ecx, edx;
		if (!(xcr0 & (1ull << i)) || !__get_cpuid_count(0xd, i, &eax, &ebx, &ecx, &edx) || !eax)
			continue;
		rec[n].type = i;
		rec[n].size = eax;
		rec[n].offset = ebx;
		rec[n].flags = 0;
		n++;
	}
	if (n)
		return core_note_add(nb, "LINUX", NT_X86_XSAVE_LAYOUT, rec, n * sizeof(rec[0]));
#endif
	return 0;
}

int core_notes_build(struct core_notes *nb, const struct frozen_thread *const *threads, size_t n,
		     const struct core_proc_info *pi, const struct core_maps *maps, uint64_t page,
		     char *const *task_stat, char *const *task_status)
{
	for (size_t i = 0; i < n; i++) {
		int r = thread_notes(nb, threads[i], pi, task_stat ? task_stat[i] : NULL,
				     task_status ? task_status[i] : NULL, i == 0, maps, page);
		if (r < 0)
			return r;
	}
	return n ? xsave_layout_note(nb, threads[0]) : 0;
}
