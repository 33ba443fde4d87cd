/* C++ demangling with a budget, and the length cap of every name the
 * symbolizer keeps.
 *
 * A mangled name refers back to the parts before it, so a few dozen bytes
 * can demangle to gigabytes (a function-pointer type made of two copies of
 * the one before, twenty levels deep: 2^20 copies of "int*"). The C++
 * runtime's __cxa_demangle builds the whole string before returning it;
 * libiberty's streaming demangler (the same code, as c++filt and gdb use
 * it) hands the text over in pieces, so the name is stopped at
 * SYM_NAME_MAX bytes: neither memory nor time grows with the bomb. Its
 * working arrays live on the stack (a few dozen bytes per mangled byte),
 * hence the cap on the mangled length too. */
#include "sym/sym.h"
#include "i18n.h"

#include <libiberty/demangle.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sink {
	char buf[SYM_NAME_MAX + 1];
	size_t len;
	bool cut;
	jmp_buf stop;
};

/* libiberty's callback: keep what fits, then stop the printer. It
 * allocates nothing on the heap, so leaving it with longjmp loses
 * nothing. */
static void take(const char *s, size_t n, void *arg)
{
	struct sink *k = arg;
	size_t room = SYM_NAME_MAX - k->len;

	memcpy(k->buf + k->len, s, n < room ? n : room);
	k->len += n < room ? n : room;
	if (n > room) {
		k->buf[SYM_NAME_MAX] = s[room]; /* where the cut falls */
		k->cut = true;
		longjmp(k->stop, 1);
	}
}

/* Back off to the start of a UTF-8 sequence, so a cut does not split a
 * character. */
static size_t char_start(const char *s, size_t n)
{
	size_t k = n;
	while (k > 0 && k + 4 > n && ((unsigned char)s[k] & 0xc0) == 0x80)
		k--;
	return k;
}

char *sym_name_cut(const char *name, size_t len)
{
	if (len <= SYM_NAME_MAX) {
		char *r = malloc(len + 1);
		if (r) {
			memcpy(r, name, len);
			r[len] = '\0';
		}
		return r;
	}
	char mark[64];
	size_t keep = char_start(name, SYM_NAME_MAX);
	int ml = snprintf(mark, sizeof(mark), _("…[name cut at %u bytes]"), (unsigned)SYM_NAME_MAX);
	size_t m = ml > 0 ? (size_t)ml : 0;
	char *r = malloc(keep + m + 1);
	if (r) {
		memcpy(r, name, keep);
		memcpy(r + keep, mark, m);
		r[keep + m] = '\0';
	}
	return r;
}

char *sym_demangle(const char *name)
{
	struct sink *k;
	char *r = NULL;

	if (!name || strncmp(name, "_Z", 2) || strnlen(name, SYM_MANGLED_MAX + 1) > SYM_MANGLED_MAX)
		return NULL;
	k = malloc(sizeof(*k));
	if (!k)
		return NULL;
	k->len = 0;
	k->cut = false;
	volatile int ok = 0;
	if (!setjmp(k->stop))
		ok = cplus_demangle_v3_callback(name, DMGL_PARAMS | DMGL_ANSI | DMGL_TYPES, take, k);
	if (k->cut || (ok && k->len))
		r = sym_name_cut(k->buf, k->cut ? SYM_NAME_MAX + 1 : k->len);
	free(k);
	return r;
}
