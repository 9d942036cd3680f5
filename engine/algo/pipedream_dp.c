/* pipedream_dp.c - the PipeDream planner's dynamic program (see
 * internal/pipedream.h for the model).
 *
 * The paper builds A(j, m), the best pipeline of the first j layers on m
 * machines, from the front. The 1F1B stash of a stage depends on how many
 * stages follow it, so we build from the back: V(i, m, q) is the slowest
 * stage of the best pipeline of layers i..n-1 on exactly m machines in
 * exactly q stages, and a stage i..j-1 on r replicas in front of V(j, m-r,
 * q-1) holds q micro-batches in flight. With a fixed replication r, m is
 * q r and the table is (n + 1) x (q + 1).
 */
#include "internal/arrays.h"
#include "internal/pipedream.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct pd_pre {
	double *c, *w, *st, *sh, *wv; /* prefix sums, n + 1 */
} pd_pre;

static double stage_time(const dpi_pipedream_problem *pb, const pd_pre *x, uint32_t i,
			 uint32_t j, int r, int q)
{
	double c = x->c[j] - x->c[i], w = x->w[j] - x->w[i];
	double st = x->st[j] - x->st[i], sh = x->sh[j] - x->sh[i];
	/* q stages from this one to the last: it is stage S - q of S */
	st += (dp_schedule_versions(pb->sch, q, 0) - 1) * (x->wv[j] - x->wv[i]);
	if (pb->m > 0 && q > pb->m)
		q = pb->m;
	double inflight = (double)((q + r - 1) / r);
	if (st + inflight * sh > (double)pb->cap)
		return INFINITY;
	/* 1F1B with a flush: the replicas' gradients are all-reduced once
	 * per step, after the last micro-batch, so the sync is paid once
	 * per m micro-batches and does not overlap the stage's compute */
	double t = c / r;
	if (r > 1)
		t += 2.0 * (r - 1) / r * w / pb->bw / (pb->m > 0 ? pb->m : 1);
	if (j < pb->n) {
		double comm = 2.0 * (pb->lat +
				     (double)pb->layers[j - 1].act / pb->bw);
		t = comm > t ? comm : t;
	}
	return t;
}

static int pre_make(const dpi_pipedream_problem *pb, pd_pre *x)
{
	size_t n = (size_t)pb->n + 1;
	x->c = calloc(5 * n, sizeof(double));
	if (!x->c)
		return -1;
	x->w = x->c + n;
	x->st = x->w + n;
	x->sh = x->st + n;
	x->wv = x->sh + n;
	for (uint32_t i = 0; i < pb->n; i++) {
		const dpi_pipedream_layer *l = &pb->layers[i];
		x->c[i + 1] = x->c[i] + l->time_us;
		x->w[i + 1] = x->w[i] + (double)l->weights;
		x->st[i + 1] = x->st[i] + (double)l->stat;
		x->sh[i + 1] = x->sh[i] + (double)l->stash;
		x->wv[i + 1] = x->wv[i] + (double)l->wts;
	}
	return 0;
}

double dpi_pipedream_cost(const dpi_pipedream_problem *pb, int S, const uint32_t *cut,
		   const int *rep)
{
	pd_pre x;
	if (pre_make(pb, &x))
		return INFINITY;
	double worst = 0;
	int used = 0;
	for (int s = 0; s < S; s++) {
		double t =
			stage_time(pb, &x, cut[s], cut[s + 1], rep[s], S - s);
		worst = t > worst ? t : worst;
		used += rep[s];
	}
	free(x.c);
	return used > pb->k ? INFINITY : worst;
}

dp_status dpi_pipedream_solve(const dpi_pipedream_problem *pb, int *S, uint32_t *cut,
		       int *rep, double *cost, dp_err *err)
{
	uint32_t n = pb->n;
	int K = pb->k, fixed = pb->rep;
	int Q = fixed > 0 ? K / fixed : K; /* most stages */
	if (Q > (int)n)
		Q = (int)n;
	if (n < 1 || Q < 1)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "pipedream: %u layers cannot make a "
				  "pipeline of stages of %d devices on %d",
				  n, fixed, K);
	size_t md = fixed > 0 ? 1 : (size_t)K + 1, qd = (size_t)Q + 1;
	size_t cells = ((size_t)n + 1) * md * qd;
	if (cells > ((size_t)1 << 24))
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "pipedream: %u layers on %d devices is too "
				  "large a table for free replication",
				  n, K);
	pd_pre x;
	double *V = malloc(cells * sizeof *V);
	uint32_t *nj = malloc(cells * sizeof *nj);
	int16_t *nr = malloc(cells * sizeof *nr);
	if (!V || !nj || !nr || pre_make(pb, &x)) {
		free(V);
		free(nj);
		free(nr);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory in the pipedream planner");
	}
#define AT(i, m, q) (((size_t)(i)*md + (size_t)(m)) * qd + (size_t)(q))
	for (size_t c = 0; c < cells; c++)
		V[c] = INFINITY;
	for (uint32_t i = n; i-- > 0;)
		for (int q = 1; q <= Q; q++)
			for (size_t mi = 0; mi < md; mi++) {
				int m = fixed > 0 ? q * fixed : (int)mi;
				if (m < q)
					continue;
				double best = INFINITY;
				uint32_t bj = 0;
				int br = 0;
				int r0 = fixed > 0 ? fixed : 1;
				int r1 = fixed > 0 ? fixed : m - (q - 1);
				for (uint32_t j = i + 1; j <= n; j++) {
					if (j == n && q != 1)
						break;
					if (j < n && q == 1)
						continue;
					for (int r = r0; r <= r1; r++) {
						double rest = 0;
						if (j < n) {
							size_t mm =
								fixed > 0
									? 0
									: (size_t)(m -
										   r);
							rest = V[AT(j, mm,
								    q - 1)];
						} else if (r != m) {
							continue;
						}
						if (!(rest < best))
							continue;
						double t = stage_time(pb, &x, i,
								      j, r, q);
						t = rest > t ? rest : t;
						if (t < best) {
							best = t;
							bj = j;
							br = r;
						}
					}
				}
				V[AT(i, mi, q)] = best;
				nj[AT(i, mi, q)] = bj;
				nr[AT(i, mi, q)] = (int16_t)br;
			}
	double best = INFINITY;
	int bq = 0;
	size_t bm = 0;
	for (int q = 1; q <= Q; q++)
		for (size_t mi = 0; mi < md; mi++) {
			int m = fixed > 0 ? q * fixed : (int)mi;
			if (m > K)
				continue;
			if (V[AT(0, mi, q)] < best) {
				best = V[AT(0, mi, q)];
				bq = q;
				bm = mi;
			}
		}
	dp_status st = DP_OK;
	if (!(best < INFINITY)) {
		st = dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				"pipedream: no pipeline of %u layers on %d "
				"devices fits %lld bytes per device",
				n, K, (long long)pb->cap);
	} else {
		uint32_t i = 0;
		size_t mi = bm;
		*S = bq;
		for (int s = 0; s < bq; s++) {
			int q = bq - s;
			cut[s] = i;
			rep[s] = nr[AT(i, mi, q)];
			uint32_t j = nj[AT(i, mi, q)];
			if (fixed == 0)
				mi -= (size_t)rep[s];
			i = j;
		}
		cut[bq] = n;
		*cost = best;
	}
#undef AT
	DPI_FREE_ALL(x.c, V, nj, nr);
	return st;
}
