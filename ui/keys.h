/* Key tables: each screen (and each pane) declares its keys once, as htop's
 * Action.c does: the keys, the function they call, the label on the
 * function-key bar and the line of the help screen. The loop dispatches a
 * key through the table (ui.c), the bar (fbar.c) and the key section of
 * the help screen (screen-help.c) read the same table.
 *
 * A table is an array of entries ended by UI_KEYS_END:
 *   UI_KEY("F3, /", fn, label, help, KEY_F(3), '/')
 *       keys as the help writes them, the function, the label on the
 *       bar and the help line (both N_(), translated where shown; the
 *       line wrapped by the help screen), then the codes that call the
 *       function;
 *   UI_ALSO(fn, '>', '.')
 *       more codes the entry above documents, with their own function;
 *   UI_KEY("Left/Right", NULL, NULL, help)
 *       documented only: the list widget (ui/table.c) or the search
 *       (ui/search.c) handles it, after the table;
 *   UI_LOOP("s", 's')
 *       the loop's key (ui_loop_keys, ui.c) shown on this screen: it goes
 *       straight to the loop; its label and help line are the loop's
 *       unless the entry gives its own (UI_LOOP_AS);
 *   UI_SECTION(title), UI_PROSE(text)
 *       a section title of the help, a paragraph under the keys;
 *   UI_USE(fragment, struct screen_state, member)
 *       a fragment several screens share (the sampler keys, the stack
 *       view's), called with the member as its state;
 *   UI_HELP_OF(mode_table)
 *       the keys of a mode (a job running, a menu) that the screen's
 *       mode_key dispatches: in the help here, not dispatched here.
 * An entry whose bar key is not the first word of its keys names it:
 *   { .keys = "Space", ..., .bar = "Spc" }.
 * The bar is a layout string of the screen ("F1 F3 Esc"): each word is
 * the bar key of an entry (its .bar, else the first word of its keys),
 * looked up in the screen's table, then in the loop's. */
#ifndef PS_UI_KEYS_H
#define PS_UI_KEYS_H

#include <stdbool.h>
#include <stddef.h>

struct ui;
struct screen_ops;

/* What a table did with a key: not its key (the next stage gets it),
 * handled, or the loop's (the screen's other stages are skipped). */
enum ui_key_result { UI_KEY_NEXT, UI_KEY_DONE, UI_KEY_LOOP };

/* A key's action on the screen's state (a fragment's: its member). true:
 * handled; false: the key goes on as if the entry were not there. */
typedef bool (*ui_key_fn)(struct ui *ui, void *st, int ch);

#define UI_KEY_CODES 10

struct ui_key {
	const char *keys;            /* "F3, /": as the help writes them (NULL: not in the help) */
	int codes[UI_KEY_CODES];     /* ncurses codes that call fn; 0 ends them */
	ui_key_fn fn;                /* NULL: documented only */
	const char *label;           /* the function bar's label (N_) */
	const char *help;            /* the help line (N_) */
	const char *bar;             /* the bar's key when not the first word of keys ("Spc") */
	const char *brief;           /* a shorter label for a narrow bar (N_; NULL: the label) */
	bool loop;                   /* the loop's key (UI_LOOP) */
	const char *section;         /* UI_SECTION: a title (N_) */
	const struct ui_key *use;    /* UI_USE: the fragment */
	size_t at;                   /* its state's offset in the screen's */
	bool (*active)(const void *st); /* the fragment applies now (NULL: always) */
	/* Help lines made when the help is shown (the panes, from their
	 * registry): row i's keys and translated line; false past the last. */
	bool (*rows)(int i, char *keys, size_t ksize, char *help, size_t hsize);
};

#define UI_KEY(k, f, lbl, hlp, ...) { .keys = (k), .fn = (f), .label = (lbl), .help = (hlp), .codes = { __VA_ARGS__ } }
#define UI_ALSO(f, ...) { .fn = (f), .codes = { __VA_ARGS__ } }
#define UI_SECTION(title) { .section = (title) }
#define UI_PROSE(text) { .help = (text) }
#define UI_LOOP(k, ...) { .keys = (k), .codes = { __VA_ARGS__ }, .loop = true }
/* The same with a shorter label for a narrow bar (fbar.c). */
#define UI_KEY_BRIEF(k, f, lbl, brf, hlp, ...) \
	{ .keys = (k), .fn = (f), .label = (lbl), .brief = (brf), .help = (hlp), .codes = { __VA_ARGS__ } }
#define UI_LOOP_AS(k, lbl, hlp, ...) { .keys = (k), .label = (lbl), .help = (hlp), .codes = { __VA_ARGS__ }, .loop = true }
#define UI_USE(frag, type, member) { .use = (frag), .at = offsetof(type, member) }
#define UI_USE_IF(frag, type, member, when) { .use = (frag), .at = offsetof(type, member), .active = (when) }
/* A mode's keys, dispatched by the screen's mode_key: shown in the help
 * (and the bar) here, never dispatched from here. */
#define UI_HELP_OF(frag) { .use = (frag), .active = ui_keys_never }
#define UI_KEYS_END { .keys = NULL }

bool ui_keys_never(const void *st);
/* The UI_KEYS_END of a table. */
bool ui_key_is_end(const struct ui_key *k);

/* The keys every screen gets when it does not take them itself (ui.c):
 * quit, back, help, the per-process screens, redraw. */
extern const struct ui_key ui_loop_keys[];

/* Run ch through the table with st as its state. */
enum ui_key_result ui_keys_dispatch(struct ui *ui, const struct ui_key *keys, void *st, int ch);
/* A screen's whole key path, without the loop's keys: its mode_key, its
 * table, then its key callback. */
enum ui_key_result ui_screen_key(struct ui *ui, const struct screen_ops *ops, void *st, int ch);

/* The function bar of a layout ("F1 F3 Esc") over keys (then the loop's):
 * up to max entries of {key, label}; returns how many. */
struct ui_fkey {
	char key[16];
	const char *label;           /* untranslated (N_), NULL: none */
	const char *brief;           /* the same, shorter (N_), NULL: the label */
};
int ui_keys_fbar(const struct ui_key *keys, const char *layout, struct ui_fkey *out, int max);

/* The help screen's key section of keys (translated): section titles at
 * the left edge, then each key and its help line wrapped to the width
 * of the help texts (80 columns). A malloc'd text, NULL when out of
 * memory. */
char *ui_keys_help(const struct ui_key *keys);

#endif
