// SPDX-License-Identifier: MIT
#pragma once

// The C interface between the engine and libhearth-cuda.so. The module exports one function,
// hearth_cuda_backend_v1(), returning a table of plain C function pointers, so the engine never
// links against the CUDA runtime and no C++ type crosses the library boundary. Compiled by both
// the host compiler and nvcc: plain C types only.
//
// Every function returning int returns 0 on success or a HearthCudaResult code; the context's
// last error message explains it. Work is queued on the context's stream; synchronize waits.
//
// Growing the table: new entries go at the end, and struct_size tells the engine which ones a
// module has. The engine requires HEARTH_CUDA_V1_BASE_SIZE (the first release of the table) and
// treats a later entry that struct_size does not cover, or that is null, as an operation the
// module does not offer (ErrorCode::Unsupported), so an older module keeps working for the
// operations it has. Activation kinds follow device::Activation (0-3, 6 and 7 gated, 4 ReLU,
// 5 GELU; up is not read for 4 and 5); modules that predate a kind reject it as an invalid argument.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// 2: HearthCudaAttention::freq_factors; 3: attn_factor, window; 4: scale, soft_cap, activation 6,
// cache rows taken in turn (sliding-window caches); 5: half_cache; 6: activate's mask, matmul_transposed;
// 7: predictor_linear; 8: predictor_biased; 9: activate_floored; 10: attention_sinks, activation 7
#define HEARTH_CUDA_ABI_VERSION 10u

enum HearthCudaResult {
    HEARTH_CUDA_OK = 0,
    HEARTH_CUDA_NO_DRIVER = 1,        // libcuda missing or too old for the module's runtime
    HEARTH_CUDA_NO_DEVICE = 2,        // driver present, no usable GPU
    HEARTH_CUDA_OUT_OF_MEMORY = 3,
    HEARTH_CUDA_INVALID_ARGUMENT = 4,
    HEARTH_CUDA_UNSUPPORTED = 5,
    HEARTH_CUDA_FAILED = 6,           // any other CUDA or cuBLAS error
};

typedef struct HearthCudaContext HearthCudaContext;

// Weight matrix on the device: rows of cols elements, rows row_bytes apart. type is the GGUF
// type id (0 F32, 1 F16, 2 Q4_0, 8 Q8_0).
typedef struct HearthCudaMatrix {
    uint32_t type;
    const void* data;
    int64_t rows;
    int64_t cols;
    uint64_t row_bytes;
} HearthCudaMatrix;

typedef struct HearthCudaAttention {
    float* q;
    const float* k;
    const float* v;
    void* k_cache;             // [capacity][n_head_kv * head_dim] floats, or halves with half_cache
    void* v_cache;
    float* scores;
    float* out;
    int32_t pos;
    int32_t capacity;          // rows of k_cache / v_cache: position p takes row p % capacity (ABI 4)
    int32_t n_head;
    int32_t n_head_kv;
    int32_t head_dim;
    int32_t n_rot;
    float freq_base;
    float freq_scale;
    const float* freq_factors; // n_rot / 2 RoPE frequency divisors on the device, or null (Llama 3.1's rope_freqs)
    float attn_factor;         // scale of the RoPE cos and sin (LongRoPE), 1 for none
    int32_t window;            // sliding window: keys of positions (pos - window, pos]; 0: all
    float scale;               // of q . k; 0: 1 / sqrt(head_dim)
    float soft_cap;            // scores become soft_cap * tanh(score / soft_cap); 0: none
    int32_t half_cache;        // 1: the caches hold F16; k is rotated, then rounded and stored (ABI 5)
} HearthCudaAttention;

