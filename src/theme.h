/* Colour schemes: data/themes/NAME.theme, one line per role:
 *     role  foreground  background  [bold] [reverse] [dim] [underline]
 * with the eight curses colours or "default". A pure parser; ui/draw.c
 * turns the result into colour pairs (or attributes alone without colour). */
#ifndef PS_THEME_H
#define PS_THEME_H

#include <stddef.h>

#include "error.h"

/* In the order of ui/draw.h's enum ui_color. */
#define THEME_NROLES 15

enum { THEME_BOLD = 1, THEME_REVERSE = 2, THEME_DIM = 4, THEME_UNDERLINE = 8 };

struct theme_role {
	short fg, bg;              /* 0..7 (curses COLOR_*), -1 the terminal's default */
	unsigned attrs;            /* THEME_* */
};

struct theme {
	struct theme_role role[THEME_NROLES];
};

const char *theme_role_name(int role);
/* Parse a theme file; roles it does not name keep the built-in default.
 * -EINVAL with the line in e on a bad line. */
int theme_parse(const char *buf, size_t len, struct theme *t, struct ps_error *e);
/* The built-in default scheme. */
void theme_default(struct theme *t);
/* data/themes/NAME.theme (see textdata.h); -ENOENT when there is none. */
int theme_load(const char *name, struct theme *t, struct ps_error *e);

#endif
