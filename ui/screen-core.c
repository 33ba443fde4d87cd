/* Core screen: `C` asks where to write a core of the selected process
 * (showing the estimated size and the free space), then writes it in the
 * attach worker with progress. Esc cancels; b (or Left) returns to the
 * list while the core is written, and the status line follows it. One
 * core at a time: `C` while one is running shows it again. */
#include "uipriv.h"
#include "core/core.h"
#include "draw.h"
#include "i18n.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <errno.h>
#include <limits.h>
#include <ncursesw/curses.h>
#include <stdlib.h>
#include <string.h>

enum cs_state { CS_IDLE, CS_RUNNING, CS_CANCELLING, CS_DONE, CS_FAILED, CS_CANCELLED };

struct core_screen {
	enum cs_state state;
	unsigned job;
	pid_t pid;
	struct target_id id;
	char comm[64];                  /* hostile */
	struct core_estimate est;
	char progress[200];
	double fraction;
	struct core_result *res;
	struct ps_error err;
	bool shown;                     /* on the screen stack */
	bool unseen;                    /* finished while hidden */
	double t_start, t_end;
};

static struct core_screen cs;

static void state_free(void)
{
	core_result_release(cs.res);
	cs.res = NULL;
}

/* ---- messages, also while the screen is closed ---- */

/* The core job's handler: it outlives the screen, so the status line
 * follows a core written in the background. */
