/* The only place bytes reach the terminal. Every string is sanitized
 * (out/escape.h) and measured with wcwidth, so hostile names cannot move
 * the cursor, retitle the terminal, reorder text, or break column widths. */
#ifndef PS_DRAW_H
#define PS_DRAW_H

enum ui_color {
	COL_NORMAL,
	COL_HEADER,      /* table header row */
	COL_SELECT,      /* selected row */
	COL_DIM,         /* secondary information, kernel threads */
	COL_WARN,
	COL_ERROR,
	COL_GOOD,
	COL_TITLE,       /* screen title line */
	COL_FKEY,        /* "F1" in the function bar */
	COL_FKEY_LABEL,  /* "Help" */
	COL_METER_USER,
	COL_METER_SYS,
	COL_METER_OTHER,
	COL_NEW,         /* something that appeared since the last look */
	COL_GONE,        /* something that went away */
	COL_COUNT
};

#include <stdbool.h>

#include "theme.h"

/* Colours from the scheme t (NULL: the built-in default); without colour
 * (-C, NO_COLOR, a terminal without colours) attributes alone. May be
 * called again to switch schemes. */
void draw_init(const struct theme *t, bool colour);
/* The locale draws UTF-8; else pscope's own symbols fall back to ASCII. */
bool draw_unicode(void);
/* uni under a UTF-8 locale, else ascii. */
const char *draw_sym(const char *uni, const char *ascii);
int draw_attr(enum ui_color c);
/* Terminal size (updated on resize). */
int draw_rows(void);
int draw_cols(void);
/* Draw s at (y, x) in at most w columns (w < 0: to the right edge);
 * returns the columns used. */
int draw_text(int y, int x, int w, int attr, const char *s);
/* Same, without the first skip columns of s (horizontal scroll). */
int draw_text_skip(int y, int x, int w, int attr, const char *s, int skip);
int draw_textf(int y, int x, int w, int attr, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Text over rows [y, end) from column x, broken at spaces to fit the
 * screen; returns the next free row. */
int draw_wrapped(int y, int end, int x, const char *text, int attr);
/* The rows draw_wrapped would take, at most max. */
int draw_wrapped_rows(int x, const char *text, int max);
/* Same, right-aligned in w columns. */
int draw_text_right(int y, int x, int w, int attr, const char *s);
/* Blank w columns (w < 0: to the right edge) with attr. */
void draw_blank(int y, int x, int w, int attr);
/* Display width of s once sanitized. */
int draw_width(const char *s);
/* A bar meter of width w filled to frac (0..1) with attr; label inside. */
void draw_bar(int y, int x, int w, double frac, int attr, const char *label);
/* Clear the whole screen / flush it to the terminal. */
void draw_clear(void);
void draw_flush(void);
/* Hide the cursor / show it at (y,x). */
void draw_cursor(int visible, int y, int x);

#endif
