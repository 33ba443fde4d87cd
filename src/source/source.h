/* Sources: where every screen's data comes from. A source makes a
 * snapshot (src/source/snap.h) per tick on a worker thread, and the screen
 * draws the newest one it was sent: no screen reads /proc or a process's
 * memory while it draws or handles a key (tests/e2e/architecture.sh checks
 * ui/ calls no function marked PS_READS).
 *
 *   live   /proc, netlink sock_diag and the target's memory: the process
 *          list (live-list.c) and one process (live-proc.c, its panes);
 *   core   a core file read once, its identity checked on every tick
 *          (core.c);
 *   replay a recording (replay.c): the snapshots a recorder wrote, made
 *          again, the interval the screen asks for.
 *
 * A source runs as a job on the long lane (source_submit): every tick it
 * reads (source_ops.read) and posts the snapshot as RING_SNAPSHOT, routed
 * to the screen by job id like every job. The screen says what it needs
 * read through a small control block (struct source_ctl: the selected
 * process, the pane shown, the rows on screen, threads on or off, the
 * refresh interval), and acknowledges each snapshot it drew: a source
 * whose snapshots nobody draws (the screen is covered, or paused) stops
 * reading until one is drawn again. A change of what is wanted wakes the
 * source at once for a partial read on top of the last snapshot (the
 * extras of rows scrolled into view, a pane switched to), so keys answer
 * from the last snapshot and what they ask for arrives within a tick. */
#ifndef PS_SOURCE_SOURCE_H
#define PS_SOURCE_SOURCE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

#include "clock.h"
#include "error.h"
#include "pane/pane.h"
#include "source/snap.h"
#include "target.h"

/* The most rows on screen the list names, and fds the FDs pane does. */
#define SOURCE_ROWS_MAX 512

/* What a screen wants read: a copy of its control block. */
struct source_want {
	unsigned gen;              /* bumped by every change */
	unsigned tick_now;         /* bumped to ask for a tick at once (F5, H, nice) */
	long interval_ms;          /* the refresh interval */
	bool paused;               /* no ticks (Z) */
	unsigned drawn;            /* seq of the newest snapshot the screen drew */
	/* the process list */
	bool threads;              /* thread rows */
	bool all_rows;             /* every row read on every tick (a recorder) */
	/* the live list records itself into record_path (R) while record */
	bool record;
	char record_path[SNAP_REC_PATH];
	/* a recording: the interval at wall time replay_at (> 0), else
	 * number replay_i (< 0: the last) */
	long replay_i;
	double replay_at;
	unsigned px_rows;          /* PX_* for the rows listed below */
	unsigned px_all;           /* PX_* for every row (the sort key's) */
	int nrows;
	pid_t rows[SOURCE_ROWS_MAX]; /* the rows on screen */
	/* one process */
	enum pane_id pane;         /* the pane shown */
	bool fd_all;               /* FDs: every fd's fdinfo (sorted by flags or position) */
	bool smaps;                /* Maps: with Rss/Pss/Swap from smaps */
	int nfds;
	int fds[SOURCE_ROWS_MAX];  /* FDs: the fds on screen (their fdinfo) */
};

/* The control block between a screen (UI thread) and its source job. */
struct source_ctl;
struct source_ctl *source_ctl_new(void);
struct source_ctl *source_ctl_get(struct source_ctl *c);
void source_ctl_put(struct source_ctl *c);
/* The screen's side: read, change, publish (gen bumped when it changed).
 * Returns true when the wish changed: then wake the job (workers_wake). */
void source_ctl_peek(struct source_ctl *c, struct source_want *out);
bool source_ctl_set(struct source_ctl *c, const struct source_want *w);
/* The screen drew snapshot seq. True when the source is waiting for
 * exactly that to go on: wake it. */
bool source_ctl_drawn(struct source_ctl *c, unsigned seq);

/* What a source's read may use of its job. */
struct source_io {
	atomic_bool *cancel;
	void (*progress)(void *arg, double fraction, const char *text);
	void *progress_arg;
};

