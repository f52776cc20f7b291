// SPDX-License-Identifier: MIT
#pragma once

// Input sparsity: a projection y = W x skips the weights of the inputs it drops, when W is
// stored input-major (row i: input i's weight to every output, as ffn_down_t stores the down
// projection) and computed by sparse::DownProjection, which reads only rows whose input is not
// zero. Magnitude-sparse files made with input sparsity store the attention's q/k/v and output
// projections and the FFN's gate and up this way (model_loader.cpp).
//
//   sparse::dropSmallInputs(xn, tokens, nEmbd, layer.attnInputThresholds);
//   down->run(pool, layer.wq, xn, tokens, q); // and wk, wv: only the kept inputs' rows
//
// An input counts as small against the vector it belongs to: x_i is dropped when
// |x_i| < thresholds[i] * rms(x). hearth-sparsify chooses the thresholds on calibration text so
// that a given share of the scores |x_i| * ||column i of W|| / rms(x) falls below them (after
// TEAL, weighted by the weights as in WINA): the column's norm is what a dropped input would
// have moved the outputs by.

#include <cstdint>

namespace hearth::sparse {

// Zeroes the small inputs of @p x (@p tokens rows of @p width) in place.
void dropSmallInputs(float* x, int tokens, std::int64_t width, const float* thresholds);

} // namespace hearth::sparse
