/* The annotated lines of one function, a mode of the hot functions screen
 * (a): its source lines with each line's share of the function's samples,
 * the figures of `pscope top PID --annotate FUNC` (samp_view_annotate(),
 * the address histogram through the DWARF line table for native code, the
 * sampled frames' line numbers for Python). The
 * hottest line is highlighted and selected first; Tab / Shift-Tab go to
 * the next / previous sampled line. Live: the lines are made again from
 * every snapshot the screen shows (Space freezes it), the selection kept
 * on its line. The source text comes from a job (src_texts_submit): the
 * view never reads a file itself. */
#ifndef PS_UI_ANNOT_VIEW_H
#define PS_UI_ANNOT_VIEW_H

#include <stdbool.h>

#include "job.h"
#include "keys.h"
#include "table.h"
#include "sample/sample.h"
#include "target.h"
#include "source/source.h"

/* A row drawn: a sampled line (aline >= 0, an index into an.lines) or a
 * source line without samples between them (aline -1). */
struct annot_row {
	int aline;
	const char *file;
	int line;
};

struct annot_view {
	bool open;
	struct ui *ui;
	struct target_id id;         /* the process sampled (the text job's) */
	char name[1024];             /* the function annotated (hostile) */
	char module[256];            /* its module, for the title (hostile) */
	bool python;
	const struct samp_snapshot *snap; /* the lines are of (the screen owns it) */
	enum samp_window win;        /* ... in this window */
	pid_t tid;                   /* the screen shows one thread (the lines count all) */
	struct samp_annot an;
	bool have;                   /* an holds the lines; else no samples */
	struct annot_row *rows;
	unsigned nrows;
	const char *main_file;       /* the file shown as a range of lines */
	/* The selected row's line, copied: a new snapshot frees the strings
	 * of the one the rows point into before they are made again. */
	char sel_file[4096];
	int sel_line;
	struct table tab;
	int hscroll;
	struct ui_job job;           /* the source text, read on a worker */
	struct src_texts *src;
	char *asked[SRC_TEXTS_MAX];  /* the files asked for (copies) */
	unsigned nasked;
};

/* Open on function func of s (its name: every copy the compiler made of
 * it, the busiest module of that name, as --annotate). false with a
 * message when it has no lines (kernel or JIT code, no samples). */
bool annot_view_open(struct annot_view *v, struct ui *ui, const struct target_id *id, const struct samp_snapshot *s,
		     enum samp_window w, unsigned func);
/* The same function over a new snapshot (NULL: none) or window; tid: the
 * thread the screen shows (0: all), said because the lines count every
 * thread's samples. */
void annot_view_update(struct annot_view *v, const struct samp_snapshot *s, enum samp_window w, pid_t tid);
void annot_view_draw(struct annot_view *v, int y0, int rows);
/* Its keys (a mode of the screen): UI_KEY_DONE when taken. */
enum ui_key_result annot_view_key(struct ui *ui, struct annot_view *v, int ch);
void annot_view_close(struct annot_view *v);

/* The keys, for the screen's help (UI_HELP_OF). */
extern const struct ui_key annot_view_keys[];

#endif
