# src/golang/: Go runtime reader: the goroutines (runtime.allgs) of a Go
# process, field offsets from its DWARF.
libpscope_a_SOURCES += src/golang/golang.h src/golang/goroutines.c
