// hostile-names: a symbol bomb. The hot function's mangled name is short
// (each parameter type refers back to the one before), but demangled it
// doubles at every level: f<void (*)(void (*)(int*, int*), void (*)(int*,
// int*))...>, 2^DEPTH copies of int*. A symbolizer that demangles without
// a budget spends memory and time exponential in a few dozen bytes.
// Prints "ready PID", then spins until killed.
#include <cstdio>
#include <unistd.h>

template <int N> struct bomb {
	typedef void (*type)(typename bomb<N - 1>::type, typename bomb<N - 1>::type);
};
template <> struct bomb<0> {
	typedef int *type;
};

volatile unsigned sink;

template <typename T> __attribute__((noinline)) void spin(T)
{
	for (unsigned i = 0; i < 100000000u; i++)
		sink = sink + i;
}

int main()
{
	std::printf("ready %d\n", (int)getpid());
	std::fflush(stdout);
	for (;;)
		spin<bomb<DEPTH>::type>(nullptr);
}
