// SPDX-License-Identifier: MIT
#pragma once

// How the CUDA kernels read weight blocks: a weight of a row (elementAt) and one lane's share of
// a row's dot product (laneDot), for every type of isWeightType(). The layouts are the CPU's
// (engine/src/cpu/quant_blocks.h), and so are the values: elementAt() gives cpu::getRow()'s.
// Everything here is host-callable too, so that tests/gpu/cuda_blocks_check.cpp compares it with
// the CPU's dequantization on machines without a GPU.

#include "cuda/cuda_kernels.cuh"

#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>

namespace hearth::cuda {

constexpr int kQK = 32;    // weights per block of the 32-weight types
constexpr int kQK_K = 256; // weights per super-block (K-quants, IQ4_XS)

// Bytes of one block of @p Type: 32 weights, or a super-block of 256 (kSuperBlock).
template <std::uint32_t Type>
constexpr int kBlockBytes = Type == kQ4_0 || Type == kIQ4_NL ? 18
                            : Type == kMXFP4                 ? 17
                            : Type == kQ4_1                  ? 20
                            : Type == kQ5_0                  ? 22
                            : Type == kQ5_1                  ? 24
                            : Type == kQ8_0                  ? 34
                            : Type == kQ2_K                  ? 84
                            : Type == kQ3_K                  ? 110
                            : Type == kIQ4_XS                ? 136
                            : Type == kQ4_K                  ? 144
                            : Type == kQ5_K                  ? 176
                            : Type == kQ6_K                  ? 210
                                                             : 0;
template <std::uint32_t Type>
constexpr bool kSuperBlock = Type == kQ2_K || Type == kQ3_K || Type == kQ4_K || Type == kQ5_K || Type == kQ6_K
                             || Type == kIQ4_XS;
// 32-weight blocks of a scale (fp16, or MXFP4's exponent byte), [an fp16 offset,] [32 fifth
// bits,] 16 bytes of nibbles: weight j is the low nibble of byte j, weight 16 + j its high nibble.
template <std::uint32_t Type>
constexpr bool kNibbles32 =
    Type == kQ4_0 || Type == kQ4_1 || Type == kQ5_0 || Type == kQ5_1 || Type == kIQ4_NL || Type == kMXFP4;
template <std::uint32_t Type>
constexpr bool kHasOffset = Type == kQ4_1 || Type == kQ5_1; // value = q * d + m
template <std::uint32_t Type>
constexpr int kFifthBits = Type == kQ5_0 ? 2 : Type == kQ5_1 ? 4 : 0; // offset of the 32 bits, 0: none

__host__ __device__ __forceinline__ float loadHalf(const std::uint8_t* p)
{
    // Blocks are 2-byte aligned (rows are an even number of bytes apart).
    return __half2float(*reinterpret_cast<const __half*>(p));
}

// Two bytes of a block that is only 2-byte aligned (Q4_0, Q5_0, Q8_0, Q3_K and Q6_K blocks are
// not 4-byte aligned in a row), as the low half of a word.
__host__ __device__ __forceinline__ std::uint32_t load16(const std::uint8_t* p)
{
    return *reinterpret_cast<const std::uint16_t*>(p);
}

__host__ __device__ __forceinline__ float bf16ToFloat(std::uint32_t bits)
{
#ifdef __CUDA_ARCH__
    return __uint_as_float(bits << 16);
#else
    const std::uint32_t wide = bits << 16;
    float f;
    std::memcpy(&f, &wide, sizeof f);
    return f;
#endif
}

// IQ4's non-linear levels (cpu::kIq4nlValues), from two words instead of a table in memory.
__host__ __device__ __forceinline__ int iq4Level(int q)
{
    const std::uint64_t word = q < 8 ? 0xf6eaddcfbfad9881ull : 0x7159453526190d01ull;
    return int(std::int8_t(std::uint8_t(word >> (8 * (q & 7)))));
}

// MXFP4's levels (cpu::kMxfp4Values: twice each E2M1 value), from two words as well.
__host__ __device__ __forceinline__ int mxfp4Level(int q)
{
    const std::uint64_t word = q < 8 ? 0x0c08060403020100ull : 0xf4f8fafcfdfeff00ull;
    return int(std::int8_t(std::uint8_t(word >> (8 * (q & 7)))));
}

// The level of weight j (nibble @p nibble, fifth bits @p qh) of a kNibbles32 block.
template <std::uint32_t Type>
__host__ __device__ __forceinline__ int nibbleLevel(int nibble, std::uint32_t qh, int j)
{
    if constexpr (Type == kIQ4_NL)
        return iq4Level(nibble);
    if constexpr (Type == kMXFP4)
        return mxfp4Level(nibble);
    const int q = nibble | (kFifthBits<Type> ? int((qh >> j) & 1u) << 4 : 0);
    return Type == kQ4_0 ? q - 8 : Type == kQ5_0 ? q - 16 : q;
}

// The scale of a kNibbles32 block: its fp16, or 2^(e - 128) for MXFP4 (cpu::mxfp4HalfScale).
template <std::uint32_t Type>
__host__ __device__ __forceinline__ float blockScale(const std::uint8_t* block)
{
    if constexpr (Type == kMXFP4) {
        const std::uint32_t e = block[0];
        const std::uint32_t bits = e < 2 ? 0x00200000u << e : (e - 1) << 23;
#ifdef __CUDA_ARCH__
        return __uint_as_float(bits);
#else
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return f;
#endif
    } else {
        return loadHalf(block);
    }
}

// Four nibble bytes of a kNibbles32 block from @p q: MXFP4's 17-byte blocks are not even
// 2-byte aligned, so they are read a byte at a time.
template <std::uint32_t Type>
__host__ __device__ __forceinline__ std::uint32_t nibbleWord(const std::uint8_t* q)
{
    if constexpr (Type == kMXFP4)
        return std::uint32_t(q[0]) | (std::uint32_t(q[1]) << 8) | (std::uint32_t(q[2]) << 16) | (std::uint32_t(q[3]) << 24);
    else
        return load16(q) | (load16(q + 2) << 16);
}

template <std::uint32_t Type>
__host__ __device__ __forceinline__ std::uint32_t fifthBits(const std::uint8_t* block)
{
    if constexpr (kFifthBits<Type> == 0)
        return 0;
    return load16(block + kFifthBits<Type>) | (load16(block + kFifthBits<Type> + 2) << 16);
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

// The scale of 16-weight sub-block @p sb of a Q3_K super-block: 6 bits, less 32.
__host__ __device__ __forceinline__ int scaleQ3K(const std::uint8_t* b, int sb)
{
    const int low = (b[96 + sb % 8] >> (4 * (sb / 8))) & 0x0f;
    const int high = (b[104 + sb % 4] >> (2 * (sb / 4))) & 3;
    return (low | (high << 4)) - 32;
}

// The scale of 32-weight sub-block @p s of an IQ4_XS super-block: 6 bits, less 32.
__host__ __device__ __forceinline__ int scaleIQ4XS(const std::uint8_t* b, int s)
{
    const int low = (b[4 + s / 2] >> (4 * (s % 2))) & 0x0f;
    const int high = int(load16(b + 2) >> (2 * s)) & 3;
    return (low | (high << 4)) - 32;
}

// Weight i (0..255) of a super-block, as the CPU's reference dequantizes it.
template <std::uint32_t Type>
__host__ __device__ __forceinline__ float superBlockElement(const std::uint8_t* b, int i)
{
    // Q2_K, Q3_K: two halves of 128, each four 2-bit planes of 32 bytes' worth.
    const int half = i / 128;
    const int plane = (i % 128) / 32;
    const int j = i % 32;
    if constexpr (Type == kQ2_K) {
        const int q = (b[16 + 32 * half + j] >> (2 * plane)) & 3;
        const int sb = i / 16;
        return loadHalf(b + 80) * float(b[sb] & 0x0f) * float(q) - loadHalf(b + 82) * float(b[sb] >> 4);
    } else if constexpr (Type == kQ3_K) {
        const int low = (b[32 + 32 * half + j] >> (2 * plane)) & 3;
        const bool high = (b[j] >> (4 * half + plane)) & 1;
        return loadHalf(b + 108) * float(scaleQ3K(b, i / 16)) * float(low - (high ? 0 : 4));
    } else if constexpr (Type == kIQ4_XS) {
        const int s = i / 32;
        const int byte = b[8 + 16 * s + j % 16];
        return loadHalf(b) * float(scaleIQ4XS(b, s)) * float(iq4Level(j < 16 ? (byte & 0x0f) : (byte >> 4)));
    } else if constexpr (Type == kQ6_K) {
        // Two halves of 128: ql bytes 64h.., qh bytes 32h..; four 32-weight quarters.
        const int byte = b[64 * half + j + 32 * (plane & 1)];
        const int low = plane < 2 ? (byte & 0x0f) : (byte >> 4);
        const int high = (b[128 + 32 * half + j] >> (2 * plane)) & 3;
        const int scale = reinterpret_cast<const std::int8_t*>(b + 192)[i / 16];
        return loadHalf(b + 208) * float(scale) * float((low | (high << 4)) - 32);
    } else {
        // Q4_K, Q5_K: four chunks of 64, 32 bytes each, low nibbles first (Q5_K: a fifth bit
        // from qh).
        const int chunk = i / 64;
        const int upper = (i % 64) / 32;
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

// Lanes cooperate inside each block so that a warp's loads cover contiguous bytes: four lanes per
// 32-weight block, 8 blocks a step; four lanes per 32-weight run of a super-block, one
// super-block a step. Each lane reads its bytes with 2-byte loads (the blocks are 2-byte aligned)
// and multiplies 8 weights.
constexpr int kLanesPerRun = 4;
constexpr int kRunsPerStep = kWarp / kLanesPerRun;

// One lane's share of super-block @p b's product with @p xr (weights 32 run + 8 part .. + 7,
// whose x starts at xr).
template <std::uint32_t Type>
__host__ __device__ __forceinline__ float superBlockShare(const std::uint8_t* b, const float* xr, int run, int part)
{
    const int first = 8 * part; // inside the run
    float s = 0.0f;
    if constexpr (Type == kQ2_K || Type == kQ3_K) {
        const int half = run / 4;
        const int plane = run % 4;
        const int sb = 2 * run + part / 2; // the 16-weight sub-block of these 8
        const std::uint8_t* qs = b + (Type == kQ2_K ? 16 : 32) + 32 * half + first;
        float xs = 0.0f;
        for (int k = 0; k < 8; ++k) {
            int q = (qs[k] >> (2 * plane)) & 3;
            if constexpr (Type == kQ3_K)
                q -= (b[first + k] >> (4 * half + plane)) & 1 ? 0 : 4;
            s += float(q) * xr[k];
            xs += xr[k];
        }
        if constexpr (Type == kQ2_K)
            return loadHalf(b + 80) * float(b[sb] & 0x0f) * s - loadHalf(b + 82) * float(b[sb] >> 4) * xs;
        return loadHalf(b + 108) * float(scaleQ3K(b, sb)) * s;
    } else if constexpr (Type == kIQ4_XS) {
        // Run r is sub-block r: parts 0-1 take low nibbles of its 16 bytes, parts 2-3 high ones.
        const std::uint8_t* qs = b + 8 + 16 * run + 8 * (part % 2);
        for (int k = 0; k < 8; ++k)
            s += float(iq4Level(part < 2 ? (qs[k] & 0x0f) : (qs[k] >> 4))) * xr[k];
        return loadHalf(b) * float(scaleIQ4XS(b, run)) * s;
    } else if constexpr (Type == kQ6_K) {
        const int h = run / 4;
        const int quarter = run % 4;
        const std::uint8_t* ql = b + 64 * h + 32 * (quarter & 1) + first;
        const std::uint8_t* qh = b + 128 + 32 * h + first;
        for (int k = 0; k < 8; ++k) {
            const int low = quarter < 2 ? (ql[k] & 0x0f) : (ql[k] >> 4);
            const int high = (qh[k] >> (2 * quarter)) & 3;
            s += float((low | (high << 4)) - 32) * xr[k];
        }
        // Scales cover 16 weights: these 8 share one.
        const int scale = reinterpret_cast<const std::int8_t*>(b + 192)[(run * kQK + first) / 16];
        return loadHalf(b + 208) * float(scale) * s;
    } else {
        const int chunk = run / 2;
        const int upper = run % 2;
        const std::uint8_t* qs = b + (Type == kQ5_K ? 48 : 16) + 32 * chunk + first;
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
        return loadHalf(b) * float(scale) * s - loadHalf(b + 2) * float(min) * xs;
    }
}

// One lane's share of W[row] . x: the lanes' shares add up to the whole product.
template <std::uint32_t Type>
__host__ __device__ float laneDot(const std::uint8_t* row, std::int64_t cols, const float* x, int lane)
{
    float sum = 0.0f;
    const int run = lane / kLanesPerRun;  // block (32-weight types) or run (super-blocks) of a step
    const int part = lane % kLanesPerRun; // which 8 weights of it
    if constexpr (Type == kF32) {
        const float* w = reinterpret_cast<const float*>(row);
        for (std::int64_t c = lane; c < cols; c += kWarp)
            sum += w[c] * x[c];
    } else if constexpr (Type == kF16 || Type == kBF16) {
        const auto widen = [](std::uint32_t bits) {
            if constexpr (Type == kF16) {
                __half h;
                const std::uint16_t b16 = std::uint16_t(bits);
                h = *reinterpret_cast<const __half*>(&b16);
                return __half2float(h);
            } else {
                return bf16ToFloat(bits);
            }
        };
        if (cols % 2 == 0) {
            // Rows of an even width are 4-byte aligned: two weights a load.
            const std::uint32_t* w = reinterpret_cast<const std::uint32_t*>(row);
            for (std::int64_t c = lane; c < cols / 2; c += kWarp) {
                const std::uint32_t pair = w[c];
                sum += widen(pair & 0xffffu) * x[2 * c] + widen(pair >> 16) * x[2 * c + 1];
            }
        } else {
            const std::uint16_t* w = reinterpret_cast<const std::uint16_t*>(row);
            for (std::int64_t c = lane; c < cols; c += kWarp)
                sum += widen(w[c]) * x[c];
        }
    } else if constexpr (kNibbles32<Type>) {
        // Part p holds nibble bytes 4p..4p+3: weights 4p..4p+3 (low nibbles) and 16+4p.. (high).
        const std::int64_t blocks = cols / kQK;
        for (std::int64_t b = run; b < blocks; b += kRunsPerStep) {
            const std::uint8_t* block = row + b * kBlockBytes<Type>;
            const std::uint8_t* q = block + kBlockBytes<Type> - 16 + 4 * part;
            const std::uint32_t v = nibbleWord<Type>(q);
            const std::uint32_t qh = fifthBits<Type>(block);
            const float* xb = x + b * kQK + 4 * part;
            float s = 0.0f;
            float xs = 0.0f;
            for (int k = 0; k < 4; ++k) {
                const int byte = int(v >> (8 * k)) & 0xff;
                const int j = 4 * part + k;
                s += float(nibbleLevel<Type>(byte & 0x0f, qh, j)) * xb[k]
                     + float(nibbleLevel<Type>(byte >> 4, qh, j + kQK / 2)) * xb[k + kQK / 2];
                if constexpr (kHasOffset<Type>)
                    xs += xb[k] + xb[k + kQK / 2];
            }
            sum += blockScale<Type>(block) * s;
            if constexpr (kHasOffset<Type>)
                sum += loadHalf(block + 2) * xs;
        }
    } else if constexpr (Type == kQ8_0) {
        const std::int64_t blocks = cols / kQK;
        for (std::int64_t b = run; b < blocks; b += kRunsPerStep) {
            const std::uint8_t* block = row + b * kBlockBytes<Type>;
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
        static_assert(kSuperBlock<Type>);
        const std::int64_t superBlocks = cols / kQK_K;
        for (std::int64_t sb = 0; sb < superBlocks; ++sb)
            sum += superBlockShare<Type>(row + sb * kBlockBytes<Type>, x + sb * kQK_K + run * kQK + 8 * part, run,
                                         part);
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
    } else if constexpr (Type == kBF16) {
        return bf16ToFloat(reinterpret_cast<const std::uint16_t*>(row)[e]);
    } else if constexpr (kNibbles32<Type>) {
        const std::uint8_t* block = row + (e / kQK) * kBlockBytes<Type>;
        const int j = int(e % kQK);
        const int byte = block[kBlockBytes<Type> - 16 + j % (kQK / 2)];
        const int level = nibbleLevel<Type>(j < kQK / 2 ? (byte & 0x0f) : (byte >> 4), fifthBits<Type>(block), j);
        if constexpr (kHasOffset<Type>)
            return float(level) * loadHalf(block) + loadHalf(block + 2);
        return float(level) * blockScale<Type>(block);
    } else if constexpr (kSuperBlock<Type>) {
        return superBlockElement<Type>(row + (e / kQK_K) * kBlockBytes<Type>, int(e % kQK_K));
    } else {
        const std::uint8_t* block = row + (e / kQK) * kBlockBytes<Type>;
        return loadHalf(block) * float(reinterpret_cast<const std::int8_t*>(block + 2)[e % kQK]);
    }
}

} // namespace hearth::cuda
