/* pscope core PID [-o FILE] [--all-mappings] [--force] [--json]: write a
 * core file of a live process, which runs on afterwards. */
#include "cmd/cmd.h"
#include "i18n.h"
#include "core/core.h"
#include "out/escape.h"
#include "out/json.h"
#include "util.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static atomic_bool core_cancel;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&core_cancel, true);
}

/* One status line on a terminal's stderr. */
static void tty_progress(void *arg, const struct core_progress *p)
{
	char line[200];

	(void)arg;
	fprintf(stderr, "\r\033[K%s", core_progress_text(p, line, sizeof(line)));
	fflush(stderr);
}

static int print_json(const struct core_result *r)
{
	struct json_object *o = json_object_new_object(), *sk = json_object_new_array();
	char a[32];

	out_json_str(o, "path", r->path);
	out_json_str(o, "exe", r->exe[0] ? r->exe : NULL);
	char gdb[2 * PATH_MAX + 96];
	out_json_str(o, "gdb_command", core_gdb_command(r, gdb, sizeof(gdb)));
	out_json_str(o, "pscope_command", core_pscope_command(r, gdb, sizeof(gdb)));
	json_object_object_add(o, "container", json_object_new_boolean(r->root_other));
	out_json_int(o, "bytes", (long long)r->bytes);
	out_json_int(o, "disk_bytes", (long long)r->disk_bytes);
	out_json_double(o, "pause_ms", r->pause_ms);
	out_json_double(o, "wall_ms", r->wall_ms);
	out_json_double(o, "sync_ms", r->sync_ms);
	out_json_double(o, "wall_without_sync_ms", r->wall_ms - r->sync_ms);
	out_json_str(o, "method", core_method_name(r->method));
	out_json_str(o, "method_reason", r->method_why[0] ? r->method_why : NULL);
	if (r->method == CORE_METHOD_FORK)
		out_json_double(o, "snapshot_lifetime_ms", r->child_ms);
	struct json_object *pp = json_object_new_object();
	for (int i = 0; i < CORE_PAUSE_PARTS; i++)
		out_json_double(pp, core_pause_part_name((enum core_pause_part)i), r->pause_part_ms[i]);
	json_object_object_add(o, "pause_parts_ms", pp);
	out_json_int(o, "threads", r->threads);
	out_json_int(o, "threads_missed", r->threads_missed);
	out_json_int(o, "mappings", r->mappings);
	for (size_t i = 0; i < r->nskipped; i++) {
		struct json_object *s = json_object_new_object();
		snprintf(a, sizeof(a), "0x%llx", (unsigned long long)r->skipped[i].start);
		out_json_str(s, "start", a);
		snprintf(a, sizeof(a), "0x%llx", (unsigned long long)r->skipped[i].end);
		out_json_str(s, "end", a);
		out_json_str(s, "path", r->skipped[i].path);
		out_json_str(s, "reason", r->skipped[i].reason);
		json_object_array_add(sk, s);
	}
	json_object_object_add(o, "skipped", sk);
	return out_json_print(stdout, o, 1) < 0 ? 1 : 0;
}

