/* Writing a whole file atomically: the content goes to an unnamed (or
 * temporary) file in the destination's directory, is synced, then renamed
 * over the destination. A reader never sees half a file, a pscope killed
 * while writing leaves nothing behind, and a full disk or an unwritable
 * directory is an error that names the filesystem door and the fix. */
#ifndef PS_OUT_SAVE_H
#define PS_OUT_SAVE_H

#include <stdio.h>

#include "error.h"

/* Call write(f, arg) on a temporary file and put it in place as path (mode
 * 0644). write returns 0 or -errno. Returns 0 or -errno with e filled. */
int out_save(const char *path, int (*write)(FILE *f, void *arg), void *arg, struct ps_error *e);

#endif
