/* Text files from data/ (help and teaching texts), found in $PSCOPE_DATA,
 * then the installed pkgdatadir, then the source tree. A translated copy
 * (data/help/ko/list.txt for help/list.txt) is preferred when the messages
 * are in that language (i18n_lang()). */
#ifndef PS_TEXTDATA_H
#define PS_TEXTDATA_H

/* Returns a malloc'd NUL-terminated copy of data/<relpath>, or NULL. */
char *textdata_load(const char *relpath);

#endif
