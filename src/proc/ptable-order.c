/* The order of the process list's rows (a snapshot's), the sort keys and
 * a row's text. The table that reads them is ptable.c; the per-row extras
 * (io, status, cgroup) are ptable-extra.c's. */
#include "i18n.h"
#include "proc/ptable.h"
#include "proc/ptable-priv.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- sort keys ---- */

static const struct {
	const char *name, *title;
	bool desc;
	unsigned px;
} sort_keys[PSORT_COUNT] = {
	[PSORT_PID] = { "pid", "PID", false, 0 },       [PSORT_USER] = { "user", "USER", false, 0 },
	[PSORT_PRI] = { "pri", "PRI", false, 0 },       [PSORT_NI] = { "ni", "NI", false, 0 },
	[PSORT_VIRT] = { "virt", "VIRT", true, 0 },     [PSORT_RES] = { "res", "RES", true, 0 },
	[PSORT_SHR] = { "shr", "SHR", true, PX_SHR },      [PSORT_STATE] = { "state", "S", false, 0 },
	[PSORT_CPU] = { "cpu", "CPU%", true, 0 },       [PSORT_MEM] = { "mem", "MEM%", true, 0 },
	[PSORT_TIME] = { "time", "TIME+", true, 0 },    [PSORT_COMMAND] = { "command", "COMMAND", false, 0 },
	[PSORT_PPID] = { "ppid", "PPID", false, 0 },    [PSORT_PGRP] = { "pgrp", "PGRP", false, 0 },
	[PSORT_SID] = { "sid", "SID", false, 0 },       [PSORT_TTY] = { "tty", "TTY", false, 0 },
	[PSORT_NLWP] = { "nlwp", "NLWP", true, 0 },     [PSORT_PROCESSOR] = { "processor", "CPU#", false, 0 },
	[PSORT_STARTTIME] = { "starttime", "START", false, 0 },
	[PSORT_IO_READ] = { "io_read_rate", "IO_READ_RATE", true, PX_IO },
	[PSORT_IO_WRITE] = { "io_write_rate", "IO_WRITE_RATE", true, PX_IO },
	[PSORT_IO_RATE] = { "io_rate", "IO_RATE", true, PX_IO },
	[PSORT_IO_RBYTES] = { "io_rbytes", "IO_RBYTES", true, PX_IO },
	[PSORT_IO_WBYTES] = { "io_wbytes", "IO_WBYTES", true, PX_IO },
	[PSORT_IO_PRIO] = { "io_priority", "IO", false, PX_IOPRIO },
	[PSORT_MAJFLT] = { "majflt", "MAJFLT", true, 0 },
	[PSORT_CTXT] = { "ctxt", "CTXT/s", true, PX_CTXT },
	[PSORT_OOM] = { "oom", "OOM", true, PX_OOM },
	[PSORT_CGROUP] = { "cgroup", "CGROUP", false, PX_CGROUP },
	[PSORT_CONTAINER] = { "container", "CONTAINER", false, PX_CGROUP },
	[PSORT_CPU_HIST] = { "cpu_hist", "CPU_HIST", true, PX_HIST },
};

unsigned proc_sort_extra(enum proc_sort k)
{
	return (unsigned)k < PSORT_COUNT ? sort_keys[k].px : 0;
}

const char *proc_sort_title(enum proc_sort k)
{
	return (unsigned)k < PSORT_COUNT ? sort_keys[k].title : "?";
}

const char *proc_sort_name(enum proc_sort k)
{
	return (unsigned)k < PSORT_COUNT ? sort_keys[k].name : "?";
}

int proc_sort_parse(const char *s)
{
	if (!s)
		return -1;
	for (int i = 0; i < PSORT_COUNT; i++)
		if (!strcasecmp(s, sort_keys[i].name) || !strcasecmp(s, sort_keys[i].title))
			return i;
	if (!strcasecmp(s, "s") || !strcasecmp(s, "nice"))
		return !strcasecmp(s, "s") ? PSORT_STATE : PSORT_NI;
	return -1;
}

size_t proc_sort_list(char *buf, size_t size, int indent, int width)
{
	size_t o = 0;
	int col = 0;

#define ADD(...) o += (size_t)snprintf(buf + (o < size ? o : size), o < size ? size - o : 0, __VA_ARGS__)
	if (size)
		buf[0] = '\0';
	for (int k = 0; k < PSORT_COUNT; k++) {
		int n = (int)strlen(sort_keys[k].name) + (k < PSORT_COUNT - 1 ? 1 : 0); /* "name," */
		if (width > 0 && (k == 0 || col + 1 + n > width)) {
			if (k)
				ADD("\n");
			ADD("%*s%s", indent, "", sort_keys[k].name);
			col = indent + (int)strlen(sort_keys[k].name);
		} else {
			ADD("%s%s", k ? " " : "", sort_keys[k].name);
			col += (k ? 1 : 0) + (int)strlen(sort_keys[k].name);
		}
		if (k < PSORT_COUNT - 1) {
			ADD(",");
			col++;
		}
	}
	if (width > 0)
		ADD("\n");
#undef ADD
	return o;
}

