/* The one runner of the batch subcommands: options, usage, --help, the PID
 * argument, the final flush and the exit status are handled here once. */
#include "cmd/cmd.h"
#include "i18n.h"
#include "out/escape.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("pscope: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (cmd)
		fprintf(stderr, _("Try 'pscope %s --help' for more information.\n"), cmd);
	else
		fputs(_("Try 'pscope --help' for more information.\n"), stderr);
	return 2;
}

int cmd_getopt_error(const char *cmd, int c, char **argv)
{
	char opt[3] = { '-', (char)optopt, 0 };
	/* An unknown short option is optopt; a long one, or an option whose
	 * value is missing, is the word as typed. */
	const char *name = c == '?' && optopt ? opt : argv[optind - 1];

	if (c == ':')
		return cmd_usage_error(cmd, _("option '%s' needs a value"), esc(name));
	return cmd_usage_error(cmd, _("unknown option '%s'"), esc(name));
}

pid_t cmd_parse_pid(const char *prog, const char *arg)
{
	char *end;
	long v;

	if (!arg) {
		cmd_usage_error(prog, "%s", _("missing PID"));
		return -1;
	}
	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || v <= 0 || v > 4194304) {
		cmd_usage_error(prog, _("invalid PID '%s'"), esc(arg));
		return -1;
	}
	return (pid_t)v;
}

int cmd_fail(const char *cmd, const struct ps_error *e)
{
	char buf[1024];
	fprintf(stderr, "pscope %s: %s\n", cmd, esc(ps_error_str(e, buf, sizeof(buf))));
	return 1;
}

int cmd_bad_value(const char *cmd, const char *fmt, const char *arg)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	cmd_usage_error(cmd, fmt, esc(arg));
#pragma GCC diagnostic pop
	return -1;
}

void cmd_usage(const struct cmd_entry *ce, FILE *f)
{
	/* The synopsis' continuation lines start under its first word, after
	 * "Usage: " as wide as it is in this language. */
	const char *usage = _("Usage: "), *a = ce->args;
	int indent = text_width(usage);

	fprintf(f, "%spscope %s ", usage, ce->name);
	while (*a) {
		size_t n = strcspn(a, "\n");
		fwrite(a, 1, n, f);
		a += n;
		if (*a == '\n') {
			for (a++; *a == ' '; a++)
				;
			fprintf(f, "\n%*s", indent, "");
		}
	}
	fputc('\n', f);
	fputs(_(ce->help), f);
	if (ce->help_more)
		ce->help_more(f);
}

/* The entry's long options followed by --help and the terminator. */
static struct option *long_options(const struct cmd_entry *ce)
{
	size_t n = 0;
	struct option *o;

	while (ce->options && ce->options[n].name)
		n++;
	o = calloc(n + 2, sizeof(*o));
	if (!o)
		return NULL;
	if (n)
		memcpy(o, ce->options, n * sizeof(*o));
	o[n] = (struct option){ "help", no_argument, NULL, 'h' };
	return o;
}

static int parse(const struct cmd_entry *ce, void *st, int argc, char **argv, pid_t *pid)
{
	char shortopts[64];
	struct option *lo = long_options(ce);
	int c;

	if (!lo) {
		fprintf(stderr, "pscope %s: %s\n", ce->name, strerror(ENOMEM));
		return 1;
	}
	/* ':' first: a missing value is told apart from an unknown option. */
	snprintf(shortopts, sizeof(shortopts), ":%sh", ce->shortopts ? ce->shortopts : "");
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, lo, NULL)) != -1) {
		if (c == 'h') {
			free(lo);
			cmd_usage(ce, stdout);
			return -1;
		}
		if (c == ':' || c == '?') {
			free(lo);
			return cmd_getopt_error(ce->name, c, argv);
		}
		if (ce->option(st, c, optarg) < 0) {
			free(lo);
			return 2;
		}
	}
	free(lo);
	*pid = 0;
	if (ce->pid != CMD_PID_NONE && (optind < argc || ce->pid == CMD_PID_REQUIRED)) {
		*pid = cmd_parse_pid(ce->name, optind < argc ? argv[optind] : NULL);
		if (*pid < 0)
			return 2;
		optind++;
	}
	if (optind < argc) {
		return cmd_usage_error(ce->name, _("unexpected argument '%s'"), esc(argv[optind]));
	}
	return 0;
}

int cmd_run(const struct cmd_entry *ce, int argc, char **argv)
{
	void *st = calloc(1, ce->state_size ? ce->state_size : 1);
	pid_t pid = 0;
	int rc;

	if (!st) {
		fprintf(stderr, "pscope %s: %s\n", ce->name, strerror(ENOMEM));
		return 1;
	}
	if (ce->init)
		ce->init(st);
	rc = parse(ce, st, argc, argv, &pid);
	if (rc == 0)
		rc = ce->exec(st, pid);
	else if (rc < 0) /* --help */
		rc = 0;
	free(st);
	errno = 0;
	/* A full disk or a closed pipe is a failure, said once for every command. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, _("pscope %s: cannot write the output: %s\n"), ce->name, strerror(errno ? errno : EIO));
		rc = 1;
	}
	return rc;
}
