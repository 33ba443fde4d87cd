#include "cmd/cmd.h"

#include <stdio.h>

int cmd_show(int argc, char **argv)
{
	fprintf(stderr, "pscope show: not built yet\n");
	return 1;
}
