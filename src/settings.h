/* pscoperc: the settings pscope keeps between runs, in
 * $XDG_CONFIG_HOME/pscope/pscoperc (default ~/.config/pscope/pscoperc).
 * Written on quit as htop writes htoprc, read at start. A pure parser and
 * formatter, and the file I/O beside them. A file that does not parse is
 * reported and left alone: never overwritten with defaults. */
#ifndef PS_SETTINGS_H
#define PS_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "pane/pane.h"
#include "proc/ptable.h"

enum cfg_meter { CFG_M_CPUS, CFG_M_MEMORY, CFG_M_SWAP, CFG_M_TASKS, CFG_M_LOAD, CFG_M_UPTIME, CFG_M_COUNT };
#define CFG_ALL_METERS ((1u << CFG_M_COUNT) - 1)

struct pscope_config {
	int columns[PSORT_COUNT];   /* enum proc_sort, in display order */
	int ncolumns;
	int sort_key;               /* enum proc_sort */
	bool sort_desc, tree, hide_kthreads, hide_uthreads;
	int delay_tenths;           /* 1..600 */
	unsigned meters;            /* 1 << enum cfg_meter */
	bool meter_graph;           /* the CPU, memory and swap meters as graphs of
				     * their last ticks (htop's graph mode), else bars */
	char theme[32];             /* a name in data/themes/ */
	int pane_order[PANE_COUNT]; /* detail panes in tab order: enum pane_id (the registry's) */
	/* Lines whose key this pscope does not know (a newer one's settings):
	 * ignored, kept as they were and written back after the known ones. */
	char unknown[2048];
	/* Said about them (the first one's line and key), "" when none. */
	char warning[200];
};

void cfg_defaults(struct pscope_config *c);
/* Parse pscoperc text into c (which starts from cfg_defaults). On the
 * first bad line (a bad value for a known key, no '='): -EINVAL, e says
 * which line and why, c is defaults. An unknown key is no error: its line
 * goes to c->unknown and c->warning names it. A pane_order that names a
 * pane this pscope does not have is warned about and the name ignored; the
 * panes it leaves out (added since the file was written) follow the others
 * in their registry order. */
int cfg_parse(const char *buf, size_t len, struct pscope_config *c, struct ps_error *e);
/* The text of c; returns its length (>= size: cut). */
size_t cfg_format(const struct pscope_config *c, char *buf, size_t size);

/* The settings the user changed between start and now, over what the file
 * holds: out is file, except where now differs from start (a setting the
 * command line gave and the session left alone keeps the file's value, as
 * in htop). Sort key and direction go together. True when out differs
 * from file. */
bool cfg_merge(struct pscope_config *out, const struct pscope_config *file, const struct pscope_config *start,
	       const struct pscope_config *now);
/* The same settings (the lines kept from a newer pscope aside). */
bool cfg_same(const struct pscope_config *a, const struct pscope_config *b);

/* Names in the file. */
const char *cfg_meter_name(enum cfg_meter m);
const char *cfg_pane_name(int pane);   /* the registry's name of a pane ("fd") */

/* The path: $XDG_CONFIG_HOME/pscope/pscoperc, else $HOME/.config/...
 * -ENOENT when neither is set. */
int cfg_path(char *buf, size_t size);
/* 0 loaded, 1 no file (c: defaults), <0 unreadable or broken (c: defaults,
 * e: why). */
int cfg_load(const char *path, struct pscope_config *c, struct ps_error *e);
/* Write c atomically (temporary file + rename), creating the directory. */
int cfg_save(const char *path, const struct pscope_config *c, struct ps_error *e);

#endif
