/* The flame graph view (flame-view.h). */
#include "flame-view.h"
#include "draw.h"
#include "i18n.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FILL_MATCH = 4 }; /* magenta: a frame / found */
/* The fill of each kind: a colour, and a character without colour. */
static const unsigned kind_fill[FLAME_K_COUNT] = {
	[FLAME_K_THREAD] = 5, [FLAME_K_NATIVE] = 0, [FLAME_K_KERNEL] = 1,
	[FLAME_K_PYTHON] = 2, [FLAME_K_JIT] = 3, [FLAME_K_UNKNOWN] = 6,
};
static const char kind_char[FLAME_K_COUNT] = {
	[FLAME_K_THREAD] = '.', [FLAME_K_NATIVE] = '=', [FLAME_K_KERNEL] = '^',
	[FLAME_K_PYTHON] = '~', [FLAME_K_JIT] = '%', [FLAME_K_UNKNOWN] = '?',
};
static const char *const kind_names[FLAME_K_COUNT] = {
	[FLAME_K_THREAD] = N_("thread"), [FLAME_K_NATIVE] = N_("native"), [FLAME_K_KERNEL] = N_("kernel"),
	[FLAME_K_PYTHON] = N_("Python"), [FLAME_K_JIT] = N_("JIT"), [FLAME_K_UNKNOWN] = N_("unknown"),
};
static const unsigned module_fills[] = { 0, 1, 2, 3, 5, 6 };

static uint32_t key_of(const struct samp_flame *t, uint32_t i)
{
	const struct samp_flame_node *n = &t->nodes[i];

	return n->func == FLAME_NONE ? 0x80000000u | (uint32_t)n->tid : n->func;
}

static void path_of(const struct samp_flame *t, uint32_t i, struct flame_path *p)
{
	unsigned n = 0;

	for (uint32_t at = i; at && at != FLAME_NONE && n < FLAME_PATH_MAX; at = t->nodes[at].parent)
		p->key[n++] = key_of(t, at);
	for (unsigned a = 0; a < n / 2; a++) {
		uint32_t k = p->key[a];
		p->key[a] = p->key[n - 1 - a];
		p->key[n - 1 - a] = k;
	}
	p->n = n;
}

/* The node of path p, or the deepest node on it that is still there. */
static uint32_t node_of(const struct samp_flame *t, const struct flame_path *p)
{
	uint32_t at = 0;

	if (!t->n)
		return 0;
	for (unsigned d = 0; d < p->n; d++) {
		uint32_t c = t->nodes[at].child;
		while (c != FLAME_NONE && key_of(t, c) != p->key[d])
			c = t->nodes[c].next;
		if (c == FLAME_NONE)
			break;
		at = c;
	}
	return at;
}

static bool under(const struct samp_flame *t, uint32_t i, uint32_t top)
{
	const struct samp_flame_node *n = &t->nodes[i], *z = &t->nodes[top];

	return n->depth >= z->depth && n->x >= z->x && n->x + n->total <= z->x + z->total;
}

static void research(struct flame_view *v)
{
	free(v->marks);
	v->marks = NULL;
	v->matched = 0;
	if (!v->text[0] || !v->tree.n || !(v->marks = malloc(v->tree.n)))
		return;
	v->matched = samp_flame_match(v->snap, &v->tree, v->zoom, v->text, v->marks);
}

void flame_view_update(struct flame_view *v, const struct samp_snapshot *s, enum samp_window w, pid_t tid)
{
	if (v->tree.n) {
		path_of(&v->tree, v->zoom, &v->zoom_path);
		path_of(&v->tree, v->cur, &v->cur_path);
	}
	samp_flame_free(&v->tree);
	v->snap = s;
	v->zoom = v->cur = 0;
	if (!s || samp_flame_build(s, w, tid, &v->tree) < 0) {
		research(v);
		return;
	}
	v->zoom = node_of(&v->tree, &v->zoom_path);
	v->cur = node_of(&v->tree, &v->cur_path);
	if (!under(&v->tree, v->cur, v->zoom))
		v->cur = v->zoom;
	research(v);
}

void flame_view_free(struct flame_view *v)
{
	samp_flame_free(&v->tree);
	free(v->marks);
	v->marks = NULL;
}

/* Columns [c0, c1) of node i at width w under the zoom. */
static void span(const struct flame_view *v, uint32_t i, int w, int *c0, int *c1)
{
	const struct samp_flame_node *n = &v->tree.nodes[i], *z = &v->tree.nodes[v->zoom];
	double scale = z->total ? (double)w / (double)z->total : 0;

	*c0 = (int)((double)(n->x - z->x) * scale + 0.5);
	*c1 = (int)((double)(n->x + n->total - z->x) * scale + 0.5);
}

