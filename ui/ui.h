/* The interactive front end: what ui/main.c calls once src/cli.c has
 * parsed the command line. */
#ifndef PS_UI_H
#define PS_UI_H

#include "cli.h"

/* Runs until the user quits; returns the process exit status. */
int ui_run(const struct ui_opts *o);

#endif
