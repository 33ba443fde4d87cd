/* Shared by the UI's screens and panes: the screen stack, the event loop's
 * services, and the entry points of each screen. */
#ifndef PS_UIPRIV_H
#define PS_UIPRIV_H

#include <stdbool.h>
#include <sys/types.h>

#include "settings.h"
#include "ring.h"
#include "theme.h"
#include "target.h"
#include "ui.h"
#include "worker.h"
#include "keys.h"

struct ui;

struct screen_ops {
	const char *name;        /* title; also the help text: data/help/<help>.txt */
	const char *help;
	/* Its keys (ui/keys.h): what they do, the bar's labels, the help's
	 * key section. A key goes through mode_key, the table, key, then the
	 * loop's keys (ui_loop_keys), until one takes it. */
	const struct ui_key *keys;
	const char *fbar;        /* the function bar: "F1 F3 Esc" (keys of the table, or the loop's) */
	/* A mode that takes keys before the table (a prompt's line, a menu,
	 * a job running). May be NULL. */
	enum ui_key_result (*mode_key)(struct ui *ui, void *st, int ch);
	/* Draw the body into rows [y0, y0 + rows) of the terminal. */
	void (*draw)(struct ui *ui, void *st, int y0, int rows);
	/* What the table leaves (ncurses code): the list widget's keys
	 * (table_key), the search. true when handled. May be NULL. */
	bool (*key)(struct ui *ui, void *st, int ch);
	/* The refresh timer fired (only for the top screen, unless paused). */
	void (*tick)(struct ui *ui, void *st);
	/* The process this screen is about or has selected, as the user saw
	 * it (false: none). A start time of 0 stands for "the process that has
	 * this PID now" (a thread row names its process). The loop's
	 * per-process keys act on it: s stacks, h hot functions, C core (on
	 * the top screen's target), D doors (on the topmost one that names
	 * one). May be NULL. */
	bool (*selected)(void *st, struct target_id *id);
	void (*destroy)(void *st);
};

/* The loop's state. The terminal's size is not kept here: draw_rows(),
 * draw_cols(). */
struct ui {
	const struct ui_opts *opts;
	struct ring *ring;
	struct workers *workers;
	long delay_tenths;
	bool quit;
	bool dirty;              /* redraw wanted */
	char status[1024];       /* transient message above the function bar (wraps) */
	double status_until;
	unsigned htop_noted;       /* s, h, C said once how they differ from htop's */
	bool core_note;            /* C's first press: the path prompt says it */
	bool status_error;
	/* Settings (pscoperc): read at start, written on quit unless the file
	 * did not parse (then it is left alone). cfg is what is in effect;
	 * cfg_file what the file holds, cfg_start what was in effect at start
	 * (the file and the command line over it): on quit the file gets what
	 * the session changed (ui-settings.c). */
	struct pscope_config cfg, cfg_file, cfg_start;
	bool cfg_broken, cfg_absent;
	char cfg_path[4096];     /* "" when there is no place for it */
	char cfg_error[768];     /* why the file was not read (cfg_broken) */
	unsigned cfg_gen;        /* bumped by every change the F2 screen makes */
	struct core_screen *core_writer; /* the core being (or last) written: C */
	bool colour;             /* colours allowed (not -C, not NO_COLOR) */
};

/* The terminal (term.c): checked and set up for curses (-1: it cannot
 * draw, said on stderr), given back on a fatal signal and at the end. */
int ui_term_open(void);
void ui_term_close(void);
/* pscoperc (ui-settings.c): read it and apply the command line over it
 * (for this run only); on quit, write what the session changed, or say on
 * stderr that changes were lost to a broken file (after the screen is
 * given back). */
void ui_settings_load(struct ui *ui, const struct ui_opts *o);
void ui_settings_save(struct ui *ui);
/* Apply cfg.theme (after the F2 screen changed it); false if it has none. */
bool ui_apply_theme(struct ui *ui);

/* Draw the top screen's function bar on row y (ui/fbar.c): every key
 * shown while the keys fit, labels shortened first. */
void ui_draw_fbar(const struct screen_ops *ops, int y);

void ui_push(struct ui *ui, const struct screen_ops *ops, void *st);
/* The top screen's state if it is an ops screen, else NULL. */
void *ui_top_state(struct ui *ui, const struct screen_ops *ops);
/* Close the top screen (never the last one). */
void ui_pop(struct ui *ui);
/* Close the screen whose state is st, wherever it is (never the last
 * one): a screen whose source failed before it had anything to show. */
void ui_remove(struct ui *ui, void *st);
/* For a screen running a job in a small panel while the screen below it
 * stays usable: draw, key and tick the screen just below st's. */
void ui_below_draw(struct ui *ui, void *st, int y0, int rows);
bool ui_below_key(struct ui *ui, void *st, int ch);
void ui_below_tick(struct ui *ui, void *st);
/* The top screen's process (its selected callback), as that screen knows
 * it: a start time of 0 stands for the process with that PID now (the
 * screens opened for it check it on a worker). false when there is none. */
