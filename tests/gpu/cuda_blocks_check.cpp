// SPDX-License-Identifier: MIT
// hearth-cuda-blocks-check: the CUDA kernels' block decoding (cuda/weight_blocks.cuh) run on the
// CPU, against the CPU's own dequantization. No GPU needed: the functions are host-callable, so
// every machine that has the CUDA toolkit checks them (CTest runs this), and a kernel's indexing
// bug shows up before a GPU is lent. For every weight type the kernels read:
//   * elementAt() equals cpu::getRow() weight for weight;
//   * the 32 lanes' laneDot() shares add up to the row's dot product (double reference);
// on rows of several widths, quantized from random floats and (the quantized types) made of
// random bytes with finite scales, placed at 2-byte-aligned addresses as rows of a matrix are.
// Exit status 0 when all agree, 1 otherwise.

#include "check_support.h"
#include "core/dtype.h"
#include "cpu/matmul.h"
#include "cuda/weight_blocks.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace hearth;

namespace {

template <std::uint32_t Type>
float element(const std::uint8_t* row, std::int64_t e)
{
    return cuda::elementAt<Type>(row, e);
}

template <std::uint32_t Type>
double laneSum(const std::uint8_t* row, std::int64_t cols, const float* x)
{
    double sum = 0;
    for (int lane = 0; lane < cuda::kWarp; ++lane)
        sum += cuda::laneDot<Type>(row, cols, x, lane);
    return sum;
}

struct Kernels {
    float (*element)(const std::uint8_t*, std::int64_t);
    double (*laneSum)(const std::uint8_t*, std::int64_t, const float*);
};

template <std::uint32_t Type>
Kernels kernelsOf()
{
    return {&element<Type>, &laneSum<Type>};
}

// The types of isWeightType(), as DTypes.
constexpr DType kTypes[] = {DType::F32,  DType::F16,  DType::BF16, DType::Q4_0, DType::Q4_1,
                            DType::Q5_0, DType::Q5_1, DType::Q8_0, DType::IQ4_NL, DType::Q2_K,
                            DType::Q3_K, DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::IQ4_XS, DType::MXFP4};

Kernels kernelsFor(DType t)
{
    switch (t) {
#define HEARTH_WEIGHT_TYPE(D, C) \
    case DType::D:               \
        return kernelsOf<cuda::C>();
        HEARTH_WEIGHT_TYPE(F32, kF32)
        HEARTH_WEIGHT_TYPE(F16, kF16)
        HEARTH_WEIGHT_TYPE(BF16, kBF16)
        HEARTH_WEIGHT_TYPE(Q4_0, kQ4_0)
        HEARTH_WEIGHT_TYPE(Q4_1, kQ4_1)
        HEARTH_WEIGHT_TYPE(Q5_0, kQ5_0)
        HEARTH_WEIGHT_TYPE(Q5_1, kQ5_1)
        HEARTH_WEIGHT_TYPE(Q8_0, kQ8_0)
        HEARTH_WEIGHT_TYPE(IQ4_NL, kIQ4_NL)
        HEARTH_WEIGHT_TYPE(Q2_K, kQ2_K)
        HEARTH_WEIGHT_TYPE(Q3_K, kQ3_K)
        HEARTH_WEIGHT_TYPE(Q4_K, kQ4_K)
        HEARTH_WEIGHT_TYPE(Q5_K, kQ5_K)
        HEARTH_WEIGHT_TYPE(Q6_K, kQ6_K)
        HEARTH_WEIGHT_TYPE(IQ4_XS, kIQ4_XS)
        HEARTH_WEIGHT_TYPE(MXFP4, kMXFP4)
#undef HEARTH_WEIGHT_TYPE
    default:
        return {nullptr, nullptr};
    }
}

// Offsets of the fp16 scales in a block of @p t (random bytes there could be NaN or infinite).
std::vector<int> halfOffsets(DType t)
{
    switch (t) {
    case DType::Q4_0:
    case DType::Q5_0:
    case DType::Q8_0:
    case DType::IQ4_NL:
    case DType::IQ4_XS:
        return {0};
    case DType::Q4_1:
    case DType::Q5_1:
    case DType::Q4_K:
    case DType::Q5_K:
        return {0, 2};
    case DType::Q2_K:
        return {80, 82};
    case DType::Q3_K:
        return {108};
    case DType::Q6_K:
        return {208};
    default:
        return {};
    }
}

// Random bytes in @p t's blocks, with small finite scales.
std::vector<std::uint8_t> randomBlocks(DType t, std::int64_t rows, std::int64_t cols, std::mt19937& rng)
{
    const std::size_t rowSize = rowBytes(t, cols);
    std::vector<std::uint8_t> bytes(rowSize * std::size_t(rows));
    std::uniform_int_distribution<int> byte(0, 255);
    for (auto& b : bytes)
        b = std::uint8_t(byte(rng));
    const std::size_t block = dtypeTraits(std::uint32_t(t))->blockBytes;
    std::uniform_real_distribution<float> scale(-0.05f, 0.05f);
    for (std::size_t at = 0; at < bytes.size(); at += block) {
        for (int offset : halfOffsets(t)) {
            const __half h = __float2half(scale(rng));
            std::memcpy(bytes.data() + at + std::size_t(offset), &h, 2);
        }
        // MXFP4's scale is an exponent byte: 2^-10 .. 2^1 times half a level.
        if (t == DType::MXFP4)
            bytes[at] = std::uint8_t(118 + byte(rng) % 12);
    }
    return bytes;
}

int g_failures = 0;
int g_checks = 0;

void check(DType t, const std::vector<std::uint8_t>& matrix, std::int64_t rows, std::int64_t cols, const char* what)
{
    const Kernels k = kernelsFor(t);
    const std::size_t rowSize = rowBytes(t, cols);
    const cpu::WeightMatrix w{t, matrix.data(), rows, cols};
    const auto x = gpucheck::randomFloats(std::size_t(cols), std::uint32_t(cols));
    // F32 rows need 4-byte alignment; the blocks of the others only 2, which is all a row of
    // Q4_0, Q8_0 or Q6_K gets.
    const std::size_t shift = t == DType::F32 ? 4 : 2;
    std::vector<std::uint8_t> placed(rowSize + 16);
    std::vector<float> ref(static_cast<std::size_t>(cols));
    double worstElement = 0;
    double worstDot = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
        std::uint8_t* row = placed.data() + shift;
        std::memcpy(row, matrix.data() + std::size_t(r) * rowSize, rowSize);
        cpu::getRow(w, r, ref.data());
        double scale = 0;
        double dot = 0;
        double magnitude = 0;
        for (std::int64_t e = 0; e < cols; ++e) {
            scale = std::max(scale, double(std::fabs(ref[std::size_t(e)])));
            dot += double(ref[std::size_t(e)]) * double(x[std::size_t(e)]);
            magnitude += std::fabs(double(ref[std::size_t(e)]) * double(x[std::size_t(e)]));
        }
        for (std::int64_t e = 0; e < cols; ++e) {
            const double err = std::fabs(double(k.element(row, e)) - double(ref[std::size_t(e)]));
            worstElement = std::max(worstElement, scale > 0 ? err / scale : err);
        }
        const double err = std::fabs(k.laneSum(row, cols, x.data()) - dot);
        worstDot = std::max(worstDot, magnitude > 0 ? err / magnitude : err);
    }
    // The CPU may order a K-quant weight's products differently: a float rounding apart.
    const bool pass = worstElement <= 1e-6 && worstDot <= 1e-5 && std::isfinite(worstDot);
    ++g_checks;
    g_failures += pass ? 0 : 1;
    std::printf("%-5s %-13s %6lld cols: element %.3g, lane dot %.3g  %s\n", std::string(dtypeName(t)).c_str(), what,
                static_cast<long long>(cols), worstElement, worstDot, pass ? "ok" : "FAIL");
}

} // namespace

int main()
{
    std::mt19937 rng(20261204);
    for (DType t : kTypes) {
        const std::int64_t block = dtypeTraits(std::uint32_t(t))->blockElements;
        // One block, a few, a width that is not a multiple of the 8 blocks a warp step takes,
        // and model widths; odd widths for the float types.
        std::vector<std::int64_t> widths = {block, 3 * block, 4096, 11008 / block * block};
        if (block == 1)
            widths.insert(widths.end(), {1, 33, 97});
        for (std::int64_t cols : widths) {
            check(t, gpucheck::randomMatrix(t, 6, cols, std::uint32_t(cols)), 6, cols, "quantized");
            if (block > 1)
                check(t, randomBlocks(t, 6, cols, rng), 6, cols, "random bytes");
        }
    }
    std::printf("%d checks, %d failed\n", g_checks, g_failures);
    return g_failures == 0 ? 0 : 1;
}
