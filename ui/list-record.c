/* R on the live process list: record the session (the list's own source
 * writes each tick it reads as a frame: src/source/live-rec.c), again:
 * stop. The header says [REC n size] while it is on; a recording that
 * cannot start or stops on an error (a full disk) is said, and R is off
 * again. */
#include "list.h"
#include "i18n.h"
#include "util.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

bool list_k_record(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	(void)ch;
	if (ls->recording) {
		ls->recording = false;
		list_want(ls, false);
		ui_message(ui, false, _("recording stopped: %s holds it (pscope -r FILE replays it)"), ls->rec_path);
		return true;
	}
	/* A new file here, named as pscope record names one. */
	time_t t = time(NULL);
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(ls->rec_path, sizeof(ls->rec_path), "pscope-%Y%m%d-%H%M%S.rec", &tm);
	ls->recording = true;
	list_want(ls, true);
	ui_message(ui, false, _("recording every refresh into %s (R stops; pscope -r FILE replays it)"), ls->rec_path);
	return true;
}

/* A snapshot came: a recording that could not start, or stopped, is said
 * once, and R is off. */
void list_record_seen(struct ui *ui, struct list_state *ls)
{
	const struct snap_list *s = ls->snap;

	if (!ls->recording || !s || !s->live_rec.err[0] || strcmp(s->live_rec.path, ls->rec_path))
		return;
	ls->recording = false;
	list_want(ls, false);
	ui_message(ui, true, _("recording stopped: %s"), s->live_rec.err);
}
