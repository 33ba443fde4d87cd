/* The flame graph view of a profile screen (the hot functions of a
 * process, the hot processes of the machine): the snapshot's stacks as an
 * icicle, callers on top, each frame as wide as its share of the terminal,
 * its name cut to fit with its share. Enter zooms into the frame under the
 * cursor, Esc/Backspace goes back out, / highlights the frames whose name
 * holds a text and says the share they cover, m colours by kind or by
 * module; the detail line names the frame under the cursor. The screen
 * keeps the sampler (window, thread, Space freeze): the view is rebuilt
 * from each snapshot it shows, keeping the zoom and the cursor on the same
 * call path. */
#ifndef PS_UI_FLAME_VIEW_H
#define PS_UI_FLAME_VIEW_H

#include <stdbool.h>

#include "keys.h"
#include "uipriv.h"
#include "sample/flame.h"

#define FLAME_PATH_MAX 256
#define FLAME_ZOOMS 32

/* A node named by its call path from the root: what survives a rebuild. */
struct flame_path {
	unsigned n;
	uint32_t key[FLAME_PATH_MAX]; /* function id, or 0x80000000 | TID for a thread */
};

struct flame_view {
	bool open;
	bool by_module;              /* m: colours by module instead of kind */
	const struct samp_snapshot *snap; /* built from (the screen owns it) */
	struct samp_flame tree;
	uint32_t zoom, cur;          /* the frame at the top, the one under the cursor */
	struct flame_path zoom_path, cur_path;
	struct flame_path back[FLAME_ZOOMS]; /* Esc: the zooms before */
	unsigned nback;
	char text[64];               /* what / highlights ("": nothing) */
	unsigned char *marks;        /* per node: matches text */
	unsigned long long matched;  /* the weight the matches cover under zoom */
	int width;                   /* columns of the last draw */
};

/* The view of snapshot s (NULL: none yet) in window w, thread filter tid:
 * rebuilt, the zoom, cursor and search kept on their paths. */
void flame_view_update(struct flame_view *v, const struct samp_snapshot *s, enum samp_window w, pid_t tid);
/* Draw into rows [y0, y0 + rows). */
void flame_view_draw(struct flame_view *v, int y0, int rows);
/* Its keys (a mode of the screen): UI_KEY_DONE when taken. */
enum ui_key_result flame_view_key(struct ui *ui, struct flame_view *v, int ch);
/* The search of / (ui_find_fn with the view as st). */
bool flame_view_find(void *st, const char *text, int dir, bool again);
void flame_view_free(struct flame_view *v);

/* The keys, for the screens' help (UI_HELP_OF). */
extern const struct ui_key flame_view_keys[];

#endif
