/* speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 * {"$schema", "shared": {"frames": [{name, file, line}]}, "profiles": [one
 * "sampled" profile per thread: samples (frame indexes, outermost first)
 * and weights in the profile's unit ("none" for samples,
 * "nanoseconds")], "name", "exporter"}. */
#ifndef PS_OUT_SPEEDSCOPE_H
#define PS_OUT_SPEEDSCOPE_H

#include <stdio.h>

#include "out/profile.h"

/* An out_profile_fn (save it with out_profile_save). */
int out_speedscope_write(FILE *f, const struct samp_snapshot *s, enum samp_window w, pid_t tid,
			 unsigned long long *total);

#endif
