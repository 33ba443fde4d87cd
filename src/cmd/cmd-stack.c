#include "cmd/cmd.h"

#include <stdio.h>

int cmd_stack(int argc, char **argv)
{
	fprintf(stderr, "pscope stack: not built yet\n");
	return 1;
}
