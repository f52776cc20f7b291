// SPDX-License-Identifier: MIT
#include "check_support.h"

#include "cpu/quant.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>

namespace hearth::gpucheck {

std::vector<float> randomFloats(std::size_t n, std::uint32_t seed, float scale)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, scale);
    std::vector<float> v(n);
    for (float& x : v)
        x = dist(rng);
    return v;
}

std::vector<std::uint8_t> randomMatrix(DType type, std::int64_t rows, std::int64_t cols, std::uint32_t seed)
{
    const std::vector<float> f = randomFloats(std::size_t(rows * cols), seed, 1.0f / std::sqrt(float(cols)));
    const std::size_t stride = rowBytes(type, cols);
    std::vector<std::uint8_t> out(stride * std::size_t(rows));
    for (std::int64_t r = 0; r < rows; ++r)
        cpu::quantizeRow(type, f.data() + r * cols, out.data() + std::size_t(r) * stride, cols);
    return out;
}

double relativeError(const std::vector<float>& got, const std::vector<float>& want)
{
    if (got.size() != want.size())
        return 1e30;
    double scale = 1e-12;
    double err = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        scale = std::max(scale, double(std::fabs(want[i])));
        const double e = std::fabs(double(got[i]) - double(want[i]));
        if (!(e <= err)) // NaN counts as an infinite error
            err = std::isnan(e) ? 1e30 : e;
    }
    return err / scale;
}

std::string jsonEscape(const std::string& text)
{
    std::string out;
    for (char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            out += ' ';
        } else {
            out += c;
        }
    }
    return out;
}

bool writeFile(const std::string& path, const std::string& text)
{
    std::error_code ec;
    const std::filesystem::path p(path);
    if (p.has_parent_path())
        std::filesystem::create_directories(p.parent_path(), ec);
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
    return bool(f);
}

} // namespace hearth::gpucheck
