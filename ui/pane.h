/* Panes of the detail screen: one file each (ui/pane-*.c), each a table
 * entry over its description in src/pane/ (name, title, key, source, the
 * file of its door, refresh interval, help text). A pane draws the data
 * the screen's source read for it (struct pane_data, src/source/snap.h),
 * never reading anything itself; it says what else it wants read (the
 * fdinfo of the fds on screen, smaps) through want(). */
#ifndef PS_UI_PANE_H
#define PS_UI_PANE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "error.h"
#include "pane/pane.h"
#include "proc/info.h"
#include "keys.h"
#include "source/source.h"
#include "table.h"

struct ui;

/* RSS samples of the last minute (taken by the screen on every refresh). */
#define PANE_HIST_MAX 600
struct pane_hist {
	double t[PANE_HIST_MAX];
	long rss_kb[PANE_HIST_MAX];
	float cpu_pct[PANE_HIST_MAX];      /* of one CPU since the tick before */
	int n, head;                       /* ring: oldest at head when full */
};

/* What every pane may look at. */
struct pane_ctx {
	struct ui *ui;
	pid_t pid;
	const struct snap_proc *snap;      /* the newest snapshot */
	const struct proc_info *info;      /* its header data */
	const struct proc_info_rates *rates; /* per second, since the previous tick */
	bool have_rates;
	const struct pane_hist *hist;
	const char *cmdline;               /* the whole command line, or NULL
					    * (then info's, cut at 4 KiB) */
	bool frozen;                       /* the process exited: the last data */
	bool core;                         /* a core's: its mappings never change */
	double now;                        /* the snapshot's time in seconds (the
					    * source's clock): ages are made against it */
};

struct pane_ops {
	const struct pane_desc *desc;  /* name, title, key, source, door, help */
	void *(*create)(void);
	void (*destroy)(void *st);
	/* New data for the pane (a new read, or with d->more the last read
	 * with more in it): keep it (pane_data_get) and rebuild what is
	 * drawn. NULL: the pane draws the header data (Status). */
	void (*take)(void *st, const struct pane_ctx *c, struct pane_data *d);
	void (*draw)(void *st, const struct pane_ctx *c, int y0, int rows);
	/* Its keys (ui/keys.h; NULL: none), called with a struct pane_key as
	 * their state; its help (F1 on the detail screen) shows them. */
	const struct ui_key *keys;
	/* The rest: the list widget's keys (moving, sorting, scrolling).
	 * true when handled. */
	bool (*on_key)(void *st, const struct pane_ctx *c, int ch, int rows);
	/* '/' and n: select the next row (dir +1/-1 from the selection, or
	 * from it when again is false) whose text holds text; false when none
	 * does. NULL: the pane has nothing to search. */
	bool (*search)(void *st, const char *text, int dir, bool again);
	/* What the pane wants read besides its data (FDs: the fdinfo of the
	 * rows on screen; Maps: smaps). NULL: nothing. */
	void (*want)(void *st, struct source_want *w);
	/* The pane is no longer shown (another one was switched to): stop
	 * what it runs of its own (the Time pane's session). NULL: nothing. */
	void (*hide)(void *st);
	/* Opened to show a view of it (the list's x: "locks"). NULL: none. */
	void (*view)(void *st, const char *view);
};

/* What a pane's key functions get as their state. */
struct pane_key {
	void *st;                          /* the pane's */
	const struct pane_ctx *c;
	int rows;
};
/* A key for pane p (state st): its table, then its on_key. true when
 * handled. */
bool pane_key(struct ui *ui, const struct pane_ops *p, void *st, const struct pane_ctx *c, int ch, int rows);

/* The TUI side of each pane of the registry (src/pane/panes.h). */
#define PANE(name) extern const struct pane_ops pane_##name;
#include "pane/panes.h"
#undef PANE

#endif
