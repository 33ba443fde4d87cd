# src/record/: recordings: the file format's pure parts (format.c, the
# frames' payload in frame2.c and frame1.c, the times a user names in when.c), the
# writer and the reader.
libpscope_a_SOURCES += src/record/format.h src/record/format.c src/record/record.h src/record/bytes.h src/record/frame1.c src/record/frame2.c \
	src/record/write.c src/record/read.c src/record/when.c src/record/exits.c \
	src/record/spool.h src/record/spool.c
