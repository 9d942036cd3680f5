/* intmath.c - integer arithmetic (internal/intmath.h). */
#include "internal/intmath.h"

int64_t dpi_gcd64(int64_t a, int64_t b)
{
	while (b) {
		int64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}
