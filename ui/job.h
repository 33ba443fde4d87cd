/* A job a screen runs (a stack dump, reading a core, sampling): its id,
 * whether it runs, its progress and the error it ended with. What every
 * screen does the same way with its job's messages and when it leaves. */
#ifndef PS_UI_JOB_H
#define PS_UI_JOB_H

#include <stdbool.h>

#include "ring.h"

struct ui;

struct ui_job {
	unsigned id;             /* 0: none */
	bool running, failed;
	double fraction;         /* progress, 0..1 (<0: unknown) */
	char progress[200];
	char error[1024];
};

/* A job was submitted (id 0: it could not start: failed with why). */
void ui_job_started(struct ui_job *j, unsigned id, const char *waiting, const char *why);
/* PROGRESS (the text kept), ERROR (failed, its sentence kept) and DONE
 * (not running; without a result and no error: failed with `nothing`).
 * RESULT and SNAPSHOT are the screen's. The payload is never kept. */
void ui_job_message(struct ui_job *j, const struct ring_msg *m, bool have_result, const char *nothing);
/* The screen goes away: a running job is cancelled (the target is let go
 * on the job's thread), and its last messages are dropped unread. */
void ui_job_leave(struct ui *ui, struct ui_job *j);

#endif
