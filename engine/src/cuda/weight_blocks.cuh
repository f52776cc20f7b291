// SPDX-License-Identifier: MIT
#pragma once

// How the CUDA kernels read weight blocks: a weight of a row (elementAt) and one lane's share of
// a row's dot product (laneDot), for every type of isWeightType(). The layouts are the CPU's
// (engine/src/cpu/quant_blocks.h). Everything here is host-callable too, so that
// tests/gpu/cuda_blocks_check.cpp compares it with the CPU's dequantization on machines
// without a GPU.

#include "cuda/cuda_kernels.cuh"

#include <cuda_fp16.h>

#include <cstdint>

namespace hearth::cuda {

constexpr int kQK = 32;         // elements per Q4_0 / Q8_0 block
constexpr int kQ4Bytes = 18;    // fp16 scale + 16 bytes of nibbles
constexpr int kQ8Bytes = 34;    // fp16 scale + 32 int8
constexpr int kQK_K = 256;      // elements per K-quant super-block

// Bytes of one K-quant super-block (engine/src/cpu/quant_blocks.h has the layouts).
template <std::uint32_t Type>
constexpr int kSuperBlockBytes = Type == kQ4_K ? 144 : Type == kQ5_K ? 176 : 210;

__host__ __device__ __forceinline__ float loadHalf(const std::uint8_t* p)
{
    // Blocks are 2-byte aligned (rows are an even number of bytes apart).
    return __half2float(*reinterpret_cast<const __half*>(p));
}

// The scale and min of sub-block j of a Q4_K/Q5_K super-block from their 12-byte packing.
__host__ __device__ __forceinline__ void scaleMinK4(const std::uint8_t* s, int j, int& scale, int& min)
{
    if (j < 4) {
        scale = s[j] & 63;
        min = s[j + 4] & 63;
    } else {
        scale = (s[j + 4] & 0x0f) | ((s[j - 4] >> 6) << 4);
        min = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
}

// Weight i (0..255) of a K-quant super-block, as the CPU's reference dequantizes it.
template <std::uint32_t Type>
__host__ __device__ __forceinline__ float superBlockElement(const std::uint8_t* b, int i)
{
    if constexpr (Type == kQ6_K) {
        // Two halves of 128: ql bytes 64h.., qh bytes 32h..; four 32-weight quarters.
        const int h = i / 128;
        const int quarter = (i % 128) / 32;
        const int j = i % 32;
        const int byte = b[64 * h + j + 32 * (quarter & 1)];
        const int low = quarter < 2 ? (byte & 0x0f) : (byte >> 4);
        const int high = (b[128 + 32 * h + j] >> (2 * quarter)) & 3;
        const int scale = reinterpret_cast<const std::int8_t*>(b + 192)[i / 16];
        return loadHalf(b + 208) * float(scale) * float((low | (high << 4)) - 32);
    } else {
        // Four chunks of 64: 32 bytes each, low nibbles first (Q5_K: a fifth bit from qh).
        const int chunk = i / 64;
        const int upper = (i % 64) / 32;
        const int j = i % 32;
        const std::uint8_t* qs = b + (Type == kQ5_K ? 48 : 16);
        int q = upper ? (qs[32 * chunk + j] >> 4) : (qs[32 * chunk + j] & 0x0f);
        if constexpr (Type == kQ5_K)
            q |= ((b[16 + j] >> (2 * chunk + upper)) & 1) << 4;
        int scale;
        int min;
        scaleMinK4(b + 4, i / 32, scale, min);
        return loadHalf(b) * float(scale) * float(q) - loadHalf(b + 2) * float(min);
    }
}

// Two bytes of a block that is only 2-byte aligned (Q4_0, Q8_0 and Q6_K blocks are not 4-byte
// aligned in a row), as the low half of a word.
__host__ __device__ __forceinline__ std::uint32_t load16(const std::uint8_t* p)
{
    return *reinterpret_cast<const std::uint16_t*>(p);
}

// Lanes cooperate inside each block so that a warp's loads cover contiguous bytes: four lanes per
// 32-weight block (Q4_0, Q8_0), 8 blocks a step; four lanes per 32-weight run of a K-quant
// super-block, one super-block a step. Each lane reads its bytes with 2-byte loads (the blocks are
// 2-byte aligned) and multiplies 8 weights.
constexpr int kLanesPerRun = 4;
constexpr int kRunsPerStep = kWarp / kLanesPerRun;

// One lane's share of W[row] . x: the lanes' shares add up to the whole product. Host-callable so
// that the split can be checked without a GPU.
template <std::uint32_t Type>
__host__ __device__ float laneDot(const std::uint8_t* row, std::int64_t cols, const float* x, int lane)
{
    float sum = 0.0f;
    const int run = lane / kLanesPerRun;  // block (Q4_0/Q8_0) or run (K-quants) of this step
    const int part = lane % kLanesPerRun; // which 8 weights of it
    if constexpr (Type == kF32) {
        const float* w = reinterpret_cast<const float*>(row);
        for (std::int64_t c = lane; c < cols; c += kWarp)
            sum += w[c] * x[c];
    } else if constexpr (Type == kF16) {
        if (cols % 2 == 0) {
            // Rows of an even width are 4-byte aligned: two weights a load.
            const __half2* w = reinterpret_cast<const __half2*>(row);
            for (std::int64_t c = lane; c < cols / 2; c += kWarp) {
                const float2 f = __half22float2(w[c]);
                sum += f.x * x[2 * c] + f.y * x[2 * c + 1];
            }
        } else {
            const __half* w = reinterpret_cast<const __half*>(row);
            for (std::int64_t c = lane; c < cols; c += kWarp)
                sum += __half2float(w[c]) * x[c];
        }
    } else if constexpr (Type == kQ4_0) {
        // Part p holds bytes 4p..4p+3: weights 4p..4p+3 (low nibbles) and 16+4p.. (high).
        const std::int64_t blocks = cols / kQK;
        for (std::int64_t b = run; b < blocks; b += kRunsPerStep) {
            const std::uint8_t* block = row + b * kQ4Bytes;
            const std::uint8_t* q = block + 2 + 4 * part;
            const std::uint32_t v = load16(q) | (load16(q + 2) << 16);
            const float* xb = x + b * kQK + 4 * part;
            float s = 0.0f;
            for (int k = 0; k < 4; ++k) {
                const int byte = int(v >> (8 * k)) & 0xff;
                s += float((byte & 0x0f) - 8) * xb[k] + float((byte >> 4) - 8) * xb[k + kQK / 2];
            }
            sum += loadHalf(block) * s;
        }
    } else if constexpr (Type == kQ8_0) {
        const std::int64_t blocks = cols / kQK;
        for (std::int64_t b = run; b < blocks; b += kRunsPerStep) {
            const std::uint8_t* block = row + b * kQ8Bytes;
            const std::uint8_t* q = block + 2 + 8 * part;
            const float* xb = x + b * kQK + 8 * part;
            float s = 0.0f;
            for (int k = 0; k < 8; k += 2) {
                const std::uint32_t pair = load16(q + k);
                s += float(std::int8_t(pair & 0xff)) * xb[k] + float(std::int8_t(pair >> 8)) * xb[k + 1];
            }
            sum += loadHalf(block) * s;
        }
    } else {
        // K-quants: lane (run, part) takes weights 32 run + 8 part .. + 7 of each super-block.
        const std::int64_t superBlocks = cols / kQK_K;
        const int first = 8 * part; // index inside the run
        for (std::int64_t sb = 0; sb < superBlocks; ++sb) {
            const std::uint8_t* b = row + sb * kSuperBlockBytes<Type>;
            const float* xr = x + sb * kQK_K + run * kQK + first;
            if constexpr (Type == kQ6_K) {
                const int h = run / 4;
                const int quarter = run % 4;
                const std::uint8_t* ql = b + 64 * h + 32 * (quarter & 1) + first;
                const std::uint8_t* qh = b + 128 + 32 * h + first;
                float s = 0.0f;
                for (int k = 0; k < 8; ++k) {
                    const int low = quarter < 2 ? (ql[k] & 0x0f) : (ql[k] >> 4);
                    const int high = (qh[k] >> (2 * quarter)) & 3;
                    s += float((low | (high << 4)) - 32) * xr[k];
                }
                // Scales cover 16 weights: these 8 share one.
                const int scale = reinterpret_cast<const std::int8_t*>(b + 192)[(run * kQK + first) / 16];
                sum += loadHalf(b + 208) * float(scale) * s;
            } else {
                const int chunk = run / 2;
                const int upper = run % 2;
                const std::uint8_t* qs = b + (Type == kQ5_K ? 48 : 16) + 32 * chunk + first;
                float s = 0.0f;
                float xs = 0.0f;
                for (int k = 0; k < 8; ++k) {
                    int q = upper ? (qs[k] >> 4) : (qs[k] & 0x0f);
                    if constexpr (Type == kQ5_K)
                        q |= ((b[16 + first + k] >> (2 * chunk + upper)) & 1) << 4;
                    s += float(q) * xr[k];
                    xs += xr[k];
                }
                int scale;
                int min;
                scaleMinK4(b + 4, run, scale, min);
                sum += loadHalf(b) * float(scale) * s - loadHalf(b + 2) * float(min) * xs;
            }
        }
    }
    return sum;
}

// Element e of row @p row.
template <std::uint32_t Type>
__host__ __device__ __forceinline__ float elementAt(const std::uint8_t* row, std::int64_t e)
{
    if constexpr (Type == kF32) {
        return reinterpret_cast<const float*>(row)[e];
    } else if constexpr (Type == kF16) {
        return __half2float(reinterpret_cast<const __half*>(row)[e]);
    } else if constexpr (Type == kQ4_0) {
        const std::uint8_t* block = row + (e / kQK) * kQ4Bytes;
        const int i = int(e % kQK);
        const int q = block[2 + (i % (kQK / 2))];
        const int nibble = i < kQK / 2 ? (q & 0x0f) : (q >> 4);
        return loadHalf(block) * float(nibble - 8);
    } else if constexpr (Type == kQ4_K || Type == kQ5_K || Type == kQ6_K) {
        return superBlockElement<Type>(row + (e / kQK_K) * kSuperBlockBytes<Type>, int(e % kQK_K));
    } else {
        const std::uint8_t* block = row + (e / kQK) * kQ8Bytes;
        return loadHalf(block) * float(reinterpret_cast<const std::int8_t*>(block + 2)[e % kQK]);
    }
}

} // namespace hearth::cuda
