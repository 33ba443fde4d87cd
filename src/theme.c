#include "theme.h"
#include "i18n.h"
#include "textdata.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const role_names[THEME_NROLES] = {
	"normal", "header", "select", "dim", "warn", "error", "good", "title", "fkey",
	"fkey_label", "meter_user", "meter_sys", "meter_other", "new", "gone",
};
static const char *const color_names[] = { "black", "red", "green", "yellow", "blue", "magenta", "cyan", "white" };
static const char *const attr_names[] = { "bold", "reverse", "dim", "underline" };

const char *theme_role_name(int role)
{
	return (unsigned)role < THEME_NROLES ? role_names[role] : "?";
}

void theme_default(struct theme *t)
{
	static const struct theme_role def[THEME_NROLES] = {
		{ -1, -1, 0 }, { 0, 2, 0 }, { 0, 6, 0 }, { 4, -1, 0 }, { 3, -1, 0 }, { 1, -1, 0 },
		{ 2, -1, 0 }, { 0, 6, THEME_BOLD }, { -1, -1, THEME_BOLD }, { 0, 6, 0 }, { 2, -1, 0 },
		{ 1, -1, 0 }, { 3, -1, 0 }, { 2, -1, 0 }, { 1, -1, 0 },
	};
	memcpy(t->role, def, sizeof(def));
}

static int color(const char *w)
{
	if (!strcmp(w, "default"))
		return -1;
	for (int i = 0; i < 8; i++)
		if (!strcmp(w, color_names[i]))
			return i;
	return -2;
}

int theme_parse(const char *buf, size_t len, struct theme *t, struct ps_error *e)
{
	const char *p = buf, *end = buf + len;
	int lineno = 0;

	theme_default(t);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
		char line[256], *save = NULL, *w[8];
		size_t n = (size_t)(eol - p);
		int nw = 0, role = -1;

		lineno++;
		if (n >= sizeof(line))
			return ps_error_set(e, EINVAL, _("theme line %d: too long"), lineno);
		memcpy(line, p, n);
		line[n] = '\0';
		p = eol + 1;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		for (char *tok = strtok_r(line, " \t\r", &save); tok && nw < 8; tok = strtok_r(NULL, " \t\r", &save))
			w[nw++] = tok;
		if (!nw)
			continue;
		for (int i = 0; i < THEME_NROLES; i++)
			if (!strcmp(w[0], role_names[i]))
				role = i;
		if (role < 0)
			return ps_error_set(e, EINVAL, _("theme line %d: unknown role '%.40s'"), lineno, w[0]);
		if (nw < 3 || color(w[1]) < -1 || color(w[2]) < -1)
			return ps_error_set(e, EINVAL, _("theme line %d: expected ROLE FOREGROUND BACKGROUND [ATTR...]"), lineno);
		struct theme_role r = { (short)color(w[1]), (short)color(w[2]), 0 };
		for (int k = 3; k < nw; k++) {
			int a = -1;
			for (int i = 0; i < 4; i++)
				if (!strcmp(w[k], attr_names[i]))
					a = i;
			if (a < 0)
				return ps_error_set(e, EINVAL, _("theme line %d: unknown attribute '%.40s'"), lineno, w[k]);
			r.attrs |= 1u << a;
		}
		t->role[role] = r;
	}
	return 0;
}

int theme_load(const char *name, struct theme *t, struct ps_error *e)
{
	char rel[96];
	char *buf;

	theme_default(t);
	if (strchr(name, '/') || name[0] == '.')
		return ps_error_set(e, EINVAL, _("bad colour scheme name '%s'"), name);
	snprintf(rel, sizeof(rel), "themes/%s.theme", name);
	if (!(buf = textdata_load(rel)))
		return ps_error_set(e, ENOENT, _("no colour scheme '%s' (data/themes/%s.theme)"), name, name);
	int rc = theme_parse(buf, strlen(buf), t, e);
	free(buf);
	return rc;
}
