/* Translation of user-visible strings (gettext). Every string a user reads
 * is written _("...") at its use, or N_("...") where it sits in a table and
 * is translated when drawn; JSON keys and values that programs read stay
 * English and unwrapped. Without NLS (configure --disable-nls, or before
 * the po/ machinery is configured) the macros are the identity. */
#ifndef PS_I18N_H
#define PS_I18N_H

#include "config.h"

#ifdef ENABLE_NLS
#include <libintl.h>
#define _(s) gettext(s)
#define P_(one, many, n) ngettext(one, many, n)
#else
#define _(s) (s)
#define P_(one, many, n) ((n) == 1 ? (one) : (many))
#endif
#define N_(s) (s)
/* A message with a context, for one English word that translates two ways
 * ("total": a sort key of the hot functions, a cumulative column):
 * NC_(ctx, s) marks it in a table (it stays s), C_(ctx, s) translates it. */
#define NC_(ctx, s) (s)
#define C_(ctx, s) i18n_pgettext(ctx, s)
/* A message in the locale's language, or as written (English) when en is
 * true: for text a search matches in both languages while the screen
 * shows only the translation (the stack screen's "DEADLOCK" rows under
 * LANG=ko). xgettext knows them (po/Makevars). */
#define T_(en, s) ((en) ? (s) : _(s))
#define TP_(en, one, many, n) ((en) ? ((n) == 1 ? (one) : (many)) : P_(one, many, n))

/* setlocale(LC_ALL, "") and bind the message catalogue: $PSCOPE_LOCALEDIR,
 * else the build tree's po/locale when this binary is the one built there,
 * else the installed locale directory. */
void i18n_init(void);
/* Language of the messages as a short code ("ko"), or NULL for the
 * untranslated English (C/POSIX locale, or NLS disabled). */
const char *i18n_lang(void);
/* The translation of s in context ctx (gettext's msgctxt), or s. */
const char *i18n_pgettext(const char *ctx, const char *s);

#endif
