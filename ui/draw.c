#include "draw.h"
#include "out/escape.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <langinfo.h>
#include <strings.h>

static int attrs[COL_COUNT];
static bool colour_on;
/* The fills of pictures (flame graphs): backgrounds after the theme's pairs. */
static const short fill_bg[DRAW_FILLS] = { COLOR_RED, COLOR_YELLOW, COLOR_CYAN, COLOR_GREEN, COLOR_MAGENTA, COLOR_WHITE,
					   COLOR_BLUE };
static int fill_attrs[DRAW_FILLS];
static bool fill_on;
_Static_assert(THEME_NROLES == COL_COUNT, "theme roles follow enum ui_color");

static int theme_attrs(unsigned a)
{
	return (a & THEME_BOLD ? A_BOLD : 0) | (a & THEME_REVERSE ? A_REVERSE : 0) |
	       (a & THEME_DIM ? A_DIM : 0) | (a & THEME_UNDERLINE ? A_UNDERLINE : 0);
}

void draw_init(const struct theme *t, bool colour)
{
	/* Without colour: attributes alone (reverse video for the selection),
	 * whatever the scheme says about colours. */
	static const int mono[COL_COUNT] = {
		[COL_HEADER] = A_REVERSE, [COL_SELECT] = A_REVERSE, [COL_DIM] = A_DIM,
		[COL_WARN] = A_BOLD, [COL_ERROR] = A_BOLD, [COL_TITLE] = A_REVERSE | A_BOLD,
		[COL_FKEY] = A_BOLD, [COL_FKEY_LABEL] = A_REVERSE, [COL_NEW] = A_BOLD, [COL_GONE] = A_DIM,
	};
	struct theme def;

	if (!t) {
		theme_default(&def);
		t = &def;
	}
	if (colour && !colour_on)
		colour_on = has_colors() && start_color() == OK && use_default_colors() == OK;
	for (int i = 0; i < COL_COUNT; i++) {
		const struct theme_role *r = &t->role[i];
		if (colour && colour_on && (r->fg >= 0 || r->bg >= 0)) {
			init_pair((short)(i + 1), r->fg, r->bg);
			attrs[i] = COLOR_PAIR(i + 1) | theme_attrs(r->attrs);
		} else if (colour && colour_on) {
			attrs[i] = theme_attrs(r->attrs);
		} else {
			attrs[i] = mono[i];
		}
	}
	fill_on = colour && colour_on && COLORS >= 8 && COLOR_PAIRS > COL_COUNT + DRAW_FILLS;
	for (int k = 0; fill_on && k < DRAW_FILLS; k++) {
		short fg = fill_bg[k] == COLOR_BLUE ? COLOR_WHITE : COLOR_BLACK;
		init_pair((short)(COL_COUNT + 1 + k), fg, fill_bg[k]);
		fill_attrs[k] = COLOR_PAIR(COL_COUNT + 1 + k);
	}
	if (colour && colour_on) /* the whole screen takes the normal colours */
		bkgdset((chtype)' ' | (chtype)attrs[COL_NORMAL]);
	else
		bkgdset(' ');
}

int draw_fill(unsigned k)
{
	return fill_on ? fill_attrs[k % DRAW_FILLS] : -1;
}

bool draw_unicode(void)
{
	static int uni = -1;
	if (uni < 0) {
		const char *cs = nl_langinfo(CODESET);
		uni = MB_CUR_MAX > 1 && cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
	}
	return uni;
}

const char *draw_sym(const char *uni, const char *ascii)
{
	return draw_unicode() ? uni : ascii;
}

/* Without a UTF-8 locale: the symbols pscope itself draws (box drawing,
 * arrows, bars) as ASCII, so separators stay separators under LANG=C. */
static wchar_t ascii_for(const unsigned char *p, size_t n, size_t *used)
{
	static const struct {
		unsigned cp;
		char c;
	} map[] = {
		{ 0x2502, '|' }, { 0x2500, '-' }, { 0x2514, '`' }, { 0x251c, '|' }, { 0x250c, '+' },
		{ 0x2510, '+' }, { 0x2518, '+' }, { 0x253c, '+' }, { 0x2026, '.' }, { 0x25b2, '^' },
		{ 0x25bc, 'v' }, { 0x2191, '^' }, { 0x2193, 'v' }, { 0x2581, '.' }, { 0x2582, ':' },
		{ 0x2583, '-' }, { 0x2584, '=' }, { 0x2585, '+' }, { 0x2586, '*' }, { 0x2587, '#' },
		{ 0x2588, '@' }, { 0x25bd, 'v' }, { 0x25b3, '^' }, { 0x25b6, '>' }, { 0x25c0, '<' }, { 0x2713, 'x' },
	};
	unsigned cp;

	*used = 1;
	if (n >= 3 && (p[0] & 0xf0) == 0xe0 && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80) {
		cp = (unsigned)(p[0] & 0x0f) << 12 | (unsigned)(p[1] & 0x3f) << 6 | (p[2] & 0x3f);
		*used = 3;
		for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
			if (map[i].cp == cp)
				return (wchar_t)map[i].c;
	}
	return L'?';
}

