/* CPython reader: find the interpreter in a process, walk its thread
 * states and frames, name the code objects, from process memory only.
 *
 * Nothing here stops the target or calls ptrace. Every read of target
 * memory goes through a struct py_mem, so the same walker reads a live
 * process (py_mem_live: process_vm_readv), a frozen one (the stack dump
 * calls py_snapshot_take while its threads are stopped) or the memory
 * image of a core file (core_py_mem in src/core: the core's PT_LOAD
 * segments, and read-only file pages from the mapped files).
 *
 * Target memory is hostile: every pointer is checked (alignment, user
 * range), every chain has a depth cap and cycle detection, every string
 * a length cap. A process that fakes or corrupts the structures gets
 * "not a readable CPython: ..." (-EPROTO), never a crash or a hang.
 *
 * Supported: CPython 3.9 to 3.12 (field offsets from small per-version
 * tables, derived from each version's headers and checked against them by
 * tests/e2e/python-layout.sh) and 3.13+ (offsets read at run time from
 * _Py_DebugOffsets at the start of _PyRuntime). */
#ifndef PS_PYTHON_H
#define PS_PYTHON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

/* ---- Memory reader ---------------------------------------------------- */

/* read() copies exactly len bytes at addr into buf and returns 0, or
 * returns a negative errno (-EFAULT: not mapped / short) and leaves buf
 * unspecified. It must be safe for any addr and len <= PY_MEM_MAX_READ. */
#define PY_MEM_MAX_READ (64 * 1024)
struct py_mem {
	int (*read)(void *arg, uint64_t addr, void *buf, size_t len);
	void *arg;
};

/* A live process through process_vm_readv (needs ptrace attach access:
 * same user or CAP_SYS_PTRACE, and Yama's ptrace_scope). */
void py_mem_live(struct py_mem *m, pid_t *pid);

/* A page cache over another reader: each 4 KiB page is read once until
 * py_cache_reset(). Use it while the target is stopped (its memory cannot
 * change) or for one sample (reset before the next). */
struct py_cache;
struct py_cache *py_cache_new(const struct py_mem *under, size_t max_pages);
void py_cache_mem(struct py_cache *c, struct py_mem *out);
void py_cache_reset(struct py_cache *c);
void py_cache_free(struct py_cache *c);

/* ---- The interpreter of a process ------------------------------------- */

struct py_proc;

/* Find CPython in process pid: the executable or a mapped libpython3.X.so
 * that defines _PyRuntime. maps_text is /proc/PID/maps; files are opened
 * through root_dirfd (/proc/PID/root) or map_files. Returns
 *   0        *out set;
 *   -ENOENT  not a CPython process (no _PyRuntime): *out NULL, e says so;
 *   -ENOTSUP a CPython this reader cannot read (3.8, free-threaded...):
 *            e has the one-line reason ("CPython 3.8 is not supported:
 *            native frames only");
 *   -EPROTO  "not a readable CPython: ...";
 *   -EPERM, -EACCES: the memory cannot be read (a closed door). */
int py_detect(pid_t pid, const char *maps_text, size_t maps_len, const struct py_mem *m,
	      struct py_proc **out, struct ps_error *e);
/* The same for a process whose files are not under /proc (a core): the
 * maps name the files, f opens them (an O_RDONLY fd, or -1). f->exe is the
 * executable's path as the maps spell it (a program embedding Python need
 * not be named python*). pid is the process's (for messages). */
struct proc_map;
struct py_files {
	const char *exe;
	int (*open)(void *arg, const struct proc_map *m);
	void *arg;
};
int py_detect_files(pid_t pid, const char *maps_text, size_t maps_len, const struct py_files *f,
		    const struct py_mem *m, struct py_proc **out, struct ps_error *e);
/* "3.11.2" */
const char *py_version(const struct py_proc *p);
int py_minor(const struct py_proc *p);
void py_proc_free(struct py_proc *p);

/* ---- Snapshot of the frame chains (what must be read while stopped) -- */

struct py_raw_frame {
	uint64_t frame;       /* the frame's own address (_PyInterpreterFrame, PyFrameObject) */
	uint64_t code;        /* PyCodeObject address */
	int32_t lasti;        /* byte offset of the current instruction; -1 before the first */
	bool entry;           /* the outermost frame of one C-level eval call */
};

struct py_raw_thread {
	uint64_t tstate;
	uint64_t thread_id;   /* pthread_t */
	pid_t tid;            /* native thread id (3.11+), else 0 until matched */
	struct py_raw_frame *frames; /* innermost first */
	size_t n;
	bool truncated;       /* depth cap reached */
	bool skipped;         /* py_walk_opts.want said no: frames not read */
	const char *error;    /* chain unreadable (static string), frames kept up to there */
};

