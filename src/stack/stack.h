/* All-thread stack dump: a short consistent freeze (registers + a copy of
 * each stack + lock words), then, with the target running again, offline
 * unwinding (libunwind over the copies), symbolization (libdw) and the
 * wait-for graph of futex waiters (deadlocks). */
#ifndef PS_STACK_STACK_H
#define PS_STACK_STACK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "reads.h"
#include "error.h"
#include "sym/sym.h"
#include "target.h"

struct py_code;

/* Each frame points at the symbolizer's entry for its pc (src/sym/sym.h),
 * shared by every frame with that pc. Strings are hostile. A Python frame
 * (CPython) has py set and pc = its code object's address. */
struct stk_frame {
	uint64_t pc;
	const struct sym_info *sym; /* native frames */
	bool by_fp;          /* found by the frame-pointer chain (no CFI) */
	bool eval;           /* native eval frame whose Python frames precede it */
	const struct py_code *py; /* a Python frame (CPython), else NULL */
	int line;            /* Python frames: the line being run (0: unknown) */
};

/* Which frames a view shows (stk_frame_shown). */
enum stk_view {
	STK_VIEW_MIXED,      /* Python frames in place of the eval frames that ran them */
	STK_VIEW_PYTHON,     /* Python frames only (threads without any: native) */
	STK_VIEW_NATIVE,     /* what the machine sees */
};

struct stk_thread {
	pid_t tid;
	pid_t nstid;         /* its TID in its own pid namespace (a container), 0 when that is ours */
	char name[64];       /* hostile */
	char state;          /* before the freeze: R, S, D... */
	char syscall[32];    /* "futex", "nanosleep", "running", "syscall 451" */
	long syscall_nr;     /* -1 when not in a syscall */
	char syscall_raw[160]; /* /proc/PID/task/TID/syscall form */
	char wchan[64];
	const char *skipped; /* not frozen: why (static string), frames empty */
	struct stk_frame *frames;
	size_t n_frames;
	bool truncated;      /* --max-frames reached or the stack copy ended */
	const char *unwind_end; /* why the unwinding stopped short (N_() string), or NULL */
	int signal;          /* from a core: the signal this thread received, else 0 */
	int group;           /* index in dump->groups */
	pid_t waits_for;     /* the holder of the lock it sleeps on (futex), 0 none */
	uint64_t wait_lock;  /* that lock's address */
	int behind_cycle;    /* not in a deadlock, but blocked behind cycle N (1-based), 0 none */
	char *wait_lock_name; /* blocked behind: the lock's symbol ("ledger"), or NULL */
	size_t n_py;         /* Python frames among frames */
	char *python_name;   /* threading name (hostile), or NULL */
	bool python;         /* has a CPython thread state */
	bool gil;            /* holds the GIL */
	const char *idle;    /* "time.sleep", "lock acquire", "select" or NULL */
	/* CPython: the threading.Lock it waits to acquire, found in its frames
	 * by the futex it sleeps on (CPython records no owner for a Lock). */
	uint64_t py_lock;    /* the lock object, 0 none */
	char *py_lock_name;  /* the name it has in the waiting frame ("ledger"), or NULL (hostile) */
	pid_t py_lock_holder; /* a thread blocked inside `with` that lock, 0 not known */
	size_t py_held;      /* the locks it holds in `with` blocks of its frames */
	const char *py_lock_why; /* blocked in a Lock acquire, py_lock 0: why not named (N_() string) */
	const char *jvm_wait; /* HotSpot, from its frames: "monitor enter", "Object.wait()",
				 "LockSupport.park()" (N_() strings), or NULL */
};

struct stk_edge {
	pid_t tid;           /* waits for ... */
	pid_t waits_for_tid; /* ... the holder of ... */
	uint64_t lock_addr;  /* ... the lock at this address */
	char *lock_name;     /* symbol of a global lock ("ledger"), or NULL */
	const struct stk_frame *frame; /* where tid waits (first frame of the program's own code) */
	bool py_lock;        /* a threading.Lock: lock_addr is the object, lock_name its
				name, the holder the thread inside `with` it */
};

struct stk_cycle {
	struct stk_edge *edges;
	size_t n;
};

struct stk_group {
	size_t *members;     /* indexes in dump->threads */
	size_t n;
};

struct stk_go_group {
	size_t first, n;     /* d->go->g[first .. first + n) */
};