static void print_text(const struct core_result *r)
{
	char b[16], d[16];

	printf(_("core written: %s\n"), esc(r->path));
	printf(_("  size        %s (%llu bytes), %s on disk\n"), human_bytes(r->bytes, b, sizeof(b)),
	       (unsigned long long)r->bytes, human_bytes(r->disk_bytes, d, sizeof(d)));
	printf(_("  pause       %.1f ms with the process stopped (%.2f s in all)\n"), r->pause_ms, r->wall_ms / 1000);
	printf(_("  method      %s"), core_method_name(r->method));
	if (r->method == CORE_METHOD_FORK)
		printf(_(" (the snapshot lived %.2f s: first writes to pages meanwhile paid copy-on-write faults)"),
		       r->child_ms / 1000);
	if (r->method_why[0])
		printf(r->method == CORE_METHOD_FORK ? " (%s)" : _(" (not fork: %s)"), esc(r->method_why));
	printf(_("\n  sync        %.2f s of fsync (%.2f s without it)\n"), r->sync_ms / 1000,
	       (r->wall_ms - r->sync_ms) / 1000);
	printf(_("  threads     %u"), r->threads);
	if (r->threads_missed)
		printf(_(" (%u could not be stopped: their registers are missing)"), r->threads_missed);
	printf(_("\n  mappings    %u\n"), r->mappings);
	if (r->nskipped) {
		printf(P_("  unreadable  %zu range, recorded with no data:\n",
			  "  unreadable  %zu ranges, recorded with no data:\n", r->nskipped), r->nskipped);
		for (size_t i = 0; i < r->nskipped; i++)
			printf("    %llx-%llx %s (%s)\n", (unsigned long long)r->skipped[i].start,
			       (unsigned long long)r->skipped[i].end, esc(r->skipped[i].path), esc(r->skipped[i].reason));
	}
	char gdb[2 * PATH_MAX + 96];
	printf(_("open it with: %s\n"), esc(core_gdb_command(r, gdb, sizeof(gdb))));
	printf(_("or in pscope: %s\n"), esc(core_pscope_command(r, gdb, sizeof(gdb))));
	if (r->root_other)
		printf(_("  (process %d runs in a container: its files are read through /proc/%d/root while it runs;\n"
			 "   later, copy them out and use gdb's sysroot or pscope stack --core CORE --sysroot DIR)\n"),
		       (int)r->pid, (int)r->pid);
}

struct core_args {
	struct core_opts o;
	bool json;
};

static int core_option(void *state, int opt, const char *arg)
{
	struct core_args *a = state;

	switch (opt) {
	case 'o': a->o.path = arg; break;
	case 'a': a->o.all_mappings = true; break;
	case 'f': a->o.force = true; break;
	case 'j': a->json = true; break;
	case 'm': {
		int m = core_method_parse(arg);
		if (m < 0)
			return cmd_bad_value("core", _("unknown method '%s' (fork, stop or copy)"), arg);
		a->o.method = (enum core_method)m;
		break;
	}
	}
	return 0;
}

static int core_exec(void *state, pid_t pid)
{
	struct core_args *a = state;
	struct core_opts o = a->o;
	struct core_result res;
	struct ps_error e;
	bool json = a->json;
	int r;

	o.cancel = &core_cancel;
	/* Ctrl-C cancels cleanly: the threads are released, the partial file removed. */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (isatty(STDERR_FILENO))
		o.progress = tty_progress;

	ps_error_clear(&e);
	r = core_write(pid, NULL, &o, &res, &e);
	if (o.progress)
		fprintf(stderr, "\r\033[K");
	if (r < 0)
		return cmd_fail("core", &e);
	r = json ? print_json(&res) : (print_text(&res), 0);
	core_result_free(&res);
	return r;
}

static const struct option core_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "all-mappings", no_argument, NULL, 'a' },
	{ "force", no_argument, NULL, 'f' },
	{ "json", no_argument, NULL, 'j' },
	{ "method", required_argument, NULL, 'm' },
	{ NULL, 0, NULL, 0 },
};

const struct cmd_entry cmd_core_entry = {
	.name = "core",
	.args = "PID [-o FILE] [--method=fork|stop|copy] [--all-mappings] [--force] [--json]",
	.help = N_("Write a core file of the live process PID (it runs on afterwards).\n"
		   "  -o, --output=FILE   destination file or directory (default: core.COMM.PID.TIME here)\n"
		   "  -a, --all-mappings  dump every mapping, ignoring coredump_filter and MADV_DONTDUMP\n"
		   "  -f, --force         write even when the estimate exceeds the free space\n"
		   "  -j, --json          print the result as JSON\n"
		   "  -m, --method=HOW    fork: the process forks a snapshot and runs on after a pause of\n"
		   "                      milliseconds; each first write to a page while the snapshot is\n"
		   "                      read costs it a copy-on-write fault (about 3 us a page here);\n"
		   "                      stop: write with the process stopped (long pause, little memory);\n"
		   "                      copy: copy to RAM while stopped, write after.\n"
		   "                      Default: fork, unless a check refuses it (said in the result).\n"),
	.shortopts = "o:afjm:",
	.options = core_options,
	.pid = CMD_PID_REQUIRED,
	.state_size = sizeof(struct core_args),
	.option = core_option,
	.exec = core_exec,
};