static const char *name_of(const struct flame_view *v, uint32_t i, char *buf, size_t size)
{
	return samp_flame_name(v->snap, &v->tree, i, buf, size);
}

static double share(const struct flame_view *v, unsigned long long w)
{
	return v->tree.nodes[0].total ? 100.0 * (double)w / (double)v->tree.nodes[0].total : 0;
}

static void draw_frame(const struct flame_view *v, uint32_t i, int y, int x, int w)
{
	enum samp_flame_kind k = samp_flame_kind(v->snap, &v->tree, i);
	bool hit = v->marks && v->marks[i];
	unsigned slot = hit ? FILL_MATCH
		      : v->by_module && k != FLAME_K_THREAD
			      ? module_fills[samp_flame_module_slot(v->snap, &v->tree, i,
								    sizeof(module_fills) / sizeof(module_fills[0]))]
			      : kind_fill[k];
	int fill = draw_fill(slot), attr = fill >= 0 ? fill : hit ? (int)(A_BOLD | A_UNDERLINE) : (int)A_NORMAL;
	char ch = fill >= 0 ? ' ' : hit ? '*' : kind_char[k], buf[512], pct[16], rest[512];
	int room = w > 1 ? w - 1 : w, used, nw;
	const char *name = name_of(v, i, buf, sizeof(buf));

	if (i == v->cur)
		attr |= (int)(A_REVERSE | A_BOLD);
	snprintf(pct, sizeof(pct), " %.1f%%", share(v, v->tree.nodes[i].total));
	nw = draw_width(name);
	if (nw + (int)strlen(pct) <= room) {
		used = draw_text(y, x, room, attr, name);
		used += draw_text(y, x + used, room - used, attr, pct);
	} else if (nw <= room) {
		used = draw_text(y, x, room, attr, name);
	} else if (room >= 2) {
		used = draw_text(y, x, room - 1, attr, name);
		used += draw_text(y, x + used, 1, attr, draw_sym("\u2026", "+"));
	} else {
		used = 0;
	}
	/* The rest of the frame in its fill, in one piece. */
	if (used < room) {
		int n = room - used < (int)sizeof(rest) - 1 ? room - used : (int)sizeof(rest) - 1;
		memset(rest, ch, (size_t)n);
		rest[n] = 0;
		draw_text(y, x + used, n, attr, rest);
	}
	if (w > 1)
		draw_text(y, x + room, 1, A_NORMAL, " ");
}

/* The zoomed frame's path, "all > thread > main > ...". */
static void draw_crumbs(const struct flame_view *v, int y, int w)
{
	char buf[512];
	int x = 0;

	draw_blank(y, 0, w, draw_attr(COL_HEADER));
	x += draw_text(y, x, w - x, draw_attr(COL_HEADER), _(" flame graph: "));
	x += draw_text(y, x, w - x, draw_attr(COL_HEADER), "all");
	/* Each ancestor of the zoom, outermost first. */
	uint32_t chain[FLAME_PATH_MAX];
	unsigned n = 0;
	for (uint32_t at = v->zoom; at && at != FLAME_NONE && n < FLAME_PATH_MAX; at = v->tree.nodes[at].parent)
		chain[n++] = at;
	while (n-- > 0 && x < w) {
		x += draw_text(y, x, w - x, draw_attr(COL_HEADER), draw_sym(" \u203a ", " > "));
		x += draw_text(y, x, w - x, draw_attr(COL_HEADER), name_of(v, chain[n], buf, sizeof(buf)));
	}
	if (v->zoom && x + 2 < w)
		draw_textf(y, x, w - x, draw_attr(COL_HEADER), _("  (%.1f%%; Esc: back)"), share(v, v->tree.nodes[v->zoom].total));
}

