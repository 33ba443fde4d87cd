/* The PT_NOTE contents of a core: a growing buffer of ELF notes and the
 * Linux x86-64 notes (NT_PRSTATUS, NT_PRPSINFO, NT_SIGINFO, NT_AUXV,
 * NT_FILE, NT_FPREGSET, NT_X86_XSTATE) in the kernel's order. */
#ifndef PS_CORE_NOTES_H
#define PS_CORE_NOTES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/procfs.h>

#include "core/maps.h"
#include "freeze.h"

struct core_notes {
	unsigned char *buf;
	size_t len, cap;
};

/* Append one note (name padded to 4, desc padded to 4). 0 or -ENOMEM. */
int core_note_add(struct core_notes *nb, const char *name, uint32_t type, const void *desc, size_t descsz);
void core_notes_free(struct core_notes *nb);

/* Process-wide facts for the notes, read from /proc while stopped. */
struct core_proc_info {
	struct elf_prpsinfo psinfo;
	pid_t ppid, pgrp, sid;
	unsigned char *auxv;
	size_t auxv_len;
};

/* NT_PRPSINFO from /proc/PID/{stat,status,cmdline} text (pure). */
void core_prpsinfo_fill(struct elf_prpsinfo *ps, const char *stat, size_t stat_len, const char *status,
			size_t status_len, const char *cmdline, size_t cmdline_len);

/* NT_FILE body for the file-backed mappings of m (pure). */
int core_nt_file_build(const struct core_maps *m, uint64_t page, struct core_notes *out_desc);

/* NT_PRSTATUS for one thread; times and signal masks come from the
 * thread's /proc task files (stat_txt, status_txt may be NULL). */
void core_prstatus_fill(struct elf_prstatus *pr, const struct frozen_thread *t, const struct core_proc_info *pi,
			const char *stat_txt, size_t stat_len, const char *status_txt, size_t status_len);

/* All notes in the kernel's order; *threads[0] is the one reported first.
 * task_stat[i]/task_status[i] are the texts for threads[i] (may be NULL). */
int core_notes_build(struct core_notes *nb, const struct frozen_thread *const *threads, size_t n,
		     const struct core_proc_info *pi, const struct core_maps *maps, uint64_t page,
		     char *const *task_stat, char *const *task_status);

#endif
