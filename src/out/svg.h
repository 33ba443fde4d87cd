/* An interactive flame graph as one self-contained SVG file (no external
 * script, style or font), as flamegraph.pl and inferno write: hover names
 * a frame with its figures, a click zooms into it, Search highlights the
 * frames whose name holds a text and says the share they cover, Reset
 * goes back. "?s=TEXT" (or "#s=TEXT") after the file's URL searches at
 * load. Every frame of the folded output is there, named as there, with
 * its weight in data-n. */
#ifndef PS_OUT_SVG_H
#define PS_OUT_SVG_H

#include <stdio.h>

#include "out/profile.h"

/* An out_profile_fn (save it with out_profile_save). */
int out_svg_write(FILE *f, const struct samp_snapshot *s, enum samp_window w, pid_t tid, unsigned long long *total);

#endif
