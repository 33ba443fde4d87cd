/* The speedscope writer (speedscope.h), through json-c. */
#include "config.h"
#include "out/speedscope.h"
#include "out/folded.h"
#include "out/json.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static struct json_object *frames_of(const struct samp_snapshot *s)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; a && i < s->nfuncs; i++) {
		const struct samp_func *fn = &s->funcs[i];
		struct json_object *o = json_object_new_object();
		if (!o)
			break;
		out_json_str(o, "name", fn->name);
		if (fn->file || fn->module)
			out_json_str(o, "file", fn->file ? fn->file : fn->module);
		if (fn->line > 0)
			out_json_int(o, "line", fn->line);
		json_object_array_add(a, o);
	}
	return a;
}

/* The sampled profile of thread (or process slot) tid. */
static struct json_object *profile_of(const struct samp_snapshot *s, const unsigned long long *counts, pid_t tid)
{
	struct json_object *p = json_object_new_object(), *samples = json_object_new_array(),
			   *weights = json_object_new_array();
	unsigned long long end = 0;
	char name[OUT_FRAME_NAME_MAX];

	if (!p || !samples || !weights) {
		json_object_put(p);
		json_object_put(samples);
		json_object_put(weights);
		return NULL;
	}
	for (unsigned i = 0; i < s->nstacks; i++) {
		const struct samp_stack *st = &s->stacks[i];
		struct json_object *stack;
		if (st->tid != tid || !counts[i] || !st->nframes || !(stack = json_object_new_array()))
			continue;
		for (unsigned j = st->nframes; j-- > 0;) /* outermost first */
			json_object_array_add(stack, json_object_new_int64(s->frames[st->first + j]));
		json_object_array_add(samples, stack);
		json_object_array_add(weights, json_object_new_int64((int64_t)counts[i]));
		end += counts[i];
	}
	out_json_str(p, "type", "sampled");
	out_json_str(p, "name", out_folded_thread(s, tid, name, sizeof(name)));
	out_json_str(p, "unit", s->unit == SAMP_UNIT_NS_BLOCKED || s->unit == SAMP_UNIT_NS_SYSCALL ? "nanoseconds" : "none");
	out_json_int(p, "startValue", 0);
	out_json_int(p, "endValue", (long long)end);
	json_object_object_add(p, "samples", samples);
	json_object_object_add(p, "weights", weights);
	return p;
}

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

int out_speedscope_write(FILE *f, const struct samp_snapshot *s, enum samp_window w, pid_t tid,
			 unsigned long long *total)
{
	unsigned long long *counts = samp_view_func_stack_counts(s, w, tid);
	pid_t *tids = calloc(s->nstacks + 1, sizeof(*tids));
	struct json_object *root = json_object_new_object(), *shared = json_object_new_object(),
			   *profiles = json_object_new_array();
	unsigned n = 0;
	char name[300];
	int r = -ENOMEM;

	if (!counts || !tids || !root || !shared || !profiles) {
		json_object_put(shared);
		json_object_put(profiles);
		goto done;
	}
	/* One profile per thread with weight in the window, by TID. */
	if (total)
		*total = 0;
	for (unsigned i = 0; i < s->nstacks; i++)
		if (counts[i] && s->stacks[i].nframes) {
			tids[n++] = s->stacks[i].tid;
			if (total)
				*total += counts[i];
		}
	sort_array(tids, n, sizeof(*tids), cmp_tid);
	for (unsigned i = 0; i < n; i++) {
		if (i && tids[i] == tids[i - 1])
			continue;
		struct json_object *p = profile_of(s, counts, tids[i]);
		if (p)
			json_object_array_add(profiles, p);
	}
	out_json_str(root, "$schema", "https://www.speedscope.app/file-format-schema.json");
	json_object_object_add(shared, "frames", frames_of(s));
	json_object_object_add(root, "shared", shared);
	json_object_object_add(root, "profiles", profiles);
	if (s->machine)
		snprintf(name, sizeof(name), "pscope: every process, %s", samp_window_name(w));
	else
		snprintf(name, sizeof(name), "pscope: %s (%d), %s", s->comm, (int)s->target.pid, samp_window_name(w));
	out_json_str(root, "name", name);
	out_json_int(root, "activeProfileIndex", 0);
	out_json_str(root, "exporter", "pscope " PACKAGE_VERSION);
	r = out_json_print(f, root, 0) < 0 || ferror(f) ? -(errno ? errno : EIO) : 0;
	root = NULL; /* out_json_print puts it */
done:
	json_object_put(root);
	free(counts);
	free(tids);
	return r;
}
