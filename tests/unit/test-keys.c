/* The key tables of every screen and pane (ui/keys.h): each key of a
 * function bar has its entry and label; no key is dispatched by two
 * entries of one table; the help's key section fits 80 columns in English
 * and in Korean; a help text with a key section has its "@keys" line, in
 * both languages; and dispatch, the loop's keys and fragments behave. */
#include "tap.h"
#include "i18n.h"
#include "ui/uipriv.h"
#include "ui/pane.h"
#include "ui/job.h"
#include "ui/stack-view.h"

#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <ncursesw/curses.h>
#include <stdlib.h>
#include <wchar.h>

static const struct screen_ops *const screens[] = {
	&screen_list_ops, &screen_help_ops, &screen_text_ops, &screen_detail_ops, &screen_stack_ops, &screen_hot_ops,
	&screen_hotprocs_ops, &screen_core_ops, &screen_doors_ops, &screen_coreread_ops, &screen_setup_ops, &screen_time_ops, &screen_timeline_ops,
	&screen_cores_ops,
};
#define NSCREENS (int)(sizeof(screens) / sizeof(screens[0]))

static const struct pane_ops *const panes[] = {
#define PANE(name) &pane_##name,
#include "pane/panes.h"
#undef PANE
};
#define NPANES (int)(sizeof(panes) / sizeof(panes[0]))

/* Display columns of a UTF-8 line (the locale is a UTF-8 one). */
static int cols(const char *s, size_t n)
{
	wchar_t w[512];
	char buf[2048];
	size_t k;

	snprintf(buf, sizeof(buf), "%.*s", (int)n, s);
	k = mbstowcs(w, buf, 511);
	if (k == (size_t)-1)
		return 999;
	w[k] = 0;
	return wcswidth(w, k);
}

/* The widest line of text, and its number. */
static int widest(const char *text, int *line)
{
	int max = 0, n = 0;

	for (const char *p = text; *p; n++) {
		size_t len = strcspn(p, "\n");
		int c = cols(p, len);
		if (c > max) {
			max = c;
			*line = n + 1;
		}
		p += len + (p[len] == '\n');
	}
	return max;
}

/* Every code that reaches a function (or the loop) in keys, fragments
 * included (a mode's, UI_HELP_OF, are its own table): a code twice is a
 * key with two meanings. */
static int codes_of(const struct ui_key *keys, int *seen, int n, int *dup)
{
	for (const struct ui_key *k = keys; k && !ui_key_is_end(k); k++) {
		if (k->use) {
			if (k->active != ui_keys_never)
				n = codes_of(k->use, seen, n, dup);
			continue;
		}
		if (!k->fn && !k->loop)
			continue;
		for (int i = 0; i < UI_KEY_CODES && k->codes[i]; i++) {
			for (int j = 0; j < n; j++)
				if (seen[j] == k->codes[i])
					*dup = k->codes[i];
			if (n < 512)
				seen[n++] = k->codes[i];
		}
	}
	return n;
}

static bool has_help(const struct ui_key *keys)
{
	for (const struct ui_key *k = keys; k && !ui_key_is_end(k); k++)
		if (k->help || k->rows || (k->use && has_help(k->use)) || (k->loop && k->keys))
			return true;
	return false;
}

static bool file_has_keys_line(const char *rel)
{
	char path[4096], line[1024];
	const char *top = getenv("top_srcdir");
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/data/%s", top ? top : ".", rel);
	if (!(f = fopen(path, "r")))
		return false;
	while (fgets(line, sizeof(line), f))
		found |= !strcmp(line, "@keys\n") || !strcmp(line, "@keys");
	fclose(f);
	return found;
}

static void check_help(const char *what, const char *help, const struct ui_key *keys, const char *lang)
{
	char *text = ui_keys_help(keys);
	int line = 0, w;

	ok(text != NULL, "%s (%s): the key section is made", what, lang);
	if (!text)
		return;
	w = widest(text, &line);
	ok(w <= 79, "%s (%s): the key section fits 80 columns (widest: %d, line %d)", what, lang, w, line);
	free(text);
	if (has_help(keys)) {
		char rel[256];
		snprintf(rel, sizeof(rel), "help/%s%s.txt", strcmp(lang, "C") ? "ko/" : "", help);
		ok(file_has_keys_line(rel), "%s: data/%s has its @keys line", what, rel);
	}
}

static void check_tables(const char *lang)
{
	for (int i = 0; i < NSCREENS; i++)
		check_help(screens[i]->help, screens[i]->help, screens[i]->keys, lang);
	for (int i = 0; i < NPANES; i++)
		if (panes[i]->keys)
			check_help(panes[i]->desc->name, panes[i]->desc->help, panes[i]->keys, lang);
}