int draw_attr(enum ui_color c)
{
	return (unsigned)c < COL_COUNT ? attrs[c] : 0;
}

int draw_rows(void)
{
	return LINES;
}

int draw_cols(void)
{
	return COLS;
}

/* Sanitize s, skip its first skip columns, then convert to wide characters
 * that fit in w columns (out NULL: only measure). Returns the number of
 * wide characters; *cols gets their width. */
static int to_wide(const char *s, int skip, int w, wchar_t *out, int outmax, int *cols)
{
	char small[4096], *clean = small;
	size_t slen = strlen(s), cap = slen * 6 + 16; /* an escape is at most 6 bytes per byte */
	mbstate_t ps;
	int n = 0, used = 0, skipped = 0;

	if (cap <= sizeof(small) || !(clean = malloc(cap))) {
		clean = small;
		cap = sizeof(small);
	}
	size_t len = esc_display(s, slen, clean, cap);
	const char *p = clean, *end = clean + len;

	memset(&ps, 0, sizeof(ps));
	while (p < end && (!out || n < outmax)) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, p, (size_t)(end - p), &ps);
		int cw;
		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			/* Not representable in this locale: pscope's own symbols
			 * in ASCII, anything else one visible placeholder. */
			memset(&ps, 0, sizeof(ps));
			wc = ascii_for((const unsigned char *)p, (size_t)(end - p), &k);
			while (p + k < end && ((unsigned char)p[k] & 0xc0) == 0x80)
				k++;
		}
		cw = wcwidth(wc);
		if (cw < 0) {
			wc = L'?';
			cw = 1;
		}
		p += k;
		if (skipped < skip) { /* a wide character cut by the left edge: a blank */
			skipped += cw;
			if (skipped > skip && out && used + 1 <= w) {
				out[n++] = L' ';
				used++;
			}
			continue;
		}
		if (used + cw > w)
			break;
		if (out)
			out[n++] = wc;
		used += cw;
	}
	if (clean != small)
		free(clean);
	*cols = used;
	return n;
}

/* Columns every draw is moved left by (draw_hshift). */
static int hshift;
/* Measuring (draw_measure_begin): the right-most column reached. */
static bool measuring;
static int extent;

void draw_measure_begin(void)
{
	measuring = true;
	extent = 0;
}

int draw_measure_end(void)
{
	measuring = false;
	return extent;
}

int draw_hshift(int cols)
{
	int old = hshift;
	hshift = cols > 0 ? cols : 0;
	return old;
}

int draw_text_skip(int y, int x, int w, int attr, const char *s, int skip)
{
	wchar_t wbuf[1024];
	int cols, n;

	if (measuring) {
		if (!s || w == 0)
			return 0;
		to_wide(s, skip > 0 ? skip : 0, w < 0 ? 1 << 30 : w, NULL, 0, &cols);
		if (x + cols > extent)
			extent = x + cols;
		return cols;
	}
	if (hshift && s) {
		/* x and w are on a line hshift columns wider than the screen;
		 * what falls left of the screen is skipped, and the width used
		 * on that line is returned, so callers chain x as usual. */
		int sh = hshift, lw = w < 0 || x + w > COLS + sh ? COLS + sh - x : w, used;
		if (lw <= 0 || y < 0 || y >= LINES)
			return 0;
		to_wide(s, skip > 0 ? skip : 0, lw, NULL, 0, &used);
		int px = x - sh, cut = px < 0 ? -px : 0;
		if (cut < used) {
			hshift = 0;
			draw_text_skip(y, px + cut, lw - cut, attr, s, (skip > 0 ? skip : 0) + cut);
			hshift = sh;
		}
		return used;
	}
	if (y < 0 || y >= LINES || x >= COLS || !s)
		return 0;
	if (w < 0 || x + w > COLS)
		w = COLS - x;
	if (w <= 0)
		return 0;
	n = to_wide(s, skip > 0 ? skip : 0, w, wbuf, (int)(sizeof(wbuf) / sizeof(wbuf[0])), &cols);
	attrset(attr);
	mvaddnwstr(y, x, wbuf, n);
	attrset(A_NORMAL);
	return cols;
}

int draw_text(int y, int x, int w, int attr, const char *s)
{
	return draw_text_skip(y, x, w, attr, s, 0);
}

int draw_textf(int y, int x, int w, int attr, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return draw_text(y, x, w, attr, buf);
}

int draw_width(const char *s)
{
	int cols;

	to_wide(s, 0, 1 << 30, NULL, 0, &cols);
	return cols;
}

const char *draw_pad(char *buf, size_t size, const char *s, int w, bool right)
{
	int pad = w - draw_width(s);

	if (pad < 0)
		pad = 0;
	if (right)
		snprintf(buf, size, "%*s%s", pad, "", s);
	else
		snprintf(buf, size, "%s%*s", s, pad, "");
	return buf;
}

