/* Making hostile strings (from /proc, ELF, DWARF, peers) harmless. The UI's
 * draw.c and every batch writer go through here. */
#ifndef PS_OUT_ESCAPE_H
#define PS_OUT_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

bool utf8_valid(const char *s, size_t len);
/* A malloc'd copy of s[0..len) in which each byte that is not part of valid
 * UTF-8 became U+FFFD; everything else stays as it was (raw). NULL if out of
 * memory. For JSON, which must be valid UTF-8 but keeps strings raw. */
char *utf8_repair(const char *s, size_t len);

/* Copy s[0..len) to out as valid, printable UTF-8: C0 controls and DEL as
 * "\n", "\t", "\e" or "\xNN"; C1 controls (U+0080..U+009F) as "\u0085";
 * invalid UTF-8 bytes as "\xNN"; bidi and zero-width formatting characters
 * (U+061C, U+200B..U+200F, U+202A..U+202E, U+2066..U+2069, U+FEFF) as
 * "\u202e"; a backslash stays a single backslash. Truncates at a character
 * boundary; out is always NUL-terminated. Returns strlen(out). */
size_t esc_display(const char *s, size_t len, char *out, size_t outsz);

/* printf-friendly: escapes s into one of 16 rotating per-thread buffers
 * (4 KiB each, allocated at the thread's first call); "?" when out of
 * memory. */
const char *esc(const char *s);

/* Terminal columns of UTF-8 s (wcwidth: a Hangul syllable takes 2; a byte
 * that is not UTF-8, or a character this locale cannot measure, takes 1). */
int text_width(const char *s);
/* Bytes of the longest prefix of s that fits in cols columns and ends at a
 * character boundary. */
size_t text_fit(const char *s, int cols);
/* s padded with spaces to width columns, measured with text_width(): left-
 * aligned like "%-*s" when width > 0, right-aligned like "%*s" when width
 * < 0; never cut. One of 16 rotating per-thread buffers (4 KiB each), as
 * esc(). For printf columns whose text may be translated or not ASCII. */
const char *pad(const char *s, int width);

#endif
