/* ilp_lp.c - a sparse MILP that grows column by column and row by row,
 * for ilp's model (see ilp.h). */
#include <stdlib.h>
#include <string.h>

#include "internal/arrays.h"
#include "internal/ilp.h"

bool dpi_ilp_lp_col(ilp_lp *lp, double lo, double hi, double obj, bool integ,
		    int *col)
{
	if (lp->ncols == lp->ccap) {
		int nc = lp->ccap ? lp->ccap * 2 : 1024;
		const dpi_arr arrs[] = {
			DPI_ARR(lp->clo, nc), DPI_ARR(lp->chi, nc),
			DPI_ARR(lp->obj, nc), DPI_ARR(lp->is_int, nc)};
		if (dpi_arrays_resize(arrs, DPI_NARR(arrs)))
			return false;
		lp->ccap = nc;
	}
	int j = lp->ncols++;
	lp->clo[j] = lo;
	lp->chi[j] = hi;
	lp->obj[j] = obj;
	lp->is_int[j] = integ ? 1 : 0;
	if (col)
		*col = j;
	return true;
}

/* Adds one coefficient to the row being built (the rows are closed by
 * lp_row_end). */
bool dpi_ilp_lp_nz(ilp_lp *lp, int col, double v)
{
	if (v == 0)
		return true;
	if (lp->nnz == lp->nzcap) {
		int nc = lp->nzcap ? lp->nzcap * 2 : 4096;
		const dpi_arr arrs[] = {DPI_ARR(lp->ridx, nc),
					DPI_ARR(lp->rval, nc)};
		if (dpi_arrays_resize(arrs, DPI_NARR(arrs)))
			return false;
		lp->nzcap = nc;
	}
	lp->ridx[lp->nnz] = col;
	lp->rval[lp->nnz++] = v;
	return true;
}

bool dpi_ilp_lp_row_end(ilp_lp *lp, double lo, double hi)
{
	if (lp->nrows + 1 >= lp->rcap) {
		int nc = lp->rcap ? lp->rcap * 2 : 1024;
		const dpi_arr arrs[] = {DPI_ARR(lp->rstart, (size_t)nc + 1),
					DPI_ARR(lp->rlo, nc),
					DPI_ARR(lp->rhi, nc)};
		if (dpi_arrays_resize(arrs, DPI_NARR(arrs)))
			return false;
		if (lp->rcap == 0)
			lp->rstart[0] = 0;
		lp->rcap = nc;
	}
	lp->rlo[lp->nrows] = lo;
	lp->rhi[lp->nrows] = hi;
	lp->rstart[++lp->nrows] = lp->nnz;
	return true;
}

void dpi_ilp_lp_free(ilp_lp *lp)
{
	DPI_FREE_ALL(lp->clo, lp->chi, lp->obj, lp->is_int, lp->rstart,
		     lp->ridx, lp->rval, lp->rlo, lp->rhi);
	memset(lp, 0, sizeof *lp);
}
