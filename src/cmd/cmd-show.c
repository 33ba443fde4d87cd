/* pscope show PID [--pane NAME] [--json]: one snapshot of the detail panes
 * (src/pane/: the same panes as the detail screen), as text or JSON; with
 * -r FILE, what a recording holds of PID (show-rec.c). */
#include "cmd/cmd.h"
#include "cmd/show-rec.h"
#include "doors/doors.h"
#include "i18n.h"
#include "out/escape.h"
#include "target.h"
#include "out/json.h"
#include "pane/pane.h"
#include "proc/info.h"
#include "target.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct show_args {
	unsigned panes;                /* bit per enum pane_id; 0: status */
	bool json, smaps;
	double interval;
	int repeat;
	const char *recording, *at; /* -r FILE --at TIME */
};

/* "status,fd" or "all": the panes' bits; -1 for an unknown name. */
static int parse_panes(const char *arg, unsigned *panes)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int p = pane_find(tok, true);
		if (p >= 0)
			*panes |= 1u << p;
		else if (!strcmp(tok, "all"))
			*panes |= (1u << PANE_COUNT) - 1;
		else
			return -1;
	}
	return 0;
}

static void show_init(void *state)
{
	struct show_args *a = state;

	a->interval = 0.2;
}

static int show_option(void *state, int opt, const char *arg)
{
	struct show_args *a = state;
	char *end;

	switch (opt) {
	case 'p':
		if (parse_panes(arg, &a->panes) < 0) {
			char names[256], fmt[384];
			snprintf(fmt, sizeof(fmt), _("unknown pane '%%s' (%s, all)"), pane_names(names, sizeof(names), false));
			return cmd_bad_value("show", fmt, arg);
		}
		break;
	case 'j':
		a->json = true;
		break;
	case 'S':
		a->smaps = true;
		break;
	case 'i':
		a->interval = strtod(arg, &end);
		if (*end || end == arg || a->interval < 0 || a->interval > 60)
			return cmd_bad_value("show", _("invalid interval '%s' (seconds, 0..60)"), arg);
		break;
	case 'r':
		a->recording = arg;
		break;
	case 'a':
		a->at = arg;
		break;
	case 'R':
		a->repeat = (int)strtol(arg, &end, 10);
		if (*end || end == arg || a->repeat < 0 || a->repeat > 10000)
			return cmd_bad_value("show", _("invalid repeat count '%s' (0..10000)"), arg);
		break;
	}
	return 0;
}

/* Print a hostile string of any length, escaped (esc() stops at 4 KiB). */
static void print_escaped(const char *s)
{
	size_t len = strlen(s), cap = len * 6 + 16;
	char *buf = malloc(cap);

	if (!buf) {
		fputs(esc(s), stdout);
		return;
	}
	esc_display(s, len, buf, cap);
	fputs(buf, stdout);
	free(buf);
}

/* cmdline: the whole command line, or NULL when it could not be read
 * whole (then the header's, marked when it was cut). */
static struct json_object *header_json(pid_t pid, const struct proc_info *hdr, const char *cmdline)
{
	struct json_object *root = json_object_new_object();

	out_json_process(root, pid, hdr->stat.starttime, hdr->stat.comm, hdr->user, cmdline ? cmdline : hdr->cmdline);
	/* The names of the first JSON format, kept for its readers. */
	out_json_str(root, "name", hdr->stat.comm);
	out_json_int(root, "starttime_ticks", (long long)hdr->stat.starttime);
	if (!cmdline && strlen(hdr->cmdline) >= sizeof(hdr->cmdline) - 1)
		json_object_object_add(root, "cmdline_truncated", json_object_new_boolean(1));
	/* Containers: the pid in each pid namespace (ours first), and the
	 * namespaces that are not pscope's. */
	struct json_object *nspid = json_object_new_array(), *other = json_object_new_array();
	for (int i = 0; i < hdr->status.nspid_n; i++)
		json_object_array_add(nspid, json_object_new_int(hdr->status.nspid[i]));
	json_object_object_add(root, "nspid", nspid);
	for (int i = 0; i < PROC_NS_COUNT; i++)
		if (hdr->ns[i].other == 1)
			json_object_array_add(other, json_object_new_string(hdr->ns[i].name));
	json_object_object_add(root, "other_namespaces", other);
	json_object_object_add(root, "container", json_object_new_boolean(proc_info_in_container(hdr)));
	return root;
}

static void header_text(pid_t pid, const struct proc_info *hdr, const char *cmdline)
{
	const char *cl = cmdline ? cmdline : hdr->cmdline;
	char rss[32];

	printf(_("PID %d (%s)  user %s  state %c (%s)  threads %ld  RSS %s  up %.0f s\n"), (int)pid, esc(hdr->stat.comm),
	       esc(hdr->user), hdr->stat.state, _(proc_state_name(hdr->stat.state)), hdr->stat.num_threads,
	       human_bytes((unsigned long long)(hdr->status.vm_rss > 0 ? hdr->status.vm_rss : 0) * 1024, rss, sizeof(rss)),
	       hdr->uptime_s);
	fputs(_("Command: "), stdout);
	if (cl[0])
		print_escaped(cl);
	else
		fputs(_("(none: kernel thread or zombie)"), stdout);
	if (!cmdline && strlen(hdr->cmdline) >= sizeof(hdr->cmdline) - 1)
		printf(_(" [cut at %zu bytes]"), sizeof(hdr->cmdline) - 1);
	putchar('\n');
	if (proc_info_in_container(hdr)) {
		char ct[256];
		printf(_("Container: %s\n"), proc_info_container_text(hdr, pid, ct, sizeof(ct)));
	}
}

