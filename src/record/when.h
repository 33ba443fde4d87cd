/* Times and durations as the user writes them (see when.c). */
#ifndef PS_RECORD_WHEN_H
#define PS_RECORD_WHEN_H

#include <stdbool.h>

/* "30", "30s", "10m", "2h", "1d", "1h30m": seconds. 0 or -EINVAL. */
int rec_duration_parse(const char *s, double *out);
/* TIME in seconds since 1970: HH:MM[:SS] on ref's day, an ISO
 * date-time, +DURATION after start, -DURATION before end. 0 or -EINVAL. */
int rec_when_parse(const char *s, double ref, double start, double end, double *out);

#endif
