#include "clock.h"
#include "util.h"

#include <stddef.h>
#include <time.h>

static uint64_t live_mono(const struct ps_clock *c)
{
	(void)c;
	return now_ns();
}

static double live_wall(const struct ps_clock *c)
{
	struct timespec ts;

	(void)c;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const struct ps_clock ps_clock_live = { live_mono, live_wall };

static uint64_t manual_mono(const struct ps_clock *c)
{
	return ((const struct ps_clock_manual *)c)->mono_ns;
}

static double manual_wall(const struct ps_clock *c)
{
	return ((const struct ps_clock_manual *)c)->wall_s;
}

void ps_clock_manual_init(struct ps_clock_manual *m, uint64_t mono_ns, double wall_s)
{
	m->c.mono_ns = manual_mono;
	m->c.wall_s = manual_wall;
	m->mono_ns = mono_ns;
	m->wall_s = wall_s;
}
