/* Core screen: `C` asks where to write a core of the selected process
 * (showing the estimated size and the free space), then writes it in the
 * attach worker with progress. Esc cancels; b returns to the
 * list while the core is written, and the status line follows it. One
 * core at a time: `C` while one is running shows it again. */
#include "uipriv.h"
#include "core/core.h"
#include "job.h"
#include "draw.h"
#include "i18n.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <errno.h>
#include <limits.h>
#include <ncursesw/curses.h>
#include <stdlib.h>
#include <string.h>

/* The core being written, or the last one written: one at a time, kept
 * in the ui (ui->core_writer) because its job outlives the screen, so the
 * status line follows a core written in the background. */
struct core_screen {
	struct ui *ui;
	struct ui_job job;              /* its id, progress, error, running */
	bool cancelling;                /* Esc: asked to stop */
	bool cancelled;                 /* it stopped without a file */
	pid_t pid;
	struct target_id id;
	char comm[64];                  /* hostile */
	struct core_estimate est;
	struct core_result *res;        /* written */
	bool shown;                     /* on the screen stack */
	bool unseen;                    /* finished while hidden */
};

static void writer_free(struct core_screen *cs)
{
	if (!cs)
		return;
	core_result_release(cs->res);
	free(cs);
}

void screen_core_free(struct ui *ui)
{
	writer_free(ui->core_writer);
	ui->core_writer = NULL;
}

/* ---- messages, also while the screen is closed ---- */

/* The core job's handler: it outlives the screen, so the status line
 * follows a core written in the background. */
static bool core_message(void *ctx, struct ring_msg *m)
{
	struct core_screen *cs = ctx;
	struct ui *ui = cs->ui;
	char b[32];
	bool kept = false;

	switch (m->kind) {
	case RING_PROGRESS:
		if (!cs->shown)
			ui_message(ui, false, _("core of %d: %s (C shows it)"), (int)cs->pid, m->text);
		break;
	case RING_RESULT:
		core_result_release(cs->res);
		cs->res = m->payload;
		if (!cs->shown) {
			cs->unseen = true;
			ui_message(ui, false, _("core written: %s (%s on disk, paused %.0f ms); C for details"),
				   cs->res->path, human_bytes(cs->res->disk_bytes, b, sizeof(b)), cs->res->pause_ms);
		}
		kept = true;
		break;
	case RING_ERROR:
		cs->cancelled = m->err.code == ECANCELED;
		if (!cs->shown) {
			cs->unseen = true;
			ui_error(ui, &m->err);
		}
		break;
	case RING_DONE:
		if (!cs->res && !cs->job.failed) /* cancelled before it started */
			cs->cancelled = true;
		break;
	default:
		break;
	}
	ui_job_message(&cs->job, m, cs->res != NULL, _("cancelled before it started: no file written"));
	return kept;
}

/* ---- the screen ---- */

/* How the core will be (or was) made, with its cost to the process. */
static const char *method_text(const struct core_estimate *est, char *buf, size_t size)
{
	switch (est->method) {
	case CORE_METHOD_FORK:
		snprintf(buf, size,
			 _("by a fork snapshot (a pause of milliseconds; until it is written, each first write to a "
			   "page costs the process a copy-on-write fault, about %.1f us)%s%s"),
			 CORE_COW_US_PER_PAGE, est->method_why[0] ? "; " : "", est->method_why);
		break;
	case CORE_METHOD_STOP:
		snprintf(buf, size, _("with the process stopped while it is written (not fork: %s)"), est->method_why);
		break;
	case CORE_METHOD_COPY:
		snprintf(buf, size, _("with the process stopped while its memory is copied to RAM (not fork: %s)"),
			 est->method_why);
		break;
	default:
		snprintf(buf, size, _("(%s)"), est->method_why);
		break;
	}
	return buf;
}

/* A labelled row; a long text (a path, a sentence) wraps at its blanks
 * onto the next rows instead of being cut at the edge (a word is split
 * only when it alone is wider than the column). */
static int row(int y, const char *label, int attr, const char *text)
{
	int w = draw_cols() - 15;

	draw_text(y, 1, 14, draw_attr(COL_DIM), label);
	if (w < 8)
		w = 8;
	int rows = draw_rows() - 2 - y;
	if (rows <= 0)
		return y;
	int n = draw_wrapped(y, 15, w, rows, attr, text, true, 0);
	return y + (n < rows ? n : rows);
}

