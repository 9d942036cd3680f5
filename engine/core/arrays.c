/* arrays.c - see internal/arrays.h. */
#include "internal/arrays.h"

#include <stdint.h>
#include <stdlib.h>

int dpi_arrays_alloc(const dpi_arr *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t count = a[i].count ? a[i].count : 1;
		if (count > SIZE_MAX / a[i].elem)
			return -1;
		*a[i].p = a[i].zero ? calloc(count, a[i].elem)
				    : malloc(count * a[i].elem);
		if (!*a[i].p)
			return -1;
	}
	return 0;
}

int dpi_arrays_resize(const dpi_arr *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t count = a[i].count ? a[i].count : 1;
		if (count > SIZE_MAX / a[i].elem)
			return -1;
		void *q = realloc(*a[i].p, count * a[i].elem);
		if (!q)
			return -1;
		*a[i].p = q;
	}
	return 0;
}

void dpi_free_ptrs(void *const *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
}