/* One source: its reads, and the snapshots they make. */
struct source_ops {
	const char *name;          /* "live list", "live process", "core" */
	/* A snapshot of what w asks for. tick: a new reading (rates against
	 * last, NULL for the first); else only what w asks for that last
	 * lacks, on top of last (*out NULL: nothing new). Returns 0, 1 when
	 * this is the last snapshot there will be (the process exited: no
	 * more ticks), or -errno with e filled (the source cannot go on). */
	int (*read)(void *st, const struct source_io *io, const struct source_want *w, const struct snap_head *last,
		    bool tick, struct snap_head **out, struct ps_error *e);
	void (*close)(void *st);
};

struct source {
	const struct source_ops *ops;
	void *st;
};

/* The live sources. The list: every process of this machine (primed:
 * the first tick scans twice, 0.1 s apart, so that its snapshot has
 * rates). One process: id (start time 0: whichever process has the pid
 * when the job starts), its header on every tick and the pane w asks for. */
int source_live_list(struct source *out, const struct ps_clock *clk, bool primed);
int source_live_proc(struct source *out, const struct target_id *id, const struct ps_clock *clk);
/* A core file: read once (with progress), then on every tick its
 * identity checked: a file replaced under the screen is said. */
struct core_file_id;
int source_core(struct source *out, const struct core_file_id *id, const char *exe, const struct ps_clock *clk);
/* A recording (pscope record): opened on the first read; each read the
 * interval w asks for (replay_at, replay_i), its rates from the interval
 * before it, nothing new while that stays the same. */
int source_replay(struct source *out, const char *path);
void source_close(struct source *s);

/* Run src as a job on the long lane until cancelled (it is closed there),
 * ticking at the control block's interval; its snapshots are RING_SNAPSHOT
 * payloads (struct snap_head *, released with snap_put_void; keep one with
 * snap_get), the last one a RING_RESULT, a failure a RING_ERROR. */
struct workers;
struct job_handler;
unsigned source_submit(struct workers *w, const struct target_id *id, struct source *src, struct source_ctl *ctl,
		       const struct job_handler *h);

/* One-shot reads (once.c), each a job on the long lane with one
 * RING_RESULT or a RING_ERROR: who id is now (start time 0: the process
 * with that pid), checked as the user saw it, before a screen opens for
 * it (payload: struct target_info); the Doors report of pid (0: the
 * system's; a gone process: the error, then the system's report; payload:
 * struct door_report); the file of id's process (environ, cmdline) with
 * its NUL-separated items (payload: struct proc_text). */
struct target_info {
	struct target_id id;
	uid_t uid;
	char comm[64];             /* hostile */
};
unsigned target_check_submit(struct workers *w, const struct target_id *id, const struct job_handler *h);
unsigned door_report_submit(struct workers *w, pid_t pid, const struct job_handler *h);
struct proc_text {
	char *text;
	size_t len;
};
unsigned proc_text_submit(struct workers *w, const struct target_id *id, const char *file, char sep,
			  const struct job_handler *h);
void proc_text_free(void *p);
/* The text of source files (an annotated function's lines), read on a
 * worker through sym_src_open (regular files only, capped, another user's
 * file copied first): paths[0..n) (n <= SRC_TEXTS_MAX); id names the
 * process they are for. Payload: struct src_texts, f[i] NULL (err[i] its
 * -errno) for a file that could not be read. */
#define SRC_TEXTS_MAX 8
struct sym_src;
struct src_texts {
	unsigned n;
	char *path[SRC_TEXTS_MAX];
	struct sym_src *f[SRC_TEXTS_MAX];
	int err[SRC_TEXTS_MAX];
};
unsigned src_texts_submit(struct workers *w, const struct target_id *id, const char *const *paths, unsigned n,
			  const struct job_handler *h);
void src_texts_free(void *p);
/* The cores the kernel wrote, as `pscope cores` lists them: where
 * core_pattern sends them (relative to pscope's directory), the files
 * there newest first, and what to do when there are none. Payload: struct
 * core_listing. */
#include "core/where.h"
struct core_listing {
	struct core_where where;
	struct core_found *f;      /* newest first */
	size_t n;
	bool listable;             /* a directory or store to list (else: advice) */
	char advice[1024];         /* "" when nothing is needed */
	char ulimit[256];          /* `ulimit -c` limits cores: the sentence, or "" */
	char error[512];           /* the directory could not be listed: why, or "" */
};
unsigned core_listing_submit(struct workers *w, const struct job_handler *h);
void core_listing_free(void *p);

#endif