static int show_exec(void *state, pid_t pid)
{
	const struct show_args *a = state;
	struct target t;
	struct ps_error e;
	struct proc_info hdr, last;
	struct json_object *root = NULL;
	unsigned panes = a->panes ? a->panes : 1u << PANE_ID_status;
	int r;

	ps_error_clear(&e);
	if (a->at && !a->recording)
		return cmd_usage_error("show", "%s", _("--at names a time of a recording: give it with -r FILE"));
	if (a->recording)
		return show_recorded(a->recording, a->at, pid, panes, a->json);
	if (target_open(&t, pid, NULL, &e) < 0)
		return cmd_fail("show", &e);
	r = proc_info_read(t.dirfd, &hdr);
	if (r < 0) {
		char what[64];
		snprintf(what, sizeof(what), _("read /proc/%d/status"), (int)pid);
		door_refused(&e, PS_OP_READ_PROC, pid, r, what);
		target_close(&t);
		return cmd_fail("show", &e);
	}
	/* The whole command line: proc_info keeps its first 4 KiB. */
	char *cmdline = NULL;
	if (target_read_list(&(struct target_id){ .pid = pid, .starttime = hdr.stat.starttime }, "cmdline", ' ', &cmdline,
			     NULL, &e) < 0)
		cmdline = NULL;
	ps_error_clear(&e);
	struct pane_show s = {
		.pid = pid, .dirfd = t.dirfd, .json = a->json, .smaps = a->smaps, .kthread = hdr.kthread,
		.zombie = hdr.stat.state == 'Z', .ppid = hdr.stat.ppid,
		.interval = a->interval, .repeat = a->repeat, .cmdline = cmdline,
	};
	if (s.json) {
		root = header_json(pid, &hdr, cmdline);
		s.jpanes = json_object_new_object();
	} else {
		header_text(pid, &hdr, cmdline);
	}
	for (int i = 0; i < PANE_COUNT; i++)
		if (panes & (1u << i))
			pane_descs[i]->show(&s);
	/* The process may have gone (or its PID been reused) while we read:
	 * say so rather than print a mix of two processes. */
	if (hdr.stat.state != 'Z' &&
	    (proc_info_read(t.dirfd, &last) < 0 || last.stat.starttime != hdr.stat.starttime || proc_info_exited(&last))) {
		ps_error_set(&e, ESRCH, _("process %d has exited while it was being read"), (int)pid);
		target_close(&t);
		free(cmdline);
		if (root) {
			json_object_put(s.jpanes);
			json_object_put(root);
		}
		return cmd_fail("show", &e);
	}
	target_close(&t);
	if (root) {
		json_object_object_add(root, "panes", s.jpanes);
		out_json_print(stdout, root, 1);
	}
	free(cmdline);
	return s.failed;
}

/* The options, the panes named from the registry. */
static void show_help(FILE *f)
{
	char names[256];

	fprintf(f, _("  --pane NAME      %s or all (default: status);\n"
		     "                   repeatable or comma-separated\n"),
		pane_names(names, sizeof(names), false));
	fputs(_("  --json           JSON output (field names: man pscope, JSON OUTPUT)\n"
		"  --smaps          maps: read smaps for per-mapping Rss/Pss/Swap (slow)\n"
		"  --interval SEC   status/threads: sample twice SEC apart for rates (default 0.2; 0: none)\n"
		"  --repeat N       re-read the panes N times and print the read times to stderr\n"
		"  -r, --recording=FILE  what a recording (pscope record) holds of PID instead\n"
		"                   of now: its row of the process list, its children\n"
		"  --at TIME        which interval: HH:MM[:SS], YYYY-MM-DD HH:MM[:SS], +30s from\n"
		"                   the start, -10m from the end (default: the last)\n"),
	      f);
}

static const struct option show_options[] = {
	{ "pane", required_argument, NULL, 'p' }, { "json", no_argument, NULL, 'j' },
	{ "smaps", no_argument, NULL, 'S' },      { "interval", required_argument, NULL, 'i' },
	{ "repeat", required_argument, NULL, 'R' }, { "recording", required_argument, NULL, 'r' },
	{ "at", required_argument, NULL, 'a' },     { NULL, 0, NULL, 0 },
};

const struct cmd_entry cmd_show_entry = {
	.name = "show",
	.args = "PID [--pane NAME] [--json] [--smaps] [--interval SEC] [--repeat N] [-r FILE [--at TIME]]",
	.help = N_("One snapshot of the detail panes of process PID.\n"),
	.help_more = show_help,
	.shortopts = "p:jSi:r:a:",
	.options = show_options,
	.pid = CMD_PID_REQUIRED,
	.state_size = sizeof(struct show_args),
	.init = show_init,
	.option = show_option,
	.exec = show_exec,
};
