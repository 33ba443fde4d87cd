#include "cmd/cmd.h"
#include "out/escape.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

pid_t cmd_parse_pid(const char *prog, const char *arg)
{
	char *end;
	long v;

	if (!arg) {
		fprintf(stderr, "pscope %s: missing PID\nTry 'pscope --help' for more information.\n", prog);
		return -1;
	}
	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || v <= 0 || v > 4194304) {
		fprintf(stderr, "pscope %s: invalid PID '%s'\n", prog, esc(arg));
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
