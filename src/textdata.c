#include "textdata.h"
#include "i18n.h"
#include "util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *load_from_dirs(const char *relpath)
{
	const char *dirs[] = { getenv("PSCOPE_DATA"), PSCOPE_DATADIR, PSCOPE_SRCDATADIR };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char path[4096];
		char *buf = NULL;
		size_t cap = 0;

		if (!dirs[i] || !dirs[i][0])
			continue;
		snprintf(path, sizeof(path), "%s/%s", dirs[i], relpath);
		if (read_file_alloc_at(AT_FDCWD, path, &buf, &cap) >= 0)
			return buf;
		free(buf);
	}
	return NULL;
}

char *textdata_load(const char *relpath)
{
	const char *lang = i18n_lang();
	const char *slash = strrchr(relpath, '/');

	/* help/list.txt in Korean is help/ko/list.txt; English is the fallback. */
	if (lang && slash) {
		char rel[4096];
		char *buf;

		snprintf(rel, sizeof(rel), "%.*s/%s%s", (int)(slash - relpath), relpath, lang, slash);
		buf = load_from_dirs(rel);
		if (buf)
			return buf;
	}
	return load_from_dirs(relpath);
}
