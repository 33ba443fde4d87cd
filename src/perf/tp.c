/* Tracepoints: the pure parser of a tracefs format file, field reads from
 * a raw record by the offsets that file gives, the decoders of the
 * tracepoints pscope knows by name (sched_switch, sched_wakeup(_new),
 * raw_syscalls sys_enter/sys_exit), and the reader that finds tracefs and
 * loads a format. */
#include "perf/perf.h"
#include "doors/doors.h"
#include "i18n.h"
#include "util.h"

#include <ctype.h>
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/* "key:NUMBER;" somewhere in line: 0 and *v, or -1. */
static int num_after(const char *line, const char *key, unsigned long *v)
{
	const char *p = strstr(line, key);
	char *end;

	if (!p)
		return -1;
	p += strlen(key);
	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	*v = strtoul(p, &end, 10);
	return errno || *end != ';' ? -1 : 0;
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* "field:DECL;\toffset:N;\tsize:N;\tsigned:N;" */
static int parse_field(const char *line, struct perf_tp_field *f)
{
	const char *d = strstr(line, "field:"), *semi;
	unsigned long off, size, sg = 0;
	char decl[160];

	memset(f, 0, sizeof(*f));
	if (!d)
		return -1;
	d += 6;
	semi = strchr(d, ';');
	if (!semi || (size_t)(semi - d) >= sizeof(decl))
		return -1;
	memcpy(decl, d, (size_t)(semi - d));
	decl[semi - d] = '\0';
	if (num_after(semi, "offset:", &off) < 0 || num_after(semi, "size:", &size) < 0 || off > UINT16_MAX ||
	    size > UINT16_MAX)
		return -1;
	if (strstr(semi, "signed:") && num_after(semi, "signed:", &sg) < 0)
		return -1;
	size_t n = strlen(decl);
	while (n && isspace((unsigned char)decl[n - 1]))
		decl[--n] = '\0';
	/* The name is the last identifier, before an array's [N]. */
	char suffix[24] = "";
	if (n && decl[n - 1] == ']') {
		char *open = strrchr(decl, '[');
		if (!open || strlen(open) >= sizeof(suffix))
			return -1;
		strlcpy_ps(suffix, open, sizeof(suffix));
		*open = '\0';
		n = strlen(decl);
		f->array = true;
	}
	size_t end = n;
	while (n && ident_char(decl[n - 1]))
		n--;
	if (n == end || end - n >= sizeof(f->name))
		return -1;
	memcpy(f->name, decl + n, end - n);
	f->name[end - n] = '\0';
	while (n && isspace((unsigned char)decl[n - 1]))
		n--;
	decl[n] = '\0';
	if (!n)
		return -1; /* no type */
	f->data_loc = !strncmp(decl, "__data_loc", 10);
	snprintf(f->type, sizeof(f->type), "%s%s", decl, suffix);
	f->offset = (uint16_t)off;
	f->size = (uint16_t)size;
	f->is_signed = sg != 0;
	return 0;
}

int perf_tp_parse(const char *buf, size_t len, struct perf_tp_format *out)
{
	bool have_id = false;
	size_t at = 0;

	memset(out, 0, sizeof(*out));
	while (at < len) {
		const char *nl = memchr(buf + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (buf + at)) : len - at;
		char line[512];
		const char *l = buf + at;
		at += n + 1;
		while (n && (*l == ' ' || *l == '\t')) {
			l++;
			n--;
		}
		if (!strncmp(l, "print fmt:", n < 10 ? n : 10) && n >= 10)
			break; /* the rest is the printing format, not fields */
		if (n >= sizeof(line)) {
			if (n >= 6 && !memcmp(l, "field:", 6))
				return -EINVAL; /* a field line we cannot hold whole */
			continue;
		}
		memcpy(line, l, n);
		line[n] = '\0';
		if (memchr(line, '\0', n))
			return -EINVAL;
		if (!strncmp(line, "name: ", 6)) {
			if (!line[6] || strlen(line + 6) >= sizeof(out->name))
				return -EINVAL;
			strlcpy_ps(out->name, line + 6, sizeof(out->name));
		} else if (!strncmp(line, "ID: ", 4)) {
			char *end;
			errno = 0;
			unsigned long v = strtoul(line + 4, &end, 10);
			if (errno || end == line + 4 || *end || v == 0 || v > UINT32_MAX)
				return -EINVAL;
			out->id = (uint32_t)v;
			have_id = true;
		} else if (!strncmp(line, "field:", 6)) {
			if (out->nfields == PERF_TP_FIELDS || parse_field(line, &out->fields[out->nfields]) < 0)
				return -EINVAL;
			out->nfields++;
		}
	}
	return out->name[0] && have_id ? 0 : -EINVAL;
}

const struct perf_tp_field *perf_tp_field(const struct perf_tp_format *f, const char *name)
{
	for (unsigned i = 0; i < f->nfields; i++)
		if (!strcmp(f->fields[i].name, name))
			return &f->fields[i];
	return NULL;
}

int perf_tp_int(const struct perf_tp_field *fld, const unsigned char *raw, size_t len, int64_t *v)
{
	size_t off = fld->offset, size = fld->size;

	*v = 0;
	if (off > len || size > len - off)
		return -EINVAL;
	switch (size) {
	case 1: {
		uint8_t x = raw[off];
		*v = fld->is_signed ? (int8_t)x : (int64_t)x;
		return 0;
	}
	case 2: {
		uint16_t x;
		memcpy(&x, raw + off, 2);
		*v = fld->is_signed ? (int16_t)x : (int64_t)x;
		return 0;
	}
	case 4: {
		uint32_t x;
		memcpy(&x, raw + off, 4);
		*v = fld->is_signed ? (int32_t)x : (int64_t)x;
		return 0;
	}
	case 8: {
		uint64_t x;
		memcpy(&x, raw + off, 8);
		*v = (int64_t)x;
		return 0;
	}
	default:
		return -EINVAL;
	}
}

int perf_tp_str(const struct perf_tp_field *fld, const unsigned char *raw, size_t len, char *buf, size_t size)
{
	size_t off = fld->offset, n = fld->size;

	if (size)
		buf[0] = '\0';
	if (!size || off > len || n > len - off)
		return -EINVAL;
	if (fld->data_loc) {
		/* A u32 in the record: the data's length << 16 | its offset. */
		uint32_t loc;
		if (n != 4)
			return -EINVAL;
		memcpy(&loc, raw + off, 4);
		off = loc & 0xffff;
		n = loc >> 16;
		if (off > len || n > len - off)
			return -EINVAL;
	}
	const unsigned char *s = raw + off;
	size_t k = 0;
	while (k < n && k + 1 < size && s[k])
		k++;
	memcpy(buf, s, k);
	buf[k] = '\0';
	return 0;
}

/* ---- the tracepoints pscope knows ---- */

enum need { INT, STR, ARGS6, OPT_INT };

static const struct known {
	const char *system, *name;
	enum perf_tp_kind kind;
	const char *fields[8];
	enum need need[8];
} known[] = {
	{ "sched", "sched_switch", PERF_TP_SCHED_SWITCH,
	  { "prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid", "next_prio" },
	  { STR, INT, OPT_INT, INT, STR, INT, OPT_INT } },
	{ "sched", "sched_wakeup", PERF_TP_SCHED_WAKEUP, { "comm", "pid", "prio", "target_cpu" },
	  { STR, INT, OPT_INT, OPT_INT } },
	{ "sched", "sched_wakeup_new", PERF_TP_SCHED_WAKEUP_NEW, { "comm", "pid", "prio", "target_cpu" },
	  { STR, INT, OPT_INT, OPT_INT } },
	{ "raw_syscalls", "sys_enter", PERF_TP_SYS_ENTER, { "id", "args" }, { INT, ARGS6 } },
	{ "raw_syscalls", "sys_exit", PERF_TP_SYS_EXIT, { "id", "ret" }, { INT, INT } },
};

static bool fits(const struct perf_tp_field *f, enum need n)
{
	switch (n) {
	case INT:
	case OPT_INT:
		return !f->array && !f->data_loc && (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
	case STR:
		return (f->array && f->size > 0) || (f->data_loc && f->size == 4);
	case ARGS6:
		return f->array && f->size == 6 * 8;
	}
	return false;
}

int perf_tp_bind(struct perf_tp *tp, const char *system, const struct perf_tp_format *fmt, struct ps_error *e)
{
	memset(tp, 0, sizeof(*tp));
	strlcpy_ps(tp->system, system, sizeof(tp->system));
	tp->fmt = *fmt;
	tp->kind = PERF_TP_OTHER;
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
		const struct known *w = &known[k];
		if (strcmp(w->system, system) || strcmp(w->name, fmt->name))
			continue;
		for (unsigned i = 0; i < 8 && w->fields[i]; i++) {
			const struct perf_tp_field *f = perf_tp_field(&tp->fmt, w->fields[i]);
			if (f && !fits(f, w->need[i]))
				return ps_error_set(e, EINVAL, _("tracepoint %s:%s: field %s has a layout pscope cannot read (%s, %u bytes)"),
						    system, fmt->name, w->fields[i], f->type, (unsigned)f->size);
			if (!f && w->need[i] != OPT_INT)
				return ps_error_set(e, EINVAL, _("tracepoint %s:%s has no field %s"), system, fmt->name,
						    w->fields[i]);
			tp->f[i] = f;
		}
		tp->kind = w->kind;
		break;
	}
	return 0;
}

/* An optional integer field: 0 when absent. */
static int get_int(const struct perf_tp_field *f, const unsigned char *raw, size_t len, int64_t *v)
{
	*v = 0;
	return f ? perf_tp_int(f, raw, len, v) : 0;
}

static int get_i32(const struct perf_tp_field *f, const unsigned char *raw, size_t len, int32_t *v)
{
	int64_t x;
	int r = get_int(f, raw, len, &x);
	*v = (int32_t)x;
	return r;
}

int perf_tp_decode(const struct perf_tp *tp, const unsigned char *raw, size_t len, struct perf_tp_event *out)
{
	int r = 0;

	memset(out, 0, sizeof(*out));
	out->tp = tp;
	out->raw = raw;
	out->raw_size = (uint32_t)len;
	/* Every record starts with common_type: a record shorter than the
	 * format's last field is refused by the field reads below. */
	switch (tp->kind) {
	case PERF_TP_SCHED_SWITCH: {
		struct perf_sched_switch *s = &out->sw;
		r |= perf_tp_str(tp->f[0], raw, len, s->prev_comm, sizeof(s->prev_comm));
		r |= get_i32(tp->f[1], raw, len, &s->prev_pid);
		r |= get_i32(tp->f[2], raw, len, &s->prev_prio);
		r |= get_int(tp->f[3], raw, len, &s->prev_state);
		r |= perf_tp_str(tp->f[4], raw, len, s->next_comm, sizeof(s->next_comm));
		r |= get_i32(tp->f[5], raw, len, &s->next_pid);
		r |= get_i32(tp->f[6], raw, len, &s->next_prio);
		break;
	}
	case PERF_TP_SCHED_WAKEUP:
	case PERF_TP_SCHED_WAKEUP_NEW: {
		struct perf_sched_wakeup *w = &out->wk;
		r |= perf_tp_str(tp->f[0], raw, len, w->comm, sizeof(w->comm));
		r |= get_i32(tp->f[1], raw, len, &w->pid);
		r |= get_i32(tp->f[2], raw, len, &w->prio);
		r |= get_i32(tp->f[3], raw, len, &w->target_cpu);
		break;
	}
	case PERF_TP_SYS_ENTER: {
		const struct perf_tp_field *a = tp->f[1];
		r |= get_int(tp->f[0], raw, len, &out->enter.id);
		if (a->offset > len || a->size > len - a->offset)
			r = -EINVAL;
		else
			memcpy(out->enter.args, raw + a->offset, sizeof(out->enter.args));
		break;
	}
	case PERF_TP_SYS_EXIT:
		r |= get_int(tp->f[0], raw, len, &out->exit.id);
		r |= get_int(tp->f[1], raw, len, &out->exit.ret);
		break;
	case PERF_TP_OTHER:
		break;
	}
	return r ? -EINVAL : 0;
}

/* ---- the reader ---- */

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

int perf_tracefs(char *path, size_t size, struct ps_error *e)
{
	char probe[64];
	int err = ENOENT;

	for (size_t i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		snprintf(probe, sizeof(probe), "%s/events", tracefs_dirs[i]);
		if (access(probe, X_OK) == 0) {
			snprintf(path, size, "%s", tracefs_dirs[i]);
			return 0;
		}
		if (errno == EACCES || errno == EPERM)
			err = errno;
	}
	/* Not mounted: mount it where it belongs, as perf does (root only). */
	if (err == ENOENT && mount("nodev", tracefs_dirs[0], "tracefs", 0, NULL) == 0) {
		snprintf(path, size, "%s", tracefs_dirs[0]);
		return 0;
	}
	return door_tracefs_refused(e, tracefs_dirs[0], err, _("find the tracepoints"));
}

int perf_tp_load(struct perf_tp *tp, const char *system, const char *name, struct ps_error *e)
{
	char dir[64], path[256], what[160];
	struct perf_tp_format fmt;
	char *buf = NULL;
	size_t cap = 0;

	memset(tp, 0, sizeof(*tp));
	int r = perf_tracefs(dir, sizeof(dir), e);
	if (r < 0)
		return r;
	snprintf(what, sizeof(what), _("read the format of tracepoint %s:%s"), system, name);
	if (strchr(system, '/') || strchr(name, '/') || !strcmp(system, "..") || !strcmp(name, ".."))
		return ps_error_set(e, EINVAL, _("cannot %s: not a tracepoint name"), what);
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, system, name);
	ssize_t n = read_file_alloc_at(AT_FDCWD, path, &buf, &cap);
	if (n < 0) {
		free(buf);
		return door_tracefs_refused(e, path, (int)n, what);
	}
	r = perf_tp_parse(buf, (size_t)n, &fmt);
	free(buf);
	if (r < 0)
		return ps_error_set(e, EINVAL, _("cannot %s: %s does not parse"), what, path);
	return perf_tp_bind(tp, system, &fmt, e);
}

void perf_tp_attr(const struct perf_tp *tp, uint64_t sample_type, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_TRACEPOINT;
	a->config = tp->fmt.id;
	a->sample_period = 1;
	a->sample_type = sample_type | PERF_SAMPLE_RAW | PERF_SAMPLE_IDENTIFIER;
	a->exclude_hv = 1;
	a->exclude_guest = 1;
}