bool ui_selected_target(struct ui *ui, struct target_id *id);
/* Transient message on the status line (hostile text is fine: drawn safely). */
void ui_message(struct ui *ui, bool error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void ui_error(struct ui *ui, const struct ps_error *e);
/* Change the refresh interval (tenths of a second, clamped 1..600). */
void ui_set_delay(struct ui *ui, long tenths);
/* Ask for a modal yes/no (ui/prompt.c): true on y/Y, anything else is no.
 * The question wraps over the rows it needs, its end kept visible.
 * Hostile text is fine. */
bool ui_confirm(struct ui *ui, const char *question);
/* Read a line of text above the function bar (prefilled with buf; the
 * label wraps, long input shows its end). false on Esc. */
/* The whole screen now: the top screen, the status line, the function bar
 * (a prompt redraws what is under it after a resize). */
void ui_redraw(struct ui *ui);
bool ui_prompt(struct ui *ui, const char *label, char *buf, size_t size);
/* The file to write something to: asked with question (prefilled with
 * path), then, when it exists, whether to overwrite it. false when the
 * user gave up. Every file the TUI writes is named through here and
 * written through src/out/save.c. */
bool ui_ask_file(struct ui *ui, const char *question, char *path, size_t size);
/* One editing key on buf: Backspace, Ctrl-U (clear), Ctrl-W (the word
 * before the cursor), or a byte of text. True when buf changed. */
bool ui_edit_line(char *buf, size_t size, int ch);
/* A key read inside a modal loop; Esc when the terminal went away or a
 * quit signal came (the main loop then quits). */
int ui_modal_getch(void);

/* Search in a view: select the next (dir +1) or previous (-1) match of
 * text, from the current one (again) or from the selection; false when
 * nothing matches. */
typedef bool (*ui_find_fn)(void *st, const char *text, int dir, bool again);
struct ui_search {
	char text[64];           /* the last text searched */
};
/* '/' asks for a text, n and F3 find the next match, N and Shift-F3 the
 * previous one; a miss is said on the status line. false: not one of
 * these keys. find NULL: the view has nothing to search. */
bool ui_search_key(struct ui *ui, struct ui_search *s, int ch, ui_find_fn find, void *st);

/* Screens: each opens itself on the stack. Their operations, for the
 * tests of their key tables (tests/unit/test-keys.c). */
extern const struct screen_ops screen_list_ops, screen_help_ops, screen_text_ops, screen_detail_ops, screen_stack_ops,
	screen_hot_ops, screen_hotprocs_ops, screen_core_ops, screen_doors_ops, screen_coreread_ops, screen_setup_ops,
	screen_time_ops, screen_cores_ops, screen_timeline_ops;
void screen_list_open(struct ui *ui);
/* The help of a screen or pane: data/help/<help_name>.txt, its "@keys"
 * line replaced by the key section of keys (ui_keys_help). */
void screen_help_open(struct ui *ui, const char *help_name, const char *title, const struct ui_key *keys);
/* The help of the top screen (F1, ?). */
void ui_help(struct ui *ui);
/* The screens that act on a process take its identity (pid + start time)
 * as the user saw it, so a PID reused meanwhile is refused, never acted on. */
void screen_detail_open(struct ui *ui, const struct target_id *id);
/* The same on the pane named pane (src/pane/panes.h), shown as view says
 * (NULL: as it starts; "locks": Threads sorted by the lock waited on). */
void screen_detail_open_at(struct ui *ui, const struct target_id *id, const char *pane, const char *view);
void screen_stack_open(struct ui *ui, const struct target_id *id);
void screen_hot_open(struct ui *ui, const struct target_id *id);
/* Where the threads' time goes (a time session while it is open). */
void screen_time_open(struct ui *ui, const struct target_id *id);
void screen_timeline_open(struct ui *ui, const struct target_id *id);
/* Every process on every CPU (perf top without -p). */
void screen_hotprocs_open(struct ui *ui);
void screen_core_open(struct ui *ui, const struct target_id *id);
/* At the end: the last core written, forgotten. */
void screen_core_free(struct ui *ui);
void screen_doors_open(struct ui *ui, pid_t pid);
/* A core file: its header, stacks, maps and files (read by a job). */
struct core_file_id;
void screen_coreread_open(struct ui *ui, const struct core_file_id *id, const char *exe);
/* O: the cores the kernel wrote (pscope cores), read by a job; Enter
 * opens one as screen_coreread_open. */
void screen_cores_open(struct ui *ui);
/* F2: the settings in ui->cfg. */
void screen_setup_open(struct ui *ui);
/* Items in a scrolled view (environment, the whole command line): rows
 * holds len bytes of NUL-separated items, one logical row each, wrapped
 * at the screen width; a newline or any control character inside an item
 * is drawn escaped, never as a line break (hostile text). */
void screen_text_open(struct ui *ui, const char *title, const char *rows, size_t len);

#endif