bool proc_sort_desc_default(enum proc_sort k)
{
	return (unsigned)k < PSORT_COUNT && sort_keys[k].desc;
}

/* ---- order ---- */

struct order_ctx {
	enum proc_sort key;
	bool desc;
};

static int cmp_num(double a, double b)
{
	return a < b ? -1 : a > b ? 1 : 0;
}

static int state_rank(char s)
{
	/* R first, then D, then the rest alphabetically */
	return s == 'R' ? 0 : s == 'D' ? 1 : 2 + (unsigned char)s;
}

/* Realtime first, then best effort, then idle; by level within a class;
 * unread last. */
static int ioprio_rank(const struct proc_row *r)
{
	const struct proc_extra *x = proc_row_extra(r);
	int cls = x->ioprio_cls, lvl = x->ioprio_lvl;

	if (!x->ioprio_ok)
		return 100;
	if (cls == 0) { /* none: best effort at the level the nice value gives */
		cls = 2;
		lvl = (int)(r->nice + 20) / 5;
	}
	return cls * 10 + lvl;
}

static int row_cmp(const void *pa, const void *pb, void *arg)
{
	const struct proc_row *a = ((const struct proc_view_row *)pa)->r, *b = ((const struct proc_view_row *)pb)->r;
	const struct proc_extra *xa = proc_row_extra(a), *xb = proc_row_extra(b);
	const struct order_ctx *c = arg;
	int r = 0;

	switch (c->key) {
	case PSORT_PID: r = cmp_num(a->pid, b->pid); break;
	case PSORT_USER: r = strcmp(a->user, b->user); break;
	case PSORT_PRI: r = cmp_num(a->priority, b->priority); break;
	case PSORT_NI: r = cmp_num(a->nice, b->nice); break;
	case PSORT_VIRT: r = cmp_num(a->virt_kb, b->virt_kb); break;
	case PSORT_RES: r = cmp_num(a->res_kb, b->res_kb); break;
	case PSORT_SHR: r = cmp_num(a->shr_kb, b->shr_kb); break;
	case PSORT_STATE: r = cmp_num(state_rank(a->state), state_rank(b->state)); break;
	case PSORT_CPU:
	case PSORT_CPU_HIST: r = cmp_num(a->cpu, b->cpu); break;
	case PSORT_MEM: r = cmp_num(a->res_kb, b->res_kb); break;
	case PSORT_TIME: r = cmp_num(a->ticks, b->ticks); break;
	case PSORT_COMMAND: {
		const char *x = a->cmdline ? a->cmdline : a->comm, *y = b->cmdline ? b->cmdline : b->comm;
		r = strcmp(x, y);
		break;
	}
	case PSORT_PPID: r = cmp_num(a->ppid, b->ppid); break;
	case PSORT_PGRP: r = cmp_num(a->pgrp, b->pgrp); break;
	case PSORT_SID: r = cmp_num(a->session, b->session); break;
	case PSORT_TTY: r = cmp_num((unsigned)a->tty_nr, (unsigned)b->tty_nr); break;
	case PSORT_NLWP: r = cmp_num(a->nlwp, b->nlwp); break;
	case PSORT_PROCESSOR: r = cmp_num(a->processor, b->processor); break;
	case PSORT_STARTTIME: r = cmp_num(a->starttime, b->starttime); break;
	case PSORT_IO_READ: r = cmp_num(xa->io_err ? -1 : xa->io_read_rate, xb->io_err ? -1 : xb->io_read_rate); break;
	case PSORT_IO_WRITE: r = cmp_num(xa->io_err ? -1 : xa->io_write_rate, xb->io_err ? -1 : xb->io_write_rate); break;
	case PSORT_IO_RATE:
		r = cmp_num(xa->io_err ? -1 : xa->io_read_rate + xa->io_write_rate,
			    xb->io_err ? -1 : xb->io_read_rate + xb->io_write_rate);
		break;
	case PSORT_IO_RBYTES: r = cmp_num(xa->io_ns ? (double)xa->io_rb : -1, xb->io_ns ? (double)xb->io_rb : -1); break;
	case PSORT_IO_WBYTES: r = cmp_num(xa->io_ns ? (double)xa->io_wb : -1, xb->io_ns ? (double)xb->io_wb : -1); break;
	case PSORT_IO_PRIO: r = cmp_num(ioprio_rank(a), ioprio_rank(b)); break;
	case PSORT_MAJFLT: r = cmp_num(a->majflt, b->majflt); break;
	case PSORT_CTXT: r = cmp_num(xa->ctxt_rate, xb->ctxt_rate); break;
	case PSORT_OOM: r = cmp_num(xa->oom, xb->oom); break;
	case PSORT_CGROUP: r = strcmp(xa->cgroup ? xa->cgroup : "", xb->cgroup ? xb->cgroup : ""); break;
	case PSORT_CONTAINER: r = strcmp(xa->container, xb->container); break;
	default: break;
	}
	if (c->desc)
		r = -r;
	return r ? r : cmp_num(a->pid, b->pid);
}

