/* pscope's command line (cli.c): runs a batch subcommand, or parses the
 * options of the interactive inspector and hands them to run_ui. */
#ifndef PS_CLI_H
#define PS_CLI_H

struct core_file_id;

#define UI_OPTS_PIDS 64   /* -p PID,PID...: at most this many */
#define UI_FILTER_MAX 64  /* the list filter's bytes, its end included */

struct ui_opts {
	long delay_tenths;     /* refresh interval, tenths of a second; 0: from pscoperc */
	int pid;               /* -p PID: open this process's detail screen first */
	int pids[UI_OPTS_PIDS];/* -p PID,PID...: the list shows only these (htop's -p) */
	int npids;
	const char *filter;    /* -F TEXT: the list's filter (F4) set at the start */
	const char *user;      /* only this user's processes */
	int tree;              /* 1: start in tree view (else from pscoperc) */
	const char *sort_key;  /* a valid key (cli_main checks it), or NULL */
	int no_color;          /* -C, or NO_COLOR set */
	const char *core;      /* -c CORE: open the core instead of the process list */
	const struct core_file_id *core_id; /* the file cli_main checked is a core */
	const char *core_exe;  /* its program, when not where the core says */
	const char *replay;    /* -r FILE: the list replays this recording */
	double replay_at;      /* --at TIME: from the interval nearest this (s since 1970); 0: the last */
};

/* Everything main() does; returns the process exit status. run_ui runs
 * the interactive front end until the user quits. */
int cli_main(int argc, char **argv, int (*run_ui)(const struct ui_opts *o));

#endif
