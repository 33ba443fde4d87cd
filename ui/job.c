/* A screen's job (job.h). */
#include "job.h"
#include "uipriv.h"

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