static int view_reserve(struct proc_view *v, size_t n)
{
	if (n <= v->cap)
		return 0;
	struct proc_view_row *nv = realloc(v->v, n * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	v->v = nv;
	v->cap = n;
	return 0;
}

void proc_view_free(struct proc_view *v)
{
	free(v->v);
	memset(v, 0, sizeof(*v));
}

int proc_view_index(const struct proc_view *v, pid_t pid)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].r->pid == pid)
			return (int)i;
	return -1;
}

/* Depth-first walk of the (already sorted) rows by parent. */
static int tree_order(const struct proc_row *const *rows, size_t nrows, const struct pid_index *ix,
		      struct proc_view_row *sorted, size_t n, struct proc_view_row *out)
{
	long *parent = malloc(n * sizeof(long));
	size_t *first = calloc(n + 1, sizeof(size_t)), *kids = malloc(n * sizeof(size_t));
	size_t *fill = malloc((n + 1) * sizeof(size_t));
	struct { size_t idx, next; } *stack = malloc(n * sizeof(*stack));
	bool *done = calloc(n, sizeof(bool));
	long *pos = malloc((nrows ? nrows : 1) * sizeof(long)); /* row index -> sorted index */
	size_t o = 0;
	int rc = 0;

	if (!parent || !first || !kids || !fill || !stack || !done || !pos) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		pos[sorted[i].idx] = (long)i;
	for (size_t i = 0; i < n; i++) {
		const struct proc_row *r = sorted[i].r;
		pid_t pp = r->is_thread ? r->tgid : r->ppid;
		long ti = pp > 0 && pp != r->pid ? pid_index_find(ix, rows, pp) : -1;
		parent[i] = ti >= 0 ? pos[ti] : -1;
		if (parent[i] >= 0)
			first[parent[i] + 1]++;
	}
	for (size_t i = 0; i < n; i++)
		first[i + 1] += first[i];
	memcpy(fill, first, (n + 1) * sizeof(size_t));
	for (size_t i = 0; i < n; i++) /* children keep the sorted order */
		if (parent[i] >= 0)
			kids[fill[parent[i]]++] = i;