struct py_snapshot {
	struct py_raw_thread *threads;
	size_t n, threads_cap;
	uint64_t gil_holder;  /* tstate holding the GIL, 0 when none/unknown */
	bool gil_known;
	size_t torn;          /* chains that changed under a non-stopped read */
	struct py_raw_frame *pool; /* every thread's frames (one allocation) */
	size_t pool_n, pool_cap;
};

struct py_walk_opts {
	unsigned max_depth;   /* 0 = 1024 */
	unsigned max_threads; /* 0 = 4096 */
	bool check_torn;      /* re-read each chain's head after it: count torn reads */
	const struct py_mem *fresh; /* reader for that re-read, past any cache (NULL: m) */
	/* Called with each thread state before its frames are read (gil:
	 * it holds the GIL): false leaves its chain unread (skipped set). */
	bool (*want)(void *arg, const struct py_raw_thread *t, bool gil);
	void *want_arg;
};

/* Read every thread state and its frame chain through m. The caller
 * provides a cleared snapshot (reused across calls: its arrays are kept).
 * Returns 0, or -EPROTO ("not a readable CPython: ...") / -errno. */
int py_snapshot_take(struct py_proc *p, const struct py_mem *m, const struct py_walk_opts *o,
		     struct py_snapshot *s, struct ps_error *e);
void py_snapshot_free(struct py_snapshot *s);

/* ---- Code objects ----------------------------------------------------- */

/* A code object, read once per process and cached by address. Strings are
 * UTF-8 from the target: hostile (escape them to print). */
struct py_code {
	uint64_t addr;
	char *name;          /* co_name */
	char *qualname;      /* co_qualname (3.11+); co_name before */
	char *file;          /* co_filename */
	int firstlineno;
	unsigned char *linetable; /* co_lnotab (3.9), co_linetable (3.10+) */
	size_t linetable_len;
	bool bad;            /* unreadable: names are "?" */
};

/* The code object at addr, or NULL if out of memory. Unreadable ones come
 * back with bad set and "?" names (cached too). */
const struct py_code *py_code_get(struct py_proc *p, const struct py_mem *m, uint64_t addr);
/* Source line of the instruction at byte offset lasti, or 0 if unknown. */
int py_code_line(const struct py_proc *p, const struct py_code *c, int32_t lasti);

/* ---- Threads ------------------------------------------------------ */

/* threading._active: ident (pthread_t) -> Thread._name, read once per
 * call (after the thaw: only names, no consistency needed). Returns 0 or
 * -errno (-ENOENT: threading not imported); py_thread_name() then gives
 * the name of a thread, or NULL. */
int py_thread_names_load(struct py_proc *p, const struct py_mem *m);
const char *py_thread_name(const struct py_proc *p, uint64_t thread_id);

/* ---- threading.Lock objects a thread's frames refer to ---------------- */

/* A _thread.lock (threading.Lock) found in a frame's locals or on its
 * value stack. CPython records no owner for a Lock; a thread inside
 * `with lock:` keeps the lock's bound __exit__ on its value stack until
 * the block ends, which is what `with` says here. */
struct py_lock_ref {
	uint64_t lock;        /* the lock object (id() in Python) */
	uint64_t sem;         /* its PyThread_type_lock: the futex its waiters sleep on */
	bool locked;
	bool with;            /* inside a `with lock:` block of that frame */
	bool direct;          /* the lock object itself in a slot (a local, an argument), not only
				 its bound __exit__ (which a stale slot may also point at) */
	size_t frame;         /* index in the thread's frames, innermost 0 */
	char name[64];        /* the local or global naming it in that frame, "" (hostile) */
};
/* The locks t's frames refer to, innermost frame first, each once (at
 * most max). Read after the thaw: meant for threads blocked in a lock
 * acquire, whose frames do not move. Returns the count, -ENOTSUP before
 * 3.11 (frames of another shape), or -errno. */
int py_lock_refs(struct py_proc *p, const struct py_mem *m, const struct py_raw_thread *t, struct py_lock_ref *out,
		 size_t max);

/* The kernel tid of a pthread_t, for versions without native_thread_id
 * (3.9, 3.10): glibc keeps the tid in struct pthread; its offset is found
 * once by matching the main thread (tid == pid). 0 when unknown. */
pid_t py_pthread_tid(struct py_proc *p, const struct py_mem *m, uint64_t thread_id);

#endif
