/* Placeholder until the doors screen lands. */
#include "uipriv.h"

void screen_doors_open(struct ui *ui, pid_t pid)
{
	ui_message(ui, true, "the doors screen is not built yet (PID %d)", (int)pid);
}
