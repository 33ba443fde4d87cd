#include "cmd/cmd.h"

#include <stdio.h>

int cmd_list(int argc, char **argv)
{
	fprintf(stderr, "pscope list: not built yet\n");
	return 1;
}