/* The search's share, or the colour key. */
static void draw_key_line(const struct flame_view *v, int y, int w)
{
	char a[32], b[32];
	int x = 1;

	if (v->text[0]) {
		const struct samp_flame_node *z = &v->tree.nodes[v->zoom];
		draw_textf(y, 1, w - 1, draw_attr(COL_WARN), _("\"%s\": matched %.1f%% (%s of %s %s)"), v->text,
			   z->total ? 100.0 * (double)v->matched / (double)z->total : 0,
			   samp_unit_format(v->tree.unit, v->matched, a, sizeof(a)),
			   samp_unit_format(v->tree.unit, z->total, b, sizeof(b)), samp_unit_key(v->tree.unit));
		return;
	}
	if (v->by_module) {
		draw_text(y, 1, w - 1, draw_attr(COL_DIM), _("colours: by module (m: by kind)"));
		return;
	}
	x += draw_text(y, x, w - x, draw_attr(COL_DIM), _("colours:"));
	for (int k = 0; k < FLAME_K_COUNT && x < w; k++) {
		int f = draw_fill(kind_fill[k]);
		char sample[4] = { ' ', f >= 0 ? ' ' : kind_char[k], ' ', 0 };
		x += draw_text(y, x, w - x, A_NORMAL, " ");
		x += draw_text(y, x, w - x, f >= 0 ? f : (int)A_NORMAL, sample);
		x += draw_text(y, x, w - x, draw_attr(COL_DIM), " ");
		x += draw_text(y, x, w - x, draw_attr(COL_DIM), _(kind_names[k]));
	}
	draw_text(y, x, w - x, draw_attr(COL_DIM), _("  (m: by module)"));
}

/* The frame under the cursor: name, self, total, module, file:line. */
static void draw_detail(const struct flame_view *v, int y, int w)
{
	const struct samp_flame_node *n = &v->tree.nodes[v->cur];
	char buf[512], self[32], tot[32], line[1400];
	const struct samp_func *fn = n->func != FLAME_NONE ? &v->snap->funcs[n->func] : NULL;
	char where[600] = "";

	if (fn && fn->file)
		snprintf(where, sizeof(where), "  %s:%d", fn->file, fn->line);
	snprintf(line, sizeof(line), _(" %s  self %s (%.1f%%)  total %s (%.1f%%) %s  %s%s"), name_of(v, v->cur, buf, sizeof(buf)),
		 samp_unit_format(v->tree.unit, n->self, self, sizeof(self)), share(v, n->self),
		 samp_unit_format(v->tree.unit, n->total, tot, sizeof(tot)), share(v, n->total), samp_unit_key(v->tree.unit),
		 fn && fn->module ? samp_module_short(fn->module) : "", where);
	draw_blank(y, 0, w, draw_attr(COL_SELECT));
	draw_text(y, 0, w, draw_attr(COL_SELECT), line);
}

void flame_view_draw(struct flame_view *v, int y0, int rows)
{
	int w = draw_cols(), frames = rows - 3;

	v->width = w;
	if (!v->snap || !v->tree.n || rows < 4) {
		return;
	}
	if (!v->tree.nodes[0].total) {
		draw_text(y0 + 1, 1, -1, draw_attr(COL_DIM), _("no call stacks in this window yet"));
		return;
	}
	draw_crumbs(v, y0, w);
	/* Depth first under the zoom; a frame narrower than a column is not
	 * drawn, nor anything under it. */
	unsigned zd = v->tree.nodes[v->zoom].depth;
	for (uint32_t i = v->zoom; i != FLAME_NONE;) {
		const struct samp_flame_node *n = &v->tree.nodes[i];
		int c0, c1, d = (int)(n->depth - zd);
		span(v, i, w, &c0, &c1);
		bool show = c1 > c0 && d < frames;
		if (show)
			draw_frame(v, i, y0 + 1 + d, c0, c1 - c0);
		if (show && n->child != FLAME_NONE) {
			i = n->child;
			continue;
		}
		while (i != v->zoom && v->tree.nodes[i].next == FLAME_NONE)
			i = v->tree.nodes[i].parent;
		i = i == v->zoom ? FLAME_NONE : v->tree.nodes[i].next;
	}
	draw_key_line(v, y0 + rows - 2, w);
	draw_detail(v, y0 + rows - 1, w);
}

static bool visible(const struct flame_view *v, uint32_t i)
{
	int c0, c1;

	if (!under(&v->tree, i, v->zoom))
		return false;
	span(v, i, v->width > 0 ? v->width : 80, &c0, &c1);
	return c1 > c0;
}

/* The nearest visible frame at the cursor's depth to its left or right. */
static void side(struct flame_view *v, int dir)
{
	const struct samp_flame_node *c = &v->tree.nodes[v->cur];
	uint32_t best = FLAME_NONE;

	for (uint32_t i = 1; i < v->tree.n; i++) {
		const struct samp_flame_node *n = &v->tree.nodes[i];
		if (n->depth != c->depth || !visible(v, i))
			continue;
		if (dir > 0 && n->x >= c->x + c->total && (best == FLAME_NONE || n->x < v->tree.nodes[best].x))
			best = i;
		if (dir < 0 && n->x + n->total <= c->x && (best == FLAME_NONE || n->x > v->tree.nodes[best].x))
			best = i;
	}
	if (best != FLAME_NONE)
		v->cur = best;
}

