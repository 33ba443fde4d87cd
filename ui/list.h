/* The process list screen, in four files: screen-list.c (state, the
 * snapshot into the view, the screen's ops), list-keys.c (its keys and
 * modes), list-view.c (columns and drawing), list-act.c (tags and what is
 * done to the tagged processes). Private to them. */
#ifndef PS_UI_LIST_H
#define PS_UI_LIST_H

#include "uipriv.h"
#include "job.h"
#include "table.h"
#include "proc/ptable.h"
#include "source/source.h"

enum list_mode { MODE_NORMAL, MODE_SEARCH, MODE_FILTER, MODE_SORT, MODE_SIGNAL, MODE_USER };

/* A row of u's menu. */
struct list_user {
	uid_t uid;
	char name[64];
};

/* A set of process identities (tags, collapsed tree nodes). */
struct id_set {
	struct target_id *v;
	size_t n, cap;
};
bool id_set_has(const struct id_set *s, pid_t pid, unsigned long long start);
void id_set_add(struct id_set *s, pid_t pid, unsigned long long start);
void id_set_del(struct id_set *s, pid_t pid, unsigned long long start);

struct list_state {
	struct ui *ui;
	struct ui_job job;         /* the source: a snapshot per tick */
	struct source_ctl *ctl;    /* what it reads: threads, the rows on screen */
	struct snap_list *snap;    /* the newest snapshot: what is drawn */
	struct proc_view view;     /* its rows in the order shown */
	unsigned px_rows;          /* the extras the shown columns need */
	bool paused;
	pid_t follow;              /* F: say when it is gone */
	/* The selection follows the process (pid + start time), not the row;
	 * tab keeps it, the scrolling and the horizontal scroll. */
	struct table tab;
	struct table menu;         /* the sort or signal menu */
	pid_t sel_pid;
	unsigned long long sel_start;
	unsigned cfg_gen;          /* ui->cfg_gen this view was built for */
	enum list_mode mode;
	char search[64], filter[UI_FILTER_MAX];
	int pids[UI_OPTS_PIDS], npids; /* -p PID,PID...: only these (0: all) */
	bool search_failed;
	bool user_set;
	uid_t user_uid;
	char user_name[64];
	struct id_set tags, collapsed;
	/* a recording (pscope -r FILE): the interval asked for */
	bool replay, replay_said;
	long replay_i;             /* < 0: the last */
	double replay_at;          /* > 0: the one nearest this time */
	/* R: the session recorded into rec_path */
	bool recording;
	char rec_path[SNAP_REC_PATH];
	long pid_jump;             /* the digits typed so far (0: none) */
	int sig_typed;             /* the signal number typed in the F9 menu */
	bool digit_last;           /* the last key was a digit of one of them */
	struct list_user *users;   /* u's menu: the users of the listed processes */
	size_t nusers, users_cap;
	/* Tab: the I/O view (htop's I/O tab), its own columns and sort; the
	 * other view's sort kept here (cfg holds the one shown) */
	bool io_view;
	int other_sort_key;
	bool other_sort_desc;
	/* columns of the last draw, for a click on a title */
	int colx[PSORT_COUNT], colw[PSORT_COUNT];
};

/* screen-list.c: rebuild after the F2 screen changed the settings; tell
 * the source what is wanted now (the rows on screen, threads, the sort's
 * extras, the interval), and that the snapshot was drawn. */
void list_sync_settings(struct list_state *ls);
void list_want(struct list_state *ls, bool tick_now);
void list_drawn(struct list_state *ls);
/* The view again from the snapshot (filter, sort, tree, folds), the
 * selection kept on its process; remember the selected process. */
void list_rebuild(struct ui *ui, struct list_state *ls);
/* Tab: the main columns <-> the I/O view; each keeps its sort. */
void list_toggle_view(struct ui *ui, struct list_state *ls);
/* -p PID,PID...: pid is one of them (a thread row: its process's). */
bool list_pid_wanted(const struct list_state *ls, pid_t pid);
void list_note_sel(struct list_state *ls);
/* list-keys.c: the list's key table, the modes that take every key, the
 * widget's moving (a click on a title sorts), and -u USER (name or uid;
 * "" or NULL: everyone; false after saying why). */
extern const struct ui_key list_keys[];
enum ui_key_result list_mode(struct ui *ui, void *p, int ch);
bool list_key(struct ui *ui, void *p, int ch);
bool list_set_user(struct ui *ui, struct list_state *ls, const char *name);

/* list-htop.c: digits jump to a PID; u's menu (collect: its rows, returns
 * the row of the user shown now; choose: row k, 0 everyone); a number in
 * the signal menu; l and x. */
void list_pid_digit(struct ui *ui, struct list_state *ls, int ch);
int list_users_collect(struct list_state *ls);
void list_users_choose(struct ui *ui, struct list_state *ls, int k);
bool list_signal_digit(struct list_state *ls, int ch);
bool list_open_pane(struct ui *ui, const char *pane, const char *view);
/* Their entries' functions in list_keys: 0-9, l, x. */
bool list_k_pid_digit(struct ui *ui, void *p, int ch);
bool list_k_fds(struct ui *ui, void *p, int ch);
bool list_k_locks(struct ui *ui, void *p, int ch);

/* list-view.c */
void list_draw(struct ui *ui, void *p, int y0, int rows);
/* The column under screen column x of the header, -1 none. */
int list_col_at(const struct list_state *ls, int x);

/* list-record.c: R (record the session, again: stop); after each
 * snapshot, a recording that stopped said. */
bool list_k_record(struct ui *ui, void *p, int ch);
void list_record_seen(struct ui *ui, struct list_state *ls);

/* list-replay.c: the time bar (returns the row after it), the keys that
 * step and jump (UI_KEY_NEXT for the others), a new interval seen. */
int list_replay_bar(struct list_state *ls, int y, int width);
extern const struct ui_key list_replay_keys[];
enum ui_key_result list_replay_key(struct ui *ui, struct list_state *ls, int ch);
void list_replay_seen(struct ui *ui, struct list_state *ls);

/* list-act.c */
extern const struct list_signal {
	int sig;
	const char *name;
} list_signals[];
extern const int list_nsignals;
/* Space, c, U. */
void list_tag_toggle(struct list_state *ls, const struct proc_row *r);
void list_tag_children(struct list_state *ls, const struct proc_row *r);
/* Signal, nice, affinity, I/O priority: the tagged processes, else the
 * selected one (a thread row stands for its process). */
void list_send_signal(struct list_state *ls, int idx);
void list_nice(struct list_state *ls, int delta);
void list_affinity(struct list_state *ls);
void list_ioprio(struct list_state *ls);
/* e and w: the environment / the whole command line, wrapped. */
void list_show_environ(struct list_state *ls);
void list_show_cmdline(struct list_state *ls);
const struct proc_row *list_selected(struct list_state *ls);
/* pid's row in the newest snapshot, NULL if none. */
const struct proc_row *list_find(const struct list_state *ls, pid_t pid);

#endif