typedef struct HearthCudaBackendV1 {
    uint32_t abi_version; // HEARTH_CUDA_ABI_VERSION
    uint32_t struct_size; // sizeof(HearthCudaBackendV1) as the module was built

    // Opens GPU @p device_index. On failure *ctx is null and message holds the reason.
    int (*create)(int device_index, HearthCudaContext** ctx, char* message, size_t message_size);
    void (*destroy)(HearthCudaContext* ctx);
    const char* (*last_error)(const HearthCudaContext* ctx);
    // Name, total and free memory of the context's GPU.
    int (*device_info)(HearthCudaContext* ctx, char* name, size_t name_size, uint64_t* total_bytes,
                       uint64_t* free_bytes);
    // Bytes the context itself holds on the GPU (cuBLAS workspace, conversion scratch), so the
    // engine can charge them to the budget.
    uint64_t (*internal_bytes)(const HearthCudaContext* ctx);

    int (*alloc)(HearthCudaContext* ctx, uint64_t bytes, void** ptr);
    void (*free)(HearthCudaContext* ctx, void* ptr);
    int (*upload)(HearthCudaContext* ctx, void* dst, const void* src, uint64_t bytes);
    int (*download)(HearthCudaContext* ctx, void* dst, const void* src, uint64_t bytes);
    int (*synchronize)(HearthCudaContext* ctx);

    int (*matmul)(HearthCudaContext* ctx, const HearthCudaMatrix* w, const float* x, int64_t tokens, float* y);
    int (*rows_dot)(HearthCudaContext* ctx, const HearthCudaMatrix* w, const float* x, const int32_t* index,
                    int64_t count, float* y);
    int (*down_accumulate)(HearthCudaContext* ctx, const HearthCudaMatrix* w, const float* act,
                           const int32_t* index, int64_t count, float* y, int accumulate);
    // mask (may be null, ABI 6): n bytes; gate[i] = 0 where mask[i] is 0.
    int (*activate)(HearthCudaContext* ctx, int kind, float* gate, const float* up, const uint8_t* mask, int64_t n);
    int (*predictor)(HearthCudaContext* ctx, const HearthCudaMatrix* fc1, const HearthCudaMatrix* fc2,
                     const float* x, float threshold, float* hidden, float* logits, int32_t* active,
                     int32_t* active_count);
    int (*rms_norm)(HearthCudaContext* ctx, const float* x, const float* weight, float eps, int64_t n,
                    int64_t tokens, float* out);
    int (*attention)(HearthCudaContext* ctx, const HearthCudaAttention* args);
    int (*add)(HearthCudaContext* ctx, float* y, const float* x, int64_t n);

    // --- Added for falcon and opt layers, and later (optional, see above). ---
    // LayerNorm over tokens rows of n: (x - mean) / sqrt(var + eps) * weight + bias; bias may be
    // null. out may be x.
    int (*layer_norm)(HearthCudaContext* ctx, const float* x, const float* weight, const float* bias, float eps,
                      int64_t n, int64_t tokens, float* out);
    // y[t][i] += bias[i] for i < n, t < tokens.
    int (*bias_add)(HearthCudaContext* ctx, float* y, const float* bias, int64_t n, int64_t tokens);
    // attention with a rotary style: 0 llama "normal" pairs (what attention does), 1 GPT-NeoX
    // halves, 2 none.
    int (*attention_rope)(HearthCudaContext* ctx, const HearthCudaAttention* args, int rope_style);
    // y[t][c] = sum over r of x[t][r] * w[r][c] (x: tokens x rows, y: tokens x cols), ABI 6: a
    // batch's down projection over neuron-major rows.
    int (*matmul_transposed)(HearthCudaContext* ctx, const HearthCudaMatrix* w, const float* x, int64_t tokens,
                             float* y);
    // predictor without the ReLU between fc1 and fc2 (ABI 7): Hearth's fitted linear predictors.
    int (*predictor_linear)(HearthCudaContext* ctx, const HearthCudaMatrix* fc1, const HearthCudaMatrix* fc2,
                            const float* x, float threshold, float* hidden, float* logits, int32_t* active,
                            int32_t* active_count);
    // predictor (with the ReLU when relu is 1, without when 0) whose logits get bias (fc2 rows
    // floats) added before the threshold (ABI 8): predictors fitted to a LayerNorm's output.
    int (*predictor_biased)(HearthCudaContext* ctx, const HearthCudaMatrix* fc1, const HearthCudaMatrix* fc2,
                            const float* x, int relu, const float* bias, float threshold, float* hidden,
                            float* logits, int32_t* active, int32_t* active_count);
    // activate for the gated kinds (0-3, 6) keeping gate[i] only where its gate part and the
    // result reach gate_floor[i % width] and act_floor[i % width] times scale[i / width] in
    // magnitude, else 0 (ABI 9): a magnitude-sparse layer's hot neurons.
    int (*activate_floored)(HearthCudaContext* ctx, int kind, float* gate, const float* up, const float* gate_floor,
                            const float* act_floor, const float* scale, int64_t width, int64_t n);
    // attention_rope whose heads' softmaxes also take sinks[h] (n_head floats on the device) as a
    // score that weighs no value (ABI 10): gpt-oss's attention sinks.
    int (*attention_sinks)(HearthCudaContext* ctx, const HearthCudaAttention* args, int rope_style,
                           const float* sinks);
} HearthCudaBackendV1;

// What every module of ABI 1 provides: the table up to and including add.
#define HEARTH_CUDA_V1_BASE_SIZE offsetof(HearthCudaBackendV1, layer_norm)

typedef const HearthCudaBackendV1* (*HearthCudaBackendEntry)(void);

#define HEARTH_CUDA_ENTRY_SYMBOL "hearth_cuda_backend_v1"

#ifdef __cplusplus
}
#endif
