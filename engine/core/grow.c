/* grow.c - see internal/grow.h. */
#include "internal/grow.h"

#include <stdlib.h>

int dpi_grow(void **p, uint32_t *cap, uint64_t need, size_t elem,
	     uint32_t first)
{
	if (need <= *cap)
		return 0;
	if (need > UINT32_MAX)
		return -1;
	uint64_t nc =
		*cap ? (uint64_t)*cap + *cap / 2 + 1 : (first ? first : 1);
	if (nc < need)
		nc = need;
	if (nc > UINT32_MAX)
		nc = UINT32_MAX;
	void *q = realloc(*p, (size_t)nc * elem);
	if (!q)
		return -1;
	*p = q;
	*cap = (uint32_t)nc;
	return 0;
}
