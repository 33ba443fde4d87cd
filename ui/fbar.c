/* The function-key bar at the bottom of every screen, laid out from the
 * screen's key table (ui/keys.h): each entry a key (in the key colour) and
 * its label (in the label colour). Every key stays on screen as long as
 * the keys alone fit; labels give way first:
 *   1. labels padded to six columns, as in htop, one blank between
 *      entries, when that fits;
 *   2. else the labels as they are;
 *   3. else the brief labels (an entry's .brief: "Find" for Search);
 *   4. else the brief labels without the blank between entries: htop's
 *      own look at 80 columns, the key's colour against the label's (bold
 *      against reverse video without colours) telling where each begins;
 *   5. else, still without blanks (but after a key left bare), the labels
 *      of F-keys dropped, right to left (F1 goes last), then those of the
 *      other keys.
 * The last entry (the way out: Quit, Back, Stop) keeps its label
 * throughout. When not even the keys fit, the entries that fit whole with
 * their labels are shown from the left, the last entry after them. Widths
 * are display columns, so a translated label counts as wide as it draws. */
#include "uipriv.h"
#include "draw.h"
#include "i18n.h"

#include <stdbool.h>
#include <string.h>

#define FBAR_MAX 32
#define FBAR_PAD 6 /* htop pads its labels to six columns */

enum fbar_show { FB_HIDE, FB_KEY, FB_FULL };

struct fbar {
	int n;
	int kw[FBAR_MAX], lw[FBAR_MAX], bw[FBAR_MAX];
	const char *label[FBAR_MAX], *blabel[FBAR_MAX];
	bool fkey[FBAR_MAX]; /* F1..F12: known to htop's users */
	enum fbar_show show[FBAR_MAX];
	int pad;
	bool brief;  /* the brief labels */
	bool tight;  /* no blank between entries */
};

static int label_width(const struct fbar *b, int i)
{
	int w = b->brief ? b->bw[i] : b->lw[i];
	return w > b->pad ? w : b->pad;
}

/* A blank after entry prev (shown): always, but when tight only after a
 * bare key (two keys would run together; a label ends in its own colour). */
static bool blank_before(const struct fbar *b, int prev)
{
	return !b->tight || b->show[prev] != FB_FULL;
}

/* Columns the bar takes as b->show says. */
static int fbar_width(const struct fbar *b)
{
	int w = 0, prev = -1;

	for (int i = 0; i < b->n; i++) {
		if (b->show[i] == FB_HIDE)
			continue;
		w += b->kw[i] + (prev >= 0 && blank_before(b, prev));
		if (b->show[i] == FB_FULL)
			w += label_width(b, i);
		prev = i;
	}
	return w;
}

static bool is_fkey(const char *k)
{
	if (k[0] != 'F' || !k[1])
		return false;
	for (k++; *k; k++)
		if (*k < '0' || *k > '9')
			return false;
	return true;
}

/* Labels dropped one at a time (F-keys first, right to left, then the
 * others) until the bar fits in cols; false when the keys alone do not. */
static bool fbar_shorten(struct fbar *b, int cols)
{
	for (int pass = 0; pass < 2; pass++)
		for (int i = b->n - 2; i >= 0; i--) {
			if (fbar_width(b) <= cols)
				return true;
			if (b->fkey[i] == (pass == 0))
				b->show[i] = FB_KEY;
		}
	return fbar_width(b) <= cols;
}

/* Not even the keys fit: whole entries from the left, the last after them. */
static void fbar_prefix(struct fbar *b, int cols)
{
	int last = b->n - 1;

	for (int i = 0; i < b->n; i++)
		b->show[i] = FB_HIDE;
	b->show[last] = FB_FULL;
	if (fbar_width(b) > cols)
		b->show[last] = FB_KEY; /* cut at the edge if even this is too wide */
	for (int i = 0; i < last; i++) {
		b->show[i] = FB_FULL;
		if (fbar_width(b) > cols) {
			b->show[i] = FB_HIDE;
			break;
		}
	}
}

static void fbar_layout(struct fbar *b, int cols)
{
	for (int i = 0; i < b->n; i++)
		b->show[i] = FB_FULL;
	b->pad = FBAR_PAD;
	if (fbar_width(b) <= cols)
		return;
	b->pad = 0;
	if (fbar_width(b) <= cols)
		return;
	b->brief = true;
	if (fbar_width(b) <= cols)
		return;
	b->tight = true;
	if (fbar_shorten(b, cols))
		return;
	b->brief = b->tight = false; /* the whole entries that fit, as they are */
	fbar_prefix(b, cols);
}

void ui_draw_fbar(const struct screen_ops *ops, int y)
{
	struct ui_fkey keys[FBAR_MAX];
	struct fbar b;
	int cols = draw_cols(), x = 0, n = ui_keys_fbar(ops->keys, ops->fbar, keys, FBAR_MAX);

	memset(&b, 0, sizeof(b));
	for (const struct ui_fkey *k = keys; b.n < n; k++, b.n++) {
		b.label[b.n] = k->label ? _(k->label) : "";
		b.blabel[b.n] = k->brief ? _(k->brief) : b.label[b.n];
		b.kw[b.n] = draw_width(k->key);
		b.lw[b.n] = draw_width(b.label[b.n]);
		b.bw[b.n] = draw_width(b.blabel[b.n]);
		b.fkey[b.n] = is_fkey(k->key);
	}
	draw_blank(y, 0, -1, draw_attr(COL_FKEY_LABEL));
	if (!b.n)
		return;
	fbar_layout(&b, cols);
	for (int i = 0, prev = -1; i < b.n && x < cols; prev = b.show[i] == FB_HIDE ? prev : i, i++) {
		if (b.show[i] == FB_HIDE)
			continue;
		if (prev >= 0 && blank_before(&b, prev)) {
			draw_blank(y, x, 1, draw_attr(COL_FKEY));
			x++;
		}
		x += draw_text(y, x, cols - x, draw_attr(COL_FKEY), keys[i].key);
		if (b.show[i] == FB_FULL && x < cols) {
			int lw = label_width(&b, i);
			draw_text(y, x, lw < cols - x ? lw : cols - x, draw_attr(COL_FKEY_LABEL),
				  b.brief ? b.blabel[i] : b.label[i]);
			x += lw;
		}
	}
}
