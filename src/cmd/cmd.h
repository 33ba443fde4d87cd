/* Batch subcommands: each parses its own arguments, calls the model and
 * prints through src/out/. Exit: 0 success, 1 failure (message on stderr),
 * 2 usage error. */
#ifndef PS_CMD_H
#define PS_CMD_H

int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_stack(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_core(int argc, char **argv);
int cmd_doors(int argc, char **argv);

/* Shared helpers for the commands. */
#include <sys/types.h>
#include "error.h"
/* Parse a PID argument; prints a usage error and returns -1 if invalid. */
pid_t cmd_parse_pid(const char *prog, const char *arg);
/* Print "pscope CMD: <error sentence, door, fix>" to stderr; returns 1. */
int cmd_fail(const char *cmd, const struct ps_error *e);

/* A core's header (signal, command line...), warnings and JSON object. */
#include <stdio.h>
struct core;
struct json_object;
void core_print_header(FILE *f, const struct core *c);
void core_print_warnings(FILE *f, const char *prog, const struct core *c);
struct json_object *core_json(const struct core *c);

#endif