size_t draw_wrap(const char *s, int w, bool spaces, size_t *next)
{
	size_t i = 0, len = strlen(s), brk = 0;
	mbstate_t ps;
	int used = 0;

	memset(&ps, 0, sizeof(ps));
	while (i < len) {
		char one[16];
		size_t k = mbrtowc(NULL, s + i, len - i, &ps);
		if (k == (size_t)-1 || k == (size_t)-2 || k == 0 || k >= sizeof(one)) {
			/* as to_wide: one placeholder for the bytes of a sequence */
			memset(&ps, 0, sizeof(ps));
			k = 1;
			while (i + k < len && k + 1 < sizeof(one) && ((unsigned char)s[i + k] & 0xc0) == 0x80)
				k++;
		}
		memcpy(one, s + i, k);
		one[k] = '\0';
		int cw = draw_width(one);
		if (spaces && s[i] == ' ' && i > 0 && s[i - 1] != ' ')
			brk = i; /* the end of the last word that fits */
		if (used + cw > w && i > 0)
			break;
		used += cw;
		i += k;
	}
	/* At a blank when the text goes on: the words that fit, the next one
	 * whole on the next line (split only when it alone is wider). */
	if (i < len && brk && s[i] != ' ')
		i = brk;
	*next = i;
	while (spaces && *next < len && s[*next] == ' ')
		(*next)++;
	if (spaces) /* no trailing blanks on a line */
		while (i > 0 && s[i - 1] == ' ' && *next < len)
			i--;
	return i;
}

int draw_wrapped(int y, int x, int w, int rows, int attr, const char *s, bool spaces, int first)
{
	int n = 0;
	size_t next;

	if (w < 1)
		w = 1;
	do {
		size_t len = draw_wrap(s, w, spaces, &next);
		if (n >= first && n < first + rows) {
			char line[1024];
			snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) - 1 ? len : sizeof(line) - 1), s);
			draw_text(y + n - first, x, w, attr, line);
		}
		n++;
		s += next;
	} while (*s);
	return n;
}

int draw_text_right(int y, int x, int w, int attr, const char *s)
{
	int sw = draw_width(s);
	if (sw > w)
		return draw_text(y, x, w, attr, s);
	return draw_text(y, x + w - sw, sw, attr, s);
}

void draw_blank(int y, int x, int w, int attr)
{
	if (measuring)
		return;
	if (hshift) {
		x -= hshift;
		if (x < 0) {
			if (w >= 0 && (w += x) <= 0)
				return;
			x = 0;
		}
	}
	if (y < 0 || y >= LINES || x >= COLS)
		return;
	if (w < 0 || x + w > COLS)
		w = COLS - x;
	attrset(attr);
	mvhline(y, x, ' ', w);
	attrset(A_NORMAL);
}

void draw_bar(int y, int x, int w, double frac, int attr, const char *label)
{
	int fill;

	if (w < 3)
		return;
	if (frac < 0)
		frac = 0;
	if (frac > 1)
		frac = 1;
	draw_text(y, x, 1, A_BOLD, "[");
	draw_blank(y, x + 1, w - 2, 0);
	fill = (int)(frac * (w - 2) + 0.5);
	attrset(attr);
	mvhline(y, x + 1, '|', fill);
	attrset(A_NORMAL);
	if (label)
		draw_text_right(y, x + 1, w - 2, A_DIM, label);
	draw_text(y, x + w - 1, 1, A_BOLD, "]");
}

void draw_clear(void)
{
	erase();
}

void draw_flush(void)
{
	refresh();
}

void draw_cursor(int visible, int y, int x)
{
	curs_set(visible);
	if (visible)
		move(y, x);
}

const char *draw_sparkline(const float *v, int n, float max, int w, char *buf, size_t size)
{
	static const char *const uni[8] = { "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588" };
	static const char ascii[] = ".:-=+*#@";
	size_t o = 0;

	if (max <= 0)
		for (int i = 0; i < n; i++)
			if (v[i] == v[i] && v[i] > max) /* v[i] == v[i]: not NaN */
				max = v[i];
	buf[0] = 0;
	for (int c = 0; c < w && n > 0 && o + 4 < size; c++) {
		int a = c * n / w, b = (c + 1) * n / w, k = 0;
		double sum = 0;
		if (b <= a)
			b = a + 1;
		for (int i = a; i < b && i < n; i++)
			if (v[i] == v[i]) {
				sum += v[i];
				k++;
			}
		if (!k) {
			buf[o++] = ' ';
		} else {
			int lvl = max > 0 ? (int)(sum / k / max * 7.999) : 0;
			lvl = lvl < 0 ? 0 : lvl > 7 ? 7 : lvl;
			const char *g = draw_unicode() ? uni[lvl] : (char[]){ ascii[lvl], 0 };
			size_t len = strlen(g);
			memcpy(buf + o, g, len);
			o += len;
		}
		buf[o] = 0;
	}
	return buf;
}
