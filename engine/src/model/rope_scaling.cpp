// SPDX-License-Identifier: MIT
#include "model/rope_scaling.h"

#include <cmath>
#include <numbers>

namespace hearth::model {

std::vector<float> llama3RopeFactors(int nRot, float freqBase, const Llama3RopeScaling& s)
{
    std::vector<float> factors;
    if (nRot < 2)
        return factors;
    factors.reserve(std::size_t(nRot / 2));
    const double lowWavelength = double(s.originalContextLength) / double(s.lowFreqFactor);
    const double highWavelength = double(s.originalContextLength) / double(s.highFreqFactor);
    for (int i = 0; i < nRot; i += 2) {
        const double frequency = std::pow(double(freqBase), -double(i) / double(nRot));
        const double wavelength = 2.0 * std::numbers::pi / frequency;
        if (wavelength < highWavelength) {
            factors.push_back(1.0f);
        } else if (wavelength > lowWavelength) {
            factors.push_back(s.factor);
        } else {
            const double smooth = (double(s.originalContextLength) / wavelength - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
            factors.push_back(float(1.0 / ((1.0 - smooth) / s.factor + smooth)));
        }
    }
    return factors;
}

} // namespace hearth::model
