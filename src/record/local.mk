# src/record/: recordings on disk (doc/record-format.md): the pure format
# (headers, index, intervals), the conversion from and to list snapshots,
# the writer and the reader.
libpscope_a_SOURCES += src/record/format.h src/record/format.c src/record/convert.h src/record/convert.c \
	src/record/file.h src/record/file.c src/record/read.c src/record/when.h src/record/when.c
