/* pscope show -r FILE [--at TIME] PID (show-rec.c). */
#ifndef PS_CMD_SHOW_REC_H
#define PS_CMD_SHOW_REC_H

#include <stdbool.h>
#include <sys/types.h>

/* What the recording at path holds of pid at the interval nearest to at
 * (NULL: the last); panes: the panes asked for (bit per enum pane_id),
 * those other than status said not recorded. The exit status. */
int show_recorded(const char *path, const char *at, pid_t pid, unsigned panes, bool as_json);

#endif