/* A command the user copies (gdb EXE CORE): on rows of its own from the
 * first column, unindented, so a triple-click takes it whole when it fits
 * the width; longer, it wraps at its blanks. */
static int command_rows(int y, int attr, const char *cmd)
{
	int rows = draw_rows() - 2 - y;

	if (rows <= 0)
		return y;
	int n = draw_wrapped(y, 0, draw_cols() > 1 ? draw_cols() : 1, rows, attr, cmd, true, 0);
	return y + (n < rows ? n : rows);
}

static void core_draw(struct ui *ui, void *st, int y0, int rows)
{
	struct core_screen *cs = st;
	char a[32], b[32], c[32], line[2 * PATH_MAX + 64];
	int y = y0 + 2, end = y0 + rows;
	(void)ui;

	draw_blank(y0, 0, -1, draw_attr(COL_TITLE));
	draw_textf(y0, 0, -1, draw_attr(COL_TITLE), _(" Write core of PID %d (%s)"), (int)cs->pid, cs->comm);
	if (y >= end)
		return;
	y = row(y, _("Destination"), draw_attr(COL_NORMAL), cs->est.path);
	snprintf(line, sizeof(line), _("%s (about %s on disk: zero pages are holes), %s free"),
		 human_bytes(cs->est.bytes, a, sizeof(a)), human_bytes(cs->est.disk_bytes, b, sizeof(b)),
		 human_bytes(cs->est.free_bytes, c, sizeof(c)));
	y = row(y, _("Estimate"), draw_attr(COL_NORMAL), line);
	if (y < end)
		y = row(y, _("Method"), draw_attr(COL_NORMAL), method_text(&cs->est, line, sizeof(line)));
	y++;
	if (y >= end)
		return;
	if (cs->job.running) {
		y = row(y, _("State"), draw_attr(COL_WARN), cs->cancelling ? _("cancelling...") : _("running"));
		if (y < end && cs->job.fraction >= 0) {
			draw_bar(y, 15, draw_cols() - 17 > 10 ? draw_cols() - 17 : 10, cs->job.fraction, draw_attr(COL_GOOD), "");
			y++;
		}
		if (y < end)
			y = row(y, _("Progress"), draw_attr(COL_NORMAL), cs->job.progress[0] ? cs->job.progress : _("queued"));
		y++;
		if (y < end)
			draw_text(y++, 1, -1, draw_attr(COL_DIM),
				  _("Esc cancels (the partial file is removed, the process resumes); b returns to the list meanwhile."));
	} else if (cs->res) {
		const struct core_result *r = cs->res;
		y = row(y, _("Written"), draw_attr(COL_GOOD) | A_BOLD, r->path);
		snprintf(line, sizeof(line), _("%s (%llu bytes), %s on disk"), human_bytes(r->bytes, a, sizeof(a)),
			 (unsigned long long)r->bytes, human_bytes(r->disk_bytes, b, sizeof(b)));
		if (y < end)
			y = row(y, _("Size"), draw_attr(COL_NORMAL), line);
		snprintf(line, sizeof(line), _("%.1f ms with the process stopped, %.2f s in all"), r->pause_ms,
			 r->wall_ms / 1000);
		if (y < end)
			y = row(y, _("Pause"), draw_attr(COL_NORMAL), line);
		if (r->method == CORE_METHOD_FORK)
			snprintf(line, sizeof(line), _("fork snapshot, read for %.2f s (copy-on-write for the process meanwhile)%s%s"),
				 r->child_ms / 1000, r->method_why[0] ? "; " : "", r->method_why);
		else
			snprintf(line, sizeof(line), _("%s (not fork: %s)"), core_method_name(r->method), r->method_why);
		if (y < end)
			y = row(y, _("Method"), draw_attr(COL_NORMAL), line);
		snprintf(line, sizeof(line), _("%.2f s of fsync, %.2f s without it"), r->sync_ms / 1000,
			 (r->wall_ms - r->sync_ms) / 1000);
		if (y < end)
			y = row(y, _("Sync"), draw_attr(COL_NORMAL), line);
		snprintf(line, sizeof(line), P_("%u thread%s, %u mappings", "%u threads%s, %u mappings", r->threads), r->threads,
			 r->threads_missed ? _(" (some could not be stopped)") : "", r->mappings);
		if (y < end)
			y = row(y, _("Contents"), draw_attr(COL_NORMAL), line);
		for (size_t i = 0; i < r->nskipped && y < end - 3; i++) {
			snprintf(line, sizeof(line), "%llx-%llx %s (%s)", (unsigned long long)r->skipped[i].start,
				 (unsigned long long)r->skipped[i].end, r->skipped[i].path, r->skipped[i].reason);
			y = row(y, i ? "" : _("No data"), draw_attr(COL_WARN), line);
		}
		core_gdb_command(r, line, sizeof(line));
		if (y + 2 < end) {
			draw_text(y + 1, 1, -1, draw_attr(COL_DIM), _("Open it with"));
			y = command_rows(y + 2, draw_attr(COL_NORMAL) | A_BOLD, line);
		}
		if (y + 1 < end)
			draw_text(y + 1, 1, -1, draw_attr(COL_DIM), _("Esc returns to the list."));
	} else if (cs->job.failed || cs->cancelled) {
		y = row(y, cs->cancelled ? _("Cancelled") : _("Failed"), draw_attr(COL_ERROR) | A_BOLD, cs->job.error);
		if (y + 1 < end)
			draw_text(y + 1, 1, -1, draw_attr(COL_DIM), _("No file was left behind. Esc returns to the list."));
	}
}

