/* Go runtime reader: the goroutines of a Go process, from the runtime's
 * own list (runtime.allgs), as gdb's `info goroutines` and delve show
 * them. Field offsets of runtime.g, runtime.gobuf and runtime.m come from
 * the program's DWARF (the version's own layout), the lists' addresses
 * from its symbol table. Every read goes through go_mem; the target's
 * memory is hostile (caps on counts and chains, pointers checked). */
#ifndef PS_GOLANG_H
#define PS_GOLANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

struct sym_proc;
struct sym_info;

struct go_mem {
	int (*read)(void *arg, uint64_t addr, void *buf, size_t len); /* 0 or -errno */
	void *arg;
};

#define GO_TOP_FRAMES 16

struct go_g {
	uint64_t addr;            /* the runtime.g */
	int64_t goid;
	uint32_t status;          /* _Grunning... without the _Gscan bit */
	const char *state;        /* "running", "runnable", "waiting", "syscall"... (static) */
	char wait[48];            /* waitReasonStrings[waitreason] ("chan receive"), "" (hostile) */
	pid_t tid;                /* running or in a syscall: its M's thread, else 0 */
	uint64_t pcs[GO_TOP_FRAMES]; /* innermost first; the first is where it stopped */
	size_t n;
	bool more;                /* the chain goes on past GO_TOP_FRAMES */
	const struct sym_info *sym[GO_TOP_FRAMES]; /* left to the caller (the stack dump names them) */
};

struct go_list {
	struct go_g *g;
	size_t n;                 /* goroutines shown (dead ones left out) */
	size_t n_dead;            /* in allgs, dead (kept for reuse by the runtime) */
	size_t by_state[10];      /* counts by status (0.._Gpreempted) */
	bool cut;                 /* allgs longer than the cap */
};

/* Whether the process's executable is a Go program, and its goroutines:
 * exe_fd is an open fd of the executable (read, not kept), syms the
 * process's symbolizer view (symbol addresses with the load bias).
 * Returns 0, -ENOENT "not a Go program" (no runtime.allgs), -ENOTSUP
 * (no DWARF: built with -ldflags=-w, e says so), -EPROTO (structures that
 * make no sense), -errno. */
int go_goroutines(int exe_fd, struct sym_proc *syms, const struct go_mem *m, struct go_list *out,
		  struct ps_error *e);
void go_list_free(struct go_list *l);

/* The walk itself, over hostile memory (the fuzzer's entry): field
 * offsets as the program's DWARF gives them (-1: absent), allgs the
 * address of runtime.allgs (a slice), wr/wr_size runtime.waitReasonStrings
 * (0: none), max the goroutines read at most (0: 65536). Returns 0, -EFAULT, -EPROTO or -ENOMEM with e set. */
struct go_layout {
	long g_sched, g_status, g_goid, g_wait, g_m;
	long buf_sp, buf_pc, buf_bp;
	long m_procid;
	long wait_size;           /* bytes of g.waitreason (1 in Go 1.19) */
};
int go_walk(const struct go_layout *L, uint64_t allgs, uint64_t wr, uint64_t wr_size, size_t max, const struct go_mem *m,
	    struct go_list *out, struct ps_error *e);
/* "running", "waiting"... for a status (without _Gscan). */
const char *go_state_name(uint32_t status);

#endif