/* ---- dispatch ---- */

static bool count(struct ui *ui, void *st, int ch)
{
	(*(int *)st)++;
	return true;
}

static bool decline(struct ui *ui, void *st, int ch)
{
	return false;
}

struct two {
	int a, b;
};

static const struct ui_key frag[] = {
	UI_KEY("x", count, NULL, N_("a fragment's key"), 'x'),
	UI_KEYS_END,
};

static bool never_b(const void *st)
{
	return ((const struct two *)st)->a > 100;
}

static const struct ui_key table[] = {
	UI_SECTION("Section"),
	UI_KEY("a", count, "Alpha", "the a key", 'a', 'A'),
	UI_KEY("d", decline, NULL, NULL, 'd'),
	UI_ALSO(count, 'd'),
	UI_USE(frag, struct two, b),
	UI_USE_IF(frag, struct two, b, never_b),
	UI_LOOP("q", 'q'),
	UI_KEY("Space", NULL, "Spc label", "documented only", ' '),
	UI_PROSE("a paragraph"),
	UI_KEYS_END,
};

static void check_dispatch(void)
{
	struct two st = { 0, 0 };
	struct ui_fkey bar[8];
	int n;

	is_int(ui_keys_dispatch(NULL, table, &st, 'A'), UI_KEY_DONE, "a second code of an entry calls its function");
	is_int(st.a, 1, "... with the screen's state");
	is_int(ui_keys_dispatch(NULL, table, &st, 'd'), UI_KEY_DONE, "a function that declines: the next entry gets it");
	is_int(st.a, 2, "... the one that takes it");
	is_int(ui_keys_dispatch(NULL, table, &st, 'x'), UI_KEY_DONE, "a fragment's key");
	is_int(st.b, 1, "... with its member as its state, once (the inactive copy skipped)");
	is_int(ui_keys_dispatch(NULL, table, &st, 'q'), UI_KEY_LOOP, "a UI_LOOP key goes to the loop");
	is_int(ui_keys_dispatch(NULL, table, &st, ' '), UI_KEY_NEXT, "a documented-only key goes on");
	is_int(ui_keys_dispatch(NULL, table, &st, 'z'), UI_KEY_NEXT, "an unknown key goes on");

	n = ui_keys_fbar(table, "a Space q F1 nosuch", bar, 8);
	is_int(n, 5, "the bar has an entry per word of its layout");
	is_str(bar[0].label, "Alpha", "the bar: an entry's label");
	is_str(bar[1].label, "Spc label", "the bar: a documented-only key's label");
	is_str(bar[2].label, "Quit", "the bar: a UI_LOOP key gets the loop's label");
	is_str(bar[3].label, "Help", "the bar: a key the screen leaves to the loop");
	ok(bar[4].label == NULL, "the bar: a word no entry has gets no label");

	char *h = ui_keys_help(table);
	bool same = h && !strcmp(h, "Section\n"
			   "  a                  the a key\n"
			   "  d\n"
			   "  x                  a fragment's key\n"
			   "  x                  a fragment's key\n"
			   "  q                  quit pscope, from every screen\n"
			   "  Space              documented only\n"
			   "  a paragraph\n");
	ok(same, "the help: section, keys (a UI_LOOP one with the loop's line, one without a line), a paragraph");
	if (!same && h)
		printf("# %s", h);
	free(h);
}

int main(void)
{
	if (!setlocale(LC_ALL, "C.UTF-8"))
		setlocale(LC_ALL, "");
	check_dispatch();
	for (int i = 0; i < NSCREENS; i++) {
		struct ui_fkey bar[32];
		int n = ui_keys_fbar(screens[i]->keys, screens[i]->fbar, bar, 32), seen[512], dup = 0;
		bool labels = n > 0;
		for (int k = 0; k < n; k++)
			labels &= bar[k].label != NULL;
		ok(labels, "%s: its function bar (%s) has a labelled entry for every key", screens[i]->help,
		   screens[i]->fbar ? screens[i]->fbar : "none");
		codes_of(screens[i]->keys, seen, 0, &dup);
		ok(!dup, "%s: no key code in two entries (code %d)", screens[i]->help, dup);
	}
	check_tables("C");
	setenv("PSCOPE_LOCALEDIR", PSCOPE_BUILDDIR "/po/locale", 0);
	setenv("LC_ALL", "ko_KR.UTF-8", 1);
	i18n_init();
	if (strcmp(_("Quit"), "Quit"))
		check_tables("ko");
	else
		printf("ok %d # SKIP no Korean messages here (no ko_KR.UTF-8 locale, or built without NLS)\n", ++tap_n);
	return tap_done();
}
