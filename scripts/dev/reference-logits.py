#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent float64 forward pass of a small F32 llama GGUF (e.g. stories260K).

Compares the reference logits shipped beside the model with exact arithmetic and, optionally,
with logits dumped by Hearth (n_steps x n_vocab float32). Used to show where differences come
from: the shipped reference was produced with reduced-precision attention (F16 KV cache), so it
differs from exact math by up to ~0.024, while Hearth's F32 engine matches exact math to ~1e-5.

It also runs the same pass with llama.cpp's F16 attention (K, V, Q and the probabilities
rounded to F16) twice, once with float64 and once with float32 products. The first matches the
reference to < 2e-4 for the first 11 steps, which pins down how the reference was made; the two
then differ from each other by several 1e-3: F16 rounding is discontinuous, so the last bit of
any F32 sum flips roundings that the model amplifies. A 1e-3 match at every step would need
llama.cpp's exact summation order on the machine that produced the file.

usage: reference-logits.py MODEL.gguf REFERENCE.logits.f32 [HEARTH.f32]   (needs numpy)
"""
import struct
import sys

import numpy as np

PROMPT = [1, 403, 407, 261, 378]
GENERATED = [int(x) for x in """432 383 286 261 376 298 315 421 395 317 426 338 401 396 267 337 410 408 419
    292 411 322 265 282 295 433 426 385 328 432 358 394 261 370 432 352 266 268 388 426 338 391 266 267 337
    335 312 432 398 312 286 267 414 270 333 415 426 13 438 310 439 419 357 336""".split()]


def read_gguf(path):
    data = open(path, 'rb').read()
    pos = 8  # magic + version
    def take(fmt):
        nonlocal pos
        values = struct.unpack_from('<' + fmt, data, pos)
        pos += struct.calcsize('<' + fmt)
        return values[0]
    def text():
        nonlocal pos
        n = take('Q')
        pos += n
        return data[pos - n:pos].decode('utf-8', 'replace')
    scalar = {0: 'B', 1: 'b', 2: 'H', 3: 'h', 4: 'I', 5: 'i', 6: 'f', 7: '?', 10: 'Q', 11: 'q', 12: 'd'}
    def value(kind):
        if kind in scalar:
            return take(scalar[kind])
        if kind == 8:
            return text()
        element, count = take('I'), take('Q')
        return [value(element) for _ in range(count)]
    n_tensors, n_kv = take('Q'), take('Q')
    meta = {}
    for _ in range(n_kv):
        key = text()
        meta[key] = value(take('I'))
    infos = {}
    for _ in range(n_tensors):
        name = text()
        dims = [take('Q') for _ in range(take('I'))]
        kind, offset = take('I'), take('Q')
        infos[name] = (dims, kind, offset)
    align = meta.get('general.alignment', 32)
    base = (pos + align - 1) // align * align
    tensors = {}
    for name, (dims, kind, offset) in infos.items():
        assert kind == 0, 'only F32 models are supported'
        count = int(np.prod(dims))
        array = np.frombuffer(data, dtype=np.float32, count=count, offset=base + offset)
        tensors[name] = array.reshape(list(reversed(dims))).astype(np.float64)
    return meta, tensors


def forward_all(meta, w, tokens, f16_attention=False, dtype=np.float64):
    w = {name: tensor.astype(dtype) for name, tensor in w.items()}
    half = (lambda a: a.astype(np.float16).astype(dtype)) if f16_attention else (lambda a: a)
    n_layer = meta['llama.block_count']
    n_head = meta['llama.attention.head_count']
    n_head_kv = meta['llama.attention.head_count_kv']
    eps = meta['llama.attention.layer_norm_rms_epsilon']
    base = meta.get('llama.rope.freq_base', 10000.0)
    embd = w['token_embd.weight']
    out = w.get('output.weight', embd)
    head_dim = embd.shape[1] // n_head
    rms = lambda x, g: x / np.sqrt(np.mean(x * x) + eps) * g
    def rope(v, p):
        v = v.copy()
        for i in range(0, head_dim, 2):
            theta = p * base ** (-i / head_dim)
            c, s = np.cos(theta), np.sin(theta)
            a, b = v[:, i].copy(), v[:, i + 1].copy()
            v[:, i], v[:, i + 1] = a * c - b * s, a * s + b * c
        return v
    keys = [[] for _ in range(n_layer)]
    values = [[] for _ in range(n_layer)]
    for p, token in enumerate(tokens):
        x = embd[token].copy()
        for l in range(n_layer):
            b = f'blk.{l}.'
            h = rms(x, w[b + 'attn_norm.weight'])
            q = half(rope((w[b + 'attn_q.weight'] @ h).reshape(n_head, head_dim), p))
            keys[l].append(half(rope((w[b + 'attn_k.weight'] @ h).reshape(n_head_kv, head_dim), p)))
            values[l].append(half((w[b + 'attn_v.weight'] @ h).reshape(n_head_kv, head_dim)))
            k, v = np.stack(keys[l]), np.stack(values[l])
            o = np.zeros((n_head, head_dim))
            for head in range(n_head):
                g = head // (n_head // n_head_kv)
                score = k[:, g, :] @ q[head] / np.sqrt(head_dim)
                score = np.exp(score - score.max())
                o[head] = half(score / score.sum()) @ v[:, g, :]
            x = x + w[b + 'attn_output.weight'] @ o.reshape(-1)
            h = rms(x, w[b + 'ffn_norm.weight'])
            gate, up = w[b + 'ffn_gate.weight'] @ h, w[b + 'ffn_up.weight'] @ h
            x = x + w[b + 'ffn_down.weight'] @ (gate / (1 + np.exp(-gate)) * up)
        yield out @ rms(x, w['output_norm.weight'])


def main():
    meta, weights = read_gguf(sys.argv[1])
    reference = np.fromfile(sys.argv[2], dtype=np.float32, offset=8).reshape(len(GENERATED), -1)
    tokens = PROMPT + GENERATED[:-1]
    exact = np.array(list(forward_all(meta, weights, tokens))[len(PROMPT) - 1:])
    print(f'reference vs float64: max |diff| {np.abs(exact - reference).max():.3g}')
    run = lambda **kw: np.array(list(forward_all(meta, weights, tokens, **kw))[len(PROMPT) - 1:])
    f16_64, f16_32 = run(f16_attention=True), run(f16_attention=True, dtype=np.float32)
    per_step = np.abs(f16_64 - reference).max(axis=1)
    print(f'reference vs float64 with F16 attention: steps 0-10 max {per_step[:11].max():.3g}, '
          f'all steps max {per_step.max():.3g}, {int((per_step > 1e-3).sum())} steps > 1e-3')
    print(f'F16 attention, float32 vs float64 products: max |diff| {np.abs(f16_32 - f16_64).max():.3g}')
    if len(sys.argv) > 3:
        hearth = np.fromfile(sys.argv[3], dtype=np.float32).reshape(exact.shape)
        print(f'hearth vs float64:    max |diff| {np.abs(exact - hearth).max():.3g}')
        print(f'hearth vs reference:  max |diff| {np.abs(reference - hearth).max():.3g}')


if __name__ == '__main__':
    main()
