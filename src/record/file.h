/* A recording on disk (doc/record-format.md): the writer appends one
 * compressed frame per interval (synced: a crash loses at most the one
 * being written) and an index with a footer when it is closed; the reader
 * finds the intervals through that index, or by reading the frame
 * headers when there is none (the recorder was killed), and says what it
 * skipped (a torn tail) or could not use (a damaged index). */
#ifndef PS_RECORD_FILE_H
#define PS_RECORD_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "reads.h"
#include "record/format.h"

struct rec_writer;
/* A new recording at path (a directory: a new file named by the time in
 * it; the name is in *made when not NULL): never an existing file,
 * never through another user's symbolic link or a directory others can
 * write without the sticky bit (src/out/save.c). 0 or -errno with e. */
int rec_writer_open(struct rec_writer **out, const char *path, const struct rec_header *h, char *made,
		    size_t made_size, struct ps_error *e);
/* Append one interval (a key one now and then, else the changes since
 * the last one), synced. 0 or -errno with e (a full disk: ENOSPC). */
int rec_writer_add(struct rec_writer *w, const struct rec_interval *iv, struct ps_error *e);
/* Bytes written so far, and the frames. */
uint64_t rec_writer_size(const struct rec_writer *w);
size_t rec_writer_count(const struct rec_writer *w);
/* Write the index and footer, close, free (NULL fine). 0 or -errno. */
int rec_writer_close(struct rec_writer *w, struct ps_error *e);

struct rec_reader {
	char path[4096];
	int fd;
	uint64_t size;
	struct rec_header h;
	struct rec_entry *v;       /* the intervals, oldest first */
	size_t n;
	bool indexed;              /* found through the footer's index */
	char note[1024];           /* what the reader skipped or rebuilt ("" none) */
	/* the last interval decoded (a delta needs the one before) */
	size_t cur_i;
	bool have_cur;
	struct rec_interval cur;
};
/* Open and index path; -errno with e naming the file and the offset. */
PS_READS int rec_reader_open(struct rec_reader **out, const char *path, struct ps_error *e);
/* Interval i (0..n-1), valid until the next call; -errno with e. */
PS_READS int rec_reader_get(struct rec_reader *r, size_t i, const struct rec_interval **out, struct ps_error *e);
void rec_reader_close(struct rec_reader *r);

/* Decompress n bytes of src into exactly raw bytes of dst: 0 or -errno. */
int rec_unpack(const uint8_t *src, size_t n, uint8_t *dst, size_t raw, struct ps_error *e);
/* The zstd library (loaded when first needed): false with why. */
bool rec_zstd_ok(struct ps_error *e);

#endif
