/* serve -> handle_request -> parse_payload, where parse_payload is a leaf
 * that sets up no frame (built with -momit-leaf-frame-pointer, or without
 * frame pointers at all) and takes ~70% of the time. A frame-pointer
 * chain skips handle_request; the CFI does not. Prints "ready". */
#include <stddef.h>
#include <stdio.h>

#define N 4096

static unsigned char payload[N];
volatile unsigned long sink;

__attribute__((noinline, noipa)) unsigned long parse_payload(const unsigned char *p, size_t n)
{
	unsigned long h = 5381;
	for (size_t r = 0; r < 7; r++)
		for (size_t i = 0; i < n; i++)
			h = (h * 33) ^ p[i];
	return h;
}

__attribute__((noinline, noipa)) void handle_request(unsigned k)
{
	unsigned long h = 0;
	for (size_t r = 0; r < 3; r++)
		for (size_t i = 0; i < N; i++)
			h = (h * 31) ^ (payload[i] + k);
	sink = h + parse_payload(payload, N);
}

__attribute__((noinline, noipa)) void serve(void)
{
	for (unsigned k = 0;; k++)
		handle_request(k);
}

int main(void)
{
	for (size_t i = 0; i < N; i++)
		payload[i] = (unsigned char)(i * 7);
	printf("ready\n");
	fflush(stdout);
	serve();
	return 0;
}
