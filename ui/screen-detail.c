/* Placeholder until the detail screen lands. */
#include "uipriv.h"

void screen_detail_open(struct ui *ui, pid_t pid)
{
	ui_message(ui, true, "the detail screen is not built yet (PID %d)", (int)pid);
}
