/* Placeholder until the core screen lands. */
#include "uipriv.h"

void screen_core_open(struct ui *ui, pid_t pid)
{
	ui_message(ui, true, "the core screen is not built yet (PID %d)", (int)pid);
}