	/* Roots in sorted order; then anything a cycle left out. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t root = 0; root < n; root++) {
			if (done[root] || (pass == 0 && parent[root] >= 0))
				continue;
			size_t sp = 0;
			struct proc_view_row *rr = &sorted[root];
			rr->depth = 0;
			rr->tree_last = true;
			rr->tree_more = 0;
			done[root] = true;
			out[o++] = *rr;
			stack[sp].idx = root;
			stack[sp].next = first[root];
			sp++;
			while (sp) {
				size_t top = stack[sp - 1].idx;
				if (stack[sp - 1].next == first[top + 1]) {
					sp--;
					continue;
				}
				size_t k = kids[stack[sp - 1].next++];
				if (done[k])
					continue;
				struct proc_view_row *pr = &sorted[top], *kr = &sorted[k];
				done[k] = true;
				kr->depth = pr->depth + 1;
				kr->tree_last = stack[sp - 1].next == first[top + 1];
				kr->tree_more = pr->tree_more;
				if (pr->depth > 0 && pr->depth <= 32 && !pr->tree_last)
					kr->tree_more |= 1u << (pr->depth - 1);
				out[o++] = *kr;
				stack[sp].idx = k;
				stack[sp].next = first[k];
				sp++;
			}
		}
out:
	free(parent);
	free(first);
	free(kids);
	free(fill);
	free(stack);
	free(done);
	free(pos);
	return rc;
}

int proc_rows_order(const struct proc_row *const *rows, size_t n, const struct pid_index *ix, enum proc_sort key, bool desc,
		    bool tree, bool (*keep)(const struct proc_row *r, void *arg), void *arg, struct proc_view *out)
{
	struct order_ctx c = { key, desc };
	struct proc_view_row *tmp = NULL;
	size_t o = 0;

	if (view_reserve(out, n ? n : 1) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		out->v[i] = (struct proc_view_row){ .r = rows[i], .idx = i, .tree_last = true };
	if (n > 1)
		qsort_r(out->v, n, sizeof(*out->v), row_cmp, &c);
	if (tree && n) {
		tmp = malloc(n * sizeof(*tmp));
		if (!tmp || tree_order(rows, n, ix, out->v, n, tmp) < 0) {
			free(tmp);
			return -ENOMEM;
		}
		memcpy(out->v, tmp, n * sizeof(*tmp));
		free(tmp);
	}
	for (size_t i = 0; i < n; i++)
		if (!keep || keep(out->v[i].r, arg))
			out->v[o++] = out->v[i];
	out->n = o;
	return 0;
}

/* ---- text ---- */

const char *proc_row_command(const struct proc_row *r, char *buf, size_t size)
{
	if (r->is_thread || !r->cmdline) {
		snprintf(buf, size, "%s", r->comm);
		return buf;
	}
	/* basename of argv[0]: the kernel's comm is its first 15 bytes */
	const char *a0 = r->cmdline, *end = strchr(a0, ' ');
	size_t a0len = end ? (size_t)(end - a0) : strlen(a0);
	const char *base = a0;
	for (const char *p = a0; p < a0 + a0len; p++)
		if (*p == '/')
			base = p + 1;
	size_t blen = (size_t)(a0 + a0len - base), clen = strlen(r->comm);
	bool same = clen > 0 && ((blen >= clen && !strncmp(base, r->comm, clen)) ||
				 (clen >= 15 && !strncmp(base, r->comm, clen < blen ? clen : blen)));
	/* interpreters: "python3 /x/app.py" with comm "app.py" */
	if (!same && clen && strstr(r->cmdline, r->comm))
		same = true;
	if (same)
		snprintf(buf, size, "%s", r->cmdline);
	else
		snprintf(buf, size, "%s\u2502%s", r->comm, r->cmdline);
	return buf;
}

const char *proc_row_command_shown(const struct proc_row *r, char *buf, size_t size)
{
	char mark[96], num[32];
	size_t ml, n;

	proc_row_command(r, buf, size);
	if (!r->cmdline_cut || r->is_thread || !r->cmdline || size < 2)
		return buf;
	/* 59583 -> "59,583" */
	int k = snprintf(num, sizeof(num), "%zu", r->cmdline_len), d = 0;
	char grouped[48], *g = grouped + sizeof(grouped) - 1;
	*g = '\0';
	for (int i = k - 1; i >= 0; i--, d++) {
		if (d && d % 3 == 0)
			*--g = ',';
		*--g = num[i];
	}
	if (r->cmdline_len)
		snprintf(mark, sizeof(mark), P_(" …[%s byte]", " …[%s bytes]", (unsigned long)r->cmdline_len), g);
	else
		snprintf(mark, sizeof(mark), "%s", _(" …[cut]"));
	ml = strlen(mark);
	n = strlen(buf);
	if (ml >= size)
		return buf;
	if (n + ml >= size) {
		n = size - 1 - ml;
		while (n > 0 && ((unsigned char)buf[n] & 0xc0) == 0x80)
			n--; /* not inside a character */
	}
	memcpy(buf + n, mark, ml + 1);
	return buf;
}

bool proc_row_matches(const struct proc_row *r, const char *needle)
{
	if (!needle || !*needle)
		return true;
	if (strcasestr(r->comm, needle))
		return true;
	return r->cmdline && strcasestr(r->cmdline, needle);
}

const char *proc_fmt_kb(unsigned long long kb, char *buf, size_t size)
{
	if (kb < 100000)
		snprintf(buf, size, "%llu", kb);
	else if (kb / 1024 < 10000)
		snprintf(buf, size, "%lluM", kb / 1024);
	else if (kb < 100ull * 1024 * 1024)
		snprintf(buf, size, "%.1fG", (double)kb / (1024.0 * 1024.0));
	else if (kb / (1024 * 1024) < 10000)
		snprintf(buf, size, "%lluG", kb / (1024 * 1024));
	else
		snprintf(buf, size, "%lluT", kb / (1024ull * 1024 * 1024));
	return buf;
}

const char *proc_fmt_time(unsigned long long ticks, long hz, char *buf, size_t size)
{
	unsigned long long cs = ticks * 100 / (unsigned long long)hz;
	unsigned long long sec = cs / 100, min = sec / 60, hours = min / 60;

	if (hours == 0)
		snprintf(buf, size, "%llu:%02llu.%02llu", min, sec % 60, cs % 100);
	else if (hours < 100)
		snprintf(buf, size, "%lluh%02llu:%02llu", hours, min % 60, sec % 60);
	else
		snprintf(buf, size, "%lluh", hours);
	return buf;
}

const char *proc_fmt_pri(long pri, char *buf, size_t size)
{
	if (pri <= -100)
		snprintf(buf, size, "RT");
	else
		snprintf(buf, size, "%ld", pri);
	return buf;
}
