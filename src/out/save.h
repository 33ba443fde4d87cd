/* Writing files where another user may be waiting: every file pscope
 * writes (cores, doors reports, profile exports, recordings, settings,
 * decompressed cores) goes through here, because pscope runs
 * as root and is told to write into directories other users can change.
 *
 *  - The directory is opened once (out_dir_open): its path is walked one
 *    component at a time and a symbolic link is followed only when root or
 *    pscope's own user owns it (another user's link can be turned to point
 *    anywhere); a directory owned by another user (not root) is refused
 *    (its owner can rename anything there), and so is one others can
 *    write without the sticky bit (anyone there could rename the file
 *    pscope writes). Every later step is relative to that descriptor: a
 *    link swapped in during the write is never followed.
 *  - The content goes to an unnamed file in that directory (O_TMPFILE; on
 *    a filesystem without it a hidden name made O_CREAT|O_EXCL|O_NOFOLLOW),
 *    is synced, and only then gets its name: link(2) (never replaces:
 *    cores, recordings) or a temporary name renamed over the old one
 *    (reports), never over another user's name in a sticky directory. A
 *    rename replaces a symlink itself, never the file it points to, and a
 *    pscope killed while writing leaves nothing behind.
 *  - Scratch data (a decompressed core) is an unnamed file: gone when it
 *    is closed, even after SIGKILL. */
#ifndef PS_OUT_SAVE_H
#define PS_OUT_SAVE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "error.h"

/* The directory dir as a descriptor (O_RDONLY|O_DIRECTORY), checked as
 * above; -errno with e filled (a refusal names the filesystem door). */
int out_dir_open(const char *dir, struct ps_error *e);

/* A file being written in a directory. */
struct out_file {
	int fd;                      /* the content goes here */
	bool unnamed;                /* O_TMPFILE: no name until committed */
	char tmp[NAME_MAX + 1];      /* else its hidden temporary name */
};

/* Start a new file in dirfd with mode (hint: a word for the temporary
 * name). 0 or -errno (e filled when not NULL). */
int out_file_begin(struct out_file *f, int dirfd, const char *hint, mode_t mode, struct ps_error *e);
/* Sync it and give it the name base in dirfd: replace false fails with
 * -EEXIST when base exists, true replaces base (a symlink there is
 * replaced, not followed). The descriptor stays open (the caller closes
 * f->fd). In a directory others can write, a base of another user's is
 * never replaced (-EEXIST, e filled when not NULL, naming shown or base). 0 or -errno; on error
 * the temporary name is removed. */
int out_file_commit(struct out_file *f, int dirfd, const char *base, bool replace, const char *shown,
		    struct ps_error *e);
/* Give up: the temporary name removed, the descriptor closed. */
void out_file_abort(struct out_file *f, int dirfd);

/* A file being written at a path: its directory checked and held open
 * (out_dir_open), the content in an unnamed file there (out_file_begin)
 * until out_dest_commit names it. */
struct out_dest {
	int dirfd;
	struct out_file f;           /* f.fd: write here */
	char base[NAME_MAX + 1];
	const char *path;            /* as given, for messages */
};

/* Start the file at path (hint: a word for a temporary name). 0, or
 * -errno with e filled and nothing left to undo. */
int out_dest_begin(struct out_dest *d, const char *path, const char *hint, mode_t mode, struct ps_error *e);
/* Sync and name it (replace: as out_file_commit); the directory is
 * closed, d->f.fd stays open for the caller. 0 or -errno with e filled
 * (then call out_dest_abort). */
int out_dest_commit(struct out_dest *d, bool replace, struct ps_error *e);
/* Give up: no name, the temporary removed, both descriptors closed. */
void out_dest_abort(struct out_dest *d);

/* Remove the file base (a name in dirfd, from out_dir_open): only a
 * regular file (never a link or a directory) that owner owns. 0, or
 * -errno with e filled (-EPERM: not such a file, left alone). */
int out_file_remove(int dirfd, const char *base, uid_t owner, struct ps_error *e);

/* An unnamed read-write scratch file under dir (O_TMPFILE, else a name
 * unlinked at once). A descriptor or -errno with e filled. */
int out_scratch(const char *dir, struct ps_error *e);

/* Call write(f, arg) on a new file and put it in place as path (mode
 * 0644), replacing an old one. write returns 0 or -errno. Returns 0 or
 * -errno with e filled. */
int out_save(const char *path, int (*write)(FILE *f, void *arg), void *arg, struct ps_error *e);
/* The same with the file's mode (0600 for settings). */
int out_save_mode(const char *path, mode_t mode, int (*write)(FILE *f, void *arg), void *arg, struct ps_error *e);

#endif
