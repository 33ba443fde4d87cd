/* pscope record --check DIR: what a directory of day files keeps (each
 * file's day, time span, intervals, size and torn tail; the total
 * against --max-size). */
#include "cmd/cmd.h"
#include "cmd/rec-out.h"
#include "i18n.h"
#include "out/escape.h"
#include "out/json.h"
#include "out/save.h"
#include "record/spool.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct checked {
	const struct rec_day *d;
	struct rec_file *f;        /* NULL: unreadable, why in err */
	struct ps_error err;
};

static void day_str(int day, char *buf, size_t size)
{
	snprintf(buf, size, "%04d-%02d-%02d", day / 10000, day / 100 % 100, day % 100);
}

static void text(const char *dir, const struct checked *c, size_t n, uint64_t total, unsigned long long max_size)
{
	char sz[32], mx[32], day[16], t0[32], t1[32];

	printf(P_("%s: %zu day file, %s", "%s: %zu day files, %s", n), esc(dir), n, human_bytes(total, sz, sizeof(sz)));
	if (max_size)
		printf(_(" of --max-size %s (%.0f%%)"), human_bytes(max_size, mx, sizeof(mx)),
		       100.0 * (double)total / (double)max_size);
	printf("\n");
	if (!n)
		return;
	printf("%s  %s  %s  %s  %s  %s\n", pad(_("DAY"), 10), pad(_("FROM"), 19), pad(_("TO"), 19), pad(_("INTERVALS"), -9),
	       pad(_("SIZE"), -8), _("FILE"));
	for (size_t i = 0; i < n; i++) {
		const struct rec_file *f = c[i].f;
		day_str(c[i].d->day, day, sizeof(day));
		human_bytes(c[i].d->size, sz, sizeof(sz));
		if (!f) {
			printf("%-10s  %-19s  %-19s  %9s  %8s  %s\n", day, "-", "-", "-", sz, esc(c[i].d->name));
			printf(_("  unreadable: %s\n"), esc(c[i].err.msg));
			continue;
		}
		if (f->n) {
			rec_fmt_time(rec_wall(f, 0), t0, sizeof(t0));
			rec_fmt_time(rec_wall(f, f->n - 1), t1, sizeof(t1));
		} else {
			strcpy(t0, "-");
			strcpy(t1, "-");
		}
		printf("%-10s  %-19s  %-19s  %9zu  %8s  %s\n", day, t0, t1, f->n, sz, esc(c[i].d->name));
		if (f->tear_len)
			printf(_("  torn tail: %llu bytes at offset %llu skipped\n"), (unsigned long long)f->tear_len,
			       (unsigned long long)f->tear_off);
		else if (!f->closed)
			printf("%s", _("  not closed: being written, or the recorder was stopped without a word\n"));
	}
}

static int json(const char *dir, const struct checked *c, size_t n, uint64_t total, unsigned long long max_size)
{
	struct json_object *o = json_object_new_object(), *files = json_object_new_array();
	char day[16], t[32];

	out_json_str(o, "dir", dir);
	for (size_t i = 0; i < n; i++) {
		const struct rec_file *f = c[i].f;
		struct json_object *j = json_object_new_object();
		day_str(c[i].d->day, day, sizeof(day));
		out_json_str(j, "file", c[i].d->name);
		out_json_str(j, "day", day);
		out_json_int(j, "size", (long long)c[i].d->size);
		if (!f) {
			out_json_str(j, "error", c[i].err.msg);
		} else {
			out_json_str(j, "from", f->n ? rec_fmt_time(rec_wall(f, 0), t, sizeof(t)) : NULL);
			out_json_str(j, "to", f->n ? rec_fmt_time(rec_wall(f, f->n - 1), t, sizeof(t)) : NULL);
			if (f->n) {
				out_json_double(j, "from_wall", rec_wall(f, 0));
				out_json_double(j, "to_wall", rec_wall(f, f->n - 1));
			}
			out_json_int(j, "intervals", (long long)f->n);
			out_json_bool(j, "closed", f->closed);
			if (f->tear_len) {
				struct json_object *tj = json_object_new_object();
				out_json_int(tj, "offset", (long long)f->tear_off);
				out_json_int(tj, "length", (long long)f->tear_len);
				json_object_object_add(j, "torn", tj);
			} else {
				json_object_object_add(j, "torn", NULL);
			}
		}
		json_object_array_add(files, j);
	}
	json_object_object_add(o, "files", files);
	out_json_int(o, "total", (long long)total);
	if (max_size)
		out_json_int(o, "max_size", (long long)max_size);
	else
		json_object_object_add(o, "max_size", NULL);
	return out_json_print(stdout, o, 1);
}

int record_check(const char *dir, unsigned long long max_size, bool as_json)
{
	struct ps_error e;
	struct rec_day *v = NULL;
	size_t n = 0;
	uint64_t total = 0;
	int fd;

	ps_error_clear(&e);
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		ps_error_set(&e, errno, _("cannot open %s: %s"), dir, strerror(errno));
		return cmd_fail("record", &e);
	}
	if (rec_spool_list(fd, (uid_t)-1, &v, &n, &e) < 0) {
		close(fd);
		return cmd_fail("record", &e);
	}
	struct checked *c = calloc(n ? n : 1, sizeof(*c));
	if (!c) {
		free(v);
		close(fd);
		ps_error_set(&e, ENOMEM, "%s", _("out of memory"));
		return cmd_fail("record", &e);
	}
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		c[i].d = &v[i];
		total += v[i].size;
		ps_error_clear(&c[i].err);
		snprintf(path, sizeof(path), "%s/%s", dir, v[i].name);
		if (rec_open(path, &c[i].f, &c[i].err) < 0)
			c[i].f = NULL;
	}
	int rc = as_json ? (json(dir, c, n, total, max_size) < 0 ? 1 : 0) : (text(dir, c, n, total, max_size), 0);
	for (size_t i = 0; i < n; i++)
		if (!c[i].f)
			rc = 1; /* a day file that cannot be read: said above, and the status says so */
	for (size_t i = 0; i < n; i++)
		if (c[i].f)
			rec_close(c[i].f);
	free(c);
	free(v);
	close(fd);
	if (fflush(stdout) == EOF)
		rc = 1;
	return rc;
}
