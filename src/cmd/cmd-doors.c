#include "cmd/cmd.h"

#include <stdio.h>

int cmd_doors(int argc, char **argv)
{
	fprintf(stderr, "pscope doors: not built yet\n");
	return 1;
}
