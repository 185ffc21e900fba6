/* gradcheck.h — the pieces of a finite-difference gradient check through logt_net.
 *
 * The loss is L = sum(dh ⊙ h), so dL/dh = dh and a backward from dh gives dL/dθ for
 * every parameter, input and initial state; numgrad measures the same by central
 * differences along one scalar.
 */
#ifndef LOGT_TEST_GRADCHECK_H
#define LOGT_TEST_GRADCHECK_H

#include <criterion/criterion.h>

#include "../core/rng.h"
#include "../models/model.h"

/* L = sum(dh ⊙ h): its gradient with respect to h is dh. */
static inline double loss_of(logt_net *net, const logt_tensor *x, const double *dh)
{
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, x, &h, NULL), LOGT_OK, "%s", logt_errmsg());
    double L = 0;
    for (int64_t i = 0; i < h->numel; i++) L += dh[i] * ((double *)h->data)[i];
    return L;
}

static inline void fill(double *p, int64_t n, uint64_t stream)
{
    for (int64_t i = 0; i < n; i++) p[i] = 2 * logt_uniform(99, stream, (uint64_t)i) - 1;
}

/* Central difference of L along one scalar p. Step 1e-5: truncation ~1e-10, rounding ~1e-11. */
static inline double numgrad(logt_net *net, const logt_tensor *x, const double *dh, double *p)
{
    const double eps = 1e-5, keep = *p;
    *p = keep + eps;
    double up = loss_of(net, x, dh);
    *p = keep - eps;
    double down = loss_of(net, x, dh);
    *p = keep;
    return (up - down) / (2 * eps);
}

#endif
