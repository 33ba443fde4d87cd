/* The interactive front end. The only header of ui/ that src/ may include. */
#ifndef PS_UI_H
#define PS_UI_H

struct core_file_id;
struct source;

struct ui_opts {
	long delay_tenths;     /* refresh interval, tenths of a second; 0: from pscoperc */
	int pid;               /* open this process's detail screen first */
	const char *user;      /* only this user's processes */
	int tree;              /* 1: start in tree view (else from pscoperc) */
	const char *sort_key;  /* a valid key (main checks it), or NULL */
	int no_color;          /* -C, or NO_COLOR set */
	const char *core;      /* -c CORE: open the core instead of the process list */
	const struct core_file_id *core_id; /* the file main checked is a core */
	const char *core_exe;  /* its program, when not where the core says */
	const char *record;    /* -r FILE: replay this recording in the list */
	struct source *replay; /* main opened it: the list's source (taken) */
	const char *replay_note; /* what its reader skipped ("" none) */
};

/* Runs until the user quits; returns the process exit status. */
int ui_run(const struct ui_opts *o);

#endif
