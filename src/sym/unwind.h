/* The one unwinder: libunwind over stack copies (the stack dump's frozen
 * threads, the sampler's PERF_SAMPLE_STACK_USER copies). Unwind tables
 * come from each module's PT_GNU_EH_FRAME in process memory (files and
 * [vdso] alike), or where there is none from .eh_frame itself (static
 * programs), cached per mapping; register rules are cached by pc. Code
 * without CFI is followed by its frame-pointer chain. */
#ifndef PS_SYM_UNWIND_H
#define PS_SYM_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "proc/maps.h"
#include "sym/sym.h"

struct sym_unwinder;
/* maps: the process's mappings, borrowed (see sym_unwinder_set_maps). */
struct sym_unwinder *sym_unwinder_new(pid_t pid, const struct proc_maps *maps);
/* The same over another memory (a core's image): read returns the bytes it
 * could read from addr on. */
struct sym_unwinder *sym_unwinder_new_reader(const struct proc_maps *maps, sym_read_fn read, void *arg);
/* The mappings changed (re-read): forget the unwind tables found so far. */
void sym_unwinder_set_maps(struct sym_unwinder *u, const struct proc_maps *maps);
void sym_unwinder_free(struct sym_unwinder *u);
/* The symbolizer's view of the same address space: modules without
 * .eh_frame_hdr are unwound through the .eh_frame their section headers
 * name. Borrowed; used on the unwinder's thread. */
void sym_unwinder_set_view(struct sym_unwinder *u, struct sym_proc *view);

/* Unwind one thread from regs and the copy of its stack at
 * [stack_lo, stack_lo + stack_len). pcs[0] is the interrupted pc; returns
 * the frame count (<= max). by_fp[i]: frame found by the frame-pointer
 * chain. strict: writable memory outside the copy is not read live (a
 * sample's stack has changed since); a read just above the copy sets
 * *truncated, as does reaching max. Reads of read-only memory (text,
 * .eh_frame) go to the live process through a page cache. */
int sym_unwind(struct sym_unwinder *u, const struct user_regs_struct *regs, const void *stack,
	       uint64_t stack_lo, size_t stack_len, bool strict, uint64_t *pcs, bool *by_fp, int max,
	       bool *truncated);

/* Whether frame i of the last sym_unwind has an exact pc (frame 0, a
 * signal trampoline, the frame a signal interrupted) rather than a return
 * address: the activation argument of sym_lookup. */
bool sym_unwind_exact(const struct sym_unwinder *u, int i);
/* Why the last sym_unwind stopped short, or NULL: an N_() string (a
 * return address outside code, a step back up the stack, the stack
 * copy's end), translated where it is shown. */
const char *sym_unwind_end(const struct sym_unwinder *u);

#endif
