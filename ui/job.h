/* A job a screen runs (a stack dump, reading a core, sampling): its id,
 * whether it runs, its progress and the error it ended with. What every
 * screen does the same way with its job's messages and when it leaves;
 * and for a sampling job (hot functions of one process or of every
 * process), the snapshots it keeps publishing. */
#ifndef PS_UI_JOB_H
#define PS_UI_JOB_H

#include <stdbool.h>

#include "error.h"
#include "ring.h"
#include "sample/sample.h"
#include "keys.h"

struct ui;
struct job_handler;
struct target_id;

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

/* A screen for id (start time 0: the process with that pid now) opens
 * once its identity was checked on a worker (a reused PID is refused,
 * its name read): open(ui, t) then; a refusal goes to the status line. */
struct target_info;
void ui_check_target(struct ui *ui, const struct target_id *id, void (*open)(struct ui *ui, const struct target_info *t));

/* A sampling job: snapshots come one after another; the newest is shown,
 * or kept aside while the view is frozen. */
struct ui_samp_job {
	struct ui_job job;
	struct samp_ctl *ctl;           /* rate, mode: the screen sets them */
	struct samp_snapshot *shown;    /* drawn */
	struct samp_snapshot *pending;  /* the newest while frozen */
	bool frozen;
	bool stale;                     /* shown (or how the screen views it)
	                                 * changed: compute the rows again */
	struct ps_error err;            /* why sampling could not start */
	bool have_err;
	/* How the screen views the snapshots; the sampler keys change them. */
	enum samp_window win;
	enum samp_sort sort;
	pid_t tid;                      /* one thread only; 0: all */
	pid_t pid;                      /* the process sampled, 0: every one (ui_samp_start) */
	int freq_max;                   /* + stops here (Hz); 0: no limit */
	bool wakers;                    /* an off-CPU profile: its waker profile shown */
};
/* The profile the screen shows: the snapshot shown, or its waker profile
 * (wakers set, an off-CPU snapshot); NULL before the first. */
const struct samp_snapshot *ui_samp_profile(const struct ui_samp_job *s);

/* The keys of every profile screen (a fragment: UI_USE with its
 * ui_samp_job): Space freeze, w window, s sort, + - rate, E export. */
extern const struct ui_key ui_samp_keys[];
/* Where E (ext "folded") and G ("svg") offer to write the stacks of pid
 * (0: every process) in window w: "pscope-PID-10s.folded",
 * "pscope-all-10s.svg". */
void ui_samp_export_name(char *buf, size_t size, pid_t pid, enum samp_window w, const char *ext);

/* Sample id (pid 0: every process) with s->ctl; h's handler passes the
 * messages to ui_samp_message. false: it could not start (out of
 * memory, said on the status line). */
bool ui_samp_start(struct ui *ui, struct ui_samp_job *s, const struct target_id *id, const struct job_handler *h);
/* SNAPSHOT and RESULT are kept (shown, or pending while frozen; returns
 * true: the payload is kept), PROGRESS goes to the status line, ERROR is
 * kept in err, DONE: not running any more. */
bool ui_samp_message(struct ui *ui, struct ui_samp_job *s, struct ring_msg *m);
/* Space: freeze the view (sampling goes on) or show the newest again. */
void ui_samp_freeze(struct ui *ui, struct ui_samp_job *s);
/* + and -: the rate of steps[n] (ascending) next above (dir > 0) or below
 * the current one, from the next snapshot. */
void ui_samp_step_freq(struct ui *ui, struct ui_samp_job *s, const int *steps, int n, int dir);
/* The job cancelled (ui_job_leave), the snapshots and the error dropped;
 * ctl stays for the next start. */
void ui_samp_stop(struct ui *ui, struct ui_samp_job *s);
/* The screen goes away: stopped, and ctl released. */
void ui_samp_free(struct ui *ui, struct ui_samp_job *s);

#endif
