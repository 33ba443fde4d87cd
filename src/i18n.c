#include "i18n.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

void i18n_init(void)
{
	setlocale(LC_ALL, "");
#ifdef ENABLE_NLS
	const char *dir = getenv("PSCOPE_LOCALEDIR");
	char exe[4096];
	ssize_t n;

	if (!dir || !dir[0]) {
		dir = PSCOPE_LOCALEDIR;
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n > 0) {
			exe[n] = '\0';
			if (!strcmp(exe, PSCOPE_BUILDDIR "/pscope"))
				dir = PSCOPE_BUILDDIR "/po/locale";
		}
	}
	bindtextdomain(PACKAGE, dir);
	bind_textdomain_codeset(PACKAGE, "UTF-8");
	textdomain(PACKAGE);
#endif
}

const char *i18n_lang(void)
{
#ifdef ENABLE_NLS
	static char lang[16];
	const char *l = getenv("LANGUAGE");
	size_t len;

	/* gettext reads LANGUAGE first, but only when the locale is not C. */
	const char *msg = setlocale(LC_MESSAGES, NULL);
	if (!msg || !strcmp(msg, "C") || !strcmp(msg, "POSIX"))
		return NULL;
	if (!l || !l[0])
		l = msg;
	len = strcspn(l, "_.@:");
	if (len == 0 || len >= sizeof(lang) || !strncmp(l, "en", 2))
		return NULL;
	memcpy(lang, l, len);
	lang[len] = '\0';
	if (!strcmp(lang, "C") || !strcmp(lang, "POSIX"))
		return NULL;
	return lang;
#else
	return NULL;
#endif
}

const char *i18n_pgettext(const char *ctx, const char *s)
{
#ifdef ENABLE_NLS
	char key[256];
	int n = snprintf(key, sizeof(key), "%s\004%s", ctx, s);
	if (n < 0 || (size_t)n >= sizeof(key))
		return s;
	const char *t = gettext(key);
	/* untranslated: gettext hands back our buffer */
	return t == key ? s : t;
#else
	(void)ctx;
	return s;
#endif
}
