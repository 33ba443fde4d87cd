/* Batch subcommands: one file each, each exporting one `const struct
 * cmd_entry`. The shared runner (cmd/run.c) parses the options, prints the
 * usage and --help, checks the PID argument and the final flush of stdout,
 * and sets the exit status: 0 success, 1 failure (message on stderr),
 * 2 usage error. main.c keeps the table of entries. */
#ifndef PS_CMD_H
#define PS_CMD_H

#include <getopt.h>
#include <stdio.h>
#include <sys/types.h>

#include "error.h"

enum cmd_pid_arg {
	CMD_PID_NONE,     /* no positional argument at all */
	CMD_PID_OPTIONAL, /* [PID] */
	CMD_PID_REQUIRED, /* PID */
};

struct cmd_entry {
	const char *name;
	const char *args;               /* synopsis after "pscope NAME " */
	const char *help;               /* N_(): what it does, then its options */
	void (*help_more)(FILE *f);     /* after it, text made from tables; may be NULL */
	const char *shortopts;          /* getopt template of options[] ("h" is added) */
	const struct option *options;   /* long options; --help is added */
	enum cmd_pid_arg pid;
	size_t state_size;              /* the command's parsed options */
	void (*init)(void *state);      /* defaults; may be NULL (all zero) */
	/* One option: 0, or -1 after printing why its value is wrong (exit 2). */
	int (*option)(void *state, int opt, const char *arg);
	/* The command itself: 0, or 1 after printing the failure. pid is 0
	 * when the command takes none or none was given. */
	int (*exec)(void *state, pid_t pid);
};

extern const struct cmd_entry cmd_list_entry, cmd_show_entry, cmd_stack_entry, cmd_top_entry,
	cmd_core_entry, cmd_doors_entry, cmd_cores_entry, cmd_time_entry, cmd_record_entry;

/* Run ce over argv (argv[0] is the command's name); the exit status. */
int cmd_run(const struct cmd_entry *ce, int argc, char **argv);
/* "Usage: pscope NAME ARGS" and the help text. */
void cmd_usage(const struct cmd_entry *ce, FILE *f);

/* A usage error, alike for every command and the screen's own options:
 * "pscope: MESSAGE", then "Try 'pscope [CMD] --help' for more
 * information." (cmd NULL: the screen's options). Returns 2, the status. */
int cmd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* getopt_long returned ':' (a value missing) or '?' (an unknown option),
 * with opterr 0 and ':' first in its option string: the usage error for
 * it (the option named as given). Returns 2. */
int cmd_getopt_error(const char *cmd, int c, char **argv);
/* Parse a PID argument; prints a usage error and returns -1 if invalid. */
pid_t cmd_parse_pid(const char *prog, const char *arg);
/* Print "pscope CMD: <error sentence, door, fix>" to stderr; returns 1. */
int cmd_fail(const char *cmd, const struct ps_error *e);
/* The usage error for a bad option value (fmt gets the escaped arg);
 * returns -1. */
int cmd_bad_value(const char *cmd, const char *fmt, const char *arg);

#endif
