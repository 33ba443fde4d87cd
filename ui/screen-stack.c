/* Placeholder until the stack screen lands. */
#include "uipriv.h"

void screen_stack_open(struct ui *ui, pid_t pid)
{
	ui_message(ui, true, "the stack screen is not built yet (PID %d)", (int)pid);
}
