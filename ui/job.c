/* A screen's job (job.h). */
#include "job.h"
#include "uipriv.h"
#include "i18n.h"
#include "sample/sample.h"
#include "source/source.h"

#include <stdlib.h>

#include <stdio.h>

void ui_job_started(struct ui_job *j, unsigned id, const char *waiting, const char *why)
{
	j->id = id;
	j->running = id != 0;
	j->failed = id == 0;
	j->fraction = 0;
	snprintf(j->progress, sizeof(j->progress), "%s", waiting);
	if (!id)
		snprintf(j->error, sizeof(j->error), "%s", why);
}

void ui_job_message(struct ui_job *j, const struct ring_msg *m, bool have_result, const char *nothing)
{
	char buf[1024];

	switch (m->kind) {
	case RING_PROGRESS:
		j->fraction = m->fraction;
		snprintf(j->progress, sizeof(j->progress), "%s", m->text);
		break;
	case RING_ERROR:
		j->failed = true;
		snprintf(j->error, sizeof(j->error), "%s", ps_error_str(&m->err, buf, sizeof(buf)));
		break;
	case RING_DONE:
		j->running = false;
		if (!have_result && !j->failed) {
			j->failed = true;
			snprintf(j->error, sizeof(j->error), "%s", nothing);
		}
		break;
	default:
		break;
	}
}

void ui_job_leave(struct ui *ui, struct ui_job *j)
{
	/* On quit the workers are already gone (they cancelled every job). */
	if (!ui->workers || !j->id)
		return;
	if (j->running)
		workers_cancel(ui->workers, j->id);
	workers_forget(ui->workers, j->id);
	j->running = false;
}

const struct samp_snapshot *ui_samp_profile(const struct ui_samp_job *s)
{
	return s->wakers && s->shown && s->shown->wakers ? s->shown->wakers : s->shown;
}

bool ui_samp_start(struct ui *ui, struct ui_samp_job *s, const struct target_id *id, const struct job_handler *h)
{
	s->pid = id->pid;
	ui_job_started(&s->job, samp_job_submit(ui->workers, id, s->ctl, h), "", _("out of memory"));
	if (!s->job.id)
		ui_message(ui, true, "%s", _("out of memory"));
	return s->job.id != 0;
}

bool ui_samp_message(struct ui *ui, struct ui_samp_job *s, struct ring_msg *m)
{
	switch (m->kind) {
	case RING_SNAPSHOT:
	case RING_RESULT:
		if (!m->payload)
			return false;
		if (s->frozen) {
			samp_snapshot_free(s->pending);
			s->pending = m->payload;
		} else {
			samp_snapshot_free(s->shown);
			s->shown = m->payload;
			s->stale = true;
		}
		return true;
	case RING_PROGRESS:
		ui_message(ui, true, "%s", m->text);
		return false;
	case RING_ERROR:
		s->err = m->err;
		s->have_err = true;
		return false;
	case RING_DONE:
		s->job.running = false;
		return false;
	default:
		return false;
	}
}

void ui_samp_freeze(struct ui *ui, struct ui_samp_job *s)
{
	s->frozen = !s->frozen;
	if (!s->frozen && s->pending) {
		samp_snapshot_free(s->shown);
		s->shown = s->pending;
		s->pending = NULL;
		s->stale = true;
	}
	ui_message(ui, false, "%s", s->frozen ? _("view frozen (sampling continues); Space resumes") : _("view live"));
}

void ui_samp_step_freq(struct ui *ui, struct ui_samp_job *s, const int *steps, int n, int dir)
{
	int cur = samp_ctl_freq(s->ctl), i;

	if (dir > 0) {
		for (i = 0; i < n && steps[i] <= cur; i++)
			;
		if (i == n)
			i = n - 1;
	} else {
		for (i = n - 1; i >= 0 && steps[i] >= cur; i--)
			;
		if (i < 0)
			i = 0;
	}
	samp_ctl_set_freq(s->ctl, steps[i]);
	ui_message(ui, false, _("sampling at %d Hz from the next snapshot%s"), steps[i],
		   s->job.running ? "" : _(" (sampling has stopped)"));
}

void ui_samp_stop(struct ui *ui, struct ui_samp_job *s)
{
	ui_job_leave(ui, &s->job);
	samp_snapshot_free(s->shown);
	samp_snapshot_free(s->pending);
	s->shown = s->pending = NULL;
	s->have_err = false;
	s->stale = true;
}

void ui_samp_free(struct ui *ui, struct ui_samp_job *s)
{
	/* The job closes its events on its own thread. */
	ui_samp_stop(ui, s);
	samp_ctl_put(s->ctl);
	s->ctl = NULL;
}

struct check_ctx {
	struct ui *ui;
	void (*open)(struct ui *ui, const struct target_info *t);
};

static bool check_message(void *ctx, struct ring_msg *m)
{
	struct check_ctx *c = ctx;

	if (m->kind == RING_RESULT && m->payload)
		c->open(c->ui, m->payload);
	else if (m->kind == RING_ERROR)
		ui_error(c->ui, &m->err);
	else if (m->kind == RING_DONE)
		free(c);
	return false;
}

void ui_check_target(struct ui *ui, const struct target_id *id, void (*open)(struct ui *ui, const struct target_info *t))
{
	struct check_ctx *c = malloc(sizeof(*c));
	struct job_handler h = { check_message, c };

	if (c) {
		c->ui = ui;
		c->open = open;
		if (target_check_submit(ui->workers, id, &h))
			return;
		free(c);
	}
	ui_message(ui, true, "%s", _("out of memory"));
}
