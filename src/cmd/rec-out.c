/* The recorded interval a batch command shows: opened, found by time,
 * named. */
#include "cmd/rec-out.h"
#include "cmd/cmd.h"
#include "i18n.h"
#include "out/escape.h"
#include "out/json.h"

#include <stdio.h>
#include <string.h>

int rec_out_open(const char *cmd, const char *path, const char *at, struct rec_out *ro)
{
	struct ps_error e;

	memset(ro, 0, sizeof(*ro));
	ps_error_clear(&e);
	if (rec_open(path, &ro->f, &e) < 0)
		return cmd_fail(cmd, &e);
	if (ro->f->note[0])
		fprintf(stderr, "pscope %s: %s\n", cmd, esc(ro->f->note));
	double end = rec_wall(ro->f, ro->f->n - 1);
	ro->asked = end;
	if (at && rec_time_parse(at, ro->f->h.start, end, &ro->asked, &e) < 0) {
		rec_out_close(ro);
		return cmd_usage_error(cmd, "%s", e.msg);
	}
	ro->i = rec_find(ro->f, ro->asked);
	if (rec_snapshot(ro->f, ro->i, &ro->s, &e) < 0) {
		rec_out_close(ro);
		return cmd_fail(cmd, &e);
	}
	return 0;
}

void rec_out_close(struct rec_out *ro)
{
	snap_put(ro->s ? &ro->s->h : NULL);
	rec_close(ro->f);
	memset(ro, 0, sizeof(*ro));
}

void rec_out_line(const struct rec_out *ro)
{
	char t[64], q[64];

	printf(_("Recorded %s (interval %zu of %zu, %+.1f s from the start; asked for %s)\n"),
	       rec_fmt_time(ro->s->h.wall, t, sizeof(t)), ro->i + 1, ro->f->n, ro->s->h.wall - ro->f->h.start,
	       rec_fmt_time(ro->asked, q, sizeof(q)));
}

struct json_object *rec_out_json(const struct rec_out *ro)
{
	struct json_object *o = json_object_new_object();
	char t[64];

	out_json_str(o, "file", ro->f->path);
	out_json_str(o, "at", rec_fmt_time(ro->s->h.wall, t, sizeof(t)));
	out_json_double(o, "wall", ro->s->h.wall);
	out_json_int(o, "interval", (long long)ro->i + 1);
	out_json_int(o, "intervals", (long long)ro->f->n);
	out_json_double(o, "asked", ro->asked);
	out_json_double(o, "start", ro->f->h.start);
	out_json_bool(o, "torn", ro->f->tear_len > 0);
	out_json_bool(o, "short_lived_recorded", ro->s->rec.exits_on);
	return o;
}
