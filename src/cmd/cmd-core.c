#include "cmd/cmd.h"

#include <stdio.h>

int cmd_core(int argc, char **argv)
{
	fprintf(stderr, "pscope core: not built yet\n");
	return 1;
}
