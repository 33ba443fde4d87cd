/* Placeholder until the hot screen lands. */
#include "uipriv.h"

void screen_hot_open(struct ui *ui, pid_t pid)
{
	ui_message(ui, true, "the hot screen is not built yet (PID %d)", (int)pid);
}