static bool k_left(struct ui *ui, void *st, int ch)
{
	side(st, -1);
	return true;
}

static bool k_right(struct ui *ui, void *st, int ch)
{
	side(st, +1);
	return true;
}

static bool k_up(struct ui *ui, void *st, int ch)
{
	struct flame_view *v = st;

	if (v->cur != v->zoom)
		v->cur = v->tree.nodes[v->cur].parent;
	return true;
}

/* Down: the heaviest callee. */
static bool k_down(struct ui *ui, void *st, int ch)
{
	struct flame_view *v = st;
	uint32_t best = FLAME_NONE;

	for (uint32_t c = v->tree.nodes[v->cur].child; c != FLAME_NONE; c = v->tree.nodes[c].next)
		if (best == FLAME_NONE || v->tree.nodes[c].total > v->tree.nodes[best].total)
			best = c;
	if (best != FLAME_NONE && visible(v, best))
		v->cur = best;
	return true;
}

static void set_zoom(struct flame_view *v, uint32_t z)
{
	v->zoom = z;
	if (!under(&v->tree, v->cur, z))
		v->cur = z;
	research(v);
}

static bool k_zoom(struct ui *ui, void *st, int ch)
{
	struct flame_view *v = st;

	if (v->cur == v->zoom)
		return true;
	if (v->nback == FLAME_ZOOMS) {
		memmove(v->back, v->back + 1, (FLAME_ZOOMS - 1) * sizeof(v->back[0]));
		v->nback--;
	}
	path_of(&v->tree, v->zoom, &v->back[v->nback++]);
	set_zoom(v, v->cur);
	return true;
}

/* Back out of a zoom; Esc out of the view when not zoomed. */
static bool back(struct flame_view *v, bool leave)
{
	uint32_t was = v->zoom;

	if (v->nback)
		set_zoom(v, node_of(&v->tree, &v->back[--v->nback]));
	else if (v->zoom)
		set_zoom(v, 0);
	else if (leave)
		v->open = false;
	v->cur = was && under(&v->tree, was, v->zoom) ? was : v->cur;
	return true;
}

static bool k_back(struct ui *ui, void *st, int ch)
{
	return back(st, false);
}

static bool k_esc(struct ui *ui, void *st, int ch)
{
	return back(st, true);
}

static bool k_colours(struct ui *ui, void *st, int ch)
{
	struct flame_view *v = st;

	v->by_module = !v->by_module;
	return true;
}

bool flame_view_find(void *st, const char *text, int dir, bool again)
{
	struct flame_view *v = st;

	strlcpy_ps(v->text, text, sizeof(v->text));
	research(v);
	if (!v->marks)
		return false;
	/* The next match after the cursor, in the order of the nodes. */
	for (uint32_t k = 1; k <= v->tree.n; k++) {
		uint32_t i = (uint32_t)((v->cur + (dir < 0 ? v->tree.n - k : k)) % v->tree.n);
		if (v->marks[i] && visible(v, i)) {
			v->cur = i;
			return true;
		}
	}
	return v->matched > 0;
}

const struct ui_key flame_view_keys[] = {
	UI_SECTION(N_("Flame graph (g)")),
	UI_KEY("Left/Right", k_left, NULL, N_("the frame to the left / right"), KEY_LEFT),
	UI_ALSO(k_right, KEY_RIGHT),
	UI_KEY("Up/Down", k_up, NULL, N_("the caller / the heaviest callee"), KEY_UP, 'k'),
	UI_ALSO(k_down, KEY_DOWN, 'j'),
	UI_KEY("Enter", k_zoom, N_("Zoom"), N_("zoom into the frame: it fills the width"), '\n', '\r', KEY_ENTER),
	UI_KEY("Esc, Backspace", k_esc, NULL, N_("zoom back out (Esc at the top: the table again)"), 27),
	UI_ALSO(k_back, KEY_BACKSPACE, 127, 8),
	UI_KEY("m", k_colours, N_("Colour"), N_("colours by kind (native, kernel, Python, JIT) or by module"), 'm'),
	UI_KEY("/, n, N", NULL, NULL,
	       N_("highlight the frames whose name or module holds a text and show the share they cover")),
	UI_KEYS_END,
};

enum ui_key_result flame_view_key(struct ui *ui, struct flame_view *v, int ch)
{
	if (!v->open || !v->tree.n)
		return UI_KEY_NEXT;
	return ui_keys_dispatch(ui, flame_view_keys, v, ch);
}
