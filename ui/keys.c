/* Key tables (keys.h): dispatch, the function bar's entries and the help
 * screen's key section, all from the one table of a screen. */
#include "keys.h"
#include "uipriv.h"
#include "draw.h"
#include "i18n.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HELP_COLS 79   /* the help texts fit 80 columns */
#define HELP_KEYW 19   /* "  KEYS" padded to column 21, then the line */

bool ui_key_is_end(const struct ui_key *k)
{
	return !k->keys && !k->codes[0] && !k->section && !k->use && !k->rows && !k->help;
}

static bool has_code(const struct ui_key *k, int ch)
{
	for (int i = 0; i < UI_KEY_CODES && k->codes[i]; i++)
		if (k->codes[i] == ch)
			return true;
	return false;
}

bool ui_keys_never(const void *st)
{
	return false;
}

enum ui_key_result ui_keys_dispatch(struct ui *ui, const struct ui_key *keys, void *st, int ch)
{
	for (const struct ui_key *k = keys; k && !ui_key_is_end(k); k++) {
		if (k->use) {
			if (k->active && !k->active(st))
				continue;
			enum ui_key_result r = ui_keys_dispatch(ui, k->use, (char *)st + k->at, ch);
			if (r != UI_KEY_NEXT)
				return r;
			continue;
		}
		if (!has_code(k, ch))
			continue;
		if (k->loop)
			return UI_KEY_LOOP;
		if (k->fn && k->fn(ui, st, ch))
			return UI_KEY_DONE;
	}
	return UI_KEY_NEXT;
}

enum ui_key_result ui_screen_key(struct ui *ui, const struct screen_ops *ops, void *st, int ch)
{
	enum ui_key_result r = UI_KEY_NEXT;

	if (ops->mode_key)
		r = ops->mode_key(ui, st, ch);
	if (r == UI_KEY_NEXT)
		r = ui_keys_dispatch(ui, ops->keys, st, ch);
	if (r == UI_KEY_NEXT && ops->key && ops->key(ui, st, ch))
		r = UI_KEY_DONE;
	return r;
}

/* The loop's entry for code ch, NULL if none. */
static const struct ui_key *loop_entry(int ch)
{
	for (const struct ui_key *k = ui_loop_keys; !ui_key_is_end(k); k++)
		if (has_code(k, ch))
			return k;
	return NULL;
}

/* The key an entry shows on the bar: .bar, else the first word of keys. */
static void bar_key(const struct ui_key *k, char *buf, size_t size)
{
	const char *s = k->bar ? k->bar : k->keys ? k->keys : "";
	size_t n = k->bar ? strlen(s) : strcspn(s, " ,");

	snprintf(buf, size, "%.*s", (int)n, s);
}

/* The entry with the label of the bar key word in keys: the first entry
 * of that word with one (a UI_LOOP entry without: the loop's). A mode's
 * keys (UI_HELP_OF) are not on the bar. */
static const struct ui_key *find_label(const struct ui_key *keys, const char *word)
{
	char b[32];

	for (const struct ui_key *k = keys; k && !ui_key_is_end(k); k++) {
		if (k->use) {
			const struct ui_key *l = k->active == ui_keys_never ? NULL : find_label(k->use, word);
			if (l)
				return l;
			continue;
		}
		if (!k->keys && !k->bar)
			continue;
		bar_key(k, b, sizeof(b));
		if (strcmp(b, word))
			continue;
		if (k->label)
			return k;
		if (k->loop && loop_entry(k->codes[0]))
			return loop_entry(k->codes[0]);
	}
	return NULL;
}

int ui_keys_fbar(const struct ui_key *keys, const char *layout, struct ui_fkey *out, int max)
{
	int n = 0;

	for (const char *s = layout; s && *s && n < max;) {
		size_t len = strcspn(s, " ");
		if (!len) {
			s++;
			continue;
		}
		snprintf(out[n].key, sizeof(out[n].key), "%.*s", (int)len, s);
		s += len;
		/* The screen's label, else the loop's (a UI_LOOP entry, or a
		 * key the screen leaves to the loop). */
		const struct ui_key *k = find_label(keys, out[n].key);
		if (!k)
			k = find_label(ui_loop_keys, out[n].key);
		out[n].label = k ? k->label : NULL;
		out[n].brief = k ? k->brief : NULL;
		n++;
	}
	return n;
}

/* ---- the help's key section ---- */

struct text {
	char *s;
	size_t len, cap;
	bool oom;
};

static void add(struct text *t, const char *s, size_t n)
{
	if (t->oom)
		return;
	if (t->len + n + 1 > t->cap) {
		size_t cap = (t->cap ? t->cap * 2 : 4096) + n;
		char *p = realloc(t->s, cap);
		if (!p) {
			t->oom = true;
			return;
		}
		t->s = p;
		t->cap = cap;
	}
	memcpy(t->s + t->len, s, n);
	t->len += n;
	t->s[t->len] = '\0';
}

static void add_str(struct text *t, const char *s)
{
	add(t, s, strlen(s));
}

static void add_blanks(struct text *t, int n)
{
	while (n-- > 0)
		add(t, " ", 1);
}

/* "  KEYS           help, wrapped" (continuation lines under the help);
 * keys too wide for their column get a line of their own. */
static void key_line(struct text *t, const char *keys, const char *help)
{
	int kw = draw_width(keys), col = 2 + HELP_KEYW;
	size_t next;

	add_blanks(t, 2);
	add_str(t, keys);
	if (!help || !*help) {
		add_str(t, "\n");
		return;
	}
	if (kw > HELP_KEYW - 1) {
		add_str(t, "\n");
		kw = -2;
	}
	add_blanks(t, HELP_KEYW - kw);
	for (const char *s = help;;) {
		size_t len = draw_wrap(s, HELP_COLS - col, true, &next);
		add(t, s, len);
		add_str(t, "\n");
		s += next;
		if (!*s || !next)
			break;
		add_blanks(t, col);
	}
}

/* A paragraph under the keys, indented as they are. */
static void prose(struct text *t, const char *s)
{
	size_t next;

	while (*s) {
		size_t len = draw_wrap(s, HELP_COLS - 2, true, &next);
		add_blanks(t, 2);
		add(t, s, len);
		add_str(t, "\n");
		if (!next)
			break;
		s += next;
	}
}

static const char *help_of(const struct ui_key *k)
{
	const struct ui_key *l;

	if (k->help)
		return _(k->help);
	if (k->loop && (l = loop_entry(k->codes[0])) && l->help)
		return _(l->help);
	return NULL;
}

static void help_table(struct text *t, const struct ui_key *keys, bool *first)
{
	for (const struct ui_key *k = keys; k && !ui_key_is_end(k); k++) {
		if (k->use) {
			help_table(t, k->use, first);
		} else if (k->section) {
			if (!*first)
				add_str(t, "\n");
			*first = false;
			add_str(t, _(k->section));
			add_str(t, "\n");
		} else if (k->rows) {
			char kb[64], hb[512];
			for (int i = 0; k->rows(i, kb, sizeof(kb), hb, sizeof(hb)); i++)
				key_line(t, kb, hb);
		} else if (k->keys) {
			key_line(t, _(k->keys), help_of(k));
		} else if (k->help && !k->codes[0]) {
			prose(t, _(k->help));
		}
	}
}

char *ui_keys_help(const struct ui_key *keys)
{
	struct text t = { 0 };
	bool first = true;

	add_str(&t, "");
	help_table(&t, keys, &first);
	if (t.oom) {
		free(t.s);
		return NULL;
	}
	return t.s;
}
