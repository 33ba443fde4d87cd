/* pscope's entry point: the command line (src/cli.c) runs a batch command
 * or starts the interactive front end (ui/ui.c) with the options it parsed. */
#include "config.h"

#include "cli.h"
#include "ui.h"

int main(int argc, char **argv)
{
	return cli_main(argc, argv, ui_run);
}
