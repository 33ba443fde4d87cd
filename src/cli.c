/* pscope's command line: the subcommand table and argument parsing, then a
 * batch command, or the options handed to the interactive front end
 * (ui/main.c passes it in: src/ knows nothing of ui/). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <pwd.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/read.h"
#include "i18n.h"
#include "out/escape.h"
#include "pane/pane.h"
#include "proc/ptable.h"
#include "record/record.h"
#include "cli.h"

/* The batch subcommands, one entry per src/cmd/cmd-*.c. */
static const struct cmd_entry *const commands[] = {
	&cmd_list_entry, &cmd_show_entry, &cmd_stack_entry, &cmd_top_entry, &cmd_time_entry, &cmd_core_entry, &cmd_cores_entry,
	&cmd_doors_entry, &cmd_record_entry,
};

static void usage(FILE *f)
{
	char panes[256];

	fputs(_("Usage: pscope [OPTION]...            interactive inspector\n"
		"  or:  pscope COMMAND [ARG]...       one snapshot to stdout\n"
		"\n"), f);
	/* The panes named from their registry (src/pane/panes.h). */
	fprintf(f, _("A live, top-like inspector for Linux processes: process list, per-process\n"
		     "panes (%s), hot functions from perf sampling,\n"
		     "all-thread stack dumps with deadlock detection, and core files.\n"),
		pane_names(panes, sizeof(panes), true));
	fputs(_("\n"
		"Options:\n"
		"  -d, --delay=TENTHS     refresh every TENTHS of a second (default 15)\n"
		"  -p, --pid=PID          open the detail screen of PID\n"
		"  -p, --pid=PID,PID...   show only these processes in the list (as htop)\n"
		"  -F, --filter=TEXT      show only the processes whose command matches TEXT\n"
		"                         (the list's filter, F4; as htop)\n"
		"  -u, --user=USER        show only the processes of USER (name or uid)\n"
		"  -t, --tree             start in tree view\n"
		"  -s, --sort-key=KEY     sort by KEY, one of the sort keys below\n"
		"                         (--sort-key=help lists them with their titles)\n"
		"  -C, --no-color         no colours (also when NO_COLOR is set and not empty)\n"
		"  -c, --core=CORE [EXE]  open a core file: the crash, every thread's stack, the maps\n"
		"  -r, --recording=FILE   the process list of a recording (pscope record)\n"
		"      --at=TIME          from its interval nearest TIME: HH:MM[:SS],\n"
		"                         YYYY-MM-DD HH:MM[:SS], +30s from the start, -10m\n"
		"                         from the end (default: the last)\n"
		"  -h, --help             display this help and exit\n"
		"  -V, --version          output version information and exit\n"
		"\n"
		"Settings are kept in $XDG_CONFIG_HOME/pscope/pscoperc (default\n"
		"~/.config/pscope/pscoperc): what you change while pscope runs (F2, sort,\n"
		"tree...) is written on quit. Options given here apply to this run only.\n"
		"\n"
		"Commands (each takes --help):\n"), f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  pscope %s %s\n", commands[i]->name, commands[i]->args);
	fprintf(f, "  pscope replay FILE [--at TIME] %s\n", _("(the screen on a recording: pscope -r FILE)"));
	char keys[1024];
	proc_sort_list(keys, sizeof(keys), 2, 78);
	fprintf(f, "\n%s\n%s", _("Sort keys (-s, and pscope list --sort and --columns):"), keys);
	fputs(_("\nKeys inside pscope: press F1 or ? for help.\n"
		"Permissions: `pscope doors` shows which kernel doors are open.\n"
		"Full documentation: man pscope\n"), f);
}

/* /proc/PID is there (a process, or a thread's TID). */
static bool proc_exists(pid_t pid)
{
	char path[32];
	struct stat sb;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return stat(path, &sb) == 0;
}

/* A user name, or a number (a uid with no name is still a uid). */
static bool user_exists(const char *s)
{
	struct passwd pw, *res = NULL;
	char buf[4096], *end;

	if (getpwnam_r(s, &pw, buf, sizeof(buf), &res) == 0 && res)
		return true;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	return !errno && !*end && end != s && v < 4294967295ul;
}

/* -p PID: the detail screen of PID; -p PID,PID...: only those in the list
 * (each one there now). Says why and returns -1 for a bad list. */
static int parse_pids(const char *arg, struct ui_opts *uo)
{
	const char *s = arg;
	int n = 0;

	for (;;) {
		char *end;
		errno = 0;
		long v = strtol(s, &end, 10);
		if (errno || end == s || (*end && *end != ',') || v <= 0 || v > 0x3fffffff) {
			cmd_usage_error(NULL, _("invalid PID '%s' (a PID, or PIDs separated by commas)"), esc(arg));
			return -1;
		}
		if (n == UI_OPTS_PIDS) {
			cmd_usage_error(NULL, _("too many PIDs (at most %d)"), UI_OPTS_PIDS);
			return -1;
		}
		if (!proc_exists((pid_t)v)) {
			cmd_usage_error(NULL, _("no process with PID %d"), (int)v);
			return -1;
		}
		uo->pids[n++] = (int)v;
		if (!*end)
			break;
		s = end + 1;
	}
	uo->npids = n > 1 ? n : 0;
	uo->pid = n == 1 ? uo->pids[0] : 0;
	return 0;
}

int cli_main(int argc, char **argv, int (*run_ui)(const struct ui_opts *o))
{
	static const struct option opts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "pid", required_argument, NULL, 'p' },
		{ "filter", required_argument, NULL, 'F' },
		{ "user", required_argument, NULL, 'u' },
		{ "tree", no_argument, NULL, 't' },
		{ "sort-key", required_argument, NULL, 's' },
		{ "core", required_argument, NULL, 'c' },
		{ "recording", required_argument, NULL, 'r' },
		{ "at", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "no-color", no_argument, NULL, 'C' },
		{ "no-colour", no_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	struct ui_opts uo = { .delay_tenths = 0 };
	int c;

	i18n_init();
	/* pscope replay FILE [OPTION]...: the screen's options, FILE the
	 * recording (as -r FILE). */
	bool replay_cmd = argc > 1 && !strcmp(argv[1], "replay");
	if (replay_cmd) {
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	const char *at = NULL;
	if (!replay_cmd && argc > 1 && argv[1][0] != '-') {
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[1], commands[i]->name))
				return cmd_run(commands[i], argc - 1, argv + 1);
		fprintf(stderr, _("pscope: unknown command '%s'\nTry 'pscope --help' for more information.\n"),
			esc(argv[1]));
		return 2;
	}
	/* getopt's own messages would name argv[0] (a path): ours name pscope. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:p:F:u:ts:c:r:hVC", opts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'd':
			errno = 0;
			uo.delay_tenths = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || uo.delay_tenths < 1 || uo.delay_tenths > 600)
				return cmd_usage_error(NULL, _("invalid delay '%s' (tenths of a second, 1..600)"), esc(optarg));
			break;
		case 'p':
			if (parse_pids(optarg, &uo) < 0)
				return 2;
			break;
		case 'F':
			if (strlen(optarg) >= UI_FILTER_MAX)
				return cmd_usage_error(NULL, _("filter too long (at most %d bytes)"), UI_FILTER_MAX - 1);
			uo.filter = optarg;
			break;
		case 'u':
			uo.user = optarg;
			if (!user_exists(optarg))
				return cmd_usage_error(NULL, _("no user '%s'"), esc(optarg));
			break;
		case 'C':
			uo.no_color = 1;
			break;
		case 't':
			uo.tree = 1;
			break;
		case 's':
			uo.sort_key = optarg;
			if (!strcmp(optarg, "help")) {
				for (int k = 0; k < PSORT_COUNT; k++)
					printf("%-14s %s\n", proc_sort_name((enum proc_sort)k),
					       proc_sort_title((enum proc_sort)k));
				return 0;
			}
			if (proc_sort_parse(optarg) < 0) {
				char keys[512];
				proc_sort_list(keys, sizeof(keys), 0, 0);
				return cmd_usage_error(NULL, _("unknown sort key '%s' (one of: %s)"), esc(optarg), keys);
			}
			break;
		case 'c':
			uo.core = optarg;
			break;
		case 'r':
			uo.replay = optarg;
			break;
		case 'A':
			at = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("pscope %s\n", PACKAGE_VERSION);
			return 0;
		default: /* ':' a value missing, '?' an unknown option */
			return cmd_getopt_error(NULL, c, argv);
		}
	}
	/* -c CORE [EXE]: the program may follow the core, as for gdb. */
	if (uo.core && optind < argc)
		uo.core_exe = argv[optind++];
	if (replay_cmd && !uo.replay && optind < argc)
		uo.replay = argv[optind++];
	if (replay_cmd && !uo.replay)
		return cmd_usage_error(NULL, "%s", _("pscope replay FILE: name the recording to replay"));
	if (optind < argc)
		return cmd_usage_error(NULL, _("unexpected argument '%s'"), esc(argv[optind]));
	if (at && !uo.replay)
		return cmd_usage_error(NULL, "%s", _("--at names a time of a recording: give it with -r FILE"));
	if (uo.replay && (uo.core || uo.pid))
		return cmd_usage_error(NULL, "%s", _("-r FILE replays the process list: not with -c or -p"));
	if (uo.replay) {
		/* A file that is no recording is said here, before the screen
		 * opens (the screen's source opens it again, on its worker). */
		struct rec_file *rf;
		struct ps_error e;
		ps_error_clear(&e);
		if (rec_open(uo.replay, &rf, &e) < 0) {
			fprintf(stderr, "pscope: %s\n", esc(e.msg));
			return 1;
		}
		int r = at ? rec_time_parse(at, rf->h.start, rec_wall(rf, rf->n - 1), &uo.replay_at, &e) : 0;
		rec_close(rf);
		if (r < 0)
			return cmd_usage_error(NULL, "%s", e.msg);
	}
	if (uo.core) {
		/* A file that is no core is said here, before the screen opens. */
		struct core_open_opts co = { .headers_only = true };
		struct core *cf;
		struct ps_error e;
		char buf[1024];
		ps_error_clear(&e);
		if (core_open(uo.core, &co, &cf, &e) < 0) {
			fprintf(stderr, "pscope: %s\n", esc(ps_error_str(&e, buf, sizeof(buf))));
			return 1;
		}
		static struct core_file_id id; /* the screen reads this file, not one put there since */
		id = cf->id;
		uo.core_id = &id;
		core_close(cf);
	}
	return run_ui(&uo);
}
