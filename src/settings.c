#include "settings.h"
#include "i18n.h"
#include "out/save.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const meter_names[CFG_M_COUNT] = { "cpus", "memory", "swap", "tasks", "load", "uptime" };

const char *cfg_meter_name(enum cfg_meter m)
{
	return (unsigned)m < CFG_M_COUNT ? meter_names[m] : "?";
}

const char *cfg_pane_name(int pane)
{
	return (unsigned)pane < PANE_COUNT ? pane_descs[pane]->name : "?";
}

void cfg_defaults(struct pscope_config *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i <= PSORT_COMMAND; i++)
		c->columns[c->ncolumns++] = i;
	c->sort_key = PSORT_CPU;
	c->sort_desc = true;
	c->hide_kthreads = true;
	c->hide_uthreads = true;
	c->delay_tenths = 15;
	c->meters = CFG_ALL_METERS;
	snprintf(c->theme, sizeof(c->theme), "default");
	for (int i = 0; i < PANE_COUNT; i++)
		c->pane_order[i] = i;
}

static int find_name(const char *const *names, int n, const char *w)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], w))
			return i;
	return -1;
}

static int parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "on") || !strcmp(v, "true"))
		*out = true;
	else if (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "off") || !strcmp(v, "false"))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

/* One "key=value" line (no newline, trimmed): 0, 1 for a key this pscope
 * does not know, 2 applied with a warning in why, or -EINVAL with why. */