static bool core_message(void *ctx, struct ring_msg *m)
{
	struct ui *ui = ctx;
	char b[32];

	switch (m->kind) {
	case RING_PROGRESS:
		strlcpy_ps(cs.progress, m->text, sizeof(cs.progress));
		cs.fraction = m->fraction;
		if (!cs.shown)
			ui_message(ui, false, _("core of %d: %s (C shows it)"), (int)cs.pid, cs.progress);
		return false;
	case RING_RESULT:
		state_free();
		cs.res = m->payload;
		cs.state = CS_DONE;
		cs.t_end = now_s();
		if (!cs.shown) {
			cs.unseen = true;
			ui_message(ui, false, _("core written: %s (%s on disk, paused %.0f ms); C for details"),
				   cs.res->path, human_bytes(cs.res->disk_bytes, b, sizeof(b)), cs.res->pause_ms);
		}
		return true;
	case RING_ERROR:
		cs.err = m->err;
		cs.state = m->err.code == ECANCELED ? CS_CANCELLED : CS_FAILED;
		cs.t_end = now_s();
		if (!cs.shown) {
			cs.unseen = true;
			ui_error(ui, &cs.err);
		}
		return false;
	case RING_DONE:
		if (cs.state == CS_RUNNING || cs.state == CS_CANCELLING) {
			/* Cancelled before it started. */
			cs.state = CS_CANCELLED;
			ps_error_set(&cs.err, ECANCELED, "%s", _("cancelled before it started: no file written"));
		}
		cs.job = 0;
		return false;
	default:
		return false;
	}
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
	char a[32], b[32], c[32], line[2 * PATH_MAX + 64];
	int y = y0 + 2, end = y0 + rows;
	(void)st;
	(void)ui;

	draw_blank(y0, 0, -1, draw_attr(COL_TITLE));
	draw_textf(y0, 0, -1, draw_attr(COL_TITLE), _(" Core file of PID %d (%s)"), (int)cs.pid, cs.comm);
	if (y >= end)
		return;
	y = row(y, _("Destination"), draw_attr(COL_NORMAL), cs.est.path);
	snprintf(line, sizeof(line), _("%s (about %s on disk: zero pages are holes), %s free"),
		 human_bytes(cs.est.bytes, a, sizeof(a)), human_bytes(cs.est.disk_bytes, b, sizeof(b)),
		 human_bytes(cs.est.free_bytes, c, sizeof(c)));
	y = row(y, _("Estimate"), draw_attr(COL_NORMAL), line);
	if (y < end)
		y = row(y, _("Method"), draw_attr(COL_NORMAL), method_text(&cs.est, line, sizeof(line)));
	y++;
	if (y >= end)
		return;
	switch (cs.state) {
	case CS_RUNNING:
	case CS_CANCELLING:
		y = row(y, _("State"), draw_attr(COL_WARN), cs.state == CS_CANCELLING ? _("cancelling...") : _("running"));
		if (y < end && cs.fraction >= 0) {
			draw_bar(y, 15, draw_cols() - 17 > 10 ? draw_cols() - 17 : 10, cs.fraction, draw_attr(COL_GOOD), "");
			y++;
		}
		if (y < end)
			y = row(y, _("Progress"), draw_attr(COL_NORMAL), cs.progress[0] ? cs.progress : _("queued"));
		y++;
		if (y < end)
			draw_text(y++, 1, -1, draw_attr(COL_DIM),
				  _("Esc cancels (the partial file is removed, the process resumes); b returns to the list meanwhile."));
		break;
	case CS_DONE: {
		const struct core_result *r = cs.res;
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
		snprintf(line, sizeof(line), _("%u threads%s, %u mappings"), r->threads,
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
		break;
	}
	case CS_FAILED:
	case CS_CANCELLED: {
		char buf[1024];
		y = row(y, cs.state == CS_CANCELLED ? _("Cancelled") : _("Failed"), draw_attr(COL_ERROR) | A_BOLD,
			ps_error_str(&cs.err, buf, sizeof(buf)));
		if (y + 1 < end)
			draw_text(y + 1, 1, -1, draw_attr(COL_DIM), _("No file was left behind. Esc returns to the list."));
		break;
	}
	default:
		break;
	}
}

/* Esc: cancel while the core is written, else back. */
static bool k_esc(struct ui *ui, void *st, int ch)
{
	if (cs.state == CS_RUNNING) {
		workers_cancel(ui->workers, cs.job);
		cs.state = CS_CANCELLING;
		return true;
	}
	if (cs.state != CS_CANCELLING)
		ui_pop(ui);
	return true;
}

static bool k_back(struct ui *ui, void *st, int ch)
{
	ui_pop(ui);
	return true;
}

static void core_destroy(void *st)
{
	(void)st;
	cs.shown = false;
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
	UI_KEY("b, Left", k_back, N_("Back"),
	  N_("back to the list while the core is written; the status line follows it and C shows it again"), 'b', KEY_LEFT),
	UI_LOOP("F1, ?", KEY_F(1), '?'),
	UI_KEYS_END,
};

const struct screen_ops screen_core_ops = {
	.name = N_("Core file"),
	.help = "core",
	.keys = core_keys,
	.fbar = "F1 Esc b F10",
	.draw = core_draw,
	.destroy = core_destroy,
};

static void show(struct ui *ui)
{
	if (cs.shown)
		return;
	cs.shown = true;
	cs.unseen = false;
	ui_push(ui, &screen_core_ops, &cs);
}

static void at_exit_free(void)
{
	state_free();
}

void screen_core_open(struct ui *ui, const struct target_id *want)
{
	pid_t pid = want->pid;
	static bool registered;
	struct ps_error e;
	struct core_opts o = { 0 };
	char path[PATH_MAX], q[PATH_MAX + 768], m[512], a[32], b[32], c[32];

	if (!registered) {
		atexit(at_exit_free);
		registered = true;
	}
	if (cs.state == CS_RUNNING || cs.state == CS_CANCELLING) {
		if (pid != cs.pid)
			ui_message(ui, false, _("a core of PID %d is being written: one at a time"), (int)cs.pid);
		show(ui);
		return;
	}
	if (cs.unseen && pid == cs.pid) {
		show(ui);
		return;
	}

	ps_error_clear(&e);
	struct target_id id = *want;
	struct target t;
	/* The process the user picked, or nothing: a reused PID is refused. */
	if (target_open(&t, pid, want, &e) < 0) {
		ui_error(ui, &e);
		return;
	}
	char comm[sizeof(t.comm)];
	strlcpy_ps(comm, t.comm, sizeof(comm));
	target_close(&t);
	if (core_estimate(pid, &id, &o, &cs.est, &e) < 0) {
		ui_error(ui, &e);
		return;
	}
	strlcpy_ps(path, cs.est.path, sizeof(path));
	if (!ui_prompt(ui, _("Core file: "), path, sizeof(path)) || !path[0]) {
		ui_message(ui, false, "%s", _("no core written"));
		return;
	}
	if (strcmp(path, cs.est.path)) {
		o.path = path;
		if (core_estimate(pid, &id, &o, &cs.est, &e) < 0) {
			ui_error(ui, &e);
			return;
		}
	}
	human_bytes(cs.est.bytes, a, sizeof(a));
	human_bytes(cs.est.disk_bytes, b, sizeof(b));
	human_bytes(cs.est.free_bytes, c, sizeof(c));
	if (cs.est.disk_bytes + (1u << 20) > cs.est.free_bytes) {
		ui_message(ui, true, _("not enough space for %s: the core needs about %s on disk, %s is free"),
			   cs.est.path, b, c);
		return;
	}
	if (cs.est.method == CORE_METHOD_FORK)
		snprintf(m, sizeof(m), _("by fork snapshot: each first write to a page costs the process ~%.1f us until done"),
			 CORE_COW_US_PER_PAGE);
	else
		snprintf(m, sizeof(m), _("%s, not fork: %s"), core_method_name(cs.est.method), cs.est.method_why);
	snprintf(q, sizeof(q), _("Write the core? about %s on disk (%s in all), %s free; %s; PID %d to %s"), b, a, c, m,
		 (int)pid, cs.est.path);
	if (!ui_confirm(ui, q)) {
		ui_message(ui, false, "%s", _("no core written"));
		return;
	}

	state_free();
	cs.pid = pid;
	cs.id = id;
	strlcpy_ps(cs.comm, comm, sizeof(cs.comm));
	cs.progress[0] = '\0';
	cs.fraction = -1;
	ps_error_clear(&cs.err);
	cs.t_start = now_s();
	cs.state = CS_RUNNING;
	struct job_handler h = { core_message, ui };
	cs.job = core_job_submit(ui->workers, &id, cs.est.path, &h);
	if (!cs.job) {
		cs.state = CS_FAILED;
		ps_error_set(&cs.err, ENOMEM, "%s", _("cannot queue the core job"));
	}
	show(ui);
}
