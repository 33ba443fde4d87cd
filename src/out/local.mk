# src/out/: batch writers: escaping (text), JSON (json-c), folded stacks.
libpscope_a_SOURCES += src/out/escape.c src/out/escape.h src/out/json.c src/out/json.h \
	src/out/folded.c src/out/folded.h src/out/svg.c src/out/svg.h src/out/svg-script.h src/out/profile.c src/out/profile.h src/out/pprof.c src/out/pprof.h src/out/pb.c src/out/pb.h src/out/speedscope.c src/out/speedscope.h src/out/save.c src/out/save.h src/out/trace.c src/out/trace.h
