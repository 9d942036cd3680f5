/* intmath.h - integer arithmetic shared by the floors (engine/core/intmath.c). */
#ifndef DNNPART_INTMATH_H
#define DNNPART_INTMATH_H

#include <stdint.h>

/* The greatest common divisor of a and b (gcd(0, b) = b). */
int64_t dpi_gcd64(int64_t a, int64_t b);

#endif
