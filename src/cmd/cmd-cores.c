/* pscope cores [--json] [--pattern P] [--dir DIR]: the cores the kernel
 * wrote where core_pattern sends them, newest first; or why there are
 * none and how to get them. */
#include "cmd/cmd.h"
#include "core/read.h"
#include "core/where.h"
#include "i18n.h"
#include "out/escape.h"
#include "out/json.h"
#include "util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

struct cores_args {
	bool json;
	const char *pattern, *dir;
};

static const char *const kind_names[] = {
	[CORE_WHERE_FILE] = "file",
	[CORE_WHERE_SYSTEMD] = "systemd-coredump",
	[CORE_WHERE_APPORT] = "apport",
	[CORE_WHERE_PIPE] = "pipe",
	[CORE_WHERE_NONE] = "none",
};

static const char *when(time_t t, char *buf, size_t size)
{
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
	return buf;
}

static int print_text(const struct core_where *w, const struct core_found *f, size_t n)
{
	char adv[1024], ul[256], hb[32], tb[32];
	long long ulv;

	printf(_("core_pattern: %s\n"), esc(w->pattern));
	if (w->kind == CORE_WHERE_FILE && !w->dir_varies)
		printf(_("cores go to: %s (files named %s)\n"), esc(w->dir), esc(w->glob));
	else if (w->kind == CORE_WHERE_SYSTEMD || w->kind == CORE_WHERE_APPORT)
		printf(_("cores go to: %s, through %s\n"), esc(w->dir), esc(w->handler));
	if (core_where_advice(w, adv, sizeof(adv)))
		printf("%s\n", esc(adv));
	if (core_where_overwrites(w))
		printf("%s\n", core_where_overwrites(w));
	if (core_where_ulimit(ul, sizeof(ul), &ulv))
		printf("%s\n", ul);
	if (w->kind == CORE_WHERE_PIPE || w->kind == CORE_WHERE_NONE || w->dir_varies)
		return 0;
	printf("\n");
	if (!n) {
		printf(_("No core found in %s\n"), esc(w->dir));
		return 0;
	}
	printf("%s  %s %s  %s %s  %s\n", pad(_("TIME"), 19), pad(_("SIGNAL"), 8), pad(_("PID"), -8), pad(_("PROGRAM"), 16),
	       pad(_("SIZE"), -6), _("FILE"));
	for (size_t i = 0; i < n; i++) {
		const char *sig = f[i].unread ? "?" : f[i].signo ? core_signal_name(f[i].signo) : "-";
		char pid[16] = "?";
		if (f[i].pid)
			snprintf(pid, sizeof(pid), "%d", f[i].pid);
		printf("%-19s  %-8s %8s  %s %6s  %s%s\n", when(f[i].mtime, tb, sizeof(tb)), sig ? sig : "?", pid,
		       pad(esc(f[i].program[0] ? f[i].program : "?"), 16), human_bytes(f[i].size, hb, sizeof(hb)), esc(f[i].path),
		       f[i].compressed ? _(" (compressed)") : f[i].truncated ? _(" (cut short)") : "");
	}
	printf(_("\nOpen one: pscope -c FILE (or pscope stack --core FILE)\n"));
	return 0;
}

static int print_json(const struct core_where *w, const struct core_found *f, size_t n)
{
	struct json_object *root = json_object_new_object(), *arr = json_object_new_array();
	char adv[1024], ul[256], tb[32];
	long long ulv;

	out_json_str(root, "core_pattern", w->pattern);
	out_json_str(root, "kind", kind_names[w->kind]);
	out_json_str(root, "dir", w->dir[0] && !w->dir_varies ? w->dir : NULL);
	out_json_bool(root, "relative", w->dir_relative);
	out_json_bool(root, "overwrites", w->overwrites);
	out_json_str(root, "handler", w->handler[0] ? w->handler : NULL);
	core_where_ulimit(ul, sizeof(ul), &ulv);
	if (ulv < 0)
		json_object_object_add(root, "ulimit_c", NULL);
	else
		out_json_int(root, "ulimit_c", ulv);
	out_json_str(root, "advice", core_where_advice(w, adv, sizeof(adv)));
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_new_object();
		out_json_str(c, "path", f[i].path);
		out_json_str(c, "program", f[i].program[0] ? f[i].program : NULL);
		if (f[i].pid)
			out_json_int(c, "pid", f[i].pid);
		else
			json_object_object_add(c, "pid", NULL);
		if (f[i].unread)
			json_object_object_add(c, "signal", NULL);
		else
			out_json_int(c, "signal", f[i].signo);
		out_json_str(c, "signal_name", f[i].signo ? core_signal_name(f[i].signo) : NULL);
		out_json_int(c, "size", (long long)f[i].size);
		out_json_int(c, "mtime", (long long)f[i].mtime);
		out_json_str(c, "time", when(f[i].mtime, tb, sizeof(tb)));
		out_json_bool(c, "compressed", f[i].compressed);
		out_json_bool(c, "truncated", f[i].truncated);
		out_json_str(c, "error", f[i].unread ? f[i].error : NULL);
		json_object_array_add(arr, c);
	}
	json_object_object_add(root, "cores", arr);
	return out_json_print(stdout, root, 1);
}

static int cores_option(void *state, int opt, const char *arg)
{
	struct cores_args *a = state;

	switch (opt) {
	case 'j': a->json = true; break;
	case 'p': a->pattern = arg; break;
	case 'd': a->dir = arg; break;
	}
	return 0;
}

static int cores_exec(void *state, pid_t pid)
{
	const struct cores_args *a = state;
	struct core_where w;
	struct core_found *f = NULL;
	size_t n = 0;
	struct ps_error e;

	(void)pid;
	ps_error_clear(&e);
	if (core_where_here(a->pattern, a->dir, &w, &e) < 0)
		return cmd_fail("cores", &e);
	ps_error_clear(&e);
	if (core_where_list(&w, &f, &n, &e) < 0)
		return cmd_fail("cores", &e);
	int r = a->json ? print_json(&w, f, n) : print_text(&w, f, n);
	free(f);
	return r ? 1 : 0;
}

static const struct option cores_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "pattern", required_argument, NULL, 'p' },
	{ "dir", required_argument, NULL, 'd' },
	{ NULL, 0, NULL, 0 },
};

const struct cmd_entry cmd_cores_entry = {
	.name = "cores",
	.args = "[--json] [--pattern PATTERN] [--dir DIR]",
	.help = N_("The core files the kernel wrote where kernel.core_pattern sends them (a\n"
		   "directory, systemd-coredump's store, apport's), newest first, with the\n"
		   "program, PID and signal of each; or why there are none and how to get them.\n"
		   "  --json             JSON instead of text\n"
		   "  --pattern PATTERN  read PATTERN instead of the current core_pattern\n"
		   "  --dir DIR          look in DIR (for a relative pattern: where the program ran)\n"),
	.shortopts = "",
	.options = cores_options,
	.pid = CMD_PID_NONE,
	.state_size = sizeof(struct cores_args),
	.option = cores_option,
	.exec = cores_exec,
};