static int parse_line(struct pscope_config *c, const char *key, char *v, char *why, size_t wsize)
{
	char *save = NULL, *w;

	if (!strcmp(key, "config_version")) {
		if (strcmp(v, "1")) {
			snprintf(why, wsize, _("unsupported config_version '%.20s'"), v);
			return -EINVAL;
		}
	} else if (!strcmp(key, "columns")) {
		unsigned seen = 0;
		c->ncolumns = 0;
		for (w = strtok_r(v, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
			int k = proc_sort_parse(w);
			if (k < 0 || (seen & (1u << k))) {
				snprintf(why, wsize, k < 0 ? _("unknown column '%.40s'") : _("column '%.40s' twice"), w);
				return -EINVAL;
			}
			seen |= 1u << k;
			c->columns[c->ncolumns++] = k;
		}
		if (!c->ncolumns) {
			snprintf(why, wsize, _("no columns"));
			return -EINVAL;
		}
	} else if (!strcmp(key, "sort_key")) {
		if ((c->sort_key = proc_sort_parse(v)) < 0) {
			snprintf(why, wsize, _("unknown sort key '%.40s'"), v);
			return -EINVAL;
		}
	} else if (!strcmp(key, "sort_direction")) {
		if (strcmp(v, "asc") && strcmp(v, "desc")) {
			snprintf(why, wsize, _("sort_direction is asc or desc, not '%.40s'"), v);
			return -EINVAL;
		}
		c->sort_desc = !strcmp(v, "desc");
	} else if (!strcmp(key, "tree_view") || !strcmp(key, "hide_kernel_threads") ||
		   !strcmp(key, "hide_userland_threads")) {
		bool *b = key[0] == 't' ? &c->tree : key[5] == 'k' ? &c->hide_kthreads : &c->hide_uthreads;
		if (parse_bool(v, b) < 0) {
			snprintf(why, wsize, _("%s is 0 or 1, not '%.40s'"), key, v);
			return -EINVAL;
		}
	} else if (!strcmp(key, "delay")) {
		char *end;
		errno = 0;
		long d = strtol(v, &end, 10);
		if (errno || *end || end == v || d < 1 || d > 600) {
			snprintf(why, wsize, _("delay is 1..600 tenths of a second, not '%.40s'"), v);
			return -EINVAL;
		}
		c->delay_tenths = (int)d;
	} else if (!strcmp(key, "header_meters")) {
		c->meters = 0;
		for (w = strtok_r(v, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
			int m = find_name(meter_names, CFG_M_COUNT, w);
			if (m < 0) {
				snprintf(why, wsize, _("unknown meter '%.40s'"), w);
				return -EINVAL;
			}
			c->meters |= 1u << m;
		}
	} else if (!strcmp(key, "meter_style")) {
		if (strcmp(v, "bar") && strcmp(v, "graph")) {
			snprintf(why, wsize, _("meter_style is bar or graph, not '%.40s'"), v);
			return -EINVAL;
		}
		c->meter_graph = !strcmp(v, "graph");
	} else if (!strcmp(key, "color_scheme")) {
		size_t n = strlen(v);
		if (!n || n >= sizeof(c->theme) || strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789-_") != n) {
			snprintf(why, wsize, _("bad color_scheme name '%.40s'"), v);
			return -EINVAL;
		}
		memcpy(c->theme, v, n + 1);
	} else if (!strcmp(key, "pane_order")) {
		bool seen[PANE_COUNT] = { false };
		int n = 0, warn = 0;
		for (w = strtok_r(v, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
			int p = pane_find(w, false);
			if (p >= 0 && seen[p]) {
				snprintf(why, wsize, _("pane '%.40s' twice"), w);
				return -EINVAL;
			}
			if (p < 0) {
				/* A newer pscope's pane, or one since removed. */
				if (!warn++)
					snprintf(why, wsize, _("pane_order: unknown pane '%.40s' (ignored)"), w);
				continue;
			}
			seen[p] = true;
			c->pane_order[n++] = p;
		}
		/* Panes the file does not name (added since): after the others. */
		for (int p = 0; p < PANE_COUNT; p++)
			if (!seen[p])
				c->pane_order[n++] = p;
		return warn ? 2 : 0;
	} else {
		return 1; /* unknown: the caller keeps the line */
	}
	return 0;
}

/* An unknown key's line, kept as it was; -E2BIG when there is no room
 * (then the file is refused rather than a setting lost on the next save). */
static int keep_unknown(struct pscope_config *c, const char *raw, size_t n, int lineno, const char *key,
			int *count)
{
	size_t used = strlen(c->unknown);

	if (used + n + 2 > sizeof(c->unknown))
		return -E2BIG;
	memcpy(c->unknown + used, raw, n);
	c->unknown[used + n] = '\n';
	c->unknown[used + n + 1] = '\0';
	if (++*count == 1 && !c->warning[0])
		snprintf(c->warning, sizeof(c->warning),
			 _("pscoperc line %d: unknown setting '%.40s' (ignored, kept in the file)"), lineno, key);
	return 0;
}

int cfg_parse(const char *buf, size_t len, struct pscope_config *c, struct ps_error *e)
{
	const char *p = buf, *end = buf + len;
	int lineno = 0, nunknown = 0, first_unknown = 0, r;
	bool unknown_warned = false;
	char first_key[48] = "";

	cfg_defaults(c);
	if (memchr(buf, '\0', len))
		return ps_error_set(e, EINVAL, _("pscoperc is not a text file (it holds a NUL byte)"));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
		char line[1024], why[160];
		size_t n = (size_t)(eol - p);

		lineno++;
		if (n >= sizeof(line)) {
			cfg_defaults(c);
			return ps_error_set(e, EINVAL, _("pscoperc line %d: too long"), lineno);
		}
		const char *raw = p;
		size_t rawlen = n;
		memcpy(line, p, n);
		line[n] = '\0';
		p = eol + 1;
		while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
			line[--n] = '\0';
		while (rawlen && raw[rawlen - 1] == '\r')
			rawlen--;
		char *s = line + strspn(line, " \t");
		if (!*s || *s == '#')
			continue;
		char *eq = strchr(s, '=');
		if (!eq) {
			cfg_defaults(c);
			return ps_error_set(e, EINVAL, _("pscoperc line %d: no '=' (expected key=value)"), lineno);
		}
		char *k = s, *kend = eq;
		while (kend > k && (kend[-1] == ' ' || kend[-1] == '\t'))
			kend--;
		*kend = '\0';
		char *v = eq + 1;
		v += strspn(v, " \t");
		if ((r = parse_line(c, k, v, why, sizeof(why))) < 0) {
			cfg_defaults(c);
			return ps_error_set(e, EINVAL, _("pscoperc line %d: %s"), lineno, why);
		}
		if (r == 2) {
			if (!c->warning[0]) /* one warning: the first */
				snprintf(c->warning, sizeof(c->warning), _("pscoperc line %d: %s"), lineno, why);
		} else if (r == 1) {
			if (!c->warning[0])
				unknown_warned = true;
			if (keep_unknown(c, raw, rawlen, lineno, k, &nunknown) < 0) {
				cfg_defaults(c);
				return ps_error_set(e, E2BIG, _("pscoperc line %d: too many unknown settings to keep"), lineno);
			}
			if (nunknown == 1) {
				first_unknown = lineno;
				snprintf(first_key, sizeof(first_key), "%.40s", k);
			}
		}
	}
	/* The unknown keys warned first: count them all in the warning. */
	if (nunknown > 1 && unknown_warned)
		snprintf(c->warning, sizeof(c->warning),
			 P_("pscoperc line %d: unknown setting '%s' and %d more (ignored, kept in the file)",
			    "pscoperc line %d: unknown setting '%s' and %d more (ignored, kept in the file)",
			    (unsigned long)(nunknown - 1)),
			 first_unknown, first_key, nunknown - 1);
	return 0;
}

size_t cfg_format(const struct pscope_config *c, char *buf, size_t size)
{
	size_t o = 0;
#define ADD(...) o += (size_t)snprintf(buf + (o < size ? o : size), o < size ? size - o : 0, __VA_ARGS__)
	ADD("# pscope settings: written when pscope quits (F2 edits them). A file\n"
	    "# that does not parse is reported and left as it is.\n");
	ADD("config_version=1\ncolumns=");
	for (int i = 0; i < c->ncolumns; i++)
		ADD("%s%s", i ? " " : "", proc_sort_name((enum proc_sort)c->columns[i]));
	ADD("\nsort_key=%s\n", proc_sort_name((enum proc_sort)c->sort_key));
	ADD("sort_direction=%s\n", c->sort_desc ? "desc" : "asc");
	ADD("tree_view=%d\n", c->tree);
	ADD("hide_kernel_threads=%d\n", c->hide_kthreads);
	ADD("hide_userland_threads=%d\n", c->hide_uthreads);
	ADD("delay=%d\n", c->delay_tenths);
	ADD("header_meters=");
	for (int m = 0, n = 0; m < CFG_M_COUNT; m++)
		if (c->meters & (1u << m))
			ADD("%s%s", n++ ? " " : "", meter_names[m]);
	ADD("\nmeter_style=%s\n", c->meter_graph ? "graph" : "bar");
	ADD("color_scheme=%s\npane_order=", c->theme);
	for (int i = 0; i < PANE_COUNT; i++)
		ADD("%s%s", i ? " " : "", cfg_pane_name(c->pane_order[i]));
	ADD("\n%s", c->unknown);
#undef ADD
	return o;
}

/* One setting each; the sort is one (key and direction). */
enum cfg_field { F_COLUMNS, F_SORT, F_TREE, F_HIDEK, F_HIDEU, F_DELAY, F_METERS, F_MSTYLE, F_THEME, F_PANES, F_COUNT };

static bool field_same(const struct pscope_config *a, const struct pscope_config *b, enum cfg_field f)
{
	switch (f) {
	case F_COLUMNS:
		return a->ncolumns == b->ncolumns && !memcmp(a->columns, b->columns, (size_t)a->ncolumns * sizeof(int));
	case F_SORT: return a->sort_key == b->sort_key && a->sort_desc == b->sort_desc;
	case F_TREE: return a->tree == b->tree;
	case F_HIDEK: return a->hide_kthreads == b->hide_kthreads;
	case F_HIDEU: return a->hide_uthreads == b->hide_uthreads;
	case F_DELAY: return a->delay_tenths == b->delay_tenths;
	case F_METERS: return a->meters == b->meters;
	case F_MSTYLE: return a->meter_graph == b->meter_graph;
	case F_THEME: return !strcmp(a->theme, b->theme);
	case F_PANES: return !memcmp(a->pane_order, b->pane_order, sizeof(a->pane_order));
	case F_COUNT: break;
	}
	return true;
}

static void field_copy(struct pscope_config *to, const struct pscope_config *from, enum cfg_field f)
{
	switch (f) {
	case F_COLUMNS:
		memcpy(to->columns, from->columns, sizeof(to->columns));
		to->ncolumns = from->ncolumns;
		break;
	case F_SORT:
		to->sort_key = from->sort_key;
		to->sort_desc = from->sort_desc;
		break;
	case F_TREE: to->tree = from->tree; break;
	case F_HIDEK: to->hide_kthreads = from->hide_kthreads; break;
	case F_HIDEU: to->hide_uthreads = from->hide_uthreads; break;
	case F_DELAY: to->delay_tenths = from->delay_tenths; break;
	case F_METERS: to->meters = from->meters; break;
	case F_MSTYLE: to->meter_graph = from->meter_graph; break;
	case F_THEME: memcpy(to->theme, from->theme, sizeof(to->theme)); break;
	case F_PANES: memcpy(to->pane_order, from->pane_order, sizeof(to->pane_order)); break;
	case F_COUNT: break;
	}
}

bool cfg_same(const struct pscope_config *a, const struct pscope_config *b)
{
	for (int f = 0; f < F_COUNT; f++)
		if (!field_same(a, b, (enum cfg_field)f))
			return false;
	return true;
}

bool cfg_merge(struct pscope_config *out, const struct pscope_config *file, const struct pscope_config *start,
	       const struct pscope_config *now)
{
	bool changed = false;

	if (out != file)
		*out = *file;
	for (int f = 0; f < F_COUNT; f++)
		if (!field_same(start, now, (enum cfg_field)f) && !field_same(out, now, (enum cfg_field)f)) {
			field_copy(out, now, (enum cfg_field)f);
			changed = true;
		}
	return changed;
}

int cfg_path(char *buf, size_t size)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
	int n;

	/* The spec: a relative XDG_CONFIG_HOME is invalid and ignored. */
	if (x && x[0] == '/')
		n = snprintf(buf, size, "%s/pscope/pscoperc", x);
	else if (h && h[0])
		n = snprintf(buf, size, "%s/.config/pscope/pscoperc", h);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int cfg_load(const char *path, struct pscope_config *c, struct ps_error *e)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;

	cfg_defaults(c);
	n = read_file_alloc_at(AT_FDCWD, path, &buf, &cap);
	if (n == -ENOENT) {
		free(buf);
		return 1;
	}
	if (n < 0) {
		free(buf);
		return ps_error_set(e, (int)-n, _("cannot read %s: %s"), path, strerror((int)-n));
	}
	int rc = cfg_parse(buf, (size_t)n, c, e);
	free(buf);
	return rc;
}

/* mkdir -p of the directories above path (mode 0700 as XDG asks). */
static int make_parents(const char *path)
{
	char d[4096];
	size_t n = strlcpy_ps(d, path, sizeof(d));

	for (size_t i = 1; i < n; i++) {
		if (d[i] != '/')
			continue;
		d[i] = '\0';
		if (mkdir(d, 0700) < 0 && errno != EEXIST)
			return -errno;
		d[i] = '/';
	}
	return 0;
}

struct cfg_text {
	const char *text;
	size_t len;
};

static int cfg_write(FILE *f, void *arg)
{
	const struct cfg_text *t = arg;
	return fwrite(t->text, 1, t->len, f) == t->len ? 0 : -EIO;
}

int cfg_save(const char *path, const struct pscope_config *c, struct ps_error *e)
{
	char text[4096];
	size_t len = cfg_format(c, text, sizeof(text));
	struct cfg_text t = { text, len };
	int err;

	if (len >= sizeof(text))
		return ps_error_set(e, E2BIG, _("settings too long to write"));
	if ((err = make_parents(path)) < 0)
		return ps_error_set(e, -err, _("cannot create the directory of %s: %s"), path, strerror(-err));
	/* Like every file pscope writes (src/out/save.c): never through a
	 * link swapped in, complete or not at all. */
	return out_save_mode(path, 0600, cfg_write, &t, e);
}
