// hotcpp: a C++ target whose hot function is a template member, so the
// sampler's names must come out demangled: hot::Worker<int>::spin(unsigned int).
// Prints "ready", then spins until killed.
#include <cstdio>

namespace hot {
template <typename T> struct Worker {
	volatile T acc = 0;
	__attribute__((noinline)) void spin(unsigned n)
	{
		for (unsigned i = 0; i < n; i++)
			acc = acc + (T)i;
	}
};
} // namespace hot

int main()
{
	hot::Worker<int> w;
	std::printf("ready\n");
	std::fflush(stdout);
	for (;;)
		w.spin(100000000u);
}
