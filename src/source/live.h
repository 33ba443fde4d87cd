/* Shared by live-proc.c and live-panes.c only: one live process. */
#ifndef PS_SOURCE_LIVE_H
#define PS_SOURCE_LIVE_H

#include "source/source.h"
#include "sym/sym.h"

#include "source/hist.h"

struct live_proc {
	const struct ps_clock *clk;
	struct target_id want;     /* start time 0: the process with that pid now */
	struct target t;
	bool opened;
	bool exited_at_open;       /* a zombie when opened: one pane read, then frozen */
	char exited_why[160];
	unsigned tick_now;         /* the screen's last F5 */
	enum pane_id pane;         /* the pane shown at the last read */
	bool smaps_on;             /* Maps: smaps asked for at the last read */
	uint64_t read_ns[PANE_COUNT]; /* each pane's last read (0: never) */
	uint64_t smaps_ns;         /* Maps: the last read with smaps */
	/* the readers' caches */
	struct proc_fd_list fds;   /* PROC_FD_CACHED: the previous read */
	struct proc_net net;
	struct sym_proc *syms;     /* names the locks; made at the first waiter */
	struct hist_set threads_hist; /* each thread's CPU% over the Threads pane's last reads */
};

/* live-proc.c: the header into s; frozen when the process is gone. */
void live_proc_info(struct live_proc *l, struct snap_proc *s);
/* live-panes.c: read the pane w shows into s when it is due (tick) or
 * newly wanted; true when s got new pane data. */
bool live_pane_read(struct live_proc *l, struct snap_proc *s, const struct source_want *w, bool tick);
void live_panes_close(struct live_proc *l);

#endif
