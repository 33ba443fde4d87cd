/* The interactive front end. The only header of ui/ that src/ may include. */
#ifndef PS_UI_H
#define PS_UI_H

struct ui_opts {
	long delay_tenths;     /* refresh interval, tenths of a second */
	int pid;               /* open this process's detail screen first */
	const char *user;      /* only this user's processes */
	int tree;
	const char *sort_key;
	const char *core;      /* -c CORE: open the core instead of the process list */
	const char *core_exe;  /* its program, when not where the core says */
};

/* Runs until the user quits; returns the process exit status. */
int ui_run(const struct ui_opts *o);

#endif
