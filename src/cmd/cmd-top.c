#include "cmd/cmd.h"

#include <stdio.h>

int cmd_top(int argc, char **argv)
{
	fprintf(stderr, "pscope top: not built yet\n");
	return 1;
}