/* Esc: cancel while the core is written, else back. */
static bool k_esc(struct ui *ui, void *st, int ch)
{
	struct core_screen *cs = st;

	(void)ch;
	if (cs->job.running && !cs->cancelling) {
		workers_cancel(ui->workers, cs->job.id);
		cs->cancelling = true;
		return true;
	}
	if (!cs->job.running)
		ui_pop(ui);
	return true;
}

static bool k_back(struct ui *ui, void *st, int ch)
{
	ui_pop(ui);
	return true;
}

/* The writer stays in ui->core_writer: its job goes on. */
static void core_destroy(void *st)
{
	struct core_screen *cs = st;
	cs->shown = false;
}

static const struct ui_key core_keys[] = {
	UI_LOOP_AS("C (list or detail)", NULL, N_("write a core file of the selected process"), 'C'),
	UI_KEY(N_("Enter at the prompt"), NULL, NULL,
	  N_("accept the destination (edit it first if you like; an existing directory gets the default "
	     "name inside)")),
	UI_KEY("y", NULL, NULL, N_("confirm: the estimate and the free space are shown")),
	UI_KEY("Esc", k_esc, N_("Cancel/close"),
	  N_("while it is written: cancel (the partial file is removed and the process runs on); "
	     "afterwards: back"), 27),
	UI_KEY("b", k_back, N_("Back"),
	  N_("back to the list while the core is written; the status line follows it and C shows it again"), 'b'),
	UI_LOOP("F1, ?", KEY_F(1), '?'),
	UI_KEYS_END,
};

const struct screen_ops screen_core_ops = {
	.name = N_("Write core"),
	.help = "core",
	.keys = core_keys,
	.fbar = "F1 Esc b F10",
	.draw = core_draw,
	.destroy = core_destroy,
};

static void show(struct ui *ui, struct core_screen *cs)
{
	if (cs->shown)
		return;
	cs->shown = true;
	cs->unseen = false;
	ui_push(ui, &screen_core_ops, cs);
}

/* The estimate on its way (the prompt waits for it): the path asked for. */
struct core_ask {
	struct ui *ui;
	char path[PATH_MAX];        /* "" the default place */
	bool asked;                 /* the path was asked for: now confirm */
};

static void ask_estimate(struct ui *ui, const struct target_id *id, struct core_ask *a);

/* The estimate came: ask where (the default place first), then whether,
 * and write. */