struct stk_dump {
	struct target_id target;
	char comm[64];       /* hostile */
	double pause_ms;
	size_t n_stopped;    /* threads frozen together */
	unsigned rounds;     /* task-list scans */
	struct stk_thread *threads;
	size_t n_threads;
	struct stk_group *groups; /* largest first */
	size_t n_groups;
	struct stk_cycle *cycles;
	size_t n_cycles;
	size_t n_frames, n_syms; /* unwound frames, distinct pcs symbolized */
	double unwind_ms, symbolize_ms, wall_ms;
	struct sym_proc *syms; /* owns every sym_info */
	/* CPython: the version read, or why not (py_error, e.g. "CPython 3.8
	 * is not supported: native frames only"); both empty otherwise. */
	char py_version[24];
	char py_error[240];
	double py_read_ms;   /* part of the pause spent reading frame chains */
	struct py_proc *py;  /* owns every py_code */
	/* Go (stk_opts.goroutines): the runtime's goroutines, read from its
	 * allgs right after the freeze, while the process runs again; or
	 * why not (go_error). */
	struct go_list *go;  /* sorted: goroutines of one group are together */
	struct stk_go_group *go_groups; /* the same state, wait reason and frames; largest first */
	size_t n_go_groups;
	char go_error[200];
	bool jvm;            /* frames in HotSpot's libjvm.so */
	size_t n_jvm_monitor; /* threads waiting to enter a Java monitor */
};

struct stk_opts {
	int max_frames;      /* 0 = 64 */
	size_t stack_max;    /* bytes copied per stack; 0 = 256 KiB */
	int deadline_ms;     /* freeze deadline; 0 = 500 */
	bool source;         /* file:line and inline frames (libdw) */
	bool no_python;      /* skip the CPython reader (native only, as before) */
	bool goroutines;     /* Go: read the goroutines too (d->go) */
	atomic_bool *cancel;
	/* Progress from the thread running the dump; may be NULL. */
	void (*progress)(void *arg, double fraction, const char *text);
	void *progress_arg;
};

/* Dump the process id names (refused with ESRCH once its PID names
 * another process). The target is stopped only inside this call, never
 * after it returns. */
int stk_dump_run(const struct target_id *id, const struct stk_opts *o, struct stk_dump **out, struct ps_error *e);
void stk_dump_free(struct stk_dump *d);

/* The lock a live thread sleeping in futex() waits on (the threads pane,
 * `pscope show`): the address from its syscall arguments (nr, args as in
 * /proc/PID/task/TID/syscall), the owner read at that address while the
 * process runs (stk_lock_owner, as the deadlock analysis reads it; needs
 * ptrace attach access) and the data symbol naming it through syms (may be
 * NULL). dirfd is /proc/PID, pinning the process: -ESRCH when it has gone
 * (nothing read is kept). -ENOENT when the thread is not in futex();
 * -errno when the words could not be read (addr and name are still set). */
struct stk_wait_lock {
	uint64_t addr;
	pid_t owner;         /* the holder's TID, 0 unknown or not a mutex */
	char name[128];      /* "ledger", "table+0x8", "" (hostile) */
};
PS_READS int stk_wait_lock(pid_t pid, int dirfd, struct sym_proc *syms, long nr, const unsigned long long args[6],
		  struct stk_wait_lock *out);
/* "ledger (0x55e0c0a0) held by TID 4242" */
char *stk_wait_lock_str(const struct stk_wait_lock *l, char *buf, size_t size);
/* A lock as every view names it: "ledger (0x55e0c0a0)" when its symbol
 * name is known (NULL or "": not), else "0x55e0c0a0". Returns buf. */
char *stk_lock_str(uint64_t addr, const char *name, char *buf, size_t size);
/* Run the dump of the process `id` as an ATTACH-lane job: RING_PROGRESS
 * while it runs, then a RING_RESULT whose payload is the struct stk_dump
 * (or a RING_ERROR); cancel releases the target. Returns the job id, 0 on
 * failure. */
struct workers;
struct job_handler;
unsigned stk_submit(struct workers *w, const struct target_id *id, bool source, bool goroutines,
		    const struct job_handler *h);
/* Where a thread waits, for the deadlock's lines: "transfer+0x1e", or a
 * Python frame's "transfer (bank.py:12)". Returns buf (hostile text). */
char *stk_frame_where(const struct stk_frame *f, char *buf, size_t size);
/* "leaf_wait <- level3 <- worker <- start_thread": a thread's functions,
 * innermost first, from its first frame outside the module of frame 0. */
size_t stk_chain(const struct stk_thread *t, char *buf, size_t size);
/* Whether frame f of thread t is shown in view v. */
bool stk_frame_shown(const struct stk_thread *t, const struct stk_frame *f, enum stk_view v);

#endif
