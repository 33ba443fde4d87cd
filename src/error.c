#include "error.h"
#include "doors.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int ps_error_set(struct ps_error *e, int code, const char *fmt, ...)
{
	if (code < 0)
		code = -code;
	if (e) {
		va_list ap;
		e->code = code;
		e->door = DOOR_NONE;
		e->fix[0] = '\0';
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return -code;
}

void ps_error_clear(struct ps_error *e)
{
	if (e)
		memset(e, 0, sizeof(*e));
}

const char *ps_error_str(const struct ps_error *e, char *buf, size_t size)
{
	if (e->door != DOOR_NONE && e->fix[0])
		snprintf(buf, size, "%s (door: %s; fix: %s)", e->msg, door_name(e->door), e->fix);
	else if (e->door != DOOR_NONE)
		snprintf(buf, size, "%s (door: %s)", e->msg, door_name(e->door));
	else
		snprintf(buf, size, "%s", e->msg);
	return buf;
}
