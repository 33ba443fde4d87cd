/* The time a source stamps on each snapshot. Rates (CPU%, I/O per
 * second) and ages ("closed 3 s ago") are computed from the stamps of two
 * snapshots, never from a clock read where they are drawn: a replay then
 * shows what was measured, and a test sets the time by hand. */
#ifndef PS_CLOCK_H
#define PS_CLOCK_H

#include <stdint.h>

struct ps_clock {
	uint64_t (*mono_ns)(const struct ps_clock *c); /* for rates: never goes back */
	double (*wall_s)(const struct ps_clock *c);    /* for people: seconds since 1970 */
};

/* The machine's clocks: CLOCK_MONOTONIC and CLOCK_REALTIME. */
extern const struct ps_clock ps_clock_live;

/* A clock that says what it was set to (tests). */
struct ps_clock_manual {
	struct ps_clock c;
	uint64_t mono_ns;
	double wall_s;
};
void ps_clock_manual_init(struct ps_clock_manual *m, uint64_t mono_ns, double wall_s);

static inline uint64_t clock_mono_ns(const struct ps_clock *c)
{
	return c->mono_ns(c);
}

static inline double clock_wall_s(const struct ps_clock *c)
{
	return c->wall_s(c);
}

#endif