static void estimated(struct core_ask *a, const struct core_check *k)
{
	struct ui *ui = a->ui;
	const struct core_estimate *est = &k->est;
	char path[PATH_MAX], q[PATH_MAX + 768], m[512], b1[32], b2[32], b3[32];
	struct core_screen *cs;

	if (!a->asked) {
		strlcpy_ps(path, est->path, sizeof(path));
		/* C's first press in the session: the note once the prompt,
		 * which takes the status line, is answered. */
		bool note = ui->core_note;
		ui->core_note = false;
		if (!ui_prompt(ui, _("Write the core to: "), path, sizeof(path)) || !path[0]) {
			ui_message(ui, false, "%s%s", _("no core written"),
				   note ? _("; C writes a core file (htop's C, setup: F2); said once") : "");
			return;
		}
		if (note)
			ui_message(ui, false, "%s", _("C writes a core file (htop's C, setup: F2); said once"));
		if (strcmp(path, est->path)) {
			/* Another place: its free space estimated again. */
			struct core_ask *n = calloc(1, sizeof(*n));
			if (!n)
				return;
			*n = (struct core_ask){ .ui = ui, .asked = true };
			strlcpy_ps(n->path, path, sizeof(n->path));
			ask_estimate(ui, &k->id, n);
			return;
		}
	}
	human_bytes(est->bytes, b1, sizeof(b1));
	human_bytes(est->disk_bytes, b2, sizeof(b2));
	human_bytes(est->free_bytes, b3, sizeof(b3));
	if (est->disk_bytes + (1u << 20) > est->free_bytes) {
		ui_message(ui, true, _("not enough space for %s: the core needs about %s on disk, %s is free"), est->path,
			   b2, b3);
		return;
	}
	/* Sentences with their verbs; the destination last, where a long
	 * question keeps its end visible. */
	if (est->method == CORE_METHOD_FORK)
		snprintf(m, sizeof(m),
			 _("It is taken by a fork snapshot: until it is written, each first write of the process to a "
			   "page takes about %.1f us longer."),
			 CORE_COW_US_PER_PAGE);
	else
		snprintf(m, sizeof(m), _("It is written by %s, not by a fork snapshot: %s."), core_method_name(est->method),
			 est->method_why);
	snprintf(q, sizeof(q), _("Write the core of PID %d? It needs about %s on disk (%s in all); %s is free. %s File: %s"),
		 (int)k->id.pid, b2, b1, b3, m, est->path);
	if (!ui_confirm(ui, q)) {
		ui_message(ui, false, "%s", _("no core written"));
		return;
	}
	if (ui->core_writer && (ui->core_writer->job.running || ui->core_writer->shown)) {
		/* One started meanwhile (C again while this one was asked). */
		ui_message(ui, false, _("a core of PID %d is being written: one at a time"), (int)ui->core_writer->pid);
		return;
	}
	if (!(cs = calloc(1, sizeof(*cs)))) {
		ui_message(ui, true, "%s", _("cannot queue the core job"));
		return;
	}
	screen_core_free(ui);
	ui->core_writer = cs;
	cs->ui = ui;
	cs->pid = k->id.pid;
	cs->id = k->id;
	cs->est = *est;
	strlcpy_ps(cs->comm, k->comm, sizeof(cs->comm));
	struct job_handler h = { core_message, cs };
	ui_job_started(&cs->job, core_job_submit(ui->workers, &k->id, est->path, &h), "", _("cannot queue the core job"));
	cs->job.fraction = -1; /* no bar before the first progress */
	show(ui, cs);
}

static bool estimate_message(void *ctx, struct ring_msg *m)
{
	struct core_ask *a = ctx;

	if (m->kind == RING_RESULT && m->payload)
		estimated(a, m->payload);
	else if (m->kind == RING_ERROR)
		ui_error(a->ui, &m->err);
	else if (m->kind == RING_DONE)
		free(a);
	return false;
}

static void ask_estimate(struct ui *ui, const struct target_id *id, struct core_ask *a)
{
	struct job_handler h = { estimate_message, a };

	if (!core_estimate_submit(ui->workers, id, a->path[0] ? a->path : NULL, &h)) {
		free(a);
		ui_message(ui, true, "%s", _("out of memory"));
	}
}

/* C: the core of want, estimated on a worker (the process checked: a
 * reused PID is refused), then asked for. */
void screen_core_open(struct ui *ui, const struct target_id *want)
{
	struct core_screen *old = ui->core_writer;
	pid_t pid = want->pid;

	if (old && (old->job.running || old->shown)) {
		if (pid != old->pid)
			ui_message(ui, false, _("a core of PID %d is being written: one at a time"), (int)old->pid);
		show(ui, old);
		return;
	}
	if (old && old->unseen && pid == old->pid) {
		show(ui, old);
		return;
	}
	struct core_ask *a = calloc(1, sizeof(*a));
	if (!a) {
		ui_message(ui, true, "%s", _("out of memory"));
		return;
	}
	a->ui = ui;
	ask_estimate(ui, want, a);
}
