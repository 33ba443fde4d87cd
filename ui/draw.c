#include "draw.h"
#include "out/escape.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

static int attrs[COL_COUNT];

void draw_init(void)
{
	static const short pairs[COL_COUNT][2] = {
		[COL_NORMAL] = { -1, -1 },
		[COL_HEADER] = { COLOR_BLACK, COLOR_GREEN },
		[COL_SELECT] = { COLOR_BLACK, COLOR_CYAN },
		[COL_DIM] = { COLOR_BLUE, -1 },
		[COL_WARN] = { COLOR_YELLOW, -1 },
		[COL_ERROR] = { COLOR_RED, -1 },
		[COL_GOOD] = { COLOR_GREEN, -1 },
		[COL_TITLE] = { COLOR_BLACK, COLOR_CYAN },
		[COL_FKEY] = { -1, -1 },
		[COL_FKEY_LABEL] = { COLOR_BLACK, COLOR_CYAN },
		[COL_METER_USER] = { COLOR_GREEN, -1 },
		[COL_METER_SYS] = { COLOR_RED, -1 },
		[COL_METER_OTHER] = { COLOR_YELLOW, -1 },
		[COL_NEW] = { COLOR_GREEN, -1 },
		[COL_GONE] = { COLOR_RED, -1 },
	};
	static const int mono[COL_COUNT] = {
		[COL_HEADER] = A_REVERSE, [COL_SELECT] = A_REVERSE, [COL_DIM] = A_DIM,
		[COL_WARN] = A_BOLD, [COL_ERROR] = A_BOLD, [COL_TITLE] = A_REVERSE,
		[COL_FKEY_LABEL] = A_REVERSE, [COL_NEW] = A_BOLD, [COL_GONE] = A_DIM,
	};
	bool color = has_colors() && start_color() == OK;

	if (color)
		use_default_colors();
	for (int i = 0; i < COL_COUNT; i++) {
		if (color && i > 0) {
			init_pair((short)i, pairs[i][0], pairs[i][1]);
			attrs[i] = COLOR_PAIR(i);
			if (i == COL_FKEY || i == COL_TITLE)
				attrs[i] |= A_BOLD;
		} else {
			attrs[i] = mono[i];
		}
	}
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

/* Sanitize s, then convert to wide characters that fit in w columns.
 * Returns the number of wide characters; *cols gets their width. */
static int to_wide(const char *s, int w, wchar_t *out, int outmax, int *cols)
{
	char clean[4096];
	size_t len = esc_display(s, strlen(s), clean, sizeof(clean));
	mbstate_t ps;
	const char *p = clean, *end = clean + len;
	int n = 0, used = 0;

	memset(&ps, 0, sizeof(ps));
	while (p < end && n < outmax) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, p, (size_t)(end - p), &ps);
		int cw;
		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			/* Not representable in this locale: one visible placeholder. */
			memset(&ps, 0, sizeof(ps));
			wc = L'?';
			k = 1;
			while (p + k < end && ((unsigned char)p[k] & 0xc0) == 0x80)
				k++;
		}
		cw = wcwidth(wc);
		if (cw < 0) {
			wc = L'?';
			cw = 1;
		}
		if (used + cw > w)
			break;
		out[n++] = wc;
		used += cw;
		p += k;
	}
	*cols = used;
	return n;
}

int draw_text_skip(int y, int x, int w, int attr, const char *s, int skip)
{
	wchar_t wbuf[1024];
	int cols, n, k = 0, skipped = 0;

	if (y < 0 || y >= LINES || x >= COLS || !s)
		return 0;
	if (w < 0 || x + w > COLS)
		w = COLS - x;
	if (w <= 0)
		return 0;
	if (skip < 0)
		skip = 0;
	n = to_wide(s, w + skip, wbuf, (int)(sizeof(wbuf) / sizeof(wbuf[0])), &cols);
	for (; k < n && skipped < skip; k++) {
		int cw = wcwidth(wbuf[k]);
		skipped += cw > 0 ? cw : 1;
	}
	attrset(attr);
	mvaddnwstr(y, x, wbuf + k, n - k);
	attrset(A_NORMAL);
	return cols > skipped ? cols - skipped : 0;
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
	wchar_t wbuf[1024];
	int cols;

	to_wide(s, 1 << 20, wbuf, (int)(sizeof(wbuf) / sizeof(wbuf[0])), &cols);
	return cols;
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
