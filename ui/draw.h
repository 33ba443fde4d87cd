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
#include <stddef.h>

#include "theme.h"

/* Colours from the scheme t (NULL: the built-in default); without colour
 * (-C, NO_COLOR, a terminal without colours) attributes alone. May be
 * called again to switch schemes. */
void draw_init(const struct theme *t, bool colour);
/* The background fills of pictures (a flame graph's frames): fill k of
 * DRAW_FILLS as an attribute, or -1 without colour (-C, NO_COLOR, a
 * terminal without 8 colours): then pictures tell things apart by their
 * fill characters. */
#define DRAW_FILLS 7
int draw_fill(unsigned k);
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
/* Horizontal scroll of a whole view: every draw until the next call is
 * moved cols columns to the left (what falls off the left edge is not
 * drawn; widths to the right edge reach cols further). Returns the shift
 * before; draw_hshift(0) ends it. */
int draw_hshift(int cols);
/* Measure instead of drawing: from draw_measure_begin() to
 * draw_measure_end() nothing reaches the screen, a width w < 0 has no
 * right edge, and the draws return the columns they would take.
 * draw_measure_end() returns the right-most column any of them reached
 * (rows drawn with their x as on an unscrolled line): how wide a view
 * that scrolls sideways is, from the code that draws it. */
void draw_measure_begin(void);
int draw_measure_end(void);
int draw_textf(int y, int x, int w, int attr, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Same, right-aligned in w columns. */
int draw_text_right(int y, int x, int w, int attr, const char *s);
/* Blank w columns (w < 0: to the right edge) with attr. */
void draw_blank(int y, int x, int w, int attr);
/* Display width of s once sanitized. */
int draw_width(const char *s);
/* s padded with blanks to w display columns (on the left when right is
 * true) into buf, for text laid out in columns with printf: "%-16s" pads
 * bytes, and a translated or multibyte word is fewer columns than bytes.
 * Longer text is left whole (draw_text cuts it at a character). */
const char *draw_pad(char *buf, size_t size, const char *s, int w, bool right);
/* Wrapping s at w columns: the byte length of its first line, whole
 * characters only (a wide one never split across lines). When spaces is
 * true it breaks at the last blank that fits, so a word is never split
 * unless it alone is wider than w (then it is cut at w). *next gets where
 * the next line starts (blanks at a break skipped). */
size_t draw_wrap(const char *s, int w, bool spaces, size_t *next);
/* s wrapped at w columns (draw_wrap) from (y, x): its rows [first,
 * first + rows) drawn (rows 0: nothing drawn). Returns the rows s takes. */
int draw_wrapped(int y, int x, int w, int rows, int attr, const char *s, bool spaces, int first);
/* Values v[0..n) (oldest first; NaN: none) as a sparkline of w glyphs
 * into buf, each glyph the mean of its values on a scale from 0 to max
 * (max <= 0: the largest value); block characters under a UTF-8 locale,
 * ".:-=+*#@" otherwise, a blank for no value. Returns buf. */
const char *draw_sparkline(const float *v, int n, float max, int w, char *buf, size_t size);
/* A bar meter of width w filled to frac (0..1) with attr; label inside. */
void draw_bar(int y, int x, int w, double frac, int attr, const char *label);
/* Clear the whole screen / flush it to the terminal. */
void draw_clear(void);
void draw_flush(void);
/* Hide the cursor / show it at (y,x). */
void draw_cursor(int visible, int y, int x);

#endif
