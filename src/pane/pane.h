/* The detail panes, each described once: its name and aliases, its title
 * and key, where its data comes from, the /proc file whose refusal names
 * the door, how often the TUI reads it, its help text, and its batch
 * output. The TUI's panes (ui/pane-*.c: reading, drawing and keys) and
 * `pscope show` (text and JSON) both take them from here, as door_render
 * feeds both `pscope doors` and the Doors screen.
 *
 * Adding a pane: doc/architecture.md, Recipes: its name in
 * src/pane/panes.h, src/pane/NAME.c (its struct pane_desc and its show
 * function), ui/pane-NAME.c for the TUI, its help texts, and the build
 * lists. */
#ifndef PS_PANE_PANE_H
#define PS_PANE_PANE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "out/json.h"

/* The panes' places in tab order (src/pane/panes.h): PANE_ID_status... */
enum pane_id {
#define PANE(name) PANE_ID_##name,
#include "pane/panes.h"
#undef PANE
	PANE_COUNT
};

/* One `pscope show` run over the panes of one process. */
struct pane_show {
	pid_t pid;
	int dirfd;                     /* /proc/PID */
	bool json, smaps;
	bool kthread;                  /* no address space: maps/mem are empty */
	bool zombie;                   /* exited, not reaped: no memory, no fds */
	pid_t ppid;
	double interval;               /* seconds between two reads for rates */
	int repeat;                    /* re-reads timed on stderr */
	struct json_object *jpanes;    /* JSON: "panes" */
	int failed;                    /* a pane could not be read */
	const char *cmdline;           /* the whole command line (proc_info keeps 4 KiB), or NULL */
};

struct pane_desc {
	const char *name;              /* "fd": `pscope show --pane fd`, the JSON key */
	const char *aliases[2];        /* other names --pane takes ("fds") */
	const char *title;             /* N_("FDs"): the detail screen's tab bar */
	const char *summary;           /* N_(): what it shows, in a line of help */
	const char *source;            /* where the data comes from ("PID": the pid) */
	const char *file;              /* the /proc/PID file named when access is refused */
	int refresh_ms;                /* the TUI reads it at most this often */
	const char *help;              /* data/help/<help>.txt explains every field */
	/* Read the pane once; print it (text) or add it to s->jpanes (JSON). */
	void (*show)(struct pane_show *s);
};

#define PANE(name) extern const struct pane_desc pane_desc_##name;
#include "pane/panes.h"
#undef PANE
/* Every pane, in tab order (index: enum pane_id). */
extern const struct pane_desc *const pane_descs[PANE_COUNT];

/* The threads pane's columns, named once for the TUI and `pscope show`. */
enum pane_threads_col {
	PT_TID, PT_NAME, PT_STATE, PT_CPU, PT_HIST, PT_LAST, PT_WCHAN, PT_SYSCALL, PT_VOL, PT_INVOL, PT_RQ, PT_LOCK, PT_NCOLS
};
extern const char *const pane_threads_cols[PT_NCOLS];

/* The place (enum pane_id) of the pane with that name, or also an alias
 * when aliases is true; -1 if none. */
int pane_find(const char *name, bool aliases);
/* The panes' names ("status, fd, ..."), or their titles translated in
 * lower case ("status, fds, ..."), in tab order joined by ", " into buf.
 * Returns buf. */
const char *pane_names(char *buf, size_t size, bool titles);
/* The source line for pid ("PID" replaced; pid 0 keeps "PID"). */
const char *pane_source(const struct pane_desc *p, pid_t pid, char *buf, size_t size);

/* For the show functions: the text section header; a refusal (the door
 * sentence, or an error object in JSON); helpers. */
void pane_show_section(const struct pane_show *s, const struct pane_desc *p, const char *source);
void pane_show_error(struct pane_show *s, const struct pane_desc *p, int err, const char *file);
/* The same for a refusal already worded (e, its door named); source for
 * the text header (NULL: the pane's). */
struct ps_error;
void pane_show_refusal(struct pane_show *s, const struct pane_desc *p, const struct ps_error *e, const char *source);
/* A zombie's empty pane says why instead of failing: true when it did. */
bool pane_show_zombie(struct pane_show *s, const struct pane_desc *p);
void pane_kb_json(struct json_object *o, const char *key, long kb);
void pane_kb_text(const char *label, long kb);
double pane_ms_since(unsigned long long t0_ns);
/* --repeat: the min/median/max of n read times on stderr. */
void pane_report_times(const char *what, double *t, int n, size_t items, const char *unit);
/* Sleep for the rate interval. */
void pane_sleep(double seconds);

#endif
